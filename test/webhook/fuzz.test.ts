// Property-based tests (fast-check) of the admission logic and of the HTTPS server: thousands of
// random and mutated AdmissionReviews and Apps. Bounded by run counts, not by time.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Registry } from 'prom-client';
import { ensureCerts } from '../../certs/write.js';
import { applyPatch, defaultsPatch, fillDefaults, type JsonPatchOp } from '../../shared/defaults.js';
import { createLogger } from '../../shared/logger.js';
import { validateApp } from '../../shared/validation.js';
import { admit, type AdmissionReview, type Answer } from '../../webhook/admission.js';
import { startWebhookServer, type WebhookServer } from '../../webhook/server.js';

const dnsLabel = fc.stringMatching(/^[a-z]([a-z0-9-]{0,10}[a-z0-9])?$/);
const image = fc.tuple(fc.constantFrom('nginx', 'ghcr.io/acme/web', 'registry.example:5000/team/app'), fc.option(fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,20}$/), { nil: undefined }))
  .map(([repo, tag]) => (tag ? `${repo}:${tag}` : repo));
const step = fc.oneof(
  fc.record({ setWeight: fc.integer({ min: 0, max: 100 }) }),
  // Pauses are at most 24h (api.md, "Tenant safety").
  fc.record({ pause: fc.option(fc.record({ duration: fc.oneof(
    fc.integer({ min: 0, max: 86400 }).map((n) => `${n}s`), fc.integer({ min: 0, max: 1440 }).map((n) => `${n}m`), fc.integer({ min: 0, max: 24 }).map((n) => `${n}h`)) }), { nil: undefined }) })
    .map((s) => ({ pause: s.pause ?? {} })),
);

/** Apps the schema accepts (before defaults), with any subset of the optional fields. */
const validSpec = fc.record({
  image,
  replicas: fc.integer({ min: 0, max: 1000 }),
  port: fc.integer({ min: 1, max: 65535 }),
  command: fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
  args: fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
  env: fc.uniqueArray(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/), { maxLength: 4 }).map((names) => names.map((name, i) => ({ name, value: `v${i}` }))),
  readinessPath: fc.constantFrom('/healthz', '/ready'),
  service: fc.record({ type: fc.constantFrom('ClusterIP', 'NodePort', 'LoadBalancer'), port: fc.integer({ min: 1, max: 65535 }) }, { requiredKeys: [] }),
  ingress: fc.record({
    host: fc.array(dnsLabel, { minLength: 1, maxLength: 3 }).map((l) => l.join('.')),
    path: fc.constantFrom('/', '/shop', '/a/b'),
    pathType: fc.constantFrom('Prefix', 'Exact', 'ImplementationSpecific'),
    className: fc.constantFrom('nginx', 'internal'),
  }, { requiredKeys: ['host'] }),
  rollout: fc.record({
    strategy: fc.constant('RollingUpdate'),
    progressDeadlineSeconds: fc.integer({ min: 1, max: 3600 }),
  }, { requiredKeys: [] }),
}, { requiredKeys: ['image'] });

/** Canary Apps need an ingress; their steps are random but valid. */
const canarySpec = fc.tuple(validSpec, fc.record({ host: fc.constant('web.example.com') }), fc.option(fc.array(step, { minLength: 1, maxLength: 6 }), { nil: undefined }))
  .map(([spec, ingress, steps]) => ({ ...spec, ingress: spec.ingress ?? ingress, rollout: { strategy: 'Canary', ...(steps ? { steps } : {}) } }));

const appOf = (spec: unknown) => ({ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: 'shop' }, spec });
// A copy, as the server's own parse of a body is: /mutate fills the defaults into the object it is given.
const reviewOf = (object: unknown, operation = 'CREATE', uid = 'u-1') => ({
  apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
  request: { uid, kind: { group: 'skiff.dev', version: 'v1alpha1', kind: 'App' }, operation, object: structuredClone(object) },
});

function wellFormed(answer: Answer, uid: string): AdmissionReview | undefined {
  if (answer.httpStatus === 400) {
    assert.equal(typeof answer.error, 'string');
    assert.ok(answer.error.length > 0);
    return undefined;
  }
  const { review } = answer;
  assert.equal(review.apiVersion, 'admission.k8s.io/v1');
  assert.equal(review.kind, 'AdmissionReview');
  assert.equal(review.response.uid, uid);
  assert.equal(typeof review.response.allowed, 'boolean');
  if (!review.response.allowed) assert.ok(review.response.status && review.response.status.code >= 400 && review.response.status.message.length > 0);
  return review;
}

