// Health-gated canaries on a real control plane against a real Prometheus (Debian's 2.42),
// scraping the stand-in for ingress-nginx's data plane at rates and error ratios each test sets.
// Timing: Prometheus scrapes every second; checks run every 10 s (the shortest interval an App
// may ask for) over a 10 s window (rate() needs two samples inside its window, so the scrape
// interval is at most half of it).
import { strict as assert } from 'node:assert';
import { sampleValue } from '../support/metrics.js';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Ingress } from '@kubernetes/client-node';
import { startTrafficExporter, type Traffic, type TrafficExporter } from '../../dev/nginx-traffic.js';
import { ensurePrometheus, startPrometheus, type RunningPrometheus } from '../../dev/prometheus.js';
import { startRouteStatusSimulator, type RouteStatusSimulator } from '../../dev/route-status.js';
import type { AnalysisSpec, AppSpec, CanaryStep } from '../../shared/app-types.js';
import { condition, createApp, getApp, newNamespace, testLogger } from '../support/apps.js';
import { repoRoot } from '../support/bundle.js';
import { recordCanary, WEIGHT, type CanaryRecorder } from '../support/canary-watch.js';
import { useControllerCluster } from '../support/controller-cluster.js';
import { kubectl } from '../support/kube.js';
import { eventually } from '../../dev/wait.js';

const INTERVAL = '10s';
const healthy: Traffic = { rps: 20, errorRatio: 0, latencyMs: 40 };

/** Runs the built kubectl plugin against `kubeconfig`; rejects with its output when it fails. */
const plugin = (kubeconfig: string, args: string[]) => new Promise<string>((done, fail) =>
  execFile(join(repoRoot, 'cli', 'kubectl-skiff'), [...args, '--kubeconfig', kubeconfig], (err, stdout, stderr) =>
    (err ? fail(new Error(`kubectl skiff ${args.join(' ')}: ${stderr}${stdout}`)) : done(stdout))));

