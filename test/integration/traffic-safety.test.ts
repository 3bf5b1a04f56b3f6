// Traffic safety on a real control plane with a real Prometheus (docs/api.md, "Traffic safety"):
// every change of a canary's weight is recorded from watches on the canary Ingress and the
// HTTPRoute (never sampled), with the deletion of its Deployment, and the sequences are held to
// the steps. Two controllers run side by side on shards of the same cluster: one as deployed,
// one whose informers see every watch event 300 ms late, so that a pass after a write reads the
// older copy from its cache every time (the lag read-your-writes exists for).
import { strict as assert } from 'node:assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Controller } from '../../controller/controller.js';
import { startTrafficExporter, type TrafficExporter } from '../../dev/nginx-traffic.js';
import { ensurePrometheus, startPrometheus, type RunningPrometheus } from '../../dev/prometheus.js';
import { startRouteStatusSimulator, type RouteStatusSimulator } from '../../dev/route-status.js';
import type { AppSpec, CanaryStep } from '../../shared/app-types.js';
import { LABEL_SHARD } from '../../shared/labels.js';
import { condition, createApp, getApp, newNamespace, testLogger } from '../support/apps.js';
import { repoRoot } from '../support/bundle.js';
import { neverRisesAfterFalling, recordCanary, type Change } from '../support/canary-watch.js';
import { useControllerCluster } from '../support/controller-cluster.js';
import { kubectl } from '../support/kube.js';
import { sampleValue } from '../support/metrics.js';
import { eventually } from '../../dev/wait.js';

const SCALE_DOWN_DELAY_S = 5;
const LAG_SHARD = 'lagging';
const ANALYSIS_INTERVAL_S = 10;

/** Asserts that the canary Deployment was deleted no sooner than the delay after the weight went to 0 for good. */
function outlivesWeightZero(changes: Change[], delayS: number, what: string): void {
  const zero = changes.findLast((c) => c.what === 'weight' && c.weight === 0);
  const deleted = changes.find((c) => c.what === 'deploymentDeleted');
  assert.ok(zero && deleted, `${what}: weight 0 and the Deployment's deletion both seen: ${JSON.stringify(changes)}`);
  // The two watches of this test and the controller's see the weight-0 write at slightly
  // different moments (each stream delivers on its own): a quarter second of allowance.
  const keptMs = deleted.atMs - zero.atMs;
  assert.ok(keptMs >= delayS * 1000 - 250, `${what}: the canary Deployment went ${keptMs} ms after weight 0, before scaleDownDelaySeconds ${delayS}`);
}

