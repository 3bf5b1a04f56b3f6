// npm run bench:analysis — one App's Prometheus trouble must not delay other Apps' reconciles.
// Twenty plain Apps are created at once and timed until all are Ready: first alone, then while
// four canaries run analysis checks against a stand-in Prometheus that answers every query after
// 9 s. The checks run outside the reconcile workers, so the second time should be about the first.
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { App, AppSpec } from '../shared/app-types.js';
import { appReady, benchControlPlane, mark, otherCpuNote, startNode, stop, watchOtherCpu } from './support.js';
import { eventually } from '../dev/wait.js';

const SLOW_QUERY_MS = 9_000;
const SLOW_APPS = 4;
const PLAIN_APPS = 20;
/** Goal: the twenty Apps are Ready in at most this many times their time without slow checks. */
const GOAL_RATIO = 1.5;

export interface SlowAnalysisResult {
  aloneS: number;
  besideSlowS: number;
  /** Slow Apps with a check waiting on the stand-in Prometheus when the twenty were created. */
  slowAppsInFlight: number;
}

/** A Prometheus that answers every instant query with one number, after `delayMs`; it counts the Apps (by ingress) it keeps waiting. */
function slowPrometheus(delayMs: number): Promise<{ server: Server; url: string; appsInFlight: () => number }> {
  const waiting = new Map<string, number>();
  const server = createServer((req, res) => {
    const app = /ingress="([^"]+)"/.exec(decodeURIComponent(req.url ?? ''))?.[1] ?? '';
    waiting.set(app, (waiting.get(app) ?? 0) + 1);
    req.resume();
    setTimeout(() => {
      const left = (waiting.get(app) ?? 1) - 1;
      if (left > 0) waiting.set(app, left);
      else waiting.delete(app);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: [Date.now() / 1000, '100'] }] } }));
    }, delayMs);
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    done({ server, url: `http://127.0.0.1:${port}`, appsInFlight: () => waiting.size });
  }));
}

export async function benchSlowAnalysis(): Promise<SlowAnalysisResult> {
  const cluster = await benchControlPlane('analysis');
  const { cp, api } = cluster;
  const prometheus = await slowPrometheus(SLOW_QUERY_MS);
  const controller = startNode('controller', ['--health-port=0', '--metrics-port=0', `--prometheus-url=${prometheus.url}`], { KUBECONFIG: cp.kubeconfigPath, SKIFF_LOG_LEVEL: 'error' });
  const target = (name: string) => ({ group: 'skiff.dev', version: 'v1alpha1', plural: 'apps', namespace: 'default', name });
  const get = async (name: string) => (await api.custom.getNamespacedCustomObject(target(name))) as App;
  const create = (name: string, spec: AppSpec) => api.custom.createNamespacedCustomObject({ ...target(name), body: { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name }, spec } });
  const ready = async (name: string) => appReady(await get(name));
  const plainBatch = async (prefix: string): Promise<number> => {
    const names = Array.from({ length: PLAIN_APPS }, (_, i) => `${prefix}-${i}`);
    const t0 = Date.now();
    await Promise.all(names.map((n) => create(n, { image: 'registry.example/plain:1', replicas: 1 })));
    await eventually(async () => (await Promise.all(names.map(ready))).every(Boolean), { timeoutMs: 300_000, intervalMs: 50, message: `${PLAIN_APPS} plain Apps Ready` });
    return (Date.now() - t0) / 1000;
  };
  try {
    // A first batch warms the controller up (JIT, connections), so that both timed ones start alike.
    await plainBatch('warm-up');
    const aloneS = await plainBatch('alone');
    // Four canaries at weight 50 with analysis every 10 s: each check waits 9 s for its answers.
    const slow = Array.from({ length: SLOW_APPS }, (_, i) => `slow-${i}`);
    await Promise.all(slow.map((n) => create(n, {
      image: 'registry.example/web:1', replicas: 2, ingress: { host: `${n}.example.com` },
      rollout: { strategy: 'Canary', steps: [{ setWeight: 50 }, { pause: {} }], analysis: { interval: '10s', successRate: { min: 99 } } },
    })));
    await eventually(async () => (await Promise.all(slow.map(ready))).every(Boolean), { timeoutMs: 120_000, intervalMs: 100, message: 'the slow Apps Ready' });
    for (const n of slow) execFileSync('kubectl', ['--kubeconfig', cp.kubeconfigPath, 'patch', 'app', n, '--type=merge', '-p', JSON.stringify({ spec: { image: 'registry.example/web:2' } })], { stdio: 'ignore' });
    // The worst moment: every slow App has a check waiting at the stand-in. Were checks run by
    // the reconcile workers, all four would be held for the next 9 s.
    await eventually(async () => prometheus.appsInFlight() >= SLOW_APPS, { timeoutMs: 120_000, intervalMs: 20, message: 'a check of every slow App under way' });
    const slowAppsInFlight = prometheus.appsInFlight();
    const besideSlowS = await plainBatch('beside');
    return { aloneS, besideSlowS, slowAppsInFlight };
  } finally {
    await stop(controller);
    prometheus.server.closeAllConnections();
    prometheus.server.close();
    await cluster.stop();
  }
}

export function printSlowAnalysis(r: SlowAnalysisResult): void {
  const ratio = r.besideSlowS / r.aloneS;
  console.log(`${PLAIN_APPS} Apps created at once, until all Ready: ${r.aloneS.toFixed(1)} s alone; ${r.besideSlowS.toFixed(1)} s while ${SLOW_APPS} canaries' checks wait ${SLOW_QUERY_MS / 1000} s on Prometheus (${r.slowAppsInFlight} of them waiting at the start)`);
  console.log(`ratio ${ratio.toFixed(2)} (goal <= ${GOAL_RATIO}): ${mark(ratio <= GOAL_RATIO)}`);
}

if (process.argv[1]?.endsWith('bench/slow-analysis.js')) {
  const others = watchOtherCpu();
  benchSlowAnalysis().then((r) => { printSlowAnalysis(r); console.log(otherCpuNote(others.stop())); }, (err: Error) => { console.error(err); process.exit(1); }).then(() => process.exit(0));
}
