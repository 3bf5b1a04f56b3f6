// spec.rollout.trackConfig through reconcile() over the in-memory cluster: copies are made
// before the Deployments that reference them are written.
import { strict as assert } from 'node:assert';
import type { KubernetesObject, V1Deployment, V1Service } from '@kubernetes/client-node';
import type { ConfigSources } from '../../controller/config-sources.js';
import { copyName, type SourceContent, type SourceKind, type SourceRef } from '../../shared/render/config-copies.js';
import { CONFLICT_RECHECK_MS } from '../../controller/act.js';
import { isControlledBy } from '../../controller/state/ownership.js';
import { uncopiedStatus } from '../../controller/guards/config-gate.js';
import type { App, AppSpec } from '../../shared/app-types.js';
import { condition } from '../support/apps.js';
import { apiError, type FakeCluster } from '../support/fake-cluster.js';
import { markAvailable, NS, setup, type SetupOptions } from '../support/reconciler.js';

const KINDS: Record<SourceKind, string> = { configMap: 'ConfigMap', secret: 'Secret' };

/** trackConfig's deps over the fake cluster, as synced caches would show it. */
function tracking(cluster: FakeCluster) {
  const sources = {
    trackSecrets: false,
    copiesSynced: true,
    copies: { configMap: {} },
    reference: () => {},
    forget: () => {},
    resolve: async (namespace: string, refs: readonly SourceRef[]) => new Map(refs.map((r) => [`${r.kind}/${r.name}`, (cluster.get(KINDS[r.kind], namespace, r.name) as SourceContent | undefined) ?? null])),
    ownedCopies: (kind: SourceKind, namespace: string, uid: string) => cluster.cache(KINDS[kind]).list(namespace).filter((c) => isControlledBy(c, uid)),
  } as unknown as ConfigSources;
  return { sources, deploymentsOf: (namespace: string) => cluster.cache('Deployment').list(namespace) };
}

const spec = { image: 'web:1', volumes: [{ name: 'cfg', mountPath: '/etc/web', configMap: { name: 'web-cfg' } }], rollout: { trackConfig: true } };
const volumeOf = (d: KubernetesObject | undefined) => (d as V1Deployment | undefined)?.spec?.template.spec?.volumes?.find((v) => v.name === 'cfg')?.configMap?.name;

/**
 * A tracked App on its first copy of web-cfg, its Deployment available; `first` names that copy.
 * `over`: fields of the App's spec besides those of `spec`.
 */
async function trackedAndRolledOut(over: Partial<AppSpec> = {}, options: SetupOptions = {}) {
  const t = setup({ ...spec, ...over }, options);
  t.deps.config = tracking(t.cluster);
  t.cluster.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-cfg', namespace: NS }, data: { a: '1' } } as KubernetesObject);
  await t.run();
  markAvailable(t.cluster, 'web');
  return { ...t, first: volumeOf(t.cluster.get('Deployment', NS, 'web')) };
}

/** A tracked canary App (with history) at 20% on a change of web-cfg's data; stable's copy and revision as they were. */
async function canaryOfSourceChange(scaleDownDelaySeconds = 0) {
  const t = await trackedAndRolledOut({ ingress: { host: 'web.example.com' }, rollout: { trackConfig: true, strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }], scaleDownDelaySeconds } }, { history: true });
  await t.run();
  const stableCopy = volumeOf(t.cluster.get('Deployment', NS, 'web'));
  const stableRevision = t.app().status?.stableRevision;
  t.cluster.put({ ...t.cluster.get('ConfigMap', NS, 'web-cfg')!, data: { a: '2' } } as KubernetesObject);
  for (let i = 0; i < 4; i++) {
    await t.run();
    markAvailable(t.cluster, 'web-canary');
  }
  return { t, stableCopy, stableRevision };
}

