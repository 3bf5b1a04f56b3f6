// The controller's own validation of Apps, through reconcile() over in-memory caches and
// recording clients: an invalid App renders nothing, says why in the webhook's words, once, and
// is validated once per generation.
import { strict as assert } from 'node:assert';
import type { V1Deployment } from '@kubernetes/client-node';
import { SpecVerdicts, invalidSpecStatus, specProblems } from '../../controller/guards/spec-gate.js';
import { recordedAbort } from '../../controller/canary/types.js';
import type { App, AppSpec } from '../../shared/app-types.js';
import { withDefaults } from '../../shared/defaults.js';
import { admit, type AdmissionReview, type Answer } from '../../webhook/admission.js';
import { condition } from '../support/apps.js';
import { FakeCluster } from '../support/fake-cluster.js';
import { setup as setupReconciler } from '../support/reconciler.js';
import { appFixture } from '../support/app-fixture.js';

const NS = 'kube-system';
const KEY = `${NS}/web`;
const PRIVILEGED: Partial<AppSpec> = { securityContext: { privileged: true } };

const setup = (spec: AppSpec, validate = specProblems) => setupReconciler(spec, { namespace: NS, validate });

/** The message the webhook denies `app` with when it is created (the mutating webhook answers first). */
function webhookDenial(app: App): string {
  const answer = admit('mutate', {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u1', kind: { group: 'skiff.dev', version: 'v1alpha1', kind: 'App' }, operation: 'CREATE', name: 'web', namespace: NS, object: app },
  }) as Extract<Answer, { httpStatus: 200 }>;
  const review: AdmissionReview = answer.review;
  assert.equal(review.response.allowed, false, 'the webhook would deny it');
  return review.response.status!.message;
}

const objectWrites = (cluster: FakeCluster, from = 0) => cluster.writes.slice(from).filter((w) => w.kind !== 'App');

