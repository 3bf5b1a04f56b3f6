// reconcile() end to end over in-memory caches and recording clients: the orchestration
// (what is written, in which order, and what happens when a write fails). The real API server
// is exercised by the integration tests; here every interleaving is deterministic.
import { strict as assert } from 'node:assert';
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import { CONFLICT_RECHECK_MS } from '../../controller/act.js';
import { DEPARTURE_MEMORY_MS, reconcile, STATUS_COALESCE_MS } from '../../controller/reconcile.js';
import { isConflict } from '../../controller/runtime/api-errors.js';
import type { ObjectCache } from '../../controller/runtime/cache.js';
import { createMetrics } from '../../controller/runtime/metrics.js';
import { MAX_TIMER_DELAY_MS } from '../../controller/runtime/timer-delay.js';
import { runWorker } from '../../controller/runtime/worker.js';
import { WorkQueue } from '../../controller/runtime/workqueue.js';
import type { AppSpec } from '../../shared/app-types.js';
import { condition, testLogger } from '../support/apps.js';
import { apiError } from '../support/fake-cluster.js';
import { ManualClock } from '../support/manual-clock.js';
import { containerImageOf, KEY, markAvailable, NS, setup, weightOf } from '../support/reconciler.js';

/** A canary of web:2 with a canary header, at 20 % with its one pod ready; its next step, after 5 s, is 50 %. */
async function setupHeaderCanary() {
  const t = setup({ image: 'web:1', replicas: 4, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', canaryHeader: 'X-Canary', steps: [{ setWeight: 20 }, { pause: { duration: '5s' } }, { setWeight: 50 }, { pause: {} }] } }, { readYourWrites: true });
  await rollingOutWeb2(t, 'web-canary');
  for (let i = 0; i < 2; i++) {
    t.later(1_000);
    await t.run();
  }
  return t;
}

/** web:1 rolled out, then web:2 set, its canary's or preview's Deployment made available: a pass after each. */
async function rollingOutWeb2(t: Pick<ReturnType<typeof setup>, 'cluster' | 'run' | 'setSpec'>, track: 'web-canary' | 'web-preview'): Promise<void> {
  await t.run();
  markAvailable(t.cluster, 'web');
  await t.run();
  t.setSpec((s) => ({ ...s, image: 'web:2' }));
  await t.run();
  markAvailable(t.cluster, track);
  await t.run();
}

describe('reconcile() orchestration (in-memory caches, recording clients)', () => {
  it('creates the owned objects and status, then a pass with nothing to do writes nothing', async () => {
    const { cluster, run } = setup({ image: 'web:1', ingress: { host: 'web.example.com' } });
    await run();
    assert.deepEqual(cluster.writes.map((w) => `${w.verb} ${w.kind}/${w.name}`).sort(), ['apply Deployment/web', 'apply Ingress/web', 'apply Service/web', 'status App/web']);
    markAvailable(cluster, 'web');
    await run();
    const settled = cluster.writes.length;
    const result = await run();
    assert.equal(cluster.writes.length, settled, `no write in a no-op pass: ${JSON.stringify(cluster.writes.slice(settled))}`);
    assert.equal(result.requeueAfterMs, undefined);
  });

  it('a wall clock set back after a status write does not hold the progress statuses that follow for as long', async () => {
    const { cluster, run, app, later } = setup({ image: 'web:1', replicas: 2 });
    await run();
    const statusWrites = () => cluster.writes.filter((w) => w.verb === 'status').length;
    assert.equal(statusWrites(), 1);
    const d = cluster.get('Deployment', NS, 'web') as V1Deployment;
    d.status = { observedGeneration: d.metadata!.generation, replicas: 2, updatedReplicas: 2, readyReplicas: 1, availableReplicas: 1, conditions: [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' }] as never };
    // NTP steps the clock back an hour.
    later(-3_600_000);
    const pass = await run();
    assert.ok(statusWrites() === 2 || (pass.requeueAfterMs ?? Infinity) <= STATUS_COALESCE_MS, `held for ${pass.requeueAfterMs} ms`);
    later(STATUS_COALESCE_MS);
    await run();
    assert.equal(statusWrites(), 2, 'written within STATUS_COALESCE_MS, not an hour later');
    assert.equal(app().status?.ready, '1/2');
  });

  it('holds a status that only reports progress for STATUS_COALESCE_MS after a status write, then writes what is true by then; Ready goes at once', async () => {
    const { cluster, run, app, later } = setup({ image: 'web:1', replicas: 2 });
    await run();
    const statusWrites = () => cluster.writes.filter((w) => w.verb === 'status').length;
    assert.equal(statusWrites(), 1, 'the first status (observedGeneration) at once');
    // The Deployment controller reports its pods: progress only.
    const d = cluster.get('Deployment', NS, 'web') as V1Deployment;
    d.status = { observedGeneration: d.metadata!.generation, replicas: 2, updatedReplicas: 2, readyReplicas: 0, availableReplicas: 0, conditions: [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' }] as never };
    later(500);
    const held = await run();
    assert.equal(statusWrites(), 1, 'held back');
    assert.equal(held.requeueAfterMs, STATUS_COALESCE_MS - 500, 'back when the time is up');
    assert.equal(app().status?.ready, '0/2', 'not yet: the status still says what was written first');
    later(STATUS_COALESCE_MS - 500);
    await run();
    assert.equal(statusWrites(), 2);
    assert.equal(app().status?.ready, '0/2');
    // One pod ready: progress again, held; then all available: Ready, written at once.
    d.status = { ...d.status, readyReplicas: 1, availableReplicas: 1 };
    later(100);
    await run();
    assert.equal(statusWrites(), 2);
    markAvailable(cluster, 'web');
    later(100);
    const ready = await run();
    assert.equal(statusWrites(), 3, 'Ready is never held back');
    assert.equal(condition(app(), 'Ready')?.status, 'True');
    assert.equal(ready.requeueAfterMs, undefined);
  });

  it('reports a name taken by an object it does not own as Degraded, leaves it alone and looks again in 30 s', async () => {
    const { cluster, run, app } = setup({ image: 'web:1' });
    cluster.put({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: NS }, spec: { replicas: 5 } } as KubernetesObject);
    const result = await run();
    assert.equal(result.requeueAfterMs, CONFLICT_RECHECK_MS);
    assert.ok(!cluster.writes.some((w) => w.kind === 'Deployment'), 'the foreign Deployment is not written');
    assert.equal((cluster.get('Deployment', NS, 'web') as V1Deployment).spec!.replicas, 5);
    const degraded = condition(app(), 'Degraded')!;
    assert.equal(degraded.status, 'True');
    assert.equal(degraded.reason, 'ResourceConflict');
    assert.match(degraded.message, /Deployment shop\/web exists and is not owned by this App/);
    assert.ok(cluster.events.some((e) => e.type === 'Warning' && e.reason === 'ResourceConflict'));
  });

  // Both act on the pods or the Deployment of the App's name, whoever runs them.
  const dependents: [string, AppSpec, string][] = [
    ['PodDisruptionBudget', { image: 'web:1', replicas: 3 }, 'it would limit evictions of pods that may be someone else\'s'],
    ['HorizontalPodAutoscaler', { image: 'web:1', replicas: 3, resources: { requests: { cpu: '100m' } }, autoscaling: { minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 50 } }, 'it would scale their Deployment'],
  ];
  for (const [kind, spec, why] of dependents) {
    it(`makes no ${kind} while the Deployment name is taken by someone else (${why}); the App's own goes`, async () => {
      const foreign = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: NS }, spec: { replicas: 1 } } as KubernetesObject;
      const { cluster, run, app } = setup(spec);
      cluster.put(foreign);
      await run();
      assert.equal(cluster.get(kind, NS, 'web'), undefined);
      assert.equal(condition(app(), 'Degraded')?.reason, 'ResourceConflict');
      // One the App made before its Deployment's name was taken goes as well.
      const owned = setup(spec);
      await owned.run();
      assert.ok(owned.cluster.get(kind, NS, 'web'));
      owned.cluster.objects.delete('Deployment/shop/web');
      owned.cluster.put(foreign);
      await owned.run();
      assert.equal(owned.cluster.get(kind, NS, 'web'), undefined);
      assert.equal((owned.cluster.get('Deployment', NS, 'web') as V1Deployment).spec!.replicas, 1, 'the foreign Deployment is left as it is');
    });
  }

  it('looks for objects of another shard once per version of an App that stays without a Deployment, not on each pass', async () => {
    const { cluster, deps, run, app, later } = setup({ image: 'web:1' }, { status: { observedGeneration: 1 } });
    // Someone else's Deployment web: the controller's cache (Skiff's objects only) never holds it.
    cluster.put({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: NS }, spec: { replicas: 5 } } as KubernetesObject);
    deps.deployments = { ...deps.deployments, get: () => undefined };
    const searches: string[] = [];
    deps.takeOver = async (a) => { searches.push(a.metadata.resourceVersion!); return []; };
    deps.takeoverSearched = new Map();
    for (let pass = 0; pass < 4; pass++) {
      assert.equal((await run()).requeueAfterMs, CONFLICT_RECHECK_MS);
      later(CONFLICT_RECHECK_MS);
    }
    assert.equal(searches.length, 2, `the first pass, and the one after its own status write changed the App: ${searches.join(', ')}`);
    // The App changes (relabelled for this shard, say): looked for again.
    cluster.put({ ...app(), metadata: { ...app().metadata, labels: { 'skiff.dev/shard': 'b' } } });
    await run();
    assert.equal(searches.length, 3);
    // Objects found and relabelled: the pass waits for them and looks again next time.
    deps.takeOver = async (a) => { searches.push(a.metadata.resourceVersion!); return ['Deployment/web']; };
    cluster.put({ ...app(), metadata: { ...app().metadata, labels: { 'skiff.dev/shard': 'c' } } });
    await run();
    await run();
    assert.equal(searches.length, 5);
  });

  it('does not take an App\'s objects back from the shard it moved to while its own cache of the App lags', async () => {
    const SHARD = 'skiff.dev/shard';
    const { cluster, deps, run, app } = setup({ image: 'web:1', ingress: { host: 'web.example.com' } });
    cluster.put({ ...app(), metadata: { ...app().metadata, labels: { [SHARD]: 'a' } } });
    await run();
    markAvailable(cluster, 'web');
    await run();
    // Shard a's App watch lags; the App is relabelled for shard b, whose controller relabels its objects.
    cluster.lag('App');
    cluster.put({ ...app(), metadata: { ...app().metadata, labels: { [SHARD]: 'b' } } });
    for (const kind of ['Deployment', 'Service', 'Ingress']) {
      const o = cluster.get(kind, NS, 'web')!;
      cluster.put({ ...o, metadata: { ...o.metadata, labels: { ...o.metadata!.labels, [SHARD]: 'b' } } });
    }
    // Shard a's controller: its owned-object caches hold shard a's objects only, so their watches
    // dropped web's (the events that reconcile it now), while its App cache still says shard a.
    const onlyA = <C extends ObjectCache>(c: C): C => ({
      ...c,
      get: (n: string, ns: string) => { const o = c.get(n, ns); return o?.metadata?.labels?.[SHARD] === 'a' ? o : undefined; },
    });
    deps.deployments = onlyA(deps.deployments);
    deps.services = onlyA(deps.services);
    deps.ingresses = onlyA(deps.ingresses);
    deps.inScope = (a) => a.metadata?.labels?.[SHARD] === 'a';
    const relabelled: string[] = [];
    deps.takeOver = async (a) => { relabelled.push(a.metadata.labels?.[SHARD] ?? ''); return ['Deployment/web']; };
    deps.takeoverSearched = new Map();
    const writes = cluster.writes.length;
    assert.deepEqual(await run(), {});
    assert.deepEqual(relabelled, [], 'nothing relabelled for shard a');
    assert.deepEqual(cluster.writes.slice(writes).map((w) => `${w.verb} ${w.kind}/${w.name}`), [], 'nothing written');
    // Back on shard a (its label as stored again): the objects are taken over for it.
    cluster.put({ ...app(), metadata: { ...app().metadata, labels: { [SHARD]: 'a' } } });
    cluster.catchUp();
    assert.deepEqual(await run(), { requeueAfterMs: 1_000 });
    assert.deepEqual(relabelled, ['a']);
  });

  it('an App relabelled away and straight back is looked for once, though this shard still has its stable Deployment: the other shard\'s takeover may have moved the rest', async () => {
    const { cluster, deps, run, app, later } = setup({ image: 'web:1', ingress: { host: 'web.example.com' } });
    await run();
    markAvailable(cluster, 'web');
    await run();
    const searches: string[] = [];
    deps.takeOver = async (a) => { searches.push(a.metadata.resourceVersion!); return []; };
    deps.takeoverSearched = new Map();
    deps.departures = new Map();
    await run();
    assert.deepEqual(searches, [], 'its stable Deployment in the cache: nothing to look for');
    const stored = app();
    // Relabelled for another shard: it leaves this shard's App watch; then it comes back.
    cluster.objects.delete(`App/${NS}/web`);
    assert.deepEqual(await run(), { gone: true });
    cluster.put(stored);
    await run();
    assert.equal(searches.length, 1, 'back at once: looked for whatever the caches hold');
    await run();
    assert.equal(searches.length, 1, 'once');
    // Back long after it left: the other shard's takeover ended long ago (the stable Deployment last).
    cluster.objects.delete(`App/${NS}/web`);
    await run();
    later(DEPARTURE_MEMORY_MS);
    cluster.put(stored);
    await run();
    assert.equal(searches.length, 1);
  });

  it('a takeover that finds the App moved on again (relabelled back) stops, and the pass decides nothing', async () => {
    const { cluster, deps, run, app } = setup({ image: 'web:1', ingress: { host: 'web.example.com' } }, { status: { observedGeneration: 1 } });
    deps.deployments = { ...deps.deployments, get: () => undefined };
    deps.takeoverSearched = new Map();
    const stored = app();
    deps.takeOver = async (_a, stillOurs) => {
      assert.equal(stillOurs(), true);
      cluster.objects.delete(`App/${NS}/web`);
      assert.equal(stillOurs(), false);
      return ['Service/web'];
    };
    const writes = cluster.writes.length;
    assert.deepEqual(await run(), {});
    assert.deepEqual(cluster.writes.slice(writes), [], 'nothing written from caches the other shard is taking');
    cluster.put(stored);
  });

  it('an App moved to another shard, its objects relabelled, is not written again: no new hash, no new Deployment generation, no rollout reported', async () => {
    const SHARD = 'skiff.dev/shard';
    const { cluster, run, app } = setup({ image: 'web:1', replicas: 3, ingress: { host: 'web.example.com' } });
    cluster.put({ ...app(), metadata: { ...app().metadata, labels: { [SHARD]: 'a' } } });
    await run();
    markAvailable(cluster, 'web');
    await run();
    const kinds = ['Deployment', 'Service', 'Ingress', 'PodDisruptionBudget'];
    // Shard b's takeover has relabelled the App's objects (a merge patch of the label alone).
    cluster.put({ ...app(), metadata: { ...app().metadata, labels: { [SHARD]: 'b' } } });
    for (const kind of kinds) {
      const o = cluster.get(kind, NS, 'web')!;
      cluster.put({ ...o, metadata: { ...o.metadata, labels: { ...o.metadata!.labels, [SHARD]: 'b' } } });
    }
    const writes = cluster.writes.length;
    await run();
    assert.deepEqual(cluster.writes.slice(writes).map((w) => `${w.verb} ${w.kind}/${w.name}`), [], 'nothing written');
    assert.equal(condition(app(), 'Ready')?.status, 'True');
  });

  it('a new App whose Deployment the API server refuses to create is not "creating" it: Progressing False, DeploymentCreateFailed, until the creation is taken', async () => {
    const { cluster, run, app } = setup({ image: 'web:1', replicas: 2 });
    cluster.beforeWrite = (w) => {
      if (w.kind === 'Deployment' && (w.verb === 'apply' || w.verb === 'create')) throw apiError(422, 'field label not supported: status.hostIPs');
    };
    await assert.rejects(run());
    const refused = condition(app(), 'Progressing');
    assert.deepEqual([refused?.status, refused?.reason], ['False', 'DeploymentCreateFailed']);
    assert.match(refused!.message!, /^Deployment shop\/web could not be created: .*field label not supported: status\.hostIPs/);
    assert.equal(condition(app(), 'Degraded')?.reason, 'ReconcileError');
    cluster.beforeWrite = () => {};
    await run();
    assert.ok(cluster.get('Deployment', NS, 'web'), 'created once the API server takes it');
    assert.deepEqual([condition(app(), 'Progressing')?.status, condition(app(), 'Degraded')?.status], ['True', 'False']);
  });

  it('a RollingUpdate whose Deployment refuses the new template reports the revision the Deployment still runs as stable', async () => {
    const { cluster, run, app, setSpec } = setup({ image: 'web:1', replicas: 2 }, { history: true });
    await run();
    markAvailable(cluster, 'web');
    await run();
    const before = app().status!;
    cluster.beforeWrite = (w) => {
      if (w.kind === 'Deployment' && w.verb === 'apply') throw apiError(422, 'exceeded quota');
    };
    setSpec((s) => ({ ...s, image: 'web:2' }));
    await assert.rejects(run());
    const status = app().status!;
    assert.equal(containerImageOf(cluster, 'web'), 'web:1');
    assert.equal(status.stableImage, 'web:1');
    assert.equal(status.stableRevision, before.stableRevision);
    assert.notEqual(status.updateRevision, status.stableRevision, 'spec\'s revision is not rolled out');
    assert.equal(condition(app(), 'Progressing')?.reason, 'DeploymentUpdateFailed');
    // The quota raised: the Deployment takes it, and the status says so.
    cluster.beforeWrite = () => {};
    await run();
    assert.equal(app().status!.stableImage, 'web:2');
    assert.equal(app().status!.stableRevision, app().status!.updateRevision);
  });

  describe('a stable Deployment deleted mid-rollout is made again on the stable revision, from its history entry', () => {
    it('during a canary: not on the canary\'s new template', async () => {
      const { cluster, run, app, setSpec } = setup({ image: 'web:1', replicas: 3, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary' } }, { history: true, readYourWrites: true });
      await rollingOutWeb2({ cluster, run, setSpec }, 'web-canary');
      await run();
      assert.equal(weightOf(cluster), '20');
      const stableRevision = app().status!.stableRevision;
      const before = (cluster.get('Deployment', NS, 'web') as V1Deployment).spec!.template;
      cluster.objects.delete(`Deployment/${NS}/web`);
      await run();
      const again = cluster.get('Deployment', NS, 'web') as V1Deployment;
      assert.equal(containerImageOf(cluster, 'web'), 'web:1');
      assert.equal(again.metadata!.annotations!['skiff.dev/revision'], stableRevision);
      assert.deepEqual(again.spec!.template, before, 'the template stable ran, exactly');
      assert.equal(containerImageOf(cluster, 'web-canary'), 'web:2');
      assert.equal(weightOf(cluster), '20');
    });

    it('during a blue-green preview: the Service\'s revision, so that it still has pods to send to', async () => {
      const { cluster, run, app, setSpec } = setup({ image: 'web:1', replicas: 2, rollout: { strategy: 'BlueGreen', blueGreen: { autoPromote: false } } }, { history: true, readYourWrites: true });
      await rollingOutWeb2({ cluster, run, setSpec }, 'web-preview');
      assert.equal(app().status!.blueGreen?.phase, 'Preview');
      cluster.objects.delete(`Deployment/${NS}/web`);
      await run();
      const again = cluster.get('Deployment', NS, 'web') as V1Deployment;
      const selector = (cluster.get('Service', NS, 'web') as { spec: { selector: Record<string, string> } }).spec.selector;
      assert.equal(containerImageOf(cluster, 'web'), 'web:1');
      assert.equal(again.spec!.template.metadata!.labels!['skiff.dev/revision'], selector['skiff.dev/revision']);
      assert.equal(selector['skiff.dev/revision'], app().status!.stableRevision);
    });

    it('a history entry whose fields no longer render to the stable revision is not trusted', async () => {
      const { cluster, run, setSpec } = setup({ image: 'web:1', replicas: 3, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary' } }, { history: true, readYourWrites: true });
      await run();
      markAvailable(cluster, 'web');
      await run();
      setSpec((s) => ({ ...s, image: 'web:2' }));
      await run();
      const entry = cluster.get('ControllerRevision', NS, 'web-1') as KubernetesObject & { data: { spec: { image: string } } };
      entry.data.spec.image = 'evil:1';
      cluster.objects.delete(`Deployment/${NS}/web`);
      await run();
      assert.notEqual(containerImageOf(cluster, 'web'), 'evil:1');
    });
  });

  it('moves the canary weight only once the canary Deployment is available', async () => {
    const { cluster, run, app } = setup({ image: 'web:1', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary' } });
    await run();
    markAvailable(cluster, 'web');
    await run();
    assert.equal(app().status?.stableImage, 'web:1');

    cluster.put({ ...app(), spec: { ...app().spec, image: 'web:2' } });
    await run();
    assert.equal(containerImageOf(cluster, 'web-canary'), 'web:2');
    assert.equal(containerImageOf(cluster, 'web'), 'web:1', 'stable keeps the old image');
    assert.equal(weightOf(cluster), '0', 'the split exists at weight 0 while the canary is not available');
    assert.equal(cluster.get('Service', NS, 'web-canary')?.metadata?.name, 'web-canary');
    await run();
    assert.equal(weightOf(cluster), '0', 'still 0: no pod of the canary is ready');

    markAvailable(cluster, 'web-canary');
    await run();
    assert.equal(weightOf(cluster), '20');
    assert.equal(app().status?.canary?.weight, 20);
  });

  it('a field a mutating admission webhook rewrites on every write is applied once, not on every pass; other changes still are', async () => {
    const { cluster, deps, run, setSpec, later } = setup({ image: 'registry.example/web:1', replicas: 2 }, { readYourWrites: true });
    // A policy that sends every image to a mirror, as the API server's admission would on each write.
    const apply = deps.clients.api.apply.bind(deps.clients.api);
    deps.clients.api.apply = (obj, opts) => {
      const o = structuredClone(obj) as V1Deployment;
      if (o.kind === 'Deployment') for (const c of o.spec!.template.spec!.containers) c.image = c.image!.replace('registry.example/', 'mirror.internal/');
      return apply(o as KubernetesObject, opts);
    };
    await run();
    markAvailable(cluster, 'web');
    await run();
    const deploymentWrites = () => cluster.writes.filter((w) => w.kind === 'Deployment').length;
    const settled = deploymentWrites();
    for (let i = 0; i < 4; i++) {
      later(6_000);
      markAvailable(cluster, 'web'); // the Deployment's status moves on meanwhile
      await run();
    }
    assert.ok(deploymentWrites() <= settled + 1, `at most one more apply, then none: ${deploymentWrites() - settled}`);
    const quiet = deploymentWrites();
    later(6_000);
    await run();
    assert.equal(deploymentWrites(), quiet, 'no write while nothing changes');
    assert.equal(containerImageOf(cluster, 'web'), 'mirror.internal/web:1');
    // Scaled by hand: put back, as any drift is.
    const d = cluster.get('Deployment', NS, 'web') as V1Deployment;
    cluster.put({ ...d, spec: { ...d.spec!, replicas: 7 } } as KubernetesObject);
    await run();
    assert.equal((cluster.get('Deployment', NS, 'web') as V1Deployment).spec!.replicas, 2);
    // The App changes: applied.
    setSpec((s) => ({ ...s, replicas: 3 }));
    await run();
    assert.equal((cluster.get('Deployment', NS, 'web') as V1Deployment).spec!.replicas, 3);
  });

  it('with a canary header, a promotion whose routing is gone does not put it back when stable is briefly unavailable (a scale-up)', async () => {
    const { cluster, run, app, setSpec, later } = setup({ image: 'web:1', replicas: 4, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', canaryHeader: 'X-Canary', scaleDownDelaySeconds: 60, steps: [{ setWeight: 20 }, { pause: {} }] } }, { readYourWrites: true });
    await rollingOutWeb2({ cluster, run, setSpec }, 'web-canary');
    for (let i = 0; i < 2; i++) {
      later(1_000);
      await run();
    }
    assert.equal(weightOf(cluster), '20');
    cluster.put({ ...app(), metadata: { ...app().metadata, annotations: { 'skiff.dev/promote': 'true' } } });
    later(1_000);
    await run();
    markAvailable(cluster, 'web');
    later(1_000);
    await run();
    assert.equal(weightOf(cluster), '0');
    const canaryIngressWrites = () => cluster.writes.filter((w) => w.kind === 'Ingress' && w.name === 'web-canary').map((w) => w.verb);
    // The pass that removes the canary's routing sees stable scaled up, not yet available.
    setSpec((s) => ({ ...s, replicas: 8 }));
    const before = canaryIngressWrites().length;
    for (let i = 0; i < 4; i++) {
      later(1_000);
      await run();
    }
    assert.equal(cluster.get('Ingress', NS, 'web-canary'), undefined, 'the canary routing stays gone');
    assert.deepEqual(canaryIngressWrites().slice(before), ['delete'], 'deleted once, never written again');
    assert.ok(app().status!.scaleDown?.deleteAt, 'the canary pods wait out their delay');
  });

  it('with a canary header, a step that scales the canary up keeps the header routed to its ready pods until the Deployment controller has seen the scale', async () => {
    const { cluster, run, later } = await setupHeaderCanary();
    const header = () => cluster.get('Ingress', NS, 'web-canary')?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-by-header'];
    assert.equal(weightOf(cluster), '20');
    assert.equal(header(), 'X-Canary', 'routed once the canary had a ready pod');
    const canaryIngressWrites = () => cluster.writes.filter((w) => w.kind === 'Ingress' && w.name === 'web-canary').length;
    const before = canaryIngressWrites();
    // The next step (50 %) scales the canary from 1 to 2 replicas; the Deployment controller has
    // not seen that yet for a few passes (its status is the one of 1 replica, ready).
    const seen: (string | undefined)[] = [];
    for (let i = 0; i < 3; i++) {
      later(i === 0 ? 5_000 : 1_000);
      await run();
      seen.push(header());
    }
    const canary = cluster.get('Deployment', NS, 'web-canary') as V1Deployment;
    assert.equal(canary.spec!.replicas, 2, 'scaled for the next step');
    assert.ok(canary.status!.observedGeneration! < canary.metadata!.generation!, 'the scale not yet seen');
    assert.deepEqual(seen, ['X-Canary', 'X-Canary', 'X-Canary'], 'the header never leaves the routing while the pod it reaches stays ready');
    assert.equal(canaryIngressWrites(), before, 'no routing write while the weight waits for its pods');
    markAvailable(cluster, 'web-canary');
    later(1_000);
    await run();
    assert.equal(weightOf(cluster), '50');
    assert.equal(header(), 'X-Canary');
  });

  it('with a canary header, a new pod template of the canary takes the header off until a pod of that template is ready', async () => {
    const { cluster, run, later, setSpec } = await setupHeaderCanary();
    assert.equal(cluster.get('Ingress', NS, 'web-canary')?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-by-header'], 'X-Canary');
    // web:3 while web:2 is at 20 %: once web:2's pods have waited out their delay after their
    // traffic went back to stable, the canary Deployment takes the new template, its pods still web:2's.
    setSpec((s) => ({ ...s, image: 'web:3' }));
    for (const ms of [1_000, 1_000, 1_000, 31_000, 1_000]) {
      later(ms);
      await run();
    }
    assert.equal(containerImageOf(cluster, 'web-canary'), 'web:3');
    const annotations = cluster.get('Ingress', NS, 'web-canary')?.metadata?.annotations ?? {};
    assert.equal(annotations['nginx.ingress.kubernetes.io/canary-by-header'], undefined, 'no request is sent to pods of the template being replaced');
  });

  it('a promotion asked for a blue-green preview does not promote the canary a change of strategy starts instead', async () => {
    const { cluster, run, app, setSpec, later } = setup({ image: 'web:1', replicas: 4, ingress: { host: 'web.example.com' }, rollout: { strategy: 'BlueGreen', blueGreen: { autoPromote: false } } }, { history: true, readYourWrites: true });
    await run();
    markAvailable(cluster, 'web');
    await run();
    setSpec((s) => ({ ...s, image: 'web:2' }));
    await run();
    // kubectl skiff promote, before the preview is ready: kept for it.
    cluster.put({ ...app(), metadata: { ...app().metadata, annotations: { 'skiff.dev/promote': 'true' } } });
    later(1_000);
    await run();
    assert.equal(app().metadata.annotations?.['skiff.dev/promote'], 'true');
    setSpec((s) => ({ ...s, rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }] } }));
    for (let i = 0; i < 3; i++) {
      later(1_000);
      await run();
    }
    assert.equal(containerImageOf(cluster, 'web'), 'web:1', 'stable never took the revision nobody saw run');
    assert.equal(app().status!.canary?.stepIndex, 0);
    assert.equal(app().metadata.annotations?.['skiff.dev/promote'], undefined, 'the promotion is removed');
    assert.ok(cluster.events.some((e) => e.reason === 'PromoteIgnored'));
  });

  it('a canary Deployment just deleted and held by a finalizer brings the pass back when it would be reported (no watch event will)', async () => {
    const { cluster, deps, run, setSpec, later } = setup({ image: 'web:1', replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }], scaleDownDelaySeconds: 0 } }, { readYourWrites: true });
    const del = deps.clients.api.delete.bind(deps.clients.api);
    deps.clients.api.delete = async (ref, opts) => {
      const o = cluster.get(ref.kind, ref.namespace, ref.name);
      if (!o?.metadata?.finalizers?.length) return del(ref, opts);
      cluster.put({ ...o, metadata: { ...o.metadata, deletionTimestamp: deps.now!() } });
      return o;
    };
    await rollingOutWeb2({ cluster, run, setSpec }, 'web-canary');
    const canary = cluster.get('Deployment', NS, 'web-canary')!;
    cluster.put({ ...canary, metadata: { ...canary.metadata, finalizers: ['example.com/hold'] } });
    let outcome: Awaited<ReturnType<typeof run>> = {};
    for (let i = 0; i < 6 && !cluster.get('Deployment', NS, 'web-canary')?.metadata?.deletionTimestamp; i++) {
      later(1_000);
      markAvailable(cluster, 'web');
      outcome = await run();
    }
    assert.ok(cluster.get('Deployment', NS, 'web-canary')?.metadata?.deletionTimestamp, 'deleted, and still there');
    later(1_000);
    outcome = await run();
    assert.ok(outcome.requeueAfterMs !== undefined && outcome.requeueAfterMs > 1_000 && outcome.requeueAfterMs <= 60_000, `back within the grace period: ${outcome.requeueAfterMs}`);
  });

  it('a canary Deployment held by a finalizer for long after its delete is named in Degraded, not waited for in silence', async () => {
    const { cluster, deps, run, app, setSpec, later } = setup({ image: 'web:1', replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }], scaleDownDelaySeconds: 0 } }, { readYourWrites: true });
    // As the API server deletes an object with finalizers: it stays, with a deletionTimestamp.
    const del = deps.clients.api.delete.bind(deps.clients.api);
    deps.clients.api.delete = async (ref, opts) => {
      const o = cluster.get(ref.kind, ref.namespace, ref.name);
      if (!o?.metadata?.finalizers?.length) return del(ref, opts);
      cluster.put({ ...o, metadata: { ...o.metadata, deletionTimestamp: deps.now!() } });
      return o;
    };
    await rollingOutWeb2({ cluster, run, setSpec }, 'web-canary');
    const canary = cluster.get('Deployment', NS, 'web-canary')!;
    cluster.put({ ...canary, metadata: { ...canary.metadata, finalizers: ['example.com/hold'] } });
    for (let i = 0; i < 6 && !cluster.get('Deployment', NS, 'web-canary')?.metadata?.deletionTimestamp; i++) {
      later(1_000);
      markAvailable(cluster, 'web');
      await run().catch(() => undefined);
    }
    assert.ok(cluster.get('Deployment', NS, 'web-canary')?.metadata?.deletionTimestamp, `deleted, and still there (${JSON.stringify(app().status?.canary)} ${condition(app(), 'Progressing')?.message})`);
    later(59_000);
    await run().catch(() => undefined);
    assert.notEqual(condition(app(), 'Degraded')?.status, 'True', 'within the grace period, counted on the controller\'s clock');
    later(1_000);
    await run().catch(() => undefined);
    const degraded = condition(app(), 'Degraded');
    assert.equal(degraded?.status, 'True');
    assert.match(degraded!.message, /Deployment shop\/web-canary was deleted at .* and is still there, held by its finalizers \(example\.com\/hold\)/);
  });

  it('a weight raised by hand on the canary Ingress while the rollout is paused is put back, and sizes nothing', async () => {
    const { cluster, run, app, setSpec, later } = setup({ image: 'web:1', replicas: 4, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { setWeight: 50 }, { pause: {} }] } }, { readYourWrites: true });
    await rollingOutWeb2({ cluster, run, setSpec }, 'web-canary');
    setSpec((s) => ({ ...s, rollout: { ...s.rollout!, paused: true } }));
    later(1_000);
    await run();
    assert.deepEqual([weightOf(cluster), condition(app(), 'Progressing')?.reason], ['20', 'RolloutPaused']);
    const replicas = (cluster.get('Deployment', NS, 'web-canary') as V1Deployment).spec!.replicas;
    const ingress = cluster.get('Ingress', NS, 'web-canary')!;
    cluster.put({ ...ingress, metadata: { ...ingress.metadata, annotations: { ...ingress.metadata!.annotations, 'nginx.ingress.kubernetes.io/canary-weight': '100' } } });
    later(1_000);
    await run();
    assert.equal(weightOf(cluster), '20', 'the weight the steps gave');
    assert.equal(app().status!.canary!.weight, 20);
    assert.equal((cluster.get('Deployment', NS, 'web-canary') as V1Deployment).spec!.replicas, replicas, 'the canary is not scaled up for it');
    assert.ok(!cluster.events.some((e) => /receives 100%/.test(e.message)), 'no Event says the canary has all the traffic');
  });

  it('a paused canary that loses its pods keeps its weight, records since when once, and is aborted after progressDeadlineSeconds', async () => {
    const { cluster, run, app, later } = setup({ image: 'web:1', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }], progressDeadlineSeconds: 60, scaleDownDelaySeconds: 0 } });
    await run();
    markAvailable(cluster, 'web');
    await run();
    cluster.put({ ...app(), spec: { ...app().spec, image: 'web:2' } });
    await run();
    markAvailable(cluster, 'web-canary');
    await run();
    await run();
    assert.deepEqual([app().status?.canary?.stepIndex, weightOf(cluster), condition(app(), 'Progressing')?.reason], [1, '20', 'CanaryPaused']);

    // Its only pod is evicted and no other comes up.
    const d = cluster.get('Deployment', NS, 'web-canary') as V1Deployment;
    d.status = { ...d.status, readyReplicas: 0, availableReplicas: 0, unavailableReplicas: 1, conditions: [{ type: 'Available', status: 'False' }, { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }] as never };
    later(1_000);
    const statusWrites = () => cluster.writes.filter((w) => w.verb === 'status').length;
    const before = statusWrites();
    const first = await run();
    const since = app().status?.canary?.unavailableSince;
    assert.ok(since !== undefined, 'recorded');
    assert.equal(weightOf(cluster), '20', 'the weight follows the steps only');
    assert.match(condition(app(), 'Progressing')!.message, /waiting for the canary to be available again/);
    assert.equal(first.requeueAfterMs, 60_000);
    for (let i = 0; i < 5; i++) {
      later(10_000);
      await run();
    }
    assert.equal(statusWrites(), before + 1, 'written once, not on every pass');
    assert.equal(app().status?.canary?.unavailableSince, since);
    assert.equal(condition(app(), 'Degraded')?.status, 'False');

    later(10_000);
    await run();
    assert.deepEqual([condition(app(), 'Degraded')?.reason, condition(app(), 'Progressing')?.reason, weightOf(cluster), app().status?.abortedRevision !== undefined], ['ProgressDeadlineExceeded', 'ProgressDeadlineExceeded', '0', true]);
    assert.match(condition(app(), 'Degraded')!.message, /was not available for 60s at step 2\/2 \(pause until promoted\)/);
  });

  it('removes a consumed annotation only after the status that records it is written', async () => {
    const { cluster, run, app } = setup({ image: 'web:1', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary' } });
    await run();
    markAvailable(cluster, 'web');
    await run();
    cluster.put({ ...app(), spec: { ...app().spec, image: 'web:2' } });
    await run();
    cluster.put({ ...app(), metadata: { ...app().metadata, annotations: { 'skiff.dev/abort': 'true' } } });

    const from = cluster.writes.length;
    cluster.beforeWrite = (w) => { if (w.verb === 'status') throw apiError(500, 'etcd timeout'); };
    await assert.rejects(run());
    assert.ok(!cluster.writes.slice(from).some((w) => w.verb === 'annotations'), 'the annotation stays while the status write fails');
    assert.equal(app().metadata.annotations?.['skiff.dev/abort'], 'true');

    cluster.beforeWrite = () => {};
    const next = cluster.writes.length;
    await run();
    const verbs = cluster.writes.slice(next).map((w) => w.verb);
    assert.ok(verbs.indexOf('status') >= 0 && verbs.indexOf('status') < verbs.indexOf('annotations'), `status before annotations: ${verbs.join(', ')}`);
    assert.equal(app().metadata.annotations?.['skiff.dev/abort'], undefined);
    assert.equal(condition(app(), 'Degraded')?.reason, 'RolloutAborted');
  });

  it('retries a status write refused as stale (409), without repeating its Events', async () => {
    const { cluster, deps, app } = setup({ image: 'web:1' });
    let refusals = 1;
    let attempts = 0;
    cluster.beforeWrite = (w) => {
      if (w.verb === 'status') attempts++;
      if (w.verb === 'status' && refusals-- > 0) throw apiError(409, 'the object has been modified; please apply your changes to the latest version');
    };
    await assert.rejects(reconcile(KEY, deps), (err) => isConflict(err));
    assert.equal(app().status, undefined);
    assert.ok(!cluster.events.some((e) => e.reason.startsWith('Canary') || e.type === 'Warning'), 'no Event for the refused status');

    // The worker requeues the key (rate limited, a few ms at first) and the next pass writes.
    const queue = new WorkQueue();
    const worker = runWorker({ queue, reconcile: (key) => reconcile(key, deps), metrics: createMetrics({ queueDepth: () => queue.length }), log: testLogger('controller') });
    refusals = 1;
    queue.add(KEY);
    for (let i = 0; i < 200 && app().status === undefined; i++) await new Promise((r) => setTimeout(r, 5));
    await queue.shutDown();
    await worker;
    assert.equal(app().status?.observedGeneration, app().metadata.generation);
    assert.equal(attempts, 3, 'refused once directly, once in the worker, then written on the worker\'s retry');
    assert.equal(cluster.writes.filter((w) => w.verb === 'status').length, 1);
    const created = cluster.events.filter((e) => e.reason === 'Created');
    assert.deepEqual(created.map((e) => e.message), ['Created Deployment shop/web; Created Service shop/web'], 'one Event for the objects of one pass; the retry does not repeat it');
  });

  it("an abort's reason and message outlast a passing error that took Degraded for a pass", async () => {
    const { cluster, run, app, setSpec, later } = setup({ image: 'web:1', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', progressDeadlineSeconds: 30, scaleDownDelaySeconds: 0 } });
    await run();
    markAvailable(cluster, 'web');
    await run();
    setSpec((s) => ({ ...s, image: 'web:2' }));
    await run(); // the canary never becomes available
    later(31_000);
    await run();
    const degraded = () => condition(app(), 'Degraded')!;
    const aborted = { reason: degraded().reason, message: degraded().message };
    assert.equal(aborted.reason, 'ProgressDeadlineExceeded');
    assert.match(aborted.message, /was not available within 30s/);

    later(1_000);
    cluster.beforeWrite = (w) => {
      if (w.verb === 'delete') throw apiError(500, 'etcdserver: request timed out');
    };
    await run().catch(() => undefined);
    assert.equal(degraded().reason, 'ReconcileError', 'the failed delete says so while it lasts');
    cluster.beforeWrite = () => {};
    for (let i = 0; i < 3; i++) {
      later(1_000);
      await run();
    }
    assert.deepEqual({ reason: degraded().reason, message: degraded().message }, aborted, 'the abort as it was, not the error that passed');
    assert.equal(condition(app(), 'Progressing')!.reason, 'ProgressDeadlineExceeded');
    assert.equal(cluster.events.filter((e) => e.reason === 'ProgressDeadlineExceeded').length, 1, 'the abort\'s Warning once, not again when the passing error goes');
    assert.doesNotMatch(JSON.stringify(app().status), /etcdserver/);
  });
});

describe('status writes of a rollout to its end', () => {
  const rollouts: [string, AppSpec['rollout']][] = [
    ['canary', { strategy: 'Canary', steps: [{ setWeight: 50 }], scaleDownDelaySeconds: 0 }],
    ['blue-green', { strategy: 'BlueGreen', scaleDownDelaySeconds: 0 }],
  ];
  for (const [name, rollout] of rollouts) {
    it(`a ${name} rollout writes its final status in the pass that completes it, and none after while nothing changes`, async () => {
      const { cluster, run, app, setSpec, later } = setup({ image: 'web:1', replicas: 2, ingress: { host: 'web.example.com' }, rollout }, { readYourWrites: true, history: true });
      const statusWrites = () => cluster.writes.filter((w) => w.verb === 'status').length;
      const pass = async () => {
        // Every Deployment of the App is available as soon as it is written.
        for (const d of ['web', 'web-canary', 'web-preview']) if (cluster.get('Deployment', NS, d)) markAvailable(cluster, d);
        later(6_000);
        await run();
      };
      await run();
      await pass();
      setSpec((s) => ({ ...s, image: 'web:2' }));
      const done = () => {
        const s = app().status;
        const p = condition(app(), 'Progressing');
        return s?.observedGeneration === app().metadata.generation && s?.stableImage === 'web:2' && !s.canary && !s.blueGreen && p?.reason === 'RolloutComplete';
      };
      for (let i = 0; i < 20 && !done(); i++) await pass();
      assert.ok(done(), `rolled out: ${JSON.stringify(app().status)}`);
      const final = { writes: statusWrites(), status: structuredClone(app().status) };
      for (let i = 0; i < 5; i++) await pass();
      assert.deepEqual(app().status, final.status, 'the status the completing pass wrote is the final one');
      assert.equal(statusWrites(), final.writes, 'no later write rewords it');
    });
  }
});

describe('reconcile() with delays longer than a timer holds', () => {
  const tick = () => new Promise((r) => setImmediate(r));
  const HOURS_1000 = 1000 * 3_600_000;

  /** A canary of web:2 under `rollout`, reconciled until its first step has been taken. */
  async function canaryStarted(rollout: AppSpec['rollout'], available: boolean) {
    // Beyond the webhook's bounds (pause at most 24h, deadline at most a day): as an App stored
    // before those rules existed would be, with the controller's own validation off.
    const t = setup({ image: 'web:1', ingress: { host: 'web.example.com' }, rollout }, { validate: false });
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    t.cluster.put({ ...t.app(), spec: { ...t.app().spec, image: 'web:2' } });
    await t.run();
    if (available) markAvailable(t.cluster, 'web-canary');
    await t.run();
    return t;
  }

  it('a 1000 h pause asks to come back when a timer can fire, and the worker waits that long, not 1 ms', async () => {
    const { run, app, deps } = await canaryStarted({ strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: { duration: '1000h' } }] }, true);
    const paused = await run();
    assert.equal(condition(app(), 'Progressing')?.reason, 'CanaryPaused');
    assert.equal(app().status?.canary?.stepIndex, 1);
    assert.equal(paused.requeueAfterMs, MAX_TIMER_DELAY_MS, `1000 h is ${HOURS_1000} ms, more than a timer holds`);

    // Through the worker and the work queue, on a clock that moves only when told.
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    let passes = 0;
    const worker = runWorker({ queue, reconcile: (key) => { passes++; return reconcile(key, deps); }, metrics: createMetrics({ queueDepth: () => queue.length }), log: testLogger('controller') });
    queue.add(KEY);
    for (let i = 0; i < 100 && clock.pendingDelays().length === 0; i++) await tick();
    assert.deepEqual(clock.pendingDelays(), [MAX_TIMER_DELAY_MS], 'one timer, of what a timer holds');
    clock.advance(60_000);
    for (let i = 0; i < 20; i++) await tick();
    assert.equal(passes, 1, 'not back a minute later');
    clock.advance(MAX_TIMER_DELAY_MS);
    for (let i = 0; i < 100 && passes < 2; i++) await tick();
    assert.equal(passes, 2, 'back once the timer fired, to find the pause still on');
    for (let i = 0; i < 100 && clock.pendingDelays().length === 0; i++) await tick();
    assert.equal(clock.pendingDelays().length, 1, 'and waiting again');
    assert.equal(condition(app(), 'Progressing')?.reason, 'CanaryPaused');
    await queue.shutDown();
    await worker;
  });

  it('a progress deadline of 30 days asks for no more than a timer holds either', async () => {
    const { run } = await canaryStarted({ strategy: 'Canary', progressDeadlineSeconds: 30 * 86_400 }, false);
    const waiting = await run();
    assert.equal(waiting.requeueAfterMs, MAX_TIMER_DELAY_MS);
  });
});

