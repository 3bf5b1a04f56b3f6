// A pass never decides from a cached copy older than the controller's own last write of it
// (docs/api.md, "Traffic safety"). The caches here lag on purpose: FakeCluster.lag() makes them
// serve what they held before the writes, as an informer whose watch events are late does.
import { strict as assert } from 'node:assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import { appRef, STALE_CACHE_WAIT_MS } from '../../controller/guards/freshness.js';
import { Expectations, olderVersion } from '../../controller/runtime/expectations.js';
import type { App, AppSpec } from '../../shared/app-types.js';
import { condition } from '../support/apps.js';
import { canaryAtWeight, markAvailable, NS, setup, weightOf } from '../support/reconciler.js';
import { FakeCluster } from '../support/fake-cluster.js';

const canarySpec = (image: string, scaleDownDelaySeconds = 0): AppSpec => ({
  image,
  ingress: { host: 'web.example.com' },
  rollout: { strategy: 'Canary', steps: [{ setWeight: 50 }, { pause: { duration: '12s' } }], scaleDownDelaySeconds },
});

/** An App whose canary of web:2 has weight 50 and is in its pause step. */
async function pausedCanary(opts: { readYourWrites: boolean; scaleDownDelaySeconds?: number }) {
  const s = setup(canarySpec('web:1', opts.scaleDownDelaySeconds), { readYourWrites: opts.readYourWrites });
  const { cluster, run, app } = s;
  await run();
  markAvailable(cluster, 'web');
  await run();
  cluster.put({ ...app(), spec: { ...app().spec, image: 'web:2' } });
  await run();
  markAvailable(cluster, 'web-canary');
  await run();
  await run();
  assert.equal(weightOf(cluster), '50');
  assert.equal(app().status?.canary?.stepIndex, 1, 'in the pause');
  return s;
}

const annotate = (s: Awaited<ReturnType<typeof pausedCanary>>, annotations: Record<string, string>) =>
  s.cluster.put({ ...s.app(), metadata: { ...s.app().metadata, annotations } } as App & KubernetesObject);

