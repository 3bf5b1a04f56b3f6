import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { admit, parseReview, type Answer, type AdmissionReview } from '../../webhook/admission.js';
import { applyPatch, defaultsPatch, type JsonPatchOp } from '../../shared/defaults.js';
import { appManifest } from '../support/app-fixture.js';

const APP_KIND = { group: 'skiff.dev', version: 'v1alpha1', kind: 'App' };

/** A review of a copy of `object`, as the server's own parse of a body is: /mutate fills the defaults into the object it is given. */
function reviewOf(object: unknown, extra: Record<string, unknown> = {}) {
  object = structuredClone(object);
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'd3b07384-d9a0-4c9b-8a7e-5f1f0c0b3e11', kind: APP_KIND, operation: 'CREATE', name: 'web', namespace: 'shop', object, ...extra },
  };
}

function reviewFrom(answer: Answer): AdmissionReview {
  assert.equal(answer.httpStatus, 200, JSON.stringify(answer));
  return (answer as Extract<Answer, { httpStatus: 200 }>).review;
}

const decodePatch = (r: AdmissionReview): JsonPatchOp[] => JSON.parse(Buffer.from(r.response.patch!, 'base64').toString('utf8'));

describe('admission: /mutate', () => {
  it('answers with an AdmissionReview v1 echoing the uid and a base64 JSON Patch of the defaults', () => {
    const r = reviewFrom(admit('mutate', reviewOf(appManifest({ image: 'nginx:1.27' }))));
    assert.equal(r.apiVersion, 'admission.k8s.io/v1');
    assert.equal(r.kind, 'AdmissionReview');
    assert.equal(r.response.uid, 'd3b07384-d9a0-4c9b-8a7e-5f1f0c0b3e11');
    assert.equal(r.response.allowed, true);
    assert.equal(r.response.patchType, 'JSONPatch');
    assert.deepEqual(decodePatch(r), [
      { op: 'add', path: '/spec/replicas', value: 1 },
      { op: 'add', path: '/spec/revisionHistoryLimit', value: 10 },
      { op: 'add', path: '/spec/port', value: 8080 },
      { op: 'add', path: '/spec/service', value: { type: 'ClusterIP', port: 80 } },
      { op: 'add', path: '/spec/rollout', value: { strategy: 'RollingUpdate', progressDeadlineSeconds: 600, scaleDownDelaySeconds: 30, paused: false, trackConfig: false } },
    ]);
  });

  it('is idempotent: the patched App gets no patch the second time', () => {
    const first = appManifest({ image: 'nginx:1.27', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary' } });
    const patched = applyPatch(first, decodePatch(reviewFrom(admit('mutate', reviewOf(first)))));
    const second = reviewFrom(admit('mutate', reviewOf(patched)));
    assert.equal(second.response.allowed, true);
    assert.equal(second.response.patch, undefined);
    assert.equal(second.response.patchType, undefined);
  });

  it('only adds absent fields, never replacing what the user set', () => {
    const ops = decodePatch(reviewFrom(admit('mutate', reviewOf(appManifest({ image: 'nginx:1.27', replicas: 0, service: { port: 8081 } })))));
    assert.ok(ops.every((o) => o.op === 'add'));
    assert.ok(!ops.some((o) => o.path === '/spec/replicas' || o.path === '/spec/service/port'));
    assert.ok(ops.some((o) => o.path === '/spec/service/type'));
  });

  it('denies an App that stays invalid after defaulting, naming every field', () => {
    const r = reviewFrom(admit('mutate', reviewOf(appManifest({ image: 'nginx:1.27', replicas: 5000, ingress: { host: 'Bad_Host' } }))));
    assert.equal(r.response.allowed, false);
    assert.equal(r.response.status?.code, 422);
    assert.match(r.response.status!.message, /spec\.replicas: must be <= 1000/);
    assert.match(r.response.status!.message, /spec\.ingress\.host: must be a DNS-1123 subdomain/);
    assert.equal(r.response.patch, undefined);
  });
});

describe('admission: /validate', () => {
  it('allows a valid App without warnings', () => {
    const r = reviewFrom(admit('validate', reviewOf(appManifest({ image: 'ghcr.io/acme/web:1.4.2' }))));
    assert.deepEqual(r.response, { uid: 'd3b07384-d9a0-4c9b-8a7e-5f1f0c0b3e11', allowed: true });
  });

  it('denies with one message naming every bad field, in metav1.Status form', () => {
    const r = reviewFrom(admit('validate', reviewOf(appManifest({ image: 'nginx:1.27', port: 70000, env: [{ name: '9x' }], rollout: { strategy: 'Canary' } }))));
    assert.equal(r.response.allowed, false);
    assert.equal(r.response.status?.code, 422);
    assert.equal(r.response.status?.reason, undefined, 'no reason, so kubectl shows the message itself');
    const message = r.response.status!.message;
    for (const path of ['spec.port', 'spec.env[0].name', 'spec.ingress']) assert.ok(message.includes(`${path}:`), `${path} in ${message}`);
    assert.equal(message.split('; ').length >= 3, true);
  });

  it('warns about an untagged image and the latest tag', () => {
    const untagged = reviewFrom(admit('validate', reviewOf(appManifest({ image: 'nginx' }))));
    assert.equal(untagged.response.allowed, true);
    assert.match(untagged.response.warnings![0], /spec\.image: .*no tag/);
    const latest = reviewFrom(admit('validate', reviewOf(appManifest({ image: 'nginx:latest' }))));
    assert.match(latest.response.warnings![0], /latest/);
    const digest = reviewFrom(admit('validate', reviewOf(appManifest({ image: `nginx@sha256:${'a'.repeat(64)}` }))));
    assert.equal(digest.response.warnings, undefined);
  });

  it('checks UPDATEs like CREATEs', () => {
    const r = reviewFrom(admit('validate', reviewOf(appManifest({ image: 'nginx:1.27', replicas: -1 }), { operation: 'UPDATE', oldObject: appManifest({ image: 'nginx:1.27' }) })));
    assert.equal(r.response.allowed, false);
    assert.match(r.response.status!.message, /spec\.replicas: must be >= 0/);
  });

  it('lets an UPDATE through untouched when it leaves the spec as it was, or the App is being deleted: an App stored invalid can still be labelled, annotated and deleted', () => {
    // Stored before a rule existed (or where the webhook is not called): privileged.
    const stored = appManifest({ image: 'nginx:1.27', securityContext: { privileged: true } }) as Record<string, any>;
    const labelled = { ...stored, metadata: { ...stored.metadata, labels: { team: 'shop' }, annotations: { 'skiff.dev/promote': 'true' } } };
    const deleting = { ...stored, metadata: { ...stored.metadata, deletionTimestamp: '2026-11-26T10:00:00Z', finalizers: ['foregroundDeletion'] } };
    const finalized = { ...deleting, metadata: { ...deleting.metadata, finalizers: [] } };
    for (const endpoint of ['mutate', 'validate'] as const) {
      for (const [object, oldObject] of [[labelled, stored], [finalized, deleting]]) {
        const r = reviewFrom(admit(endpoint, reviewOf(object, { operation: 'UPDATE', oldObject })));
        assert.deepEqual([r.response.allowed, r.response.patch, r.response.warnings], [true, undefined, undefined], `${endpoint}: ${JSON.stringify(object.metadata)}`);
      }
      // A change of the spec is judged, whole: still privileged, and now a bad replica count too.
      const changed = { ...stored, spec: { ...stored.spec, replicas: -1 } };
      const r = reviewFrom(admit(endpoint, reviewOf(changed, { operation: 'UPDATE', oldObject: stored })));
      assert.equal(r.response.allowed, false);
      assert.match(r.response.status!.message, /spec\.replicas: must be >= 0/);
      // So is one of an App being deleted: its finalizers go without a change of spec.
      const changedWhileDeleting = { ...deleting, spec: { ...stored.spec, replicas: -1 } };
      const d = reviewFrom(admit(endpoint, reviewOf(changedWhileDeleting, { operation: 'UPDATE', oldObject: deleting })));
      assert.equal(d.response.allowed, false, endpoint);
      assert.match(d.response.status!.message, /spec\.replicas: must be >= 0/);
      assert.match(r.response.status!.message, /spec\.securityContext\.privileged/);
    }
  });

  it('lets through an UPDATE whose spec differs from the stored one only by the defaults the webhook stored (kubectl replace of the manifest), filling them back', () => {
    // Admitted with its defaults, before a rule existed; the manifest kept in git has none of them.
    const manifest = appManifest({ image: 'nginx:1.27', securityContext: { privileged: true } }) as Record<string, any>;
    const stored = applyPatch(manifest, defaultsPatch(manifest));
    const replaced: Record<string, any> = { ...manifest, metadata: { ...manifest.metadata, labels: { team: 'shop' } } };
    const mutated = reviewFrom(admit('mutate', reviewOf(replaced, { operation: 'UPDATE', oldObject: stored })));
    assert.equal(mutated.response.allowed, true, mutated.response.status?.message);
    // The spec is stored as it was: the defaults go back in.
    const patched = applyPatch(replaced, decodePatch(mutated));
    assert.deepEqual(patched.spec, stored.spec);
    const validated = reviewFrom(admit('validate', reviewOf(patched, { operation: 'UPDATE', oldObject: stored })));
    assert.equal(validated.response.allowed, true, validated.response.status?.message);
    // A real change is still judged whole.
    const changed = { ...replaced, spec: { ...replaced.spec, replicas: 2 } };
    const denied = reviewFrom(admit('mutate', reviewOf(changed, { operation: 'UPDATE', oldObject: stored })));
    assert.equal(denied.response.allowed, false);
    assert.match(denied.response.status!.message, /spec\.securityContext\.privileged/);
  });
});

describe('admission: the status an App is sent with', () => {
  // The API server drops the status of a create and keeps the stored one on an update (status is a
  // subresource), but only after the mutating webhooks: /mutate sees what the client sent, as in
  // `kubectl create -f` of an App exported with its status, or one written by hand.
  const sent = { ...appManifest({ image: 'nginx:1.27' }), status: { replicas: '3', conditions: [{ type: 'Ready', status: 'True' }], canary: { changes: Array.from({ length: 5000 }, () => 'image') } } };
  for (const endpoint of ['mutate', 'validate'] as const) {
    it(`${endpoint}: judges the spec and metadata, never a status the API server discards`, () => {
      const created = reviewFrom(admit(endpoint, reviewOf(sent)));
      assert.equal(created.response.allowed, true, created.response.status?.message);
      const stored = appManifest({ image: 'nginx:1.27' }) as Record<string, any>;
      const updated = reviewFrom(admit(endpoint, reviewOf({ ...sent, spec: { ...stored.spec, replicas: 2 } }, { operation: 'UPDATE', oldObject: stored })));
      assert.equal(updated.response.allowed, true, updated.response.status?.message);
      // The spec is still judged whole.
      const bad = reviewFrom(admit(endpoint, reviewOf({ ...sent, spec: { ...stored.spec, replicas: -1 } })));
      assert.equal(bad.response.status?.message, 'spec.replicas: must be >= 0');
    });
  }
  it('mutate: patches only the spec of an App sent with a status', () => {
    const ops = decodePatch(reviewFrom(admit('mutate', reviewOf(sent))));
    assert.ok(ops.length > 0 && ops.every((o) => o.path.startsWith('/spec/')), JSON.stringify(ops));
  });
});

describe('admission: the shard label', () => {
  const stored = appManifest({ image: 'nginx:1.27' }) as Record<string, any>;
  const withShard = (shard: string, from = stored) => ({ ...from, metadata: { ...from.metadata, labels: { team: 'shop', 'skiff.dev/shard': shard } } });
  for (const endpoint of ['mutate', 'validate'] as const) {
    it(`${endpoint}: refuses an empty skiff.dev/shard, which no controller reconciles, on create and when labelled; a shard name is fine`, () => {
      const created = reviewFrom(admit(endpoint, reviewOf(withShard(''))));
      assert.equal(created.response.allowed, false);
      assert.match(created.response.status!.message, /^metadata\.labels\["skiff\.dev\/shard"\]: must not be empty: no controller would reconcile the App/);
      const labelled = reviewFrom(admit(endpoint, reviewOf(withShard(''), { operation: 'UPDATE', oldObject: stored })));
      assert.equal(labelled.response.allowed, false);
      assert.match(labelled.response.status!.message, /skiff\.dev\/shard"\]: must not be empty/);
      // Together with a bad spec, every problem is named.
      const both = reviewFrom(admit(endpoint, reviewOf({ ...withShard(''), spec: { ...stored.spec, replicas: -1 } })));
      assert.match(both.response.status!.message, /spec\.replicas: must be >= 0/);
      assert.match(both.response.status!.message, /skiff\.dev\/shard"\]: must not be empty/);
      for (const [object, oldObject] of [[withShard('a'), stored], [withShard('b'), withShard('a')]]) {
        assert.equal(reviewFrom(admit(endpoint, reviewOf(object, { operation: 'UPDATE', oldObject }))).response.allowed, true);
      }
      assert.equal(reviewFrom(admit(endpoint, reviewOf(withShard('a')))).response.allowed, true);
    });

    it(`${endpoint}: lets an App stored with an empty shard label be annotated, relabelled and deleted`, () => {
      const old = withShard('');
      const annotated = { ...old, metadata: { ...old.metadata, annotations: { note: 'x' } } };
      const deleting = { ...old, metadata: { ...old.metadata, deletionTimestamp: '2026-11-26T10:00:00Z', finalizers: ['foregroundDeletion'] } };
      for (const [object, oldObject] of [[annotated, old], [withShard('a'), old], [{ ...deleting, metadata: { ...deleting.metadata, finalizers: [] } }, deleting]]) {
        assert.equal(reviewFrom(admit(endpoint, reviewOf(object, { operation: 'UPDATE', oldObject }))).response.allowed, true, JSON.stringify(object.metadata));
      }
    });
  }
});

describe('admission: an unknown field nested deep in a stored spec', () => {
  // The CRD preserves unknown fields and the API server takes JSON up to 10,000 levels deep, so an
  // App stored before the webhook existed can hold one nested thousands of levels deep. Comparing
  // its spec with the stored one recursed once per level and overflowed the stack: labelling or
  // annotating the App got a 500 from the webhook. The comparison walks it without recursion.
  const nested = (depth: number) => {
    let v: Record<string, unknown> = { end: true };
    for (let i = 0; i < depth; i++) v = { x: v };
    return v;
  };
  // Built as the server's own parse of two bodies is: separate objects, no clone (structuredClone recurses as well).
  const stored = () => ({ ...appManifest({ image: 'nginx:1.27', extra: nested(5_000) }) });
  const update = (object: Record<string, any>, oldObject: unknown) => ({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'd3b07384-d9a0-4c9b-8a7e-5f1f0c0b3e11', kind: APP_KIND, operation: 'UPDATE', name: 'web', namespace: 'shop', object, oldObject },
  });
  // Not reviewFrom: its message serializes the answer, whose request holds the deep value.
  const responseOf = (answer: Answer) => {
    assert.equal(answer.httpStatus, 200);
    return (answer as Extract<Answer, { httpStatus: 200 }>).review.response;
  };
  for (const endpoint of ['mutate', 'validate'] as const) {
    it(`${endpoint}: lets such an App be labelled, its spec unchanged`, () => {
      const old = stored();
      const labelled = { ...stored(), metadata: { ...old.metadata, labels: { team: 'shop' } } };
      const r = responseOf(admit(endpoint, update(labelled, old)));
      assert.equal(r.allowed, true, r.status?.message);
    });

    it(`${endpoint}: judges a changed spec of such an App, with the field named`, () => {
      const old = stored();
      const changed = { ...old, spec: { ...stored().spec, replicas: 2 } };
      const r = responseOf(admit(endpoint, update(changed, old)));
      assert.equal(r.allowed, false);
      assert.equal(r.status?.message, 'spec.extra: unknown field');
    });
  }
});

describe('admission: a review as large as the API server sends, holding a list of a million values', function () {
  // The API server sends App writes of up to 3 MiB, and the CRD preserves the spec's unknown fields:
  // one of them can hold a list of 1.5 million zeros. The defaults' walk for nulls queued every
  // value with its pointer (600 MB, seconds of collection) before any bound was checked, and so did
  // the comparison of an update's spec with the stored one: the webhook's pod, limited to 256Mi,
  // died on one such write, and every App write in the cluster failed with it. Each review is
  // admitted here in its own process with a heap of 64 MB, about what the parsed body holds.
  this.timeout(60_000);
  const admission = new URL('../../webhook/admission.js', import.meta.url).href;
  /** The denial of `review` (JSON text made by `build`, run in the child) at /mutate, or what killed the child. */
  function admitInSmallHeap(build: string): { status: number | null; out: string } {
    const script = `import { admit } from ${JSON.stringify(admission)};
const review = JSON.parse(${build});
const answer = admit('mutate', review);
process.stdout.write(answer.review.response.status?.message ?? 'allowed');`;
    const run = spawnSync(process.execPath, ['--max-old-space-size=64', '--input-type=module', '-e', script], { encoding: 'utf8' });
    return { status: run.status, out: run.status === 0 ? run.stdout : run.stderr.slice(0, 400) };
  }
  const review = (operation: string, spec: string, oldSpec?: string) => `'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"skiff.dev","version":"v1alpha1","kind":"App"},"operation":"${operation}","namespace":"shop",'
  + '"object":{"apiVersion":"skiff.dev/v1alpha1","kind":"App","metadata":{"name":"web","namespace":"shop"},"spec":' + ${spec} + '}'
  + ${oldSpec ? `',"oldObject":{"apiVersion":"skiff.dev/v1alpha1","kind":"App","metadata":{"name":"web","namespace":"shop"},"spec":' + ${oldSpec} + '}'` : "''"} + '}}'`;
  const zeros = (n: number, image = 'nginx:1') => `'{"image":"${image}","foo":[' + '0,'.repeat(${n - 1}) + '0]}'`;

  it('a CREATE with 1.5 million zeros in an unknown field is denied, naming it', () => {
    assert.deepEqual(admitInSmallHeap(review('CREATE', zeros(1_500_000))), { status: 0, out: 'spec.foo: unknown field' });
  });

  it('an UPDATE of such an App (two specs of 700,000 zeros each) is judged, naming the field', () => {
    assert.deepEqual(admitInSmallHeap(review('UPDATE', zeros(700_000, 'nginx:2'), zeros(700_000))), { status: 0, out: 'spec.foo: unknown field' });
  });

  it('a null at each of 10,000 levels (as deep as the API server takes JSON) is taken out, in a review of 200 KB', () => {
    // Each null's pointer spells out the 10,000 levels above it: built from one another, not each anew.
    const deep = `'{"image":"nginx:1","foo":' + '{"n":null,"b":'.repeat(10_000) + '{}' + '}'.repeat(10_000) + '}'`;
    assert.deepEqual(admitInSmallHeap(review('CREATE', deep)), { status: 0, out: 'spec.foo: unknown field' });
  });

  it('600,000 items of a list with a bound (args) are named for their number', () => {
    const args = `'{"image":"nginx:1","args":[' + '"a",'.repeat(599_999) + '"a"]}'`;
    assert.deepEqual(admitInSmallHeap(review('CREATE', args)), { status: 0, out: 'spec.args: must NOT have more than 1024 items' });
  });
});

describe('admission: requests that cannot be admitted', () => {
  for (const endpoint of ['mutate', 'validate'] as const) {
    it(`${endpoint}: allows DELETE and CONNECT untouched`, () => {
      for (const operation of ['DELETE', 'CONNECT']) {
        const r = reviewFrom(admit(endpoint, reviewOf(undefined, { operation, oldObject: appManifest({ image: 'x' }) })));
        assert.deepEqual(r.response, { uid: 'd3b07384-d9a0-4c9b-8a7e-5f1f0c0b3e11', allowed: true });
      }
    });

    it(`${endpoint}: denies an unknown operation and a wrong kind with a reason`, () => {
      const op = reviewFrom(admit(endpoint, reviewOf(appManifest({ image: 'nginx:1.27' }), { operation: 'PATCH' })));
      assert.equal(op.response.allowed, false);
      assert.equal(op.response.status?.code, 400);
      assert.match(op.response.status!.message, /unknown operation "PATCH"/);
      const pod = reviewFrom(admit(endpoint, reviewOf({ apiVersion: 'v1', kind: 'Pod' }, { kind: { group: '', version: 'v1', kind: 'Pod' } })));
      assert.equal(pod.response.allowed, false);
      assert.match(pod.response.status!.message, /admits skiff\.dev\/v1alpha1 App only, not v1 Pod/);
    });

    it(`${endpoint}: denies a CREATE without an object`, () => {
      const r = reviewFrom(admit(endpoint, reviewOf(undefined)));
      assert.equal(r.response.allowed, false);
      assert.match(r.response.status!.message, /request\.object must be the App/);
    });
  }

  const bad: [string, unknown, RegExp][] = [
    ['not an object', [1, 2], /must be a JSON object/],
    ['null', null, /must be a JSON object/],
    ['another kind', { apiVersion: 'admission.k8s.io/v1', kind: 'Pod' }, /expected kind AdmissionReview/],
    ['v1beta1', { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: {} }, /expected apiVersion admission\.k8s\.io\/v1/],
    ['no request', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, /has no request/],
    ['no uid', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { kind: APP_KIND, operation: 'CREATE' } }, /request\.uid/],
    ['no kind', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u', operation: 'CREATE' } }, /request\.kind/],
    ['no operation', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u', kind: APP_KIND } }, /request\.operation/],
  ];
  for (const [what, body, message] of bad) {
    it(`answers 400 for a body that is not an AdmissionReview v1: ${what}`, () => {
      const answer = admit('validate', body);
      assert.equal(answer.httpStatus, 400);
      assert.match((answer as { error: string }).error, message);
      assert.ok('error' in parseReview(body));
    });
  }
});

describe('admission: custom analysis queries in the namespace of the request', () => {
  // As the API server sends a create: the object has no metadata.namespace, the request has it.
  const withQuery = (query: string) => ({
    ...appManifest({ image: 'nginx:1.27', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', analysis: { metrics: [{ name: 'errors', query, max: 1 }] } } }),
    metadata: { name: 'web' },
  });
  for (const endpoint of ['mutate', 'validate'] as const) {
    it(`${endpoint}: admits a query naming the request's namespace and denies one naming another, with the field path`, () => {
      const own = reviewFrom(admit(endpoint, reviewOf(endpoint === 'validate' ? defaulted(withQuery('x{namespace="shop"}')) : withQuery('x{namespace="shop"}'))));
      assert.equal(own.response.allowed, true, own.response.status?.message);
      const other = reviewFrom(admit(endpoint, reviewOf(withQuery('x{namespace="payments"}'), { namespace: 'shop' })));
      assert.equal(other.response.allowed, false);
      assert.match(other.response.status!.message, /spec\.rollout\.analysis\.metrics\[0\]\.query: the matcher namespace="payments" at character 3 is not allowed: the query may read namespace "shop" only/);
      // The same App sent for another namespace: its literal namespace="shop" is now the foreign one.
      const moved = reviewFrom(admit(endpoint, reviewOf(withQuery('x{namespace="shop"}'), { namespace: 'payments' })));
      assert.equal(moved.response.allowed, false);
      assert.match(moved.response.status!.message, /the matcher namespace="shop" at character 3 is not allowed: the query may read namespace "payments" only/);
    });
  }
});

/** The App as /mutate's patch leaves it. */
function defaulted(object: Record<string, unknown>): Record<string, unknown> {
  const r = reviewFrom(admit('mutate', reviewOf(object)));
  assert.equal(r.response.allowed, true, r.response.status?.message);
  return applyPatch(object, r.response.patch ? decodePatch(r) : []) as Record<string, unknown>;
}