describe('traffic safety: read your own writes, weights that follow the steps, drain before delete (real control plane)', function () {
  this.timeout(180_000);
  let gateway: RouteStatusSimulator | undefined;
  let exporter: TrafficExporter;
  let prometheus: RunningPrometheus;
  let promDir: string | undefined;
  const cluster = useControllerCluster('traffic-safety', {
    cluster: { controllerManager: true },
    prepare: async ({ cp, kc }) => {
      await kubectl(cp.kubeconfigPath, ['apply', '--validate=false', '-f', join(repoRoot, 'test', 'fixtures', 'gateway-api-v1.6.1')]);
      gateway = startRouteStatusSimulator(kc);
      exporter = await startTrafficExporter();
      promDir = await mkdtemp(join(tmpdir(), 'skiff-traffic-safety-prometheus-'));
      prometheus = await startPrometheus({ dir: promDir, targets: [`127.0.0.1:${exporter.port}`], scrapeIntervalSeconds: 1, bin: await ensurePrometheus() });
    },
    controllers: () => {
      const common = { resyncMs: 30_000, prometheusUrl: prometheus.url, discoveryIntervalMs: 1_000 };
      return [
        { ...common, log: testLogger('controller') },
        { ...common, shard: LAG_SHARD, watchEventDelayMs: 300, log: testLogger('controller-lagging') },
      ];
    },
    ready: { timeoutMs: 60_000, message: 'controllers ready (the HTTPRoute informer too)' },
    cleanup: async () => {
      await prometheus?.stop();
      await exporter?.stop();
      await gateway?.stop();
      if (promDir) await rm(promDir, { recursive: true, force: true });
    },
    hookTimeoutMs: { start: 300_000 },
  });
  const api = () => cluster.api;
  const k = (ns: string, args: string[]) => kubectl(cluster.cp.kubeconfigPath, ['-n', ns, ...args]);
  const patch = (ns: string, body: object) => k(ns, ['patch', 'app', 'web', '--type=merge', '-p', JSON.stringify(body)]);

  /** A stable App on a shard (or none), Ready, with its canary watch recording; then a new image. */
  async function startCanary(opts: { router: 'ingress' | 'route'; lagging: boolean; steps: CanaryStep[]; extra?: Partial<AppSpec> }) {
    const ns = await newNamespace(api(), opts.lagging ? 'lag' : 'ts');
    const spec: AppSpec = {
      image: 'registry.example/web:1',
      replicas: 2,
      ...(opts.router === 'ingress'
        ? { ingress: { host: `${ns}.example.com` } }
        : { route: { parentRefs: [{ name: 'public', namespace: 'infra' }], hostnames: [`${ns}.example.com`] } }),
      ...opts.extra,
      rollout: { strategy: 'Canary', scaleDownDelaySeconds: SCALE_DOWN_DELAY_S, steps: opts.steps, ...opts.extra?.rollout },
    };
    await createApp(api(), ns, 'web', spec, opts.lagging ? { labels: { [LABEL_SHARD]: LAG_SHARD } } : {});
    await eventually(async () => condition(await getApp(api(), ns, 'web'), 'Ready')?.status === 'True', { timeoutMs: 60_000, message: `${ns}: the first version Ready` });
    const recorder = await recordCanary(cluster, ns);
    await patch(ns, { spec: { image: 'registry.example/web:2' } });
    return { ns, recorder };
  }

  it('promoted, aborted and cancelled canaries, through an Ingress and an HTTPRoute, with and without a lagging cache: the weights follow the steps, never rise after they fell, and the pods outlive weight 0 by scaleDownDelaySeconds', async () => {
    const steps: CanaryStep[] = [{ setWeight: 20 }, { pause: { duration: '2s' } }, { setWeight: 50 }, { pause: {} }];
    const endings = {
      promoted: (ns: string) => k(ns, ['annotate', 'app', 'web', 'skiff.dev/promote=true']),
      aborted: (ns: string) => k(ns, ['annotate', 'app', 'web', 'skiff.dev/abort=true']),
      cancelled: (ns: string) => patch(ns, { spec: { image: 'registry.example/web:1' } }),
    };
    const cases = (['ingress', 'route'] as const).flatMap((router) => [false, true].flatMap((lagging) =>
      (Object.keys(endings) as (keyof typeof endings)[]).map((ending) => ({ router, lagging, ending }))));
    await Promise.all(cases.map(async (c) => {
      const what = `${c.ending} through ${c.router === 'ingress' ? 'an Ingress' : 'an HTTPRoute'}${c.lagging ? ' (lagging cache)' : ''}`;
      const { ns, recorder } = await startCanary({ router: c.router, lagging: c.lagging, steps });
      try {
        await eventually(async () => (await getApp(api(), ns, 'web')).status?.canary?.stepIndex === 3, { timeoutMs: 60_000, message: `${what}: the canary paused at 50%` });
        await endings[c.ending](ns);
        await eventually(() => recorder.changes.some((x) => x.what === 'deploymentDeleted'), { timeoutMs: 60_000, message: `${what}: the canary Deployment deleted` });
        // The pass after the deletion finds nothing left to scale down.
        const app = await eventually(async () => {
          const a = await getApp(api(), ns, 'web');
          return a.status?.scaleDown === undefined && a;
        }, { timeoutMs: 10_000, message: `${what}: status.scaleDown cleared once the pods are gone` });
        assert.deepEqual(recorder.weights(), [0, 20, 50, 0], `${what}: the weights follow the steps and nothing else`);
        neverRisesAfterFalling(recorder.weights(), what);
        outlivesWeightZero(recorder.changes, SCALE_DOWN_DELAY_S, what);
        if (c.ending === 'promoted') assert.equal((await eventually(async () => (await getApp(api(), ns, 'web')).status?.stableImage === 'registry.example/web:2', { timeoutMs: 10_000, message: `${what}: stableImage web:2` })), true);
        if (c.ending === 'aborted') assert.equal(condition(app, 'Degraded')?.reason, 'RolloutAborted');
        if (c.ending === 'cancelled') assert.equal(app.status?.canary, undefined);
        // While the pods were kept, the status said until when.
        const kept = recorder.statuses.find((s) => s.status?.scaleDown);
        assert.ok(kept, `${what}: status.scaleDown recorded while the canary's pods were kept`);
        const deleteAtMs = Date.parse(kept.status!.scaleDown!.deleteAt);
        const deletedAtMs = recorder.changes.find((x) => x.what === 'deploymentDeleted')!.atMs;
        assert.ok(deletedAtMs >= deleteAtMs - 250, `${what}: deleted at ${new Date(deletedAtMs).toISOString()}, not before status.scaleDown.deleteAt ${kept.status!.scaleDown!.deleteAt}`);
      } finally {
        recorder.stop();
      }
    }));
  });

  it('a new pod template mid-canary, through an Ingress and an HTTPRoute, with and without a lagging cache: the earlier canary\'s pods outlive weight 0 by scaleDownDelaySeconds before they take it', async () => {
    const steps: CanaryStep[] = [{ setWeight: 20 }, { pause: { duration: '2s' } }, { setWeight: 50 }, { pause: {} }];
    const cases = (['ingress', 'route'] as const).flatMap((router) => [false, true].map((lagging) => ({ router, lagging })));
    await Promise.all(cases.map(async (c) => {
      const what = `replaced through ${c.router === 'ingress' ? 'an Ingress' : 'an HTTPRoute'}${c.lagging ? ' (lagging cache)' : ''}`;
      const { ns, recorder } = await startCanary({ router: c.router, lagging: c.lagging, steps });
      try {
        await eventually(async () => (await getApp(api(), ns, 'web')).status?.canary?.stepIndex === 3, { timeoutMs: 60_000, message: `${what}: the canary paused at 50%` });
        await patch(ns, { spec: { image: 'registry.example/web:3' } });
        await eventually(() => recorder.changes.some((x) => x.what === 'deploymentReplaced'), { timeoutMs: 60_000, message: `${what}: the canary Deployment on web:3` });
        const at50 = recorder.changes.findIndex((x) => x.what === 'weight' && x.weight === 50);
        const zero = recorder.changes.find((x, i) => i > at50 && x.what === 'weight' && x.weight === 0);
        const replaced = recorder.changes.find((x) => x.what === 'deploymentReplaced')!;
        assert.ok(at50 >= 0 && zero, `${what}: 50% and then 0% seen: ${JSON.stringify(recorder.changes)}`);
        assert.deepEqual(recorder.weights().slice(0, 4), [0, 20, 50, 0], `${what}: the weights of web:2's canary`);
        assert.ok(replaced.atMs > zero.atMs, `${what}: web:3 only after web:2's weight 0`);
        // The same quarter second of allowance as outlivesWeightZero: two watch streams.
        const keptMs = replaced.atMs - zero.atMs;
        assert.ok(keptMs >= SCALE_DOWN_DELAY_S * 1000 - 250, `${what}: the web:2 pods took web:3 ${keptMs} ms after their weight went to 0, before scaleDownDelaySeconds ${SCALE_DOWN_DELAY_S}`);
        assert.ok(recorder.statuses.some((s) => s.status?.scaleDown && s.status.canary?.image === 'registry.example/web:3'), `${what}: status.scaleDown said until when while web:3 waited`);
        neverRisesAfterFalling(recorder.weights().slice(0, 4), what);
      } finally {
        recorder.stop();
      }
    }));
  });

  it('a canary answering 30% 5xx with failureLimit 1 is aborted at exactly its second failed check, the first a whole interval after its weight rose; weights 0 → 50 → 0 only; the pods go scaleDownDelaySeconds later (also under a lagging cache)', async () => {
    const checksBefore = await Promise.all(cluster.controllers.map(failedChecks));
    const runs = await Promise.all([false, false, true, true].map(async (lagging) => {
      const ns = await newNamespace(api(), lagging ? 'lag' : 'ts');
      const key = { namespace: ns, ingress: 'web' };
      exporter.setTraffic(key, 'stable', { rps: 20, errorRatio: 0, latencyMs: 40 });
      exporter.setTraffic(key, 'canary', { rps: 20, errorRatio: 0.3, latencyMs: 40 });
      return { ns, lagging };
    }));
    // Prometheus has scraped these series for a while, as it would have in a cluster.
    await eventually(async () => {
      const q = `count(count_over_time(nginx_ingress_controller_requests{canary!=""}[10s]) >= 4)`;
      const body = await (await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(q)}`)).json() as { data?: { result?: { value: [number, string] }[] } };
      return Number(body.data?.result?.[0]?.value[1] ?? 0) >= runs.length;
    }, { timeoutMs: 30_000, intervalMs: 250, message: 'Prometheus scraping the canaries' });

    await Promise.all(runs.map(async ({ ns, lagging }) => {
      const what = `${ns}${lagging ? ' (lagging cache)' : ''}`;
      await createApp(api(), ns, 'web', {
        image: 'registry.example/web:1',
        replicas: 2,
        ingress: { host: `${ns}.example.com` },
        rollout: {
          strategy: 'Canary',
          scaleDownDelaySeconds: SCALE_DOWN_DELAY_S,
          steps: [{ setWeight: 50 }, { pause: { duration: '12s' } }],
          analysis: { interval: `${ANALYSIS_INTERVAL_S}s`, failureLimit: 1, minRequests: 5, successRate: { min: 95 } },
        },
      }, lagging ? { labels: { [LABEL_SHARD]: LAG_SHARD } } : {});
      await eventually(async () => condition(await getApp(api(), ns, 'web'), 'Ready')?.status === 'True', { timeoutMs: 60_000, message: `${what}: the first version Ready` });
      const recorder = await recordCanary(cluster, ns);
      try {
        await patch(ns, { spec: { image: 'registry.example/web:2' } });
        const app = await eventually(async () => {
          const a = await getApp(api(), ns, 'web');
          return condition(a, 'Degraded')?.reason === 'AnalysisFailed' && a;
        }, { timeoutMs: 90_000, message: `${what}: aborted by analysis` });
        assert.match(condition(app, 'Degraded')!.message, /failed 2 checks \(failureLimit 1\)/, `${what}: aborted at the second failed check`);
        await eventually(() => recorder.changes.some((x) => x.what === 'deploymentDeleted'), { timeoutMs: 60_000, message: `${what}: the canary Deployment deleted` });
        assert.deepEqual(recorder.weights(), [0, 50, 0], `${what}: 50 then 0, never 50 again`);
        outlivesWeightZero(recorder.changes, SCALE_DOWN_DELAY_S, what);
        // The statuses the watch saw: one check counted (failed), then the abort with the second.
        const counted = recorder.statuses.map((s) => s.status?.canary?.analysis).filter((a) => a !== undefined);
        assert.deepEqual([...new Set(counted.map((a) => `${a!.checks}/${a!.failures}`))], ['1/1'], `${what}: the first failed check counted once, the second aborted`);
        const first = recorder.statuses.find((s) => s.status?.canary?.analysis?.checks === 1)!.status!.canary!;
        const afterRiseMs = Date.parse(first.analysis!.lastCheckAt!) - Date.parse(first.weightChangedAt!);
        assert.ok(afterRiseMs >= ANALYSIS_INTERVAL_S * 1000, `${what}: the first check ran ${afterRiseMs} ms after the weight rose, less than the interval`);
      } finally {
        recorder.stop();
      }
    }));
    const checksAfter = await Promise.all(cluster.controllers.map(failedChecks));
    assert.deepEqual(checksAfter.map((n, i) => n - checksBefore[i]), [4, 4], 'two checks run per App, none computed and lost, none repeated');
  });
});

async function failedChecks(c: Controller): Promise<number> {
  return sampleValue(await c.metrics.registry.getSingleMetricAsString('skiff_controller_analysis_checks_total'), 'skiff_controller_analysis_checks_total{result="Failed"}');
}
