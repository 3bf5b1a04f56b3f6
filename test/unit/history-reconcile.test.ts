// The revision history through reconcile() over the in-memory cluster: what one pass writes,
// that a pass with nothing to do writes nothing, and that a cache behind the controller's own
// writes never makes a duplicate entry (read your writes; 409 AlreadyExists means: come back).
import { strict as assert } from 'node:assert';
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import type { AppSpec } from '../../shared/app-types.js';
import { markAvailable, setup, NS } from '../support/reconciler.js';
import { apiError } from '../support/fake-cluster.js';

const SPEC: AppSpec = { image: 'registry.example/web:1', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 50 }, { pause: {} }] } };
const revisionWrites = <W extends { kind: string; verb: string }>(writes: W[]) => writes.filter((w) => w.kind === 'ControllerRevision');

describe('revision history in reconcile', () => {
  it('records the first revision once, Running until its Deployment is available, then Promoted; the next pass writes nothing at all', async () => {
    const t = setup(SPEC, { history: true, readYourWrites: true });
    await t.run();
    const entry = t.cluster.get('ControllerRevision', NS, 'web-1') as KubernetesObject & { revision: number; data: { spec: AppSpec } };
    assert.equal(entry.revision, 1);
    assert.equal(entry.metadata?.labels?.['skiff.dev/revision'], t.app().status?.stableRevision);
    assert.equal(entry.metadata?.annotations?.['skiff.dev/outcome'], 'Running', 'its pods are not up yet');
    markAvailable(t.cluster, 'web');
    await t.run();
    assert.equal(t.cluster.get('ControllerRevision', NS, 'web-1')?.metadata?.annotations?.['skiff.dev/outcome'], 'Promoted');
    assert.equal(entry.data.spec.image, 'registry.example/web:1');
    assert.equal(entry.metadata?.ownerReferences?.[0].uid, t.app().metadata.uid);
    assert.deepEqual(t.cluster.events.filter((e) => e.reason.startsWith('Revision')).map((e) => e.reason), [], 'the first revision has no Event of its own, recorded or rolled out: the creation has its Events, the Ready condition its end');
    const before = t.cluster.writes.length;
    await t.run();
    assert.deepEqual(t.cluster.writes.slice(before), [], 'no write in a pass with nothing to do');
  });

  it('a change outside the pod template (progressDeadlineSeconds) keeps Ready True and the history as it is while the Deployment controller has not seen it', async () => {
    for (const rollout of [{ strategy: 'RollingUpdate' as const }, SPEC.rollout!]) {
      const t = setup({ ...SPEC, rollout }, { history: true, readYourWrites: true });
      await t.run();
      markAvailable(t.cluster, 'web');
      await t.run();
      const outcome = () => t.cluster.get('ControllerRevision', NS, 'web-1')?.metadata?.annotations?.['skiff.dev/outcome'];
      const ready = () => t.app().status?.conditions?.find((c) => c.type === 'Ready');
      assert.deepEqual([outcome(), ready()?.status], ['Promoted', 'True'], rollout.strategy);
      const before = t.cluster.writes.length;
      t.setSpec((s) => ({ ...s, rollout: { ...s.rollout, progressDeadlineSeconds: 300 } }));
      await t.run(); // writes the Deployment: a new generation its controller has not seen yet
      const d = t.cluster.get('Deployment', NS, 'web') as V1Deployment;
      assert.ok(d.spec!.progressDeadlineSeconds === 300 && d.metadata!.generation! > d.status!.observedGeneration!, 'the Deployment controller is behind');
      await t.run(); // the pass its watch event brings, still before its controller has seen it
      assert.deepEqual([outcome(), ready()?.status, ready()?.reason], ['Promoted', 'True', 'Available'], `${rollout.strategy}: the same pods serve`);
      assert.deepEqual(revisionWrites(t.cluster.writes.slice(before)), [], `${rollout.strategy}: no entry Running and back`);
      markAvailable(t.cluster, 'web');
      await t.run();
      assert.deepEqual([outcome(), ready()?.status, t.app().status?.conditions?.find((c) => c.type === 'Progressing')?.reason], ['Promoted', 'True', 'RolloutComplete']);
    }
  });

  it('waits for a lagging cache instead of creating the entry again or skipping a number', async () => {
    const t = setup(SPEC, { history: true, readYourWrites: true });
    t.cluster.lag('ControllerRevision');
    await t.run();
    assert.deepEqual(revisionWrites(t.cluster.writes).map((w) => w.verb), ['create']);
    // The cache still shows no entry: the pass waits for it.
    const outcome = await t.run();
    assert.ok(outcome.requeueAfterMs !== undefined && outcome.requeueAfterMs > 0);
    assert.deepEqual(revisionWrites(t.cluster.writes).map((w) => w.verb), ['create'], 'no second create');
    t.cluster.catchUp();
    const before = t.cluster.writes.length;
    await t.run();
    assert.deepEqual(t.cluster.writes.slice(before), []);
    assert.equal(t.cluster.get('ControllerRevision', NS, 'web-2'), undefined);
  });

  it('a prune the API server refuses is no delete to wait for: the next pass is not held for a cache that rightly still shows the entry', async () => {
    const t = setup({ image: 'registry.example/web:1', revisionHistoryLimit: 0 }, { history: true, readYourWrites: true });
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    // Revision 2 is recorded: revision 1 is beyond the limit, and its delete is refused.
    t.cluster.beforeWrite = (w) => {
      if (w.kind === 'ControllerRevision' && w.verb === 'delete') throw apiError(403, 'controllerrevisions "web-1" is forbidden');
    };
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
    await assert.rejects(t.run(), /forbidden/);
    assert.ok(t.cluster.get('ControllerRevision', NS, 'web-1'), 'still there');
    t.cluster.beforeWrite = () => {};
    const outcome = await t.run();
    assert.equal(t.cluster.get('ControllerRevision', NS, 'web-1'), undefined, `pruned by the next pass (it came back after ${outcome.requeueAfterMs} ms instead)`);
  });

  it('answers 409 AlreadyExists (an entry the cache does not show) by coming back, not by failing', async () => {
    const t = setup(SPEC, { history: true });
    await t.run();
    const entry = t.cluster.get('ControllerRevision', NS, 'web-1')!;
    // A cache that lost the entry (another replica's write it has not seen): without expectations.
    t.cluster.objects.delete(`ControllerRevision/${NS}/web-1`);
    t.cluster.lag('ControllerRevision');
    t.cluster.put(entry);
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
    const outcome = await t.run();
    // The canary's entry is web-1 by the lagging cache's count: taken, so the pass comes back.
    assert.ok(outcome.requeueAfterMs !== undefined && outcome.requeueAfterMs <= 1_000);
    t.cluster.catchUp();
    await t.run();
    assert.equal(t.cluster.get('ControllerRevision', NS, 'web-2')?.metadata?.annotations?.['skiff.dev/outcome'], 'Running');
  });

  it('an entry whose labels were removed by hand (so the cache lost it) is labelled again, once, not created every second', async () => {
    const t = setup(SPEC, { history: true });
    await t.run();
    const entry = t.cluster.get('ControllerRevision', NS, 'web-1')!;
    const labels = { ...entry.metadata!.labels };
    const { 'skiff.dev/app': _app, 'app.kubernetes.io/managed-by': _by, ...rest } = labels;
    t.cluster.put({ ...entry, metadata: { ...entry.metadata, labels: rest } });
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
    const first = await t.run();
    assert.ok(first.requeueAfterMs !== undefined && first.requeueAfterMs <= 1_000);
    assert.deepEqual(t.cluster.get('ControllerRevision', NS, 'web-1')!.metadata!.labels, labels, 'its labels as Skiff writes them');
    await t.run();
    assert.equal(t.cluster.get('ControllerRevision', NS, 'web-2')?.metadata?.annotations?.['skiff.dev/outcome'], 'Running');
    const creates = t.cluster.writes.filter((w) => w.kind === 'ControllerRevision' && w.verb === 'create').map((w) => w.name);
    assert.deepEqual(creates, ['web-1', 'web-1', 'web-2'], 'the first entry, the one refused as taken, then the canary\'s');
  });

  it('an entry that stays out of the history long after it was made (its revision label edited by hand) is reported, not created every second', async () => {
    const t = setup(SPEC, { history: true });
    await t.run();
    const entry = t.cluster.get('ControllerRevision', NS, 'web-1')!;
    // An hour old, and no longer web-1 by its number: the history does not count it.
    t.cluster.put({ ...entry, revision: 9, metadata: { ...entry.metadata, creationTimestamp: new Date(t.deps.now!().getTime() - 3_600_000) } } as KubernetesObject);
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
    const first = await t.run();
    assert.ok(first.requeueAfterMs !== undefined && first.requeueAfterMs <= 1_000, 'back soon, for the status to say so');
    const second = await t.run();
    const degraded = t.app().status?.conditions?.find((c) => c.type === 'Degraded');
    assert.deepEqual([degraded?.status, degraded?.reason], ['True', 'ResourceConflict']);
    assert.match(degraded?.message ?? '', /ControllerRevision shop\/web-1 is the App's but not an entry of its history/);
    assert.equal(second.requeueAfterMs, 30_000);
  });

  it('reports a history name taken by an object the App does not own as ResourceConflict, and never touches it', async () => {
    const t = setup(SPEC, { history: true });
    const foreign = structuredClone(t.cluster.put({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'web-1', namespace: NS, uid: 'someone-else' }, revision: 7, data: { mine: true } } as KubernetesObject));
    const degraded = () => t.app().status?.conditions?.find((c) => c.type === 'Degraded');
    const first = await t.run();
    // The pass that finds the name taken comes back soon, so that the status says so.
    assert.ok(first.requeueAfterMs !== undefined && first.requeueAfterMs <= 1_000, `requeue after ${first.requeueAfterMs}`);
    await t.run();
    assert.deepEqual([degraded()?.status, degraded()?.reason], ['True', 'ResourceConflict']);
    assert.match(degraded()?.message ?? '', new RegExp(`ControllerRevision ${NS}/web-1 exists and is not owned by this App`));
    assert.deepEqual(t.cluster.get('ControllerRevision', NS, 'web-1'), foreign, 'the foreign object is left as it was');
    // Passes while it stays: the status is not written again and again.
    const statusWrites = () => t.cluster.writes.filter((w) => w.kind === 'App').length;
    const before = statusWrites();
    await t.run();
    assert.equal(statusWrites(), before, 'the same conflict, no new status');
    // Its owner removes it: the entry is recorded and the conflict ends.
    t.cluster.objects.delete(`ControllerRevision/${NS}/web-1`);
    await t.run();
    assert.equal(t.cluster.get('ControllerRevision', NS, 'web-1')?.metadata?.ownerReferences?.[0].uid, t.app().metadata.uid);
    await t.run();
    assert.deepEqual([degraded()?.status, degraded()?.reason], ['False', 'AsExpected']);
  });

  it('RollingUpdate: a new template is Running while the Deployment rolls (or is paused with it), Promoted once rolled out, Cancelled if replaced first', async () => {
    const rolling: AppSpec = { image: 'registry.example/web:1' };
    const t = setup(rolling, { history: true });
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    const outcome = (n: number) => t.cluster.get('ControllerRevision', NS, `web-${n}`)?.metadata?.annotations?.['skiff.dev/outcome'];
    assert.equal(outcome(1), 'Promoted');
    // A template whose pods never come up: never Promoted, so never a target of undo.
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:2-broken' }));
    await t.run();
    await t.run();
    assert.deepEqual([outcome(1), outcome(2)], ['Promoted', 'Running']);
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:3' }));
    await t.run();
    assert.deepEqual([outcome(2), outcome(3)], ['Cancelled', 'Running']);
    markAvailable(t.cluster, 'web');
    await t.run();
    assert.equal(outcome(3), 'Promoted');
    // Later revisions' outcomes have their Events (only the first's creation is left out).
    const hash = (n: number) => t.cluster.get('ControllerRevision', NS, `web-${n}`)?.metadata?.labels?.['skiff.dev/revision'];
    assert.deepEqual(t.cluster.events.filter((e) => e.reason === 'RevisionOutcome').map((e) => e.message), [
      `Revision 2 (pod template ${hash(2)}): Cancelled`,
      `Revision 3 (pod template ${hash(3)}): Promoted`,
    ]);
    // Paused with a new template: the Deployment holds it, so it is Running, not Promoted.
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:4', rollout: { paused: true } }));
    await t.run();
    await t.run();
    assert.equal(outcome(4), 'Running');
  });

  it('RollingUpdate: a paused App renders its Deployment paused, and Progressing Unknown RolloutPaused', async () => {
    const t = setup({ image: 'registry.example/web:1', rollout: { strategy: 'RollingUpdate', paused: true } });
    await t.run();
    assert.equal((t.cluster.get('Deployment', NS, 'web') as V1Deployment).spec?.paused, true);
    const progressing = t.app().status?.conditions?.find((c) => c.type === 'Progressing');
    assert.deepEqual([progressing?.status, progressing?.reason], ['Unknown', 'RolloutPaused']);
    t.setSpec((s) => ({ ...s, rollout: { ...s.rollout, paused: false } }));
    await t.run();
    assert.equal((t.cluster.get('Deployment', NS, 'web') as V1Deployment).spec?.paused, undefined);
  });

  it('revisionHistoryLimit 0: an entry that cannot be created (its name taken) does not cost the newest entry, so no number is used twice', async () => {
    const t = setup({ image: 'registry.example/web:1', revisionHistoryLimit: 0 }, { history: true });
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    assert.equal(t.cluster.get('ControllerRevision', NS, 'web-1')?.metadata?.annotations?.['skiff.dev/outcome'], 'Promoted');
    const first = t.cluster.get('ControllerRevision', NS, 'web-1')?.metadata?.labels?.['skiff.dev/revision'];
    t.cluster.put({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'web-2', namespace: NS, uid: 'someone-else' }, revision: 7, data: {} } as KubernetesObject);
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
    await t.run();
    await t.run();
    assert.deepEqual(revisionWrites(t.cluster.writes).filter((w) => w.verb !== 'patch').map((w) => `${w.verb} ${w.name}`), ['create web-1', 'create web-2', 'create web-2'],
      'the newest entry stays while the next one cannot be recorded: no number is freed for reuse');
    assert.equal(t.cluster.get('ControllerRevision', NS, 'web-1')?.metadata?.labels?.['skiff.dev/revision'], first);
    t.cluster.objects.delete(`ControllerRevision/${NS}/web-2`);
    await t.run();
    await t.run();
    const mine = [...t.cluster.objects.values()].filter((o) => o.kind === 'ControllerRevision').map((o) => `${o.metadata?.name} ${o.metadata?.labels?.['skiff.dev/revision']}`);
    assert.deepEqual(mine, [`web-2 ${t.app().status?.stableRevision}`], 'recorded as number 2, and web-1 pruned once it is');
  });

  it('a first revision whose pods never came up stays Running when a canary starts beside it: it is no Promoted revision to go back to', async () => {
    const t = setup(SPEC, { history: true });
    await t.run();
    await t.run();
    const outcome = (n: number) => t.cluster.get('ControllerRevision', NS, `web-${n}`)?.metadata?.annotations?.['skiff.dev/outcome'];
    assert.equal(outcome(1), 'Running', 'its Deployment is not available');
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
    await t.run();
    assert.equal(t.app().status?.canary?.image, 'registry.example/web:2', 'the canary started');
    assert.deepEqual([outcome(1), outcome(2)], ['Running', 'Running'], 'stable\'s pods are not up yet');
    markAvailable(t.cluster, 'web');
    await t.run();
    assert.deepEqual([outcome(1), outcome(2)], ['Promoted', 'Running'], 'Promoted once its Deployment has rolled it out');
  });
  it('RollingUpdate: a pod of the rolled-out revision lost (an eviction) or a scale-up leaves its entry Promoted; the next template then leaves it Promoted, a revision undo goes back to', async () => {
    const t = setup({ image: 'registry.example/web:1', replicas: 3 }, { history: true, readYourWrites: true });
    const outcome = (n: number) => t.cluster.get('ControllerRevision', NS, `web-${n}`)?.metadata?.annotations?.['skiff.dev/outcome'];
    for (const image of ['registry.example/web:1', 'registry.example/web:2']) {
      t.setSpec((s) => ({ ...s, image }));
      await t.run();
      markAvailable(t.cluster, 'web');
      await t.run();
    }
    assert.deepEqual([outcome(1), outcome(2)], ['Promoted', 'Promoted']);
    const d = t.cluster.get('Deployment', NS, 'web') as V1Deployment;
    d.status = { ...d.status, readyReplicas: 2, availableReplicas: 2, conditions: [{ type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable' }] as NonNullable<V1Deployment['status']>['conditions'] };
    await t.run();
    assert.equal(outcome(2), 'Promoted', 'a pod lost after the rollout is no rollout');
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:3' }));
    await t.run();
    assert.deepEqual([outcome(1), outcome(2), outcome(3)], ['Promoted', 'Promoted', 'Running']);
    assert.equal(t.cluster.get('ControllerRevision', NS, 'web-4'), undefined);
  });

  it('canary aborted, then spec back on stable\'s template: no second entry of stable, and revisionHistoryLimit keeps the revision before stable', async () => {
    const t = setup({ ...SPEC, revisionHistoryLimit: 2, rollout: { ...SPEC.rollout!, scaleDownDelaySeconds: 0 } }, { history: true, readYourWrites: true });
    const settle = async () => {
      for (let i = 0; i < 6; i++) {
        await t.run();
        for (const name of ['web', 'web-canary']) if (t.cluster.get('Deployment', NS, name)) markAvailable(t.cluster, name);
        t.later(1_000);
      }
    };
    const annotate = (key: string) => {
      const a = t.app();
      t.cluster.put({ ...a, metadata: { ...a.metadata, annotations: { ...a.metadata?.annotations, [key]: 'true' } } });
    };
    await settle();
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
    await settle();
    annotate('skiff.dev/promote');
    await settle();
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:3' }));
    await settle();
    annotate('skiff.dev/abort');
    await settle();
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
    await settle();
    const entries = [...t.cluster.objects.values()].filter((o) => o.kind === 'ControllerRevision')
      .map((o) => `${o.metadata?.name} ${(o as KubernetesObject & { data: { spec: AppSpec } }).data.spec.image} ${o.metadata?.annotations?.['skiff.dev/outcome']}`);
    assert.equal(t.app().status?.stableImage, 'registry.example/web:2');
    assert.deepEqual(entries.sort(), ['web-1 registry.example/web:1 Promoted', 'web-2 registry.example/web:2 Promoted', 'web-3 registry.example/web:3 Aborted']);
  });

  it('RollingUpdate back to an earlier template whose entry\'s name is taken: stable\'s only entry is not pruned while the new one cannot be recorded', async () => {
    const t = setup({ image: 'registry.example/web:1', revisionHistoryLimit: 1 }, { history: true, readYourWrites: true });
    for (const image of ['registry.example/web:1', 'registry.example/web:2']) {
      t.setSpec((s) => ({ ...s, image }));
      await t.run();
      markAvailable(t.cluster, 'web');
      await t.run();
    }
    t.cluster.put({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'web-3', namespace: NS, uid: 'someone-else' }, revision: 7, data: {} } as KubernetesObject);
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:1' }));
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    assert.equal(t.app().status?.conditions?.find((c) => c.type === 'Degraded')?.reason, 'ResourceConflict');
    const images = [...t.cluster.objects.values()].filter((o) => o.kind === 'ControllerRevision' && o.metadata?.uid !== 'someone-else')
      .map((o) => `${o.metadata?.name} ${(o as KubernetesObject & { data: { spec: AppSpec } }).data.spec.image}`);
    assert.deepEqual(images.sort(), ['web-1 registry.example/web:1', 'web-2 registry.example/web:2'], 'web:1 runs as stable: its entry stays until the new one is recorded');
  });
  it('RollingUpdate set back to the stable template while another was rolling on the Deployment: a new entry, Running until the Deployment has rolled it out again', async () => {
    const t = setup({ image: 'registry.example/web:1', replicas: 2 }, { history: true, readYourWrites: true });
    const outcomes = () => [...t.cluster.objects.values()].filter((o) => o.kind === 'ControllerRevision').map((o) => `${o.metadata?.name} ${o.metadata?.annotations?.['skiff.dev/outcome']}`).sort();
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
    await t.run();
    await t.run();
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:1' }));
    await t.run();
    assert.deepEqual(outcomes(), ['web-1 Promoted', 'web-2 Cancelled', 'web-3 Running']);
    // web:2's pods gone, web:1's back but not all of them yet: one template, not rolled out.
    const d = t.cluster.get('Deployment', NS, 'web') as V1Deployment;
    d.status = { observedGeneration: d.metadata!.generation, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' }] as NonNullable<V1Deployment['status']>['conditions'] };
    await t.run();
    assert.deepEqual(outcomes(), ['web-1 Promoted', 'web-2 Cancelled', 'web-3 Running'], 'Running until every pod is back');
    markAvailable(t.cluster, 'web');
    await t.run();
    assert.deepEqual(outcomes(), ['web-1 Promoted', 'web-2 Cancelled', 'web-3 Promoted']);
  });
});
