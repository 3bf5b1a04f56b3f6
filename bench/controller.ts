// npm run bench:controller [-- --sizes 100,500,1000] — on a real control plane with the pod
// simulator: N Apps created at once (20 at a time); time until every App has its objects and an observed status,
// and until every App is Ready; API writes per App (audit log); writes when a controller restarts
// onto the converged Apps and during a no-op resync; peak RSS of the controller process; and a
// baseline client creating the same Deployments and Services directly with the same concurrency.
// An SVG plot of time against N goes to bench/results/controller.svg.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubernetesListObject, KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import type { KubeClients } from '../dev/kube-clients.js';
import { render } from '../controller/render/render.js';
import { forEachLimited } from '../dev/concurrency.js';
import type { ControlPlane } from '../dev/control-plane.js';
import type { App } from '../shared/app-types.js';
import { defaulted } from '../shared/defaults.js';
import { appReady, follow, freePort, mark, otherCpuNote, processUsage, root, startNode, stop, table, watchOtherCpu, withBenchCluster } from './support.js';
import { eventually } from '../dev/wait.js';

// Apps are created 20 at a time (a user applying a directory); the controller runs its default
// 4 workers, and the baseline client creates objects with the same 4-way concurrency.
const CREATE_CONCURRENCY = 20;
const WORKERS = 4;
const RESYNC_SECONDS = 5;
const appsApi = { group: 'skiff.dev', version: 'v1alpha1', plural: 'apps' };

export interface ControllerRow { n: number; observedS: number; readyS: number; baselineCreateS: number; baselineReadyS: number; writesPerApp: number; restartWrites: number; resyncWrites: number; peakRssMiB: number; idleRssMiB: number; cpuS: number }

interface AuditEvent { verb: string; objectRef?: { resource?: string; subresource?: string }; responseStatus?: { code?: number } }