describe('the controller validates every App itself', () => {
  it('renders nothing for a privileged App, and reports InvalidSpec with the webhook\'s message', async () => {
    const { cluster, run, app } = setup({ image: 'web:1', ...PRIVILEGED });
    const result = await run();
    assert.deepEqual(objectWrites(cluster), [], 'no Deployment, Service or anything else');
    assert.equal(cluster.get('Deployment', NS, 'web'), undefined);
    assert.deepEqual(result, {}, 'nothing to come back for: a change of the App brings it back');
    const degraded = condition(app(), 'Degraded')!;
    assert.deepEqual([degraded.status, degraded.reason], ['True', 'InvalidSpec']);
    const { status: _status, ...written } = app();
    assert.equal(degraded.message, webhookDenial(written));
    assert.match(degraded.message, /^spec\.securityContext\.privileged: must not be true/);
    assert.deepEqual([condition(app(), 'Ready')?.status, condition(app(), 'Ready')?.reason], ['False', 'InvalidSpec']);
    assert.deepEqual([condition(app(), 'Progressing')?.status, condition(app(), 'Progressing')?.reason], ['False', 'InvalidSpec']);
    assert.equal(app().status?.observedGeneration, app().metadata.generation);
    assert.deepEqual(cluster.events, [{ type: 'Warning', reason: 'InvalidSpec', message: degraded.message }]);
  });

  it('keeps an abort\'s reason on Progressing while the spec is invalid, so that it is still known once it is fixed', () => {
    const at = '2026-11-24T00:00:00Z';
    const aborted = appFixture({ metadata: { namespace: NS }, spec: { image: 'web:2' }, status: { conditions: [
      { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'canary of web:2 was not available within 600s', lastTransitionTime: at },
      { type: 'Degraded', status: 'True', reason: 'ProgressDeadlineExceeded', message: 'canary of web:2 was not available within 600s', lastTransitionTime: at },
    ] } });
    const status = invalidSpecStatus(aborted, 'spec.securityContext.privileged: must not be true', new Date('2026-11-24T00:05:00Z'));
    assert.equal(status.conditions!.find((c) => c.type === 'Degraded')!.reason, 'InvalidSpec');
    assert.deepEqual(recordedAbort(status.conditions), { reason: 'ProgressDeadlineExceeded', message: 'canary of web:2 was not available within 600s' });
  });

  it('writes nothing and records no Event on a repeated pass, and validates once per generation', async () => {
    const { cluster, run, validations } = setup({ image: 'web:1', ...PRIVILEGED });
    await run();
    const writes = cluster.writes.length;
    for (let i = 0; i < 5; i++) await run();
    assert.equal(cluster.writes.length, writes, `no write: ${JSON.stringify(cluster.writes.slice(writes))}`);
    assert.equal(cluster.events.length, 1);
    assert.equal(validations(), 1, 'the status write moved the resourceVersion, not the generation: no new validation');
  });

  it('leaves the objects of an App that turns invalid as they are, and renders again once it is fixed', async () => {
    const { cluster, run, app, setSpec, validations } = setup({ image: 'web:1', replicas: 2 });
    await run();
    assert.ok(cluster.get('Deployment', NS, 'web'), 'a valid App renders');
    assert.equal(condition(app(), 'Degraded')?.status, 'False');
    const before = structuredClone(cluster.get('Deployment', NS, 'web'));

    setSpec((s) => ({ ...s, ...PRIVILEGED, image: 'web:2', replicas: 5 }));
    const from = cluster.writes.length;
    await run();
    assert.deepEqual(objectWrites(cluster, from), [], 'not updated, not deleted');
    assert.deepEqual(cluster.get('Deployment', NS, 'web'), before);
    assert.equal(condition(app(), 'Degraded')?.reason, 'InvalidSpec');
    assert.equal(validations(), 2, 'one validation per generation');

    setSpec((s) => ({ ...s, securityContext: { privileged: false } }));
    await run();
    const d = cluster.get('Deployment', NS, 'web') as V1Deployment;
    assert.equal(d.spec!.template.spec!.containers[0].image, 'web:2', 'the fixed spec is rendered');
    assert.equal(d.spec!.template.spec!.containers[0].securityContext?.privileged, false);
    assert.deepEqual([condition(app(), 'Degraded')?.status, condition(app(), 'Degraded')?.reason], ['False', 'AsExpected']);
    assert.equal(validations(), 3);
    assert.equal(cluster.events.filter((e) => e.reason === 'InvalidSpec').length, 1);
  });

  it('validates the App as the webhook sees it: defaulted, its status left out', async () => {
    // Valid once defaulted (the webhook fills in what the schema requires), whatever its status says.
    const spec: AppSpec = { image: 'web:1', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary' } };
    const { run, app, cluster } = setup(spec);
    cluster.put({ ...app(), status: { replicas: 'many' } as unknown as App['status'] });
    assert.equal(specProblems(app()), undefined);
    assert.deepEqual(specProblems({ ...app(), spec: { ...spec, rollout: { strategy: 'Canary', steps: [{ setWeight: 20, pause: {} }] } } }), 'spec.rollout.steps[0]: must set exactly one of setWeight or pause');
    assert.equal(webhookDenial(withDefaults({ ...app(), status: undefined, spec: { ...spec, ...PRIVILEGED } })), specProblems({ ...app(), spec: { ...spec, ...PRIVILEGED } }));
    await run();
    assert.ok(cluster.get('Deployment', NS, 'web'));
  });

  it('bounds the message of an App with thousands of problems, and refuses an App its validation cannot check', async () => {
    // Within the 512 entries env may have, so that each entry is a problem of its own.
    const env = Array.from({ length: 500 }, (_, i) => ({ name: `${i}bad name` }));
    const many = setup({ image: 'web:1', env });
    await many.run();
    const message = condition(many.app(), 'Degraded')!.message;
    assert.ok(Buffer.byteLength(message) <= 4096, `${Buffer.byteLength(message)} bytes`);
    assert.match(message, /^spec\.env\[0\]\.name: .*… \(\d+ bytes in all\)$/s);
    assert.deepEqual(objectWrites(many.cluster), []);

    const broken = setup({ image: 'web:1' }, () => {
      throw new RangeError('Maximum call stack size exceeded');
    });
    await broken.run();
    assert.equal(condition(broken.app(), 'Degraded')?.reason, 'InvalidSpec');
    assert.equal(condition(broken.app(), 'Degraded')?.message, 'could not be validated: Maximum call stack size exceeded');
    assert.deepEqual(objectWrites(broken.cluster), []);
  });

  it('keeps one verdict per App: a new uid under the same name is validated again, and a deleted App is forgotten', async () => {
    const seen: string[] = [];
    const verdicts = new SpecVerdicts((a) => void seen.push(`${a.metadata.uid}@${a.metadata.generation}`));
    const app = (uid: string, generation: number) => appFixture({ namespace: NS, metadata: { uid, generation } });
    for (const [uid, generation] of [['a', 1], ['a', 1], ['a', 2], ['b', 1], ['b', 1]] as const) verdicts.problems(KEY, app(uid, generation));
    assert.deepEqual(seen, ['a@1', 'a@2', 'b@1']);
    assert.equal(verdicts.size, 1);
    verdicts.forget(KEY);
    assert.equal(verdicts.size, 0);

    const { cluster, deps, run } = setup({ image: 'web:1' });
    await run();
    assert.equal(deps.specVerdicts!.size, 1);
    cluster.objects.delete(FakeCluster.key('App', NS, 'web'));
    await run();
    assert.equal(deps.specVerdicts!.size, 0, 'a deleted App leaves no verdict behind');
  });

  it('with the restricted profile on (--restricted-tenants), holds Apps to it as the webhook does', () => {
    const asRoot = { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: NS }, spec: { image: 'web:1' } } as App;
    assert.equal(specProblems(asRoot), undefined, 'by default an App may run as a Deployment may');
    const restricted = specProblems(asRoot, { restrictedPodSecurity: true });
    assert.match(restricted ?? '', /runAsNonRoot/);
    assert.match(restricted ?? '', /seccompProfile/);
  });
});