describe('read your own writes', () => {
  describe('expectations', () => {
    it('orders resourceVersions as etcd revisions, and anything else only by equality', () => {
      assert.equal(olderVersion('99', '100'), true, 'numerically, not as text');
      assert.equal(olderVersion('100', '100'), false);
      assert.equal(olderVersion('101', '100'), false);
      assert.equal(olderVersion(undefined, '100'), true, 'not in the cache yet');
      assert.equal(olderVersion('abc', 'abd'), true);
      assert.equal(olderVersion('abd', 'abd'), false);
    });

    it('a written object is stale until the cache holds its version or a later one; a deleted one until the cache drops it', () => {
      let now = 1_000;
      const e = new Expectations(() => now);
      const at = (rv: string, uid = 'u1', deleting = false) => ({ metadata: { resourceVersion: rv, uid, ...(deleting ? { deletionTimestamp: new Date() } : {}) } }) as KubernetesObject;
      e.written('Deployment/ns/web', at('10'));
      now += 40;
      assert.equal(e.staleFor('Deployment/ns/web', at('9')), 40, 'stale for as long as the write has waited');
      assert.equal(e.staleFor('Deployment/ns/web', undefined), 40, 'a created object not in the cache yet');
      assert.equal(e.staleFor('Deployment/ns/web', at('11')), undefined, 'a later version is fresh');
      assert.equal(e.staleFor('Deployment/ns/web', at('9')), undefined, 'and the expectation is met for good');
      e.deleted('Service/ns/web-canary', 'u2');
      assert.equal(e.staleFor('Service/ns/web-canary', at('5', 'u2')), 0, 'the deleted object still cached');
      assert.equal(e.staleFor('Service/ns/web-canary', at('6', 'u2', true)), undefined, 'being deleted is fresh enough');
      e.deleted('Service/ns/web-canary', 'u2');
      assert.equal(e.staleFor('Service/ns/web-canary', at('7', 'u3')), undefined, 'another object of that name is new');
      assert.equal(e.size, 0);
    });
    it('times a write\'s wait on the monotonic clock: a wall clock set back does not hold a pass on a stale cache for as long again', () => {
      const realNow = Date.now;
      const monotonic = Object.getOwnPropertyDescriptor(performance, 'now');
      let wallMs = 1_800_000_000_000;
      let elapsedMs = 50_000;
      Date.now = () => wallMs;
      Object.defineProperty(performance, 'now', { value: () => elapsedMs, configurable: true, writable: true });
      try {
        const e = new Expectations();
        e.written('App/ns/web', { metadata: { resourceVersion: '10' } } as KubernetesObject);
        // NTP steps the wall clock back an hour; the watch stays behind for 6 s.
        wallMs -= 3_600_000;
        elapsedMs += 6_000;
        const waited = e.staleFor('App/ns/web', { metadata: { resourceVersion: '9' } } as KubernetesObject);
        assert.ok(waited !== undefined && waited >= STALE_CACHE_WAIT_MS, `waited ${waited} ms: the App is read from the API server now, not in an hour`);
      } finally {
        Date.now = realNow;
        if (monotonic) Object.defineProperty(performance, 'now', monotonic);
        else delete (performance as { now?: unknown }).now;
      }
    });
  });

  describe('reconcile() under a lagging cache', () => {
    /** Aborts the paused canary, then serves the App as it was before the abort (a lagging App cache). */
    async function abortedBehindStaleApp(opts: { readYourWrites: boolean }) {
      const s = await pausedCanary(opts);
      const before = structuredClone(s.app());
      annotate(s, { 'skiff.dev/abort': 'true' });
      await s.run();
      assert.equal(weightOf(s.cluster), '0', 'aborted: weight 0');
      assert.equal(condition(s.app(), 'Degraded')?.reason, 'RolloutAborted');
      const fresh = s.deps.apps;
      let lagging = true;
      s.deps.apps = { get: (name, namespace) => (lagging ? before : fresh.get(name, namespace)) };
      return { ...s, catchUp: () => (lagging = false) };
    }

    it('a pass that decided from the stale App would send traffic to the aborted canary again (what the wait prevents)', async () => {
      const { cluster, run } = await abortedBehindStaleApp({ readYourWrites: false });
      await run().catch(() => undefined);
      assert.equal(weightOf(cluster), '50', 'without read-your-writes the stale pass raises the weight');
    });

    it('a stale App after an abort: the pass writes nothing and waits; the cache catching up ends the wait', async () => {
      const { cluster, run, app, catchUp } = await abortedBehindStaleApp({ readYourWrites: true });
      const writes = cluster.writes.length;
      const result = await run();
      assert.deepEqual(cluster.writes.slice(writes), [], 'nothing is written from the stale App');
      assert.equal(weightOf(cluster), '0', 'the weight is not raised back to 50');
      assert.ok(result.requeueAfterMs !== undefined && result.requeueAfterMs > 0 && result.requeueAfterMs <= STALE_CACHE_WAIT_MS, 'back within the bounded wait (the watch event comes sooner)');
      catchUp();
      await run();
      assert.ok([undefined, '0'].includes(weightOf(cluster)), 'weight 0, then the split is removed');
      assert.equal(condition(app(), 'Degraded')?.reason, 'RolloutAborted');
    });

    it('a stale App after the removal of a consumed annotation: the pass acts on the command no second time, it waits', async () => {
      const s = await pausedCanary({ readYourWrites: true });
      annotate(s, { 'skiff.dev/abort': 'true' });
      // The App as the status write left it: the abort recorded, its annotation not removed yet.
      let beforeRemoval: ReturnType<typeof s.app> | undefined;
      s.cluster.beforeWrite = (w) => {
        if (w.verb === 'annotations') beforeRemoval = structuredClone(s.app());
      };
      await s.run();
      s.cluster.beforeWrite = () => {};
      assert.ok(beforeRemoval?.metadata.annotations?.['skiff.dev/abort'] && condition(beforeRemoval, 'Degraded')?.reason === 'RolloutAborted');
      assert.equal(s.app().metadata.annotations?.['skiff.dev/abort'], undefined, 'the annotation is removed');
      // The cache shows the App from between the two writes: newer than the status write, older than the removal.
      s.deps.apps = { get: () => beforeRemoval };
      const writes = s.cluster.writes.length;
      const result = await s.run();
      assert.deepEqual(s.cluster.writes.slice(writes), [], 'nothing is written from the App that still carries the consumed command');
      assert.ok(result.requeueAfterMs !== undefined && result.requeueAfterMs > 0 && result.requeueAfterMs <= STALE_CACHE_WAIT_MS, 'back within the bounded wait');
    });

    it('after the bounded wait the App is read from the API server', async () => {
      const { cluster, run, deps, later } = await abortedBehindStaleApp({ readYourWrites: true });
      // Only the wait and the live read stand between the stale App and a raised weight here.
      deps.weightCeilings = undefined;
      await run();
      assert.equal(weightOf(cluster), '0');
      later(STALE_CACHE_WAIT_MS);
      const result = await run();
      assert.ok([undefined, '0'].includes(weightOf(cluster)), 'decided from the App as the API server has it: weight 0, then the split is removed');
      assert.ok(result.requeueAfterMs === undefined || result.requeueAfterMs !== STALE_CACHE_WAIT_MS);
    });

    it('after the live read, a pass with the cache still behind waits again: it neither decides from the stale App nor sets the weight back a step', async () => {
      const spec: AppSpec = { image: 'web:1', replicas: 1, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { setWeight: 50 }, { pause: {} }], scaleDownDelaySeconds: 0 } };
      const s = setup(spec, { readYourWrites: true });
      await canaryAtWeight(s, 'web:2', '20', 4);
      assert.equal(weightOf(s.cluster), '20');
      // The App's watch stops here: the cache keeps the App at step 1 (20%).
      const stale = structuredClone(s.app());
      s.deps.apps = { get: () => stale, list: () => [stale] } as unknown as typeof s.deps.apps;
      const weights: string[] = ['20'];
      for (let i = 0; i < 16; i++) {
        await s.run().catch(() => undefined);
        markAvailable(s.cluster, 'web-canary');
        const w = weightOf(s.cluster) ?? '0';
        if (weights.at(-1) !== w) weights.push(w);
        s.later(1_000);
      }
      assert.equal(s.app().status?.canary?.stepIndex, 2, 'on to the pause');
      assert.deepEqual(weights, ['20', '50'], 'the weight went to the next step and never back');
    });

    it('a live read that fails after the bounded wait leaves the wait in place: the next pass does not decide from the stale App', async () => {
      const { cluster, run, deps, later } = await abortedBehindStaleApp({ readYourWrites: true });
      // Only the wait and the live read stand between the stale App and a raised weight here.
      deps.weightCeilings = undefined;
      later(STALE_CACHE_WAIT_MS);
      const read = deps.clients.api.read;
      deps.clients.api.read = async () => { throw Object.assign(new Error('etcdserver: request timed out'), { code: 500 }); };
      await assert.rejects(run(), /timed out/);
      deps.clients.api.read = read;
      await run();
      assert.equal(weightOf(cluster) ?? '0', '0', 'the aborted canary gets no traffic again');
    });

    it('an App moved to another shard while its write was awaited is not read back and acted on: the other shard has it now', async () => {
      const s = await pausedCanary({ readYourWrites: true });
      // This controller reconciles the Apps without a shard label (no --shard).
      s.deps.inScope = (app) => app.metadata?.labels?.['skiff.dev/shard'] === undefined;
      // Its last write of the App (a status, say) is awaited when the App is relabelled for shard
      // b and asked to promote: the App's watch, by label, drops it instead of bringing the write.
      s.deps.expectations!.written(appRef(NS, 'web'), s.app());
      s.cluster.put({ ...s.app(), metadata: { ...s.app().metadata, labels: { 'skiff.dev/shard': 'b' }, annotations: { 'skiff.dev/promote': 'true' } } } as App & KubernetesObject);
      s.deps.apps = { get: () => undefined, list: () => [] } as unknown as typeof s.deps.apps;
      s.later(STALE_CACHE_WAIT_MS);
      const writes = s.cluster.writes.length;
      await s.run();
      assert.deepEqual(s.cluster.writes.slice(writes), [], 'nothing written: shard b\'s controller promotes it');
      assert.equal(s.deps.expectations!.size, 0, 'the App is forgotten here');
    });

    it('the weight ceiling alone keeps an aborted canary at 0 when a pass reads the stale App anyway', async () => {
      const { cluster, run, deps } = await abortedBehindStaleApp({ readYourWrites: true });
      deps.expectations = undefined;
      await run().catch(() => undefined);
      assert.equal(weightOf(cluster), '0', 'the ceiling holds the router where it is');
    });

    it('the weight ceiling also holds against a stale App from before a spec change (an older generation)', async () => {
      const s = await pausedCanary({ readYourWrites: true });
      const beforeChange = structuredClone(s.app());
      // A change outside the pod template (a new generation), then the abort.
      s.setSpec((spec) => ({ ...spec, replicas: 2 }));
      await s.run();
      annotate(s, { 'skiff.dev/abort': 'true' });
      await s.run();
      assert.equal(weightOf(s.cluster), '0');
      s.deps.expectations = undefined;
      s.deps.apps = { get: () => beforeChange };
      await s.run().catch(() => undefined);
      assert.equal(weightOf(s.cluster), '0', 'the aborted canary gets no traffic from a pass that read the App of a generation before');
    });

    it('the weight ceiling holds a canary cancelled by a new pod template: its traffic, once going back to stable, never rises again', async () => {
      const s = await pausedCanary({ readYourWrites: true });
      const beforeChange = structuredClone(s.app());
      // web:3 replaces the canary of web:2: web:2's traffic goes back to stable first.
      s.setSpec((spec) => ({ ...spec, image: 'web:3' }));
      await s.run();
      assert.equal(weightOf(s.cluster), '0');
      s.deps.expectations = undefined;
      s.deps.apps = { get: () => beforeChange };
      await s.run().catch(() => undefined);
      assert.equal(weightOf(s.cluster), '0', 'web:2 gets no traffic again from a pass that read the App before the change');
    });

    it('the weight ceiling of an abort outlasts a later change outside the pod template, once the canary\'s traffic is gone', async () => {
      const s = await pausedCanary({ readYourWrites: true });
      const beforeAbort = structuredClone(s.app());
      annotate(s, { 'skiff.dev/abort': 'true' });
      for (let i = 0; i < 3; i++) await s.run();
      assert.equal(weightOf(s.cluster), undefined, 'the split is gone');
      s.setSpec((spec) => ({ ...spec, replicas: 2 }));
      await s.run();
      s.deps.expectations = undefined;
      s.deps.apps = { get: () => beforeAbort };
      await s.run().catch(() => undefined);
      assert.ok([undefined, '0'].includes(weightOf(s.cluster)), `the aborted canary gets no traffic from a pass that read the App from before the abort (weight ${weightOf(s.cluster)})`);
    });

    it('an App gone from the cache takes its weight ceiling with it (a deletion whose timestamp no pass saw)', async () => {
      const s = await pausedCanary({ readYourWrites: true });
      annotate(s, { 'skiff.dev/abort': 'true' });
      await s.run();
      assert.deepEqual([...s.deps.weightCeilings!.keys()], [`${NS}/web`], 'the abort holds the weight down');
      // Deleted and gone (no deletionTimestamp ever seen): the pass finds no App at all.
      s.cluster.objects.delete(FakeCluster.key('App', NS, 'web'));
      s.later(STALE_CACHE_WAIT_MS);
      await s.run();
      assert.equal(s.deps.weightCeilings!.size, 0);
    });

    it('an App deleted and created again under its name does not wait for the objects written for the one before', async () => {
      const s = setup(canarySpec('web:1'), { readYourWrites: true });
      await s.run();
      // Deleted (its objects collected with it) and created again before another pass ran.
      const before = s.app();
      for (const key of [...s.cluster.objects.keys()]) s.cluster.objects.delete(key);
      s.cluster.put({ ...before, metadata: { name: 'web', namespace: NS }, status: undefined } as App & KubernetesObject);
      assert.notEqual(s.app().metadata.uid, before.metadata.uid);
      const result = await s.run();
      assert.ok(s.cluster.get('Deployment', NS, 'web'), `the new App's Deployment is created at once (the pass came back after ${result.requeueAfterMs} ms instead)`);
      assert.equal(s.cluster.get('Deployment', NS, 'web')?.metadata?.ownerReferences?.[0].uid, s.app().metadata.uid);
    });

    it('a stale owned object after a delete: the pass waits for the cache to drop it, and goes on after the bounded wait', async () => {
      const s = await pausedCanary({ readYourWrites: true });
      const { cluster, run, app, later } = s;
      annotate(s, { 'skiff.dev/promote': 'true' });
      // Promotion: stable takes web:2, then the weight goes to 0, then the canary objects go.
      await run();
      markAvailable(cluster, 'web');
      await run();
      await run();
      assert.equal(weightOf(cluster), undefined, 'the canary Ingress is gone');
      cluster.lag('Deployment', 'Service');
      await run();
      assert.equal(cluster.get('Deployment', NS, 'web-canary'), undefined, 'the canary Deployment is deleted');
      // The Deployment and Service caches still show the deleted canary objects.
      const writes = cluster.writes.length;
      const waiting = await run();
      assert.deepEqual(cluster.writes.slice(writes), [], 'no write while the cache shows what was deleted');
      assert.ok(waiting.requeueAfterMs! > 0 && waiting.requeueAfterMs! <= STALE_CACHE_WAIT_MS);
      // The watch never catches up: after the bounded wait the pass goes on.
      later(STALE_CACHE_WAIT_MS);
      const after = await run();
      assert.notEqual(after.requeueAfterMs, STALE_CACHE_WAIT_MS, 'not waiting again');
      cluster.catchUp();
      await run();
      assert.equal(app().status?.stableImage, 'web:2');
      assert.equal(app().status?.canary, undefined);
    });
  });
});