function controllerWriteEvents(cp: ControlPlane, namespace: string, sinceMs = 0): AuditEvent[] {
  return readFileSync(cp.auditLogPath!, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    .filter((e) => e.stage === 'ResponseComplete' && String(e.userAgent).startsWith('skiff-controller/') && e.objectRef?.namespace === namespace
      && ['create', 'update', 'patch', 'delete'].includes(e.verb) && Date.parse(e.requestReceivedTimestamp) >= sinceMs);
}

const controllerWrites = (cp: ControlPlane, namespace: string, sinceMs = 0): number => controllerWriteEvents(cp, namespace, sinceMs).length;

/** Writes by verb and resource, e.g. "patch apps/status 2010, patch deployments 1000". */
function writeBreakdown(events: AuditEvent[]): string {
  const counts = new Map<string, number>();
  for (const e of events) {
    const code = e.responseStatus?.code ?? 0;
    const key = `${e.verb} ${e.objectRef?.resource ?? '?'}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ''}${code >= 300 ? ` (HTTP ${code})` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ');
}

async function reconcileTotal(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return text.split('\n').filter((l) => l.startsWith('skiff_controller_reconcile_total{')).reduce((s, l) => s + Number(l.split(' ').pop()), 0);
}

function startController(cp: ControlPlane, namespace: string, metricsPort: number, resyncSeconds: number) {
  return startNode('controller', [`--namespace=${namespace}`, '--health-port=0', `--metrics-port=${metricsPort}`, `--resync-seconds=${resyncSeconds}`, `--concurrency=${WORKERS}`], { KUBECONFIG: cp.kubeconfigPath, SKIFF_LOG_LEVEL: 'error' });
}

async function controllerRun(cp: ControlPlane, api: KubeClients, n: number): Promise<Omit<ControllerRow, 'baselineCreateS' | 'baselineReadyS'>> {
  const namespace = `bench-c-${n}`;
  await api.core.createNamespace({ body: { metadata: { name: namespace } } });
  let metricsPort = await freePort();
  // No periodic resync while converging: a resync every few seconds would re-queue all N Apps
  // in the middle of the measurement and charge the controller for work that only the resync
  // measurement below is about.
  let child = startController(cp, namespace, metricsPort, 0);
  try {
    await eventually(async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).ok, { timeoutMs: 30_000, intervalMs: 100, message: 'the controller' });
    const idle = processUsage(child.pid!);
    const names = Array.from({ length: n }, (_, i) => `app-${i}`);
    const progress = follow<App & KubernetesObject>(api, {
      path: `/apis/skiff.dev/v1alpha1/namespaces/${namespace}/apps`,
      list: () => api.custom.listNamespacedCustomObject({ ...appsApi, namespace }) as Promise<KubernetesListObject<App & KubernetesObject>>,
      conditions: {
        observed: (a) => a.status?.observedGeneration === a.metadata.generation,
        ready: appReady,
      },
    });
    let observedS: number;
    let readyS: number;
    try {
      const t0 = Date.now();
      await forEachLimited(names, CREATE_CONCURRENCY, (name) => api.custom.createNamespacedCustomObject({ ...appsApi, namespace, body: { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name }, spec: { image: 'registry.example/web:1' } } }));
      observedS = await progress.reached('observed', n, t0);
      readyS = await progress.reached('ready', n, t0);
    } finally {
      await progress.stop();
    }
    // Anything still in the queue (a last status write) lands before the writes are counted.
    await new Promise((r) => setTimeout(r, 2_000));
    const writes = controllerWriteEvents(cp, namespace);
    const writesPerApp = writes.length / n;
    console.error(`  N=${n}: controller writes: ${writeBreakdown(writes)}`);
    const used = processUsage(child.pid!);
    await stop(child);

    // The resync interval is fixed at start, so a second controller with a short one is how to
    // force a resync after convergence. Its first sync (a restart onto converged Apps) and its
    // first periodic resync must both find nothing to write.
    const restartedAt = Date.now();
    metricsPort = await freePort();
    child = startController(cp, namespace, metricsPort, RESYNC_SECONDS);
    await eventually(async () => (await reconcileTotal(metricsPort)) >= n, { timeoutMs: 300_000, intervalMs: 250, message: 'the first sync after a restart' });
    const resyncFrom = Date.now();
    const restartWrites = controllerWrites(cp, namespace, restartedAt);
    await eventually(async () => (await reconcileTotal(metricsPort)) >= 2 * n, { timeoutMs: 300_000, intervalMs: 250, message: 'a full resync' });
    await new Promise((r) => setTimeout(r, 1_000));
    const resyncWrites = controllerWrites(cp, namespace, resyncFrom);
    return { n, observedS, readyS, writesPerApp, restartWrites, resyncWrites, peakRssMiB: used.peakRssMiB, idleRssMiB: idle.rssMiB, cpuS: used.cpuS - idle.cpuS };
  } finally {
    await stop(child);
  }
}

/** The same Deployments and Services, created directly, then awaited until available. */
async function baselineRun(api: KubeClients, n: number): Promise<{ createS: number; readyS: number }> {
  const namespace = `bench-b-${n}`;
  await api.core.createNamespace({ body: { metadata: { name: namespace } } });
  const objects = Array.from({ length: n }, (_, i) => render(defaulted({ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: `app-${i}`, namespace, uid: '00000000-0000-0000-0000-000000000000' }, spec: { image: 'registry.example/web:1' } } as App)));
  const progress = follow<V1Deployment>(api, {
    path: `/apis/apps/v1/namespaces/${namespace}/deployments`,
    list: () => api.apps.listNamespacedDeployment({ namespace }),
    conditions: { available: (d) => d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') === true && d.status?.readyReplicas === 1 },
  });
  const t0 = Date.now();
  await forEachLimited(objects, WORKERS, async (o) => {
    const strip = <T extends { metadata?: { ownerReferences?: unknown } }>(x: T): T => ({ ...x, metadata: { ...x.metadata, ownerReferences: undefined } });
    await api.apps.createNamespacedDeployment({ namespace, body: strip(o.deployment) });
    await api.core.createNamespacedService({ namespace, body: strip(o.service) });
  });
  const createS = (Date.now() - t0) / 1000;
  try {
    return { createS, readyS: await progress.reached('available', n, t0) };
  } finally {
    await progress.stop();
  }
}

export { controllerRun };

export const APP_CRD = { file: join(root, 'config/crd/bases/skiff.dev_apps.yaml'), name: 'apps.skiff.dev' };

/** Runs the controller at each size, and the baseline at sizes up to `baselineUpTo` (NaN above). */
export function benchController(sizes: number[], opts: { baselineUpTo?: number } = {}): Promise<ControllerRow[]> {
  return withBenchCluster('controller', [APP_CRD], async (cp, api) => {
    const rows: ControllerRow[] = [];
    for (const n of sizes) {
      const c = await controllerRun(cp, api, n);
      console.error(`  N=${n}: controller ${c.readyS.toFixed(1)} s`);
      const b = n <= (opts.baselineUpTo ?? Infinity) ? await baselineRun(api, n) : { createS: NaN, readyS: NaN };
      rows.push({ ...c, baselineCreateS: b.createS, baselineReadyS: b.readyS });
      if (!Number.isNaN(b.readyS)) console.error(`  N=${n}: baseline ${b.readyS.toFixed(1)} s`);
    }
    return rows;
  });
}

/** A figure, or "-" when it was not measured. */
const fixed = (v: number, digits: number) => (Number.isNaN(v) ? '-' : v.toFixed(digits));

export function printController(rows: ControllerRow[]): void {
  console.log(table(['N Apps', 'objects+status s', 'baseline objects s', 'ratio', 'Ready s', 'baseline Ready s', 'ratio', 'writes/App', 'restart writes', 'no-op resync writes', 'RSS idle MiB', 'peak RSS MiB', 'CPU ms/App'],
    rows.map((r) => [r.n, r.observedS.toFixed(1), fixed(r.baselineCreateS, 1), fixed(r.observedS / r.baselineCreateS, 2), r.readyS.toFixed(1), fixed(r.baselineReadyS, 1), fixed(r.readyS / r.baselineReadyS, 2), r.writesPerApp.toFixed(2), r.restartWrites, r.resyncWrites, r.idleRssMiB.toFixed(0), r.peakRssMiB.toFixed(0), (r.cpuS * 1000 / r.n).toFixed(1)])));
  // Ready waits for the Deployment controller and the simulated kubelet as much for the baseline as
  // for Skiff; the objects column is the controller's own work.
  for (const r of rows) console.log(`N=${r.n}: ${controllerGoals(r).join('; ')}`);
}

/** Peak RSS of the controller's bundle at 1,000 Apps, its Deployment's flags. */
export const PEAK_RSS_GOAL_MIB = 110;

/** Each footprint goal for one row, with the figure and PASS or MISS. */
export function controllerGoals(r: ControllerRow): string[] {
  const growthPer1000 = ((r.peakRssMiB - r.idleRssMiB) * 1000) / r.n;
  const cpuMs = (r.cpuS * 1000) / r.n;
  const goals = [
    `RSS growth ${growthPer1000.toFixed(0)} MiB per 1,000 Apps (<= 60): ${mark(growthPer1000 <= 60)}`,
    `CPU ${cpuMs.toFixed(1)} ms per App (<= 10): ${mark(cpuMs <= 10)}`,
    `${r.writesPerApp.toFixed(2)} writes per App (<= 7: the Deployment, the Service, two status writes, one Event, and the first ControllerRevision of the history, created Running and marked Promoted once rolled out): ${mark(r.writesPerApp <= 7)}`,
    ...(Number.isNaN(r.baselineReadyS) ? [] : [
      `objects ${(r.observedS / r.baselineCreateS).toFixed(2)}x the baseline (<= 1.25): ${mark(r.observedS / r.baselineCreateS <= 1.25)}`,
      `Ready ${(r.readyS / r.baselineReadyS).toFixed(2)}x the baseline (<= 1.25): ${mark(r.readyS / r.baselineReadyS <= 1.25)}`,
    ]),
    `no-op resync writes ${r.resyncWrites} (0): ${mark(r.resyncWrites === 0)}`,
    `restart writes ${r.restartWrites} (0): ${mark(r.restartWrites === 0)}`,
  ];
  if (r.n === 1000) goals.push(`peak RSS ${r.peakRssMiB.toFixed(0)} MiB at 1,000 Apps (<= ${PEAK_RSS_GOAL_MIB}): ${mark(r.peakRssMiB <= PEAK_RSS_GOAL_MIB)}`);
  if (r.n >= 10_000) goals.push(`peak RSS ${r.peakRssMiB.toFixed(0)} MiB under the bundle's 512Mi limit: ${mark(r.peakRssMiB < 512)}`);
  return goals;
}

interface Series { name: string; color: string; dash: string; y: (r: ControllerRow) => number }

/** An axis that ends on a round number, so that the ticks read 0, 50, 100... rather than 0, 61, 122... */
function axis(v: number): { max: number; ticks: number[] } {
  const decade = 10 ** Math.floor(Math.log10(Math.max(v, 1e-9) / 5));
  const step = [1, 2, 2.5, 5, 10, 20].map((m) => m * decade).find((st) => Math.ceil(v / st) <= 5)!;
  return { max: step * Math.ceil(v / step), ticks: Array.from({ length: Math.ceil(v / step) + 1 }, (_, i) => i * step) };
}

/** One line chart of `series` against N, drawn at vertical offset `top0`. */
function chart(rows: ControllerRow[], title: string, yLabel: string, series: Series[], top0: number): string[] {
  const [w, h, left, right, top, bottom] = [640, 320, 60, 200, 30, 50];
  const xAxis = axis(Math.max(...rows.map((r) => r.n)));
  const yAxis = axis(Math.max(...rows.flatMap((r) => series.map((s) => s.y(r))).filter((v) => !Number.isNaN(v))));
  const x = (n: number) => left + (n / xAxis.max) * (w - left - right);
  const y = (v: number) => top0 + h - bottom - (v / yAxis.max) * (h - top - bottom);
  const [x0, y0, yTop] = [left, top0 + h - bottom, top0 + top];
  const out = [
    `<text x="${left}" y="${top0 + 18}" font-weight="bold">${title}</text>`,
    `<line x1="${x0}" y1="${y0}" x2="${w - right}" y2="${y0}" stroke="black"/>`,
    `<line x1="${x0}" y1="${yTop}" x2="${x0}" y2="${y0}" stroke="black"/>`,
    `<text x="${(left + w - right) / 2}" y="${top0 + h - 10}" text-anchor="middle">Apps created at once (N)</text>`,
    `<text x="15" y="${(yTop + y0) / 2}" text-anchor="middle" transform="rotate(-90 15 ${(yTop + y0) / 2})">${yLabel}</text>`,
    `<text x="${left - 6}" y="${y0 + 4}" text-anchor="end">0</text>`,
  ];
  for (const n of xAxis.ticks) out.push(`<text x="${x(n).toFixed(1)}" y="${y0 + 16}" text-anchor="middle">${n}</text>`);
  for (const v of yAxis.ticks.slice(1)) out.push(`<text x="${left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${v}</text>`, `<line x1="${left}" y1="${y(v).toFixed(1)}" x2="${w - right}" y2="${y(v).toFixed(1)}" stroke="#ddd"/>`);
  series.forEach((s, i) => {
    // A figure not measured at some N (the baseline at the largest sizes) is left out of its line.
    const measured = rows.filter((r) => !Number.isNaN(s.y(r)));
    const points = measured.map((r) => `${x(r.n).toFixed(1)},${y(s.y(r)).toFixed(1)}`).join(' ');
    out.push(`<polyline points="${points}" fill="none" stroke="${s.color}" stroke-width="2" stroke-dasharray="${s.dash}"/>`);
    for (const r of measured) out.push(`<circle cx="${x(r.n).toFixed(1)}" cy="${y(s.y(r)).toFixed(1)}" r="3" fill="${s.color}"/>`);
    const ly = yTop + 10 + i * 20;
    out.push(`<line x1="${w - right + 15}" y1="${ly}" x2="${w - right + 45}" y2="${ly}" stroke="${s.color}" stroke-width="2" stroke-dasharray="${s.dash}"/>`, `<text x="${w - right + 50}" y="${ly + 4}">${s.name}</text>`);
  });
  return out;
}

/** Time and memory against N, as one small standalone SVG of two charts. */
export function controllerSvg(rows: ControllerRow[]): string {
  const time: Series[] = [
    { name: 'Skiff: all Ready', color: '#1f77b4', dash: '', y: (r) => r.readyS },
    { name: 'baseline: all Ready', color: '#1f77b4', dash: '6 4', y: (r) => r.baselineReadyS },
    { name: 'Skiff: objects + status', color: '#d62728', dash: '', y: (r) => r.observedS },
    { name: 'baseline: objects', color: '#d62728', dash: '6 4', y: (r) => r.baselineCreateS },
  ];
  const memory: Series[] = [
    { name: 'peak RSS', color: '#2ca02c', dash: '', y: (r) => r.peakRssMiB },
    { name: 'RSS before the Apps', color: '#2ca02c', dash: '6 4', y: (r) => r.idleRssMiB },
    { name: '512Mi limit', color: '#7f7f7f', dash: '2 3', y: () => 512 },
  ];
  return [`<svg xmlns="http://www.w3.org/2000/svg" width="640" height="640" font-family="sans-serif" font-size="12">`,
    `<rect width="640" height="640" fill="white"/>`,
    ...chart(rows, 'Time to converge', 'seconds', time, 0),
    ...chart(rows, 'Controller memory', 'MiB', memory, 320),
    '</svg>'].join('\n') + '\n';
}

export function writeControllerSvg(rows: ControllerRow[], file = 'controller.svg'): string {
  const dir = join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, file);
  writeFileSync(path, controllerSvg(rows));
  return path;
}

const sizesArg = (argv: string[]) => {
  const i = argv.indexOf('--sizes');
  return (i >= 0 ? argv[i + 1] : process.env.BENCH_SIZES ?? '100,500,1000').split(',').map(Number).filter((x) => x > 0);
};
export const benchSizes = () => sizesArg(process.argv);

if (process.argv[1]?.endsWith('bench/controller.js')) {
  const others = watchOtherCpu();
  benchController(benchSizes()).then((rows) => { printController(rows); console.log(`plot: ${writeControllerSvg(rows)}`); console.log(otherCpuNote(others.stop())); }, (err: Error) => { console.error(err); process.exit(1); }).then(() => process.exit(0));
}
