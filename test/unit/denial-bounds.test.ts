// A denial stays bounded whatever the App: at most 50 problems then "and N more", each problem cut
// to a bounded length, and nothing in admission throws on size (a spread of 150,000 problems into
// one call once overflowed the stack and turned the denial into an internal error).
import { strict as assert } from 'node:assert';
import { cutText } from '../../shared/bounded-text.js';
import { formatErrors, MAX_ERROR_LENGTH, MAX_LISTED_ERRORS, validateApp } from '../../shared/validation.js';
import { admit, type Answer, type AdmissionReview } from '../../webhook/admission.js';
import { hugeApp, maxDenialLength } from '../support/huge-app.js';

const reviewOf = (object: unknown) => ({
  apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
  request: { uid: 'u-1', kind: { group: 'skiff.dev', version: 'v1alpha1', kind: 'App' }, operation: 'CREATE', name: 'web', namespace: 'shop', object },
});

const review = (a: Answer): AdmissionReview => {
  assert.equal(a.httpStatus, 200);
  return (a as Extract<Answer, { httpStatus: 200 }>).review;
};

const MAX_DENIAL_LENGTH = maxDenialLength(MAX_LISTED_ERRORS, MAX_ERROR_LENGTH);

describe('denials without bound', function () {
  this.timeout(60_000);
  // As many bad entries as env may have (512), each with a 10 KB value: 5 MiB of App.
  const app = hugeApp(512, 10_000);

  it('denies a 5 MiB App with 512 problems, naming 50 of them and counting the rest', () => {
    assert.ok(JSON.stringify(app).length > 5_000_000);
    for (const endpoint of ['validate', 'mutate'] as const) {
      const r = review(admit(endpoint, reviewOf(app)));
      assert.equal(r.response.allowed, false);
      assert.equal(r.response.status?.code, 422);
      const message = r.response.status!.message;
      const listed = message.split('; ');
      assert.equal(listed.pop(), 'and 462 more');
      assert.equal(listed.length, 50);
      assert.ok(listed.every((p) => /^spec\.env\[[0-9]+\]\.name: /.test(p)), message.slice(0, 500));
      assert.ok(message.length <= MAX_DENIAL_LENGTH, `${message.length} characters`);
    }
  });

  it('validateApp returns every problem without throwing', () => {
    assert.equal(validateApp(app).errors.length, 512);
  });

  it('a list past its bound is one problem, its 150,000 entries unchecked', () => {
    assert.deepEqual(validateApp(hugeApp(150_000, 16)).errors, [{ path: 'spec.env', message: 'must NOT have more than 512 items' }]);
  });

  it('cuts a problem that quotes a huge key or value', () => {
    const key = `${'a'.repeat(1_000_000)}/b c`;
    const errors = validateApp({ ...hugeApp(1), spec: { image: 'nginx:1.27', podLabels: { [key]: 'v' }, env: [{ name: 'A' }, { name: 'A' }] } }).errors;
    assert.ok(errors.some((e) => e.path.length > 1_000_000), 'the problem itself names the key in full');
    const message = formatErrors(errors);
    assert.ok(message.length < 2 * (MAX_ERROR_LENGTH + 30), `${message.length} characters`);
    assert.match(message, /… \([0-9]+ characters\)/);
    assert.match(message, /spec\.env\[1\]\.name: duplicate name "A"/);
  });

  it('lists up to 50 problems as they are, and says how many more', () => {
    const errors = Array.from({ length: 51 }, (_, i) => ({ path: `spec.p${i}`, message: 'bad' }));
    assert.equal(formatErrors(errors.slice(0, 50)).split('; ').length, 50);
    assert.doesNotMatch(formatErrors(errors.slice(0, 50)), /more/);
    assert.match(formatErrors(errors), /spec\.p49: bad; and 1 more$/);
  });

  it('quotes what a malformed review sent in a bounded message, whatever its size or depth', () => {
    // The webhook's Service can be called by any pod, not only the API server: the review's own
    // fields (kind, apiVersion, operation, request.kind) are text from outside too.
    const huge = 'x'.repeat(1_000_000);
    const deep = JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`);
    const kind = { group: 'skiff.dev', version: 'v1alpha1', kind: 'App' };
    const request = (extra: Record<string, unknown>) => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u-1', kind, operation: 'CREATE', object: {}, ...extra } });
    const malformed = [{ kind: huge }, { kind: deep }, { kind: 'AdmissionReview', apiVersion: huge }, { kind: 'AdmissionReview', apiVersion: deep }];
    for (const body of malformed) {
      const a = admit('validate', body);
      assert.equal(a.httpStatus, 400);
      const error = (a as Extract<Answer, { httpStatus: 400 }>).error;
      assert.ok(error.length <= 1024, `${error.length} characters`);
    }
    const denied = [request({ operation: huge }), request({ kind: { ...kind, kind: huge } }), request({ kind: { ...kind, group: huge } })];
    for (const body of denied) {
      const r = review(admit('validate', body));
      assert.equal(r.response.allowed, false);
      assert.ok(r.response.status!.message.length <= 1024, `${r.response.status!.message.length} characters`);
    }
    assert.match(review(admit('mutate', request({ operation: 'PATCH' }))).response.status!.message, /^unknown operation "PATCH"; expected CREATE/);
  });

  it('cutText keeps short text and never splits a surrogate pair', () => {
    assert.equal(cutText('abc', 3), 'abc');
    assert.equal(cutText('abcd', 3), 'abc… (4 characters)');
    assert.equal(cutText('ab😀', 3), 'ab… (4 characters)');
  });
});