describe('health-gated canary: analysis against a real Prometheus (real control plane)', function () {
  this.timeout(120_000);
  let gateway: RouteStatusSimulator | undefined;
  let exporter: TrafficExporter;
  let prometheus: RunningPrometheus;
  let promDir: string;
  let promPort: number;
  const cluster = useControllerCluster('analysis', {
    cluster: { controllerManager: true },
    prepare: async ({ cp, kc }) => {
      await kubectl(cp.kubeconfigPath, ['apply', '--validate=false', '-f', join(repoRoot, 'test', 'fixtures', 'gateway-api-v1.6.1')]);
      gateway = startRouteStatusSimulator(kc);
      exporter = await startTrafficExporter();
      promDir = await mkdtemp(join(tmpdir(), 'skiff-analysis-prometheus-'));
      prometheus = await startPrometheus({ dir: promDir, targets: [`127.0.0.1:${exporter.port}`], scrapeIntervalSeconds: 1, bin: await ensurePrometheus() });
      promPort = Number(new URL(prometheus.url).port);
    },
    controllers: () => [{ resyncMs: 30_000, prometheusUrl: prometheus.url, log: testLogger('controller') }],
    cleanup: async () => {
      await prometheus?.stop();
      await exporter?.stop();
      await gateway?.stop();
      if (promDir) await rm(promDir, { recursive: true, force: true });
    },
    hookTimeoutMs: { start: 300_000 }, // the first run installs Debian's prometheus package
  });
  const api = () => cluster.api;
  const k = (ns: string, args: string[]) => kubectl(cluster.cp.kubeconfigPath, ['-n', ns, ...args]);
  const app = (ns: string) => getApp(api(), ns, 'web');
  const canaryWeight = async (ns: string) => api().networking.readNamespacedIngress({ namespace: ns, name: 'web-canary' })
    .then((i: V1Ingress) => i.metadata?.annotations?.[WEIGHT], () => undefined);

  /** Resolves once Prometheus holds every series of `selector` with at least 4 samples in the last 10 s. */
  const scraped = (selector: string) => eventually(async () => {
    const q = `min(count_over_time(${selector}[10s])) >= 4`;
    const body = await (await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(q)}`)).json() as { data?: { result?: unknown[] } };
    return (body.data?.result?.length ?? 0) > 0;
  }, { timeoutMs: 30_000, intervalMs: 250, message: `Prometheus scraping ${selector}` });

  /** A stable App with analysis, then a new image: resolves with the namespace once the canary started. */
  async function canaryOf(analysis: AnalysisSpec, traffic: { canary?: Traffic; stable?: Traffic }, opts: { steps?: CanaryStep[]; deadline?: number; extra?: Partial<AppSpec>; beforeImage?: (ns: string) => Promise<void> } = {}): Promise<string> {
    const ns = await newNamespace(api(), 'a');
    const key = { namespace: ns, ingress: 'web' };
    exporter.setTraffic(key, 'stable', traffic.stable ?? healthy);
    exporter.setTraffic(key, 'canary', traffic.canary);
    // Prometheus has been scraping these series for a while, as it would have been in a cluster
    // (rate() over a series younger than its window reads low): a few samples of each first.
    if (traffic.canary) await scraped(`nginx_ingress_controller_requests{namespace="${ns}",canary!=""}`);
    if (traffic.stable) await scraped(`nginx_ingress_controller_requests{namespace="${ns}",canary=""}`);
    await createApp(api(), ns, 'web', {
      image: 'registry.example/web:1',
      replicas: 2,
      ingress: { host: `${ns}.example.com` },
      ...opts.extra,
      rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, progressDeadlineSeconds: opts.deadline ?? 120, steps: opts.steps ?? [{ setWeight: 20 }, { setWeight: 50 }], analysis: { interval: INTERVAL, minRequests: 5, ...analysis } },
    });
    await eventually(async () => condition(await app(ns), 'Ready')?.status === 'True', { timeoutMs: 30_000, message: 'the first version Ready' });
    await opts.beforeImage?.(ns);
    await k(ns, ['patch', 'app', 'web', '--type=merge', '-p', JSON.stringify({ spec: { image: 'registry.example/web:2' } })]);
    return ns;
  }

  /** canaryOf, with every change of the canary's weight recorded from watches from before the new image on; the caller stops the recorder. */
  async function recordedCanaryOf(...[analysis, traffic, opts]: Parameters<typeof canaryOf>): Promise<{ ns: string; recorder: CanaryRecorder }> {
    let recorder: CanaryRecorder | undefined;
    try {
      const ns = await canaryOf(analysis, traffic, { ...opts, beforeImage: async (n) => { recorder = await recordCanary(cluster, n); } });
      return { ns, recorder: recorder! };
    } catch (err) {
      recorder?.stop();
      throw err;
    }
  }
  /** Resolves once the watch saw the canary Ingress deleted. */
  const ingressDeleted = (recorder: CanaryRecorder) =>
    eventually(() => recorder.changes.some((c) => c.deleted), { timeoutMs: 20_000, message: 'the canary Ingress deleted' })
      .catch((err: Error) => { throw new Error(`${err.message}; the canary Ingress went ${recorder.sequence().join(' → ')}`); });

  const completed = (ns: string, timeoutMs = 60_000) => eventually(async () => {
    const a = await app(ns);
    return a.status?.stableImage === 'registry.example/web:2' && !a.status.canary && condition(a, 'Progressing')?.reason === 'RolloutComplete' && a;
  }, { timeoutMs, message: 'the canary to be promoted' });
  const aborted = (ns: string, reason: string, timeoutMs = 60_000) => eventually(async () => {
    const a = await app(ns);
    const d = condition(a, 'Degraded');
    return d?.reason === reason && d.status === 'True' && a;
  }, { timeoutMs, message: `Degraded ${reason}` });

  it('promotes a healthy canary after passing checks at every weight, a custom metric queried as written', async () => {
    const ns = await canaryOf({
      successRate: { min: 99 },
      latency: { maxMs: 500 },
      metrics: [{ name: 'canary-rps', query: 'sum(rate(nginx_ingress_controller_requests{namespace="{{namespace}}",ingress="{{ingress}}",canary!=""}[{{interval}}]))', min: 5 }],
    }, { canary: healthy });
    // The first checks may find no data yet (Prometheus found its target moments ago): they wait.
    const checked = await eventually(async () => {
      const a = await app(ns);
      return a.status?.canary?.analysis?.lastResult === 'Passed' && a;
    }, { timeoutMs: 30_000, intervalMs: 100, message: 'a passing check' });
    assert.equal(checked.status!.canary!.analysis!.failures, 0);
    const metrics = Object.fromEntries(checked.status!.canary!.analysis!.metrics!.map((m) => [m.name, m]));
    assert.equal(metrics.successRate.result, 'Passed');
    assert.equal(metrics.successRate.value, 100);
    assert.ok(Math.abs(metrics.latency.value! - 40) < 1, `latency ${metrics.latency.value}`);
    assert.ok(Math.abs(metrics['canary-rps'].value! - 20) < 5, `the custom metric, placeholders filled: ${metrics['canary-rps'].value}`);
    const done = await completed(ns);
    assert.equal(condition(done, 'Degraded')?.status, 'False');
    const counted = await cluster.controller.metrics.registry.getSingleMetricAsString('skiff_controller_analysis_checks_total');
    assert.match(counted, /skiff_controller_analysis_checks_total\{result="Passed"\} [1-9]/);
  });

  it('aborts a canary answering 20% 5xx after failureLimit + 1 failed checks, weight 0 before its objects go, naming the value', async () => {
    const { ns, recorder } = await recordedCanaryOf({ successRate: { min: 99 }, failureLimit: 1 }, { canary: { rps: 20, errorRatio: 0.2, latencyMs: 40 } });
    try {
      const a = await aborted(ns, 'AnalysisFailed');
      // Rates over a few seconds of scrapes: near the configured 80%, not exactly.
      const rate = Number(/failed 2 checks \(failureLimit 1\): successRate (\d+\.\d\d) < min 99/.exec(condition(a, 'Degraded')!.message)?.[1]);
      assert.ok(rate > 74 && rate < 86, `the message names the value: ${condition(a, 'Degraded')!.message}`);
      // Every change of the canary Ingress, from the watch: created at 0, 20, then 0 written
      // before the Ingress was deleted, and nothing above 0 after it.
      await ingressDeleted(recorder);
      assert.deepEqual(recorder.sequence(), [0, 20, 0, 'deleted'], `the canary Ingress: ${recorder.sequence().join(' → ')}`);
      const events = await k(ns, ['get', 'events', '--field-selector', 'reason=AnalysisFailed', '-o', 'jsonpath={.items[*].message}']);
      assert.match(events, /successRate/);
    } finally {
      recorder.stop();
    }
  });

  it('aborts on latency over its bound', async () => {
    const ns = await canaryOf({ latency: { maxMs: 500 }, failureLimit: 0 }, { canary: { rps: 20, errorRatio: 0, latencyMs: 800 } });
    const a = await aborted(ns, 'AnalysisFailed');
    assert.match(condition(a, 'Degraded')!.message, /latency 800(\.\d+)? ms > max 500/);
  });

  it('a slow tail (3% at 2 s): percentile 99 aborts the canary, the mean under the same bound promotes it', async () => {
    const slowTail = { rps: 20, errorRatio: 0, latencyMs: 40, slow: { ratio: 0.03, ms: 2000 } };
    const [byPercentile, byMean] = await Promise.all([
      canaryOf({ latency: { maxMs: 300, percentile: 99 }, failureLimit: 0 }, { canary: slowTail }),
      canaryOf({ latency: { maxMs: 300 }, failureLimit: 0 }, { canary: slowTail }),
    ]);
    const [a] = await Promise.all([aborted(byPercentile, 'AnalysisFailed'), completed(byMean)]);
    assert.match(condition(a, 'Degraded')!.message, /latency p99 \d+(\.\d+)? ms > max 300/);
  });

  it('kubectl skiff retry after an analysis abort runs the canary again, and it is promoted once healthy', async () => {
    const ns = await canaryOf({ successRate: { min: 99 }, failureLimit: 0 }, { canary: { rps: 20, errorRatio: 0.2, latencyMs: 40 } });
    await aborted(ns, 'AnalysisFailed');
    // The fix: the same revision now answers well (a dependency came back, say).
    exporter.setTraffic({ namespace: ns, ingress: 'web' }, 'canary', healthy);
    await plugin(cluster.cp.kubeconfigPath, ['retry', 'web', '-n', ns]);
    const done = await completed(ns, 90_000);
    assert.equal(condition(done, 'Degraded')?.status, 'False');
    assert.equal(done.status?.abortedRevision, undefined);
  });

  it('kubectl skiff pause holds the weight and the pause timer while checks still run; resume goes on', async () => {
    const { ns, recorder } = await recordedCanaryOf({ successRate: { min: 99 } }, { canary: healthy }, { steps: [{ setWeight: 20 }, { pause: { duration: '15s' } }, { setWeight: 50 }] });
    try {
      await eventually(async () => (await app(ns)).status?.canary?.stepIndex === 1, { timeoutMs: 60_000, message: 'the timed pause' });
      await plugin(cluster.cp.kubeconfigPath, ['pause', 'web', '-n', ns]);
      const paused = await eventually(async () => { const a = await app(ns); return a.status?.canary?.pausedAt !== undefined && a; }, { timeoutMs: 10_000, message: 'pausedAt' });
      const checksBefore = paused.status!.canary!.analysis?.checks ?? 0;
      // Longer than the 15 s pause and than an interval: checks go on, the step does not.
      const counted = await eventually(async () => {
        const a = await app(ns);
        return (a.status?.canary?.analysis?.checks ?? 0) > checksBefore && Date.now() - Date.parse(a.status!.canary!.pausedAt!) > 16_000 && a;
      }, { timeoutMs: 40_000, message: 'a check counted while paused, past the pause\'s 15 s' });
      assert.equal(counted.status?.canary?.stepIndex, 1, 'still in the timed pause');
      assert.equal(counted.status?.canary?.stepStartedAt, paused.status?.canary?.stepStartedAt, 'the pause timer stopped');
      const resumedAtMs = Date.now();
      await plugin(cluster.cp.kubeconfigPath, ['resume', 'web', '-n', ns]);
      await completed(ns, 90_000);
      // Every change of the canary Ingress, from the watch: 20 held through the pause, 50 only
      // once resumed, then 0 before the Ingress went.
      await ingressDeleted(recorder);
      assert.deepEqual(recorder.sequence(), [0, 20, 50, 0, 'deleted'], `the canary Ingress: ${recorder.sequence().join(' → ')}`);
      const fifty = recorder.changes.find((c) => c.weight === 50)!;
      assert.ok(fifty.atMs >= resumedAtMs, `the weight went to 50 ${resumedAtMs - fifty.atMs} ms before the resume: not held while paused`);
    } finally {
      recorder.stop();
    }
  });

  it('with only maxDropFromStable: 2, passes 95% beside a stable 96% and fails 90%', async () => {
    // 200 requests a second: a few hundred in each window, so that 95% against 96% is not lost
    // in the granularity of a handful of errors at the window's edges.
    const stable: Traffic = { rps: 200, errorRatio: 0.04, latencyMs: 40 };
    const [close, far] = await Promise.all([
      canaryOf({ successRate: { maxDropFromStable: 2 }, failureLimit: 0 }, { stable, canary: { rps: 200, errorRatio: 0.05, latencyMs: 40 } }),
      canaryOf({ successRate: { maxDropFromStable: 2 }, failureLimit: 0 }, { stable, canary: { rps: 200, errorRatio: 0.1, latencyMs: 40 } }),
    ]);
    const [, failed] = await Promise.all([completed(close), aborted(far, 'AnalysisFailed')]);
    const [, canaryRate, stableRate] = /successRate (\d+\.\d\d) < stable (\d+\.\d\d) - maxDropFromStable 2/.exec(condition(failed, 'Degraded')!.message) ?? [];
    assert.ok(Math.abs(Number(canaryRate) - 90) < 2 && Math.abs(Number(stableRate) - 96) < 1, `90% against 96%: ${condition(failed, 'Degraded')!.message}`);
  });

  it('noData: Wait holds without canary traffic and aborts at the deadline; Fail and Pass do as named', async () => {
    const [wait, fail, pass] = await Promise.all([
      // A deadline that leaves room for a check before it, on a loaded machine too: the canary's
      // pods may take seconds to be available, and a first check past the deadline would abort
      // before any inconclusive result is recorded.
      canaryOf({ successRate: { min: 99 } }, {}, { deadline: 25 }),
      canaryOf({ successRate: { min: 99 }, noData: 'Fail', failureLimit: 0 }, {}),
      canaryOf({ successRate: { min: 99 }, noData: 'Pass' }, {}),
    ]);
    const held = await eventually(async () => {
      const a = await app(wait);
      return a.status?.canary?.analysis?.lastResult === 'Inconclusive' && a;
    }, { timeoutMs: 30_000, message: 'an inconclusive check' });
    assert.match(condition(held, 'Progressing')!.message, /waiting for a passing analysis check/);
    assert.equal(held.status!.canary!.stepIndex, 0);
    assert.equal(held.status!.canary!.analysis!.failures, 0, 'Wait counts no failure');
    const [waited, failed] = await Promise.all([aborted(wait, 'AnalysisInconclusive'), aborted(fail, 'AnalysisFailed'), completed(pass)]);
    assert.match(condition(waited, 'Degraded')!.message, /no passing analysis check/);
    assert.match(condition(failed, 'Degraded')!.message, /no series|no data|requests/i);
  });

  it('Prometheus stopped mid-rollout: checks are inconclusive with the error, nothing crashes, and they resume when it is back', async () => {
    const ns = await canaryOf({ successRate: { min: 99 } }, { canary: healthy }, { steps: [{ setWeight: 20 }, { pause: {} }] });
    await eventually(async () => condition(await app(ns), 'Progressing')?.reason === 'CanaryPaused', { timeoutMs: 40_000, message: 'paused after a passing check' });
    const before = (await app(ns)).status!.canary!.analysis!.checks;
    const queries = async (result: string) => sampleValue(await cluster.controller.metrics.registry.getSingleMetricAsString('skiff_controller_analysis_queries_total'), `skiff_controller_analysis_queries_total{result="${result}"}`);
    const errorsBefore = await queries('error');
    assert.ok((await queries('value')) > 0, 'answered queries are counted');
    await prometheus.stop();
    try {
      const down = await eventually(async () => {
        const a = await app(ns);
        return a.status?.canary?.analysis?.lastResult === 'Inconclusive' && a.status.canary.analysis.checks > before && a;
      }, { timeoutMs: 30_000, message: 'an inconclusive check while Prometheus is down' });
      assert.match(down.status!.canary!.analysis!.message!, /ECONNREFUSED|refused|127\.0\.0\.1/);
      assert.equal(condition(down, 'Degraded')?.status, 'False', 'inconclusive is not a failure with noData: Wait');
      assert.equal(cluster.controller.ready(), undefined, 'the controller is fine');
      // What the SkiffAnalysisQueriesFailing alert reads.
      assert.ok((await queries('error')) > errorsBefore, 'failed queries are counted');
    } finally {
      prometheus = await startPrometheus({ dir: promDir, targets: [`127.0.0.1:${exporter.port}`], scrapeIntervalSeconds: 1, port: promPort });
    }
    await eventually(async () => (await app(ns)).status?.canary?.analysis?.lastResult === 'Passed', { timeoutMs: 40_000, message: 'checks passing again' });
    await k(ns, ['annotate', 'app', 'web', 'skiff.dev/promote=true']);
    await completed(ns);
  });

  it('a controller restart between two checks neither repeats nor skips one', async () => {
    const ns = await canaryOf({ successRate: { min: 99 }, interval: '12s' }, { canary: healthy }, { steps: [{ setWeight: 20 }, { pause: {} }] });
    const first = await eventually(async () => {
      const a = await app(ns);
      return a.status?.canary?.analysis?.checks === 1 && a;
    }, { timeoutMs: 40_000, intervalMs: 100, message: 'the first check' });
    const firstAt = Date.parse(first.status!.canary!.analysis!.lastCheckAt!);
    await cluster.stopController();
    await cluster.startController();
    const second = await eventually(async () => {
      const a = await app(ns);
      return (a.status?.canary?.analysis?.checks ?? 0) >= 2 && a;
    }, { timeoutMs: 40_000, intervalMs: 100, message: 'the second check' });
    assert.equal(second.status!.canary!.analysis!.checks, 2, 'exactly one more check');
    const gapS = (Date.parse(second.status!.canary!.analysis!.lastCheckAt!) - firstAt) / 1000;
    // Times have millisecond precision: never before the 12 s interval, and not much after it.
    assert.ok(gapS >= 12 && gapS <= 15, `the second check ran ${gapS}s after the first, on schedule`);
  });

  it('holds the canary at weight 0, Degraded AnalysisUnavailable, on a controller without a Prometheus; one with it goes on, its deadline counted from then', async () => {
    await cluster.stopController();
    await cluster.startController({ prometheusUrl: undefined });
    let recorded: { ns: string; recorder: CanaryRecorder } | undefined;
    try {
      recorded = await recordedCanaryOf({ successRate: { min: 99 } }, { canary: healthy }, { deadline: 25 });
      const { ns, recorder } = recorded;
      const a = await aborted(ns, 'AnalysisUnavailable', 30_000);
      assert.match(condition(a, 'Degraded')!.message, /--prometheus-url/);
      assert.equal(await canaryWeight(ns), '0');
      // Every change of the canary Ingress, from the watch: created at 0 and never above it.
      await eventually(() => recorder.changes.length > 0, { timeoutMs: 5_000, message: 'the watch saw the canary Ingress' });
      assert.deepEqual(recorder.sequence(), [0], `the canary Ingress: ${recorder.sequence().join(' → ')}`);
      // Held past progressDeadlineSeconds (25 s): not aborted for it.
      const startedAtMs = Date.parse(a.status!.canary!.stepStartedAt!);
      await new Promise((r) => setTimeout(r, Math.max(0, startedAtMs + 26_000 - Date.now())));
      assert.equal(condition(await app(ns), 'Degraded')?.reason, 'AnalysisUnavailable', 'still held, not aborted');
    } catch (err) {
      recorded?.recorder.stop();
      throw err;
    } finally {
      await cluster.stopController();
      await cluster.startController();
    }
    const { ns, recorder } = recorded;
    try {
      // A controller with a Prometheus: the step starts again, gets its weight and a passing
      // check (a check takes 10 s, less than half the deadline), instead of an abort at once.
      const done = await completed(ns);
      assert.notEqual(condition(done, 'Degraded')?.status, 'True');
      assert.deepEqual(recorder.sequence().slice(0, 3), [0, 20, 50], `the canary Ingress: ${recorder.sequence().join(' → ')}`);
    } finally {
      recorder.stop();
    }
  });

  it('a pause held at 0 by a controller without a Prometheus gets its weight back from one restarted with it', async () => {
    const { ns, recorder } = await recordedCanaryOf({ successRate: { min: 99 } }, { canary: healthy }, { steps: [{ setWeight: 20 }, { pause: {} }], deadline: 30 });
    try {
      await eventually(async () => condition(await app(ns), 'Progressing')?.reason === 'CanaryPaused', { timeoutMs: 40_000, message: 'paused at 20% after a passing check' });
      await cluster.stopController();
      await cluster.startController({ prometheusUrl: undefined });
      try {
        await aborted(ns, 'AnalysisUnavailable', 30_000);
        await eventually(async () => (await canaryWeight(ns)) === '0', { timeoutMs: 10_000, message: 'the held pause at 0' });
      } finally {
        await cluster.stopController();
      }
      // Longer than progressDeadlineSeconds (30 s) since the pause began: getting its weight back
      // is not measured from then.
      const pausedAtMs = Date.parse((await app(ns)).status!.canary!.stepStartedAt!);
      await new Promise((r) => setTimeout(r, Math.max(0, pausedAtMs + 31_000 - Date.now())));
      await cluster.startController();
      const back = await eventually(async () => {
        const a = await app(ns);
        return condition(a, 'Progressing')?.reason === 'CanaryPaused' && a.status?.canary?.weight === 20 && condition(a, 'Degraded')?.status === 'False' && a;
      }, { timeoutMs: 40_000, message: 'paused at 20% again, not Degraded' });
      assert.equal(back.status!.canary!.stepIndex, 1, 'still at the pause');
      assert.equal(await canaryWeight(ns), '20');
      // Every change of the canary Ingress, from the watch: never above the pause's weight.
      assert.deepEqual(recorder.sequence(), [0, 20, 0, 20], `the canary Ingress: ${recorder.sequence().join(' → ')}`);
    } finally {
      recorder.stop();
      if (cluster.controllers.length === 0) await cluster.startController();
    }
  });

  it('gates a canary through an HTTPRoute the same way', async () => {
    const { ns, recorder } = await recordedCanaryOf({ successRate: { min: 99 }, failureLimit: 0 }, { canary: { rps: 20, errorRatio: 0.5, latencyMs: 40 } }, {
      extra: { ingress: undefined, route: { parentRefs: [{ name: 'public' }], hostnames: ['web.example.com'] } },
    });
    try {
      const a = await aborted(ns, 'AnalysisFailed');
      const rate = Number(/successRate (\d+\.\d\d) < min 99/.exec(condition(a, 'Degraded')!.message)?.[1]);
      assert.ok(rate > 40 && rate < 60, `about 50%: ${condition(a, 'Degraded')!.message}`);
      const route = await api().custom.getNamespacedCustomObject({ group: 'gateway.networking.k8s.io', version: 'v1', plural: 'httproutes', namespace: ns, name: 'web' }) as { spec: { rules: { backendRefs: { name: string }[] }[] } };
      await eventually(async () => {
        const r = await api().custom.getNamespacedCustomObject({ group: 'gateway.networking.k8s.io', version: 'v1', plural: 'httproutes', namespace: ns, name: 'web' }) as typeof route;
        return r.spec.rules.every((rule) => rule.backendRefs.every((b) => b.name === 'web'));
      }, { timeoutMs: 20_000, message: 'the route back to stable only' });
      // Every change of the canary's backend weight in the route, from the watch (the route of
      // the stable version first, with no canary backend): added at 0, 20, then 0 written before
      // the canary backend was taken out of the route, and nothing above 0 after it.
      const first = () => recorder.sequence().findIndex((w) => w !== 'none');
      const sinceCanary = () => recorder.sequence().slice(first());
      await eventually(() => first() >= 0 && sinceCanary().at(-1) === 'none', { timeoutMs: 5_000, message: `the watch saw the canary backend go: ${recorder.sequence().join(' → ')}` });
      assert.deepEqual(sinceCanary(), [0, 20, 0, 'none'], `the canary backend: ${recorder.sequence().join(' → ')}`);
    } finally {
      recorder.stop();
    }
  });
});