describe('admission properties (fast-check)', function () {
  this.timeout(120_000);

  it('mutate then validate never denies an App the schema accepts, and mutating twice adds nothing', () => {
    fc.assert(fc.property(fc.oneof(validSpec, canarySpec), (spec) => {
      const app = appOf(spec);
      const mutated = wellFormed(admit('mutate', reviewOf(app)), 'u-1')!;
      assert.equal(mutated.response.allowed, true, mutated.response.status?.message);
      const ops: JsonPatchOp[] = mutated.response.patch ? JSON.parse(Buffer.from(mutated.response.patch, 'base64').toString()) : [];
      const defaulted = applyPatch(app, ops);
      const validated = wellFormed(admit('validate', reviewOf(defaulted)), 'u-1')!;
      assert.equal(validated.response.allowed, true, validated.response.status?.message);
      assert.equal(wellFormed(admit('mutate', reviewOf(defaulted)), 'u-1')!.response.patch, undefined);
    }), { seed: 6902, numRuns: 2000 });
  });

  it('fills the same defaults in place as the patch it returns adds to a copy', () => {
    fc.assert(fc.property(fc.oneof(validSpec, canarySpec, fc.jsonValue()), (spec) => {
      // As the server has it: parsed from JSON.
      const app = JSON.parse(JSON.stringify(appOf(spec)));
      const copy = structuredClone(app);
      const ops = fillDefaults(copy);
      assert.deepEqual(ops, defaultsPatch(app));
      assert.deepEqual(copy, applyPatch(app, ops));
    }), { seed: 6902, numRuns: 2000 });
  });

  it('answers any JSON value with a well-formed AdmissionReview or a 400, never a throw', () => {
    fc.assert(fc.property(fc.jsonValue(), fc.constantFrom('mutate', 'validate') as fc.Arbitrary<'mutate' | 'validate'>, (body, endpoint) => {
      wellFormed(admit(endpoint, body), (body as { request?: { uid?: string } })?.request?.uid ?? '');
    }), { seed: 6902, numRuns: 3000 });
  });

  it('answers mutated AdmissionReviews (fields replaced by random values) with a review or a 400', () => {
    const paths = ['apiVersion', 'kind', 'request', 'request.uid', 'request.kind', 'request.kind.kind', 'request.operation', 'request.object', 'request.object.spec',
      'request.object.spec.image', 'request.object.spec.replicas', 'request.object.spec.env', 'request.object.spec.ingress', 'request.object.spec.rollout', 'request.object.spec.rollout.steps', 'request.object.metadata'];
    fc.assert(fc.property(validSpec, fc.array(fc.tuple(fc.constantFrom(...paths), fc.jsonValue()), { minLength: 1, maxLength: 4 }), fc.constantFrom('mutate', 'validate') as fc.Arbitrary<'mutate' | 'validate'>, (spec, changes, endpoint) => {
      const body = reviewOf(appOf(spec), 'UPDATE') as Record<string, unknown>;
      for (const [path, value] of changes) {
        const keys = path.split('.');
        let target: Record<string, unknown> | undefined = body;
        for (const k of keys.slice(0, -1)) target = target && typeof target[k] === 'object' && target[k] !== null ? (target[k] as Record<string, unknown>) : undefined;
        if (target) target[keys[keys.length - 1]] = value;
      }
      const uid = (body.request as { uid?: unknown } | undefined)?.uid;
      wellFormed(admit(endpoint, body), typeof uid === 'string' ? uid : '');
    }), { seed: 6902, numRuns: 3000 });
  });

  it('denies with every bad field named: each invalid value shows up by its path', () => {
    const bad: [string, unknown][] = [['replicas', 1001], ['port', 0], ['image', 'Not An Image'], ['readinessPath', 'healthz']];
    fc.assert(fc.property(validSpec, fc.subarray(bad, { minLength: 1 }), (spec, mistakes) => {
      const broken = { ...spec, ...Object.fromEntries(mistakes) };
      const review = wellFormed(admit('validate', reviewOf(appOf(broken))), 'u-1')!;
      assert.equal(review.response.allowed, false);
      for (const [field] of mistakes) assert.ok(review.response.status!.message.includes(`spec.${field}:`), `${field} in ${review.response.status!.message}`);
      assert.equal(validateApp(appOf(broken)).errors.length >= mistakes.length, true);
    }), { seed: 6902, numRuns: 500 });
  });
});

describe('webhook server under random input (fast-check, real HTTPS)', function () {
  this.timeout(120_000);
  let dir: string;
  let server: WebhookServer;
  let ca: string;
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-fuzz-'));
    ca = ensureCerts(dir, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] }).caPem;
    const log = createLogger('webhook');
    log.level = 'silent';
    server = await startWebhookServer({ port: 0, host: '127.0.0.1', certDir: dir, log, registry: new Registry() });
  });

  after(async () => {
    agent.destroy();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (path: string, body: Buffer | string, contentType = 'application/json') => new Promise<{ status: number; body: string }>((done, fail) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method: 'POST', ca, agent, timeout: 5_000, headers: { 'content-type': contentType } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('timeout', () => req.destroy(new Error('the server did not answer within 5 s')));
    req.on('error', fail);
    req.end(body);
  });

  it('answers every body (random bytes, random JSON, mutated reviews) with a review or a 4xx, and stays up', async () => {
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 2048 }).map((b) => Buffer.from(b)),
      fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null'),
      fc.oneof(validSpec, canarySpec).map((s) => JSON.stringify(reviewOf(appOf(s)))),
      fc.tuple(fc.oneof(validSpec, canarySpec), fc.nat()).map(([s, cut]) => { const t = JSON.stringify(reviewOf(appOf(s))); return t.slice(0, cut % t.length); }),
    );
    await fc.assert(fc.asyncProperty(body, fc.constantFrom('/mutate', '/validate'), async (b, path) => {
      const res = await post(path, b);
      if (res.status === 200) {
        const review = JSON.parse(res.body) as AdmissionReview;
        assert.equal(review.kind, 'AdmissionReview');
        assert.equal(typeof review.response.allowed, 'boolean');
      } else {
        assert.ok(res.status >= 400 && res.status < 500, `status ${res.status}: ${res.body}`);
        assert.ok(res.body.length > 0, 'a reason');
      }
    }), { seed: 6902, numRuns: 1500 });
    const health = await new Promise<number>((done, fail) => request({ host: '127.0.0.1', port: server.port, path: '/healthz', ca, agent }, (r) => { r.resume(); done(r.statusCode ?? 0); }).on('error', fail).end());
    assert.equal(health, 200);
  });
});