describe('trackConfig in reconcile()', () => {
  it('stable\'s copy replaced by hand with an object the App does not own (its source holds other data now): ConfigTracked False CopyLost names it; nothing is written over it', async () => {
    const { t, stableCopy } = await canaryOfSourceChange();
    assert.equal(condition(t.app(), 'ConfigTracked')?.status, 'True');
    t.cluster.objects.delete(`ConfigMap/${NS}/${stableCopy}`);
    t.cluster.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: stableCopy, namespace: NS }, data: { a: 'evil' } } as KubernetesObject);
    await t.run();
    const tracked = condition(t.app(), 'ConfigTracked');
    assert.deepEqual([tracked?.status, tracked?.reason], ['False', 'CopyLost']);
    assert.match(tracked!.message, new RegExp(`pods run on configMap ${stableCopy} \\(Deployment web\\), which is no longer the App's copy`));
    assert.deepEqual((t.cluster.get('ConfigMap', NS, stableCopy!) as { data?: unknown }).data, { a: 'evil' }, 'not the App\'s to write');
    // Rolled out (promoted): stable runs on the new copy, the lost one is no longer used.
    t.cluster.put({ ...t.app(), metadata: { ...t.app().metadata, annotations: { 'skiff.dev/promote': 'true' } } } as KubernetesObject);
    for (let i = 0; i < 6; i++) {
      await t.run();
      markAvailable(t.cluster, 'web');
    }
    assert.notEqual(volumeOf(t.cluster.get('Deployment', NS, 'web')), stableCopy);
    assert.equal(condition(t.app(), 'ConfigTracked')?.status, 'True');
  });

  it('the copy stable runs on replaced by an object the App does not own while its source still holds that data: ConfigTracked False ResourceConflict, looked at again every CONFLICT_RECHECK_MS, made again once that object goes', async () => {
    const t = await trackedAndRolledOut();
    await t.run();
    assert.equal(condition(t.app(), 'ConfigTracked')?.status, 'True');
    // Its ownerReference taken off and the object replaced: no event of it reaches the App.
    t.cluster.objects.delete(`ConfigMap/${NS}/${t.first}`);
    t.cluster.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: t.first, namespace: NS }, data: { a: 'evil' } } as KubernetesObject);
    const pass = await t.run();
    const tracked = condition(t.app(), 'ConfigTracked');
    assert.deepEqual([tracked?.status, tracked?.reason], ['False', 'ResourceConflict']);
    assert.match(tracked!.message, new RegExp(`^a copy the App's pods run on cannot be made again: ConfigMap ${NS}/${t.first} exists and is not owned by this App; nothing is written over it`));
    assert.equal(condition(t.app(), 'Degraded')?.reason, 'ResourceConflict');
    assert.equal(pass.requeueAfterMs, CONFLICT_RECHECK_MS);
    assert.deepEqual((t.cluster.get('ConfigMap', NS, t.first!) as { data?: unknown }).data, { a: 'evil' }, 'not the App\'s to write');
    // The object goes: the recheck makes the copy again from the source, which still holds its data.
    t.cluster.objects.delete(`ConfigMap/${NS}/${t.first}`);
    await t.run();
    assert.deepEqual((t.cluster.get('ConfigMap', NS, t.first!) as { data?: unknown }).data, { a: '1' });
    await t.run();
    assert.equal(condition(t.app(), 'ConfigTracked')?.status, 'True');
  });

  it('stable\'s copy deleted by hand while a canary runs on a renamed reference: made again from its source, which still holds its data; a source with other data now cannot, and CopyLost says so', async () => {
    const t = await trackedAndRolledOut({ ingress: { host: 'web.example.com' }, rollout: { trackConfig: true, strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }], scaleDownDelaySeconds: 0 } }, { history: true });
    await t.run();
    const stableCopy = t.first!;
    t.cluster.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-cfg-v2', namespace: NS }, data: { a: '2' } } as KubernetesObject);
    t.setSpec((s) => ({ ...s, volumes: [{ name: 'cfg', mountPath: '/etc/web', configMap: { name: 'web-cfg-v2' } }] }));
    for (let i = 0; i < 3; i++) {
      await t.run();
      markAvailable(t.cluster, 'web-canary');
    }
    assert.ok(t.app().status?.canary, 'a canary of the renamed reference');
    assert.equal(volumeOf(t.cluster.get('Deployment', NS, 'web')), stableCopy, 'stable keeps its copy of web-cfg');
    t.cluster.objects.delete(`ConfigMap/${NS}/${stableCopy}`);
    await t.run();
    const remade = t.cluster.get('ConfigMap', NS, stableCopy) as KubernetesObject & { data?: unknown };
    assert.ok(remade && isControlledBy(remade, t.app().metadata.uid!), 'made again, the App\'s');
    assert.deepEqual(remade.data, { a: '1' });
    assert.equal(condition(t.app(), 'ConfigTracked')?.status, 'True');
    // web-cfg holds other data now: the copy stable runs on cannot be made again from it.
    t.cluster.put({ ...t.cluster.get('ConfigMap', NS, 'web-cfg')!, data: { a: 'changed' } } as KubernetesObject);
    t.cluster.objects.delete(`ConfigMap/${NS}/${stableCopy}`);
    await t.run();
    assert.equal(t.cluster.get('ConfigMap', NS, stableCopy), undefined);
    assert.deepEqual([condition(t.app(), 'ConfigTracked')?.status, condition(t.app(), 'ConfigTracked')?.reason], ['False', 'CopyLost']);
  });

  it('a copy that cannot be created (a quota, a name taken): no Deployment is written to reference it, and Degraded says why', async () => {
    const { cluster, run, app, first } = await trackedAndRolledOut();
    assert.match(first ?? '', /^web-cfg-[0-9a-f]{10}$/);

    // The source changes, and its new copy is refused.
    cluster.put({ ...cluster.get('ConfigMap', NS, 'web-cfg')!, data: { a: '2' } } as KubernetesObject);
    cluster.beforeWrite = (w) => {
      if (w.verb === 'create' && w.kind === 'ConfigMap') throw apiError(403, 'exceeded quota: count/configmaps');
    };
    await run().catch(() => undefined);
    assert.equal(volumeOf(cluster.get('Deployment', NS, 'web')), first, 'the Deployment still references the copy that exists');
    const degraded = condition(app(), 'Degraded');
    assert.equal(degraded?.status, 'True');
    assert.match(degraded!.message, /exceeded quota/);

    // Once the copy can be made, the change rolls out.
    cluster.beforeWrite = () => {};
    await run();
    const next = volumeOf(cluster.get('Deployment', NS, 'web'));
    assert.notEqual(next, first);
    assert.ok(cluster.get('ConfigMap', NS, next!), 'on a copy that exists');
  });

  it('the status of an App held back by a copy it cannot make: the generation seen, a new App\'s Ready and Progressing saying why; a running App keeps its Ready', () => {
    const now = new Date('2026-11-27T10:00:00Z');
    const conflicts = ['ConfigMap shop/web-cfg-0123456789 exists and is not owned by this App'];
    const fresh = uncopiedStatus({ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: NS, generation: 1 }, spec: { image: 'web:1' } } as App, { errors: [], conflicts }, now);
    assert.equal(fresh.observedGeneration, 1);
    assert.deepEqual(fresh.conditions?.map((c) => [c.type, c.status, c.reason, c.observedGeneration]), [['Ready', 'False', 'ResourceConflict', 1], ['Progressing', 'False', 'ResourceConflict', 1], ['Degraded', 'True', 'ResourceConflict', 1], ['ConfigTracked', 'False', 'ResourceConflict', 1]]);
    const ready = { type: 'Ready', status: 'True' as const, reason: 'Available', message: 'ok', lastTransitionTime: '2026-11-27T09:00:00Z', observedGeneration: 3 };
    const running = uncopiedStatus({ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: NS, generation: 4 }, spec: { image: 'web:1' }, status: { observedGeneration: 3, conditions: [ready] } } as App, { errors: [], conflicts }, now);
    assert.equal(running.observedGeneration, 4);
    assert.deepEqual(running.conditions?.find((c) => c.type === 'Ready')?.status, 'True', 'its Deployments go on serving');
    assert.match(running.conditions!.find((c) => c.type === 'ConfigTracked')!.message, /; the App's Deployments keep running what they run$/);
    assert.match(fresh.conditions!.find((c) => c.type === 'ConfigTracked')!.message, /; the App runs nothing until then$/);
  });

  it('a missing source created while its copy\'s name is taken: no condition says it is missing any more; each says the copy cannot be made', async () => {
    const t = setup(spec);
    t.deps.config = tracking(t.cluster);
    await t.run();
    assert.equal(condition(t.app(), 'ConfigTracked')?.reason, 'ConfigNotFound');
    assert.equal(condition(t.app(), 'Ready')?.reason, 'ConfigNotFound');
    const data = { a: '1' };
    t.cluster.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: copyName('web', 'web-cfg', { data }), namespace: NS }, data: { a: 'someone else\'s' } } as KubernetesObject);
    t.cluster.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-cfg', namespace: NS }, data } as KubernetesObject);
    await t.run();
    for (const type of ['Ready', 'Progressing', 'Degraded', 'ConfigTracked']) {
      const c = condition(t.app(), type);
      assert.equal(c?.reason, 'ResourceConflict', `${type}: ${JSON.stringify(c)}`);
      assert.doesNotMatch(c?.message ?? '', /not found|exists\b.*\(see Degraded\)$/, type);
    }
    assert.equal(t.cluster.get('Deployment', NS, 'web'), undefined, 'nothing is rendered');
    t.cluster.objects.delete(`ConfigMap/${NS}/web-cfg`);
    await t.run();
    assert.equal(condition(t.app(), 'Ready')?.reason, 'ConfigNotFound', 'and the other way round');
    assert.equal(condition(t.app(), 'ConfigTracked')?.reason, 'ConfigNotFound');
  });

  it('a copy\'s name held by an object the App does not own: it is neither written over nor referenced; ResourceConflict names it', async () => {
    const { cluster, run, app, first } = await trackedAndRolledOut();
    const taken = copyName('web', 'web-cfg', { data: { a: '2' } });
    cluster.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: taken, namespace: NS }, data: { a: 'someone else\'s' } } as KubernetesObject);
    cluster.put({ ...cluster.get('ConfigMap', NS, 'web-cfg')!, data: { a: '2' } } as KubernetesObject);
    const result = await run();
    assert.equal(result.requeueAfterMs, CONFLICT_RECHECK_MS);
    assert.equal(volumeOf(cluster.get('Deployment', NS, 'web')), first);
    assert.deepEqual((cluster.get('ConfigMap', NS, taken) as { data?: unknown }).data, { a: 'someone else\'s' });
    const degraded = condition(app(), 'Degraded');
    assert.equal(degraded?.reason, 'ResourceConflict');
    assert.match(degraded!.message, new RegExp(`ConfigMap shop/${taken} exists and is not owned by this App`));
  });

  it('a copy a Deployment already references, deleted by hand and not made again: the pass still acts (an abort\'s weight, replicas) and reports it', async () => {
    const { cluster, deps, run, app, setSpec } = setup(spec);
    deps.config = tracking(cluster);
    cluster.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-cfg', namespace: NS }, data: { a: '1' } } as KubernetesObject);
    await run();
    markAvailable(cluster, 'web');
    const first = volumeOf(cluster.get('Deployment', NS, 'web'))!;
    cluster.objects.delete(`ConfigMap/${NS}/${first}`);
    cluster.beforeWrite = (w) => {
      if (w.verb === 'create' && w.kind === 'ConfigMap') throw apiError(403, 'exceeded quota: count/configmaps');
    };
    setSpec((s) => ({ ...s, replicas: 3 }));
    await assert.rejects(run(), /exceeded quota/);
    assert.equal((cluster.get('Deployment', NS, 'web') as V1Deployment).spec?.replicas, 3, 'written all the same');
    assert.equal(condition(app(), 'Degraded')?.reason, 'ReconcileError');
  });

  it('a copy no pod uses any more goes once every pod runs the new template, even while one of them is not ready (a crash loop, a pod pending for a node)', async () => {
    const { cluster, run, first } = await trackedAndRolledOut();
    cluster.put({ ...cluster.get('ConfigMap', NS, 'web-cfg')!, data: { a: '2' } } as KubernetesObject);
    await run();
    const second = volumeOf(cluster.get('Deployment', NS, 'web'));
    assert.notEqual(second, first);
    // Rolled over: the pod is of the new ReplicaSet, none of the old one is left; it is not ready.
    const d = cluster.get('Deployment', NS, 'web') as V1Deployment;
    markAvailable(cluster, 'web');
    d.status = { ...d.status, readyReplicas: 0, availableReplicas: 0 };
    await run();
    assert.equal(cluster.get('ConfigMap', NS, first!), undefined, 'the first copy is deleted');
    assert.ok(cluster.get('ConfigMap', NS, second!), 'the copy the pods use stays');
  });

  it('no copy goes while old pods of the Deployment are left', async () => {
    const { cluster, run, first } = await trackedAndRolledOut();
    cluster.put({ ...cluster.get('ConfigMap', NS, 'web-cfg')!, data: { a: '2' } } as KubernetesObject);
    await run();
    const d = cluster.get('Deployment', NS, 'web') as V1Deployment;
    markAvailable(cluster, 'web');
    d.status = { ...d.status, replicas: 2, updatedReplicas: 1 };
    await run();
    assert.ok(cluster.get('ConfigMap', NS, first!), 'the old ReplicaSet\'s pod still uses it');
  });

  it('a source change of a BlueGreen App: the preview runs the new copy while the Service and web keep the old one; after the switch and the delay web takes it and the old copy goes', async () => {
    const t = await trackedAndRolledOut({ replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy: 'BlueGreen', scaleDownDelaySeconds: 30, trackConfig: true } }, { history: true });
    await t.run();
    const first = volumeOf(t.cluster.get('Deployment', NS, 'web'));
    const stableRevision = t.app().status?.stableRevision;
    const selected = () => (t.cluster.get('Service', NS, 'web') as V1Service).spec?.selector?.['skiff.dev/revision'];

    t.cluster.put({ ...t.cluster.get('ConfigMap', NS, 'web-cfg')!, data: { a: '2' } } as KubernetesObject);
    await t.run();
    const second = volumeOf(t.cluster.get('Deployment', NS, 'web-preview'));
    assert.equal(t.app().status?.blueGreen?.phase, 'Preview');
    assert.match(second ?? '', /^web-cfg-[0-9a-f]{10}$/);
    assert.notEqual(second, first);
    assert.equal(volumeOf(t.cluster.get('Deployment', NS, 'web')), first, 'web keeps its copy');
    assert.equal(selected(), stableRevision, 'the Service still selects stable');
    const revisions = t.cluster.cache('ControllerRevision').list(NS);
    assert.deepEqual(revisions.map((r) => r.metadata?.annotations?.['skiff.dev/changes']), ['', 'configMap web-cfg'], 'the history names the source');
    // The preview's image is stable's: only the changes say what rolls out.
    assert.deepEqual(t.app().status?.blueGreen?.changes, ['configMap web-cfg'], 'the status names the source');

    markAvailable(t.cluster, 'web-preview');
    await t.run();
    assert.equal(t.app().status?.blueGreen?.phase, 'Switched');
    assert.deepEqual(t.app().status?.blueGreen?.changes, ['configMap web-cfg']);
    assert.ok(t.cluster.get('ConfigMap', NS, first!), 'the old pods keep their copy through the delay');
    t.later(31_000);
    await t.run();
    // web now takes the new template: the changes are still those of the rollout's start.
    assert.equal(t.app().status?.blueGreen?.phase, 'ScalingDown');
    assert.deepEqual(t.app().status?.blueGreen?.changes, ['configMap web-cfg']);
    markAvailable(t.cluster, 'web');
    await t.run();
    await t.run();
    assert.equal(volumeOf(t.cluster.get('Deployment', NS, 'web')), second);
    assert.equal(t.cluster.get('ConfigMap', NS, first!), undefined, 'the old copy is deleted');
    assert.ok(t.cluster.get('ConfigMap', NS, second!));
  });

  it('a stable Deployment deleted by hand during the canary of a source change comes back on the copy stable ran (from its history entry), not the one rolling out; the copy is kept', async () => {
    const { t, stableCopy, stableRevision } = await canaryOfSourceChange();
    const canaryCopy = volumeOf(t.cluster.get('Deployment', NS, 'web-canary'));
    assert.ok(canaryCopy && canaryCopy !== stableCopy, 'a canary on the new copy');
    t.cluster.objects.delete(`Deployment/${NS}/web`);
    await t.run();
    const again = t.cluster.get('Deployment', NS, 'web') as V1Deployment | undefined;
    assert.equal(volumeOf(again), stableCopy, 'made again on the copy stable ran');
    assert.equal(again?.metadata?.annotations?.['skiff.dev/revision'], stableRevision);
    markAvailable(t.cluster, 'web');
    await t.run();
    assert.ok(t.cluster.get('ConfigMap', NS, stableCopy!), 'the copy stable runs is kept');
    assert.equal(volumeOf(t.cluster.get('Deployment', NS, 'web')), stableCopy);
  });

  it('an aborted canary\'s copy deleted by hand while its pods wait out the scale-down delay is made again from its source (a pod restarted then needs it)', async () => {
    const { t, stableCopy } = await canaryOfSourceChange(60);
    const canaryCopy = volumeOf(t.cluster.get('Deployment', NS, 'web-canary'))!;
    assert.notEqual(canaryCopy, stableCopy);
    t.cluster.put({ ...t.app(), metadata: { ...t.app().metadata, annotations: { 'skiff.dev/abort': 'true' } } } as App & KubernetesObject);
    await t.run();
    assert.equal(condition(t.app(), 'Degraded')?.reason, 'RolloutAborted');
    assert.ok(t.cluster.get('Deployment', NS, 'web-canary'), 'its pods wait out the delay');
    t.cluster.objects.delete(`ConfigMap/${NS}/${canaryCopy}`);
    await t.run();
    assert.deepEqual((t.cluster.get('ConfigMap', NS, canaryCopy) as { data?: unknown } | undefined)?.data, { a: '2' }, 'made again, with the data it was made of');
    assert.equal(volumeOf(t.cluster.get('Deployment', NS, 'web-canary')), canaryCopy);
  });

  it('a source deleted during a canary and the pod template changed since: the canary goes on to its end from its history entry (abort acts), then ConfigNotFound', async () => {
    const { t, stableCopy } = await canaryOfSourceChange();
    const weight = () => (t.cluster.get('Ingress', NS, 'web-canary') as KubernetesObject | undefined)?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'];
    assert.equal(weight(), '20');
    t.cluster.objects.delete(`ConfigMap/${NS}/web-cfg`);
    t.setSpec((x) => ({ ...x, image: 'web:2' }));
    await t.run();
    assert.equal(weight(), '20', 'the canary under way goes on');
    assert.equal(t.app().status?.canary?.image, 'web:1', 'its status names the image its pods run, not the change that waits');
    t.cluster.put({ ...t.app(), metadata: { ...t.app().metadata, annotations: { 'skiff.dev/abort': 'true' } } } as App & KubernetesObject);
    await t.run();
    assert.equal(weight(), '0', 'the abort acts');
    assert.equal(condition(t.app(), 'Degraded')?.reason, 'RolloutAborted');
    assert.equal(t.app().metadata.annotations?.['skiff.dev/abort'], undefined, 'and is consumed');
    for (let i = 0; i < 3; i++) await t.run();
    assert.equal(t.cluster.get('Deployment', NS, 'web-canary'), undefined, 'the canary is gone');
    assert.equal(condition(t.app(), 'Degraded')?.reason, 'ConfigNotFound', 'then nothing new rolls out without the source');
    assert.equal(volumeOf(t.cluster.get('Deployment', NS, 'web')), stableCopy);
    assert.ok(t.cluster.get('ConfigMap', NS, stableCopy!), 'stable keeps its copy');
  });

  it('a source deleted during a canary of its change: the canary goes on, and ConfigTracked (with one Warning Event, not one per pass) says that once it ends nothing is rendered until the source is back', async () => {
    const { t } = await canaryOfSourceChange();
    assert.equal(condition(t.app(), 'ConfigTracked')?.status, 'True');
    t.cluster.objects.delete(`ConfigMap/${NS}/web-cfg`);
    for (let i = 0; i < 3; i++) await t.run();
    const tracked = condition(t.app(), 'ConfigTracked');
    assert.deepEqual([tracked?.status, tracked?.reason], ['False', 'ConfigNotFound']);
    assert.equal(tracked?.message, `not found in namespace ${NS}: configMap web-cfg; the rollout under way goes on with the copies its pods use, and once it has ended nothing is rendered until it exists again (or the reference is optional)`);
    assert.equal(condition(t.app(), 'Degraded')?.status, 'False', 'nothing is degraded yet: the canary runs on');
    assert.equal(t.app().status?.canary?.weight, 20);
    const warnings = t.cluster.events.filter((e) => e.reason === 'ConfigNotFound');
    assert.deepEqual(warnings.map((e) => [e.type, e.message]), [['Warning', tracked!.message]], 'one Event over three passes');
    // Put back: tracked again, no word of it missing.
    t.cluster.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-cfg', namespace: NS }, data: { a: '2' } } as KubernetesObject);
    await t.run();
    assert.deepEqual([condition(t.app(), 'ConfigTracked')?.status, condition(t.app(), 'ConfigTracked')?.reason], ['True', 'ConfigTracked']);
  });

  it('an optional source deleted during a canary: the canary goes on with the copy its pods use; the template without the source rolls out after it', async () => {
    const optional = { name: 'cfg', mountPath: '/etc/web', configMap: { name: 'web-cfg', optional: true } };
    const t = await trackedAndRolledOut({ volumes: [optional], ingress: { host: 'web.example.com' }, rollout: { trackConfig: true, strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }], scaleDownDelaySeconds: 0 } }, { history: true });
    await t.run();
    t.setSpec((x) => ({ ...x, image: 'web:2' }));
    for (let i = 0; i < 4; i++) {
      await t.run();
      markAvailable(t.cluster, 'web-canary');
    }
    const weight = () => (t.cluster.get('Ingress', NS, 'web-canary') as KubernetesObject | undefined)?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'];
    const canaryRevision = t.app().status?.canary?.revision;
    assert.equal(weight(), '20');
    assert.equal(volumeOf(t.cluster.get('Deployment', NS, 'web-canary')), t.first);
    t.cluster.objects.delete(`ConfigMap/${NS}/web-cfg`);
    for (let i = 0; i < 3; i++) await t.run();
    assert.equal(t.app().status?.canary?.revision, canaryRevision, 'the canary under way goes on, not replaced by one without the source');
    assert.equal(weight(), '20');
    assert.equal(volumeOf(t.cluster.get('Deployment', NS, 'web-canary')), t.first, 'on the copy its pods use');
    assert.ok(t.cluster.get('ConfigMap', NS, t.first!), 'which is kept');
    t.cluster.put({ ...t.app(), metadata: { ...t.app().metadata, annotations: { 'skiff.dev/promote': 'true' } } } as App & KubernetesObject);
    for (let i = 0; i < 8; i++) {
      await t.run();
      for (const name of ['web', 'web-canary']) if (t.cluster.get('Deployment', NS, name)) markAvailable(t.cluster, name);
    }
    assert.equal(t.app().status?.stableRevision, canaryRevision, 'promoted as it ran');
    const next = t.app().status?.canary?.revision;
    assert.ok(next && next !== canaryRevision, 'then the template without the source rolls out');
    const volume = (t.cluster.get('Deployment', NS, 'web-canary') as V1Deployment).spec?.template.spec?.volumes?.find((v) => v.name === 'cfg');
    assert.deepEqual(volume?.configMap, undefined);
    assert.ok(volume?.emptyDir, 'as Kubernetes mounts a missing optional ConfigMap: an empty directory');
  });

  it('a source that cannot be read (forbidden: --track-secrets without its RBAC; the API server failing): Degraded says so, not only the controller\'s log', async () => {
    const { cluster, deps, run, app } = await trackedAndRolledOut();
    const config = deps.config!;
    const forbidden = apiError(403, 'configmaps "web-cfg" is forbidden: User "system:serviceaccount:skiff-system:skiff-controller" cannot get resource "configmaps"');
    deps.config = { ...config, sources: Object.assign(Object.create(config.sources), { resolve: async () => { throw forbidden; } }) as ConfigSources };
    cluster.put({ ...cluster.get('ConfigMap', NS, 'web-cfg')!, data: { a: '2' } } as KubernetesObject);
    await assert.rejects(run(), /forbidden/);
    const degraded = condition(app(), 'Degraded');
    assert.equal(degraded?.status, 'True');
    assert.equal(degraded?.reason, 'ReconcileError');
    assert.match(degraded!.message, /reading the configuration the pod template references: 403 configmaps "web-cfg" is forbidden/);
  });
});