describe('status.canary.changes through a promotion', () => {
  it('keeps what the canary changes while it is promoted (stable runs that template then: nothing left to compare)', async () => {
    const { cluster, run, app, setSpec } = setup({ image: 'web:1', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }], scaleDownDelaySeconds: 30 } });
    await run();
    markAvailable(cluster, 'web');
    await run();
    setSpec((s) => ({ ...s, image: 'web:2' }));
    for (let i = 0; i < 4; i++) {
      await run();
      markAvailable(cluster, 'web-canary');
    }
    assert.deepEqual(app().status?.canary?.changes, ['image']);
    cluster.put({ ...app(), metadata: { ...app().metadata, annotations: { 'skiff.dev/promote': 'true' } } });
    const seen: (string[] | undefined)[] = [];
    for (let i = 0; i < 4 && app().status?.canary; i++) {
      await run();
      markAvailable(cluster, 'web');
      if (app().status?.canary) seen.push(app().status?.canary?.changes);
    }
    assert.ok(seen.length > 0, 'seen while promoting');
    for (const changes of seen) assert.deepEqual(changes, ['image']);
  });
});

describe('status.canary.changes of a canary promoted while the template changes again', () => {
  it('keeps what that canary changes, not the difference to the newer template', async () => {
    const { cluster, run, app, setSpec, later } = setup({ image: 'web:1', replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 50 }], scaleDownDelaySeconds: 30 } });
    await run();
    markAvailable(cluster, 'web');
    await run();
    setSpec((s) => ({ ...s, image: 'web:2' }));
    for (let i = 0; i < 5; i++) {
      await run();
      if (cluster.get('Deployment', NS, 'web-canary')) markAvailable(cluster, 'web-canary');
      later(1_000);
    }
    assert.deepEqual(app().status?.canary?.changes, ['image']);
    setSpec((s) => ({ ...s, env: [{ name: 'MODE', value: 'fast' }] }));
    await run();
    assert.equal(app().status?.canary?.image, 'web:2', 'the canary of web:2 is still being promoted');
    assert.deepEqual(app().status?.canary?.changes, ['image']);
  });
});
