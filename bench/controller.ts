// npm run bench:controller [-- --sizes 100,500,1000] — on a real control plane with the pod
// simulator: N Apps created at once (20 at a time); time until every App has its objects and an observed status,
// and until every App is Ready; API writes per App (audit log); writes during a no-op resync;
// peak RSS of the controller process; and a baseline client creating the same Deployments and
// Services directly with the same concurrency.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { makeClients, type Clients } from '../controller/clients.js';
import { render } from '../controller/render.js';
import { startControlPlane, type ControlPlane } from '../dev/control-plane.js';
import { startPodSimulator } from '../dev/pod-simulator.js';
import type { App } from '../shared/app-types.js';
import { loadKubeConfig } from '../shared/kubeconfig.js';
import { freePort, mark, startNode, stop, table, waitUntil } from './support.js';
import { execFileSync } from 'node:child_process';
import { root } from './support.js';

// Apps are created 20 at a time (a user applying a directory); the controller runs its default
// 4 workers, and the baseline client creates objects with the same 4-way concurrency.
const CREATE_CONCURRENCY = 20;
const WORKERS = 4;
const appsApi = { group: 'skiff.dev', version: 'v1alpha1', plural: 'apps' };

export interface ControllerRow { n: number; observedS: number; readyS: number; baselineCreateS: number; baselineReadyS: number; writesPerApp: number; resyncWrites: number; peakRssMiB: number }

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: size }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

function controllerWrites(cp: ControlPlane, namespace: string, sinceMs = 0): number {
  return readFileSync(cp.auditLogPath!, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    .filter((e) => e.stage === 'ResponseComplete' && String(e.userAgent).startsWith('skiff-controller/') && e.objectRef?.namespace === namespace
      && ['create', 'update', 'patch', 'delete'].includes(e.verb) && Date.parse(e.requestReceivedTimestamp) >= sinceMs).length;
}

const peakRssMiB = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function reconcileTotal(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return text.split('\n').filter((l) => l.startsWith('skiff_controller_reconcile_total{')).reduce((s, l) => s + Number(l.split(' ').pop()), 0);
}

async function listApps(api: Clients, namespace: string): Promise<App[]> {
  return ((await api.custom.listNamespacedCustomObject({ ...appsApi, namespace })) as { items: App[] }).items;
}

async function controllerRun(cp: ControlPlane, api: Clients, n: number): Promise<Omit<ControllerRow, 'baselineCreateS' | 'baselineReadyS'>> {
  const namespace = `bench-c-${n}`;
  await api.core.createNamespace({ body: { metadata: { name: namespace } } });
  const metricsPort = await freePort();
  const child = startNode('controller/main.js', [`--namespace=${namespace}`, '--health-port=0', `--metrics-port=${metricsPort}`, '--resync-seconds=15', `--concurrency=${WORKERS}`], { KUBECONFIG: cp.kubeconfigPath, SKIFF_LOG_LEVEL: 'error' });
  try {
    await waitUntil(async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).ok, 30_000, 'the controller');
    const names = Array.from({ length: n }, (_, i) => `app-${i}`);
    const t0 = Date.now();
    await inBatches(names, CREATE_CONCURRENCY, (name) => api.custom.createNamespacedCustomObject({ ...appsApi, namespace, body: { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name }, spec: { image: 'registry.example/web:1' } } }));
    let observedS = 0;
    await waitUntil(async () => {
      const apps = await listApps(api, namespace);
      const observed = apps.filter((a) => a.status?.observedGeneration === a.metadata.generation).length;
      if (!observedS && observed === n) observedS = (Date.now() - t0) / 1000;
      return apps.filter((a) => a.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length === n;
    }, 1_200_000, `${n} Apps Ready`, 500);
    const readyS = (Date.now() - t0) / 1000;
    const writesPerApp = controllerWrites(cp, namespace) / n;
    // A no-op resync: every App reconciled again with nothing changed.
    const since = Date.now();
    const before = await reconcileTotal(metricsPort);
    await waitUntil(async () => (await reconcileTotal(metricsPort)) >= before + n, 120_000, 'a full resync', 500);
    await new Promise((r) => setTimeout(r, 1_000));
    const resyncWrites = controllerWrites(cp, namespace, since);
    return { n, observedS, readyS, writesPerApp, resyncWrites, peakRssMiB: peakRssMiB(child.pid!) };
  } finally {
    await stop(child);
  }
}

/** The same Deployments and Services, created directly, then awaited until available. */
async function baselineRun(api: Clients, n: number): Promise<{ createS: number; readyS: number }> {
  const namespace = `bench-b-${n}`;
  await api.core.createNamespace({ body: { metadata: { name: namespace } } });
  const objects = Array.from({ length: n }, (_, i) => render({ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: `app-${i}`, namespace, uid: '00000000-0000-0000-0000-000000000000' }, spec: { image: 'registry.example/web:1' } } as App));
  const t0 = Date.now();
  await inBatches(objects, WORKERS, async (o) => {
    const strip = <T extends { metadata?: { ownerReferences?: unknown } }>(x: T): T => ({ ...x, metadata: { ...x.metadata, ownerReferences: undefined } });
    await api.apps.createNamespacedDeployment({ namespace, body: strip(o.deployment) });
    await api.core.createNamespacedService({ namespace, body: strip(o.service) });
  });
  const createS = (Date.now() - t0) / 1000;
  await waitUntil(async () => (await api.apps.listNamespacedDeployment({ namespace })).items.filter((d) => d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') && d.status?.readyReplicas === 1).length === n, 1_200_000, `${n} baseline Deployments available`, 500);
  return { createS, readyS: (Date.now() - t0) / 1000 };
}

export async function benchController(sizes: number[]): Promise<ControllerRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-bench-controller-'));
  const cp = await startControlPlane({ dir, controllerManager: true, auditPolicy: true });
  const kc: KubeConfig = loadKubeConfig({ path: cp.kubeconfigPath });
  const api = makeClients(kc, 'skiff-bench');
  execFileSync('kubectl', ['--kubeconfig', cp.kubeconfigPath, 'apply', '-f', join(root, 'config/crd/bases/skiff.dev_apps.yaml')]);
  execFileSync('kubectl', ['--kubeconfig', cp.kubeconfigPath, 'wait', '--for=condition=Established', 'crd/apps.skiff.dev']);
  const simulator = await startPodSimulator(kc, { intervalMs: 500 });
  const rows: ControllerRow[] = [];
  try {
    for (const n of sizes) {
      const c = await controllerRun(cp, api, n);
      const b = await baselineRun(api, n);
      rows.push({ ...c, baselineCreateS: b.createS, baselineReadyS: b.readyS });
      console.error(`  N=${n}: controller ${c.readyS.toFixed(1)} s, baseline ${b.readyS.toFixed(1)} s`);
    }
  } finally {
    await simulator.stop();
    await cp.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

export function printController(rows: ControllerRow[]): void {
  console.log(table(['N Apps', 'objects+status s', 'baseline objects s', 'ratio', 'Ready s', 'baseline Ready s', 'ratio', 'writes/App', 'no-op resync writes', 'peak RSS MiB'],
    rows.map((r) => [r.n, r.observedS.toFixed(1), r.baselineCreateS.toFixed(1), (r.observedS / r.baselineCreateS).toFixed(2), r.readyS.toFixed(1), r.baselineReadyS.toFixed(1), (r.readyS / r.baselineReadyS).toFixed(2), r.writesPerApp.toFixed(1), r.resyncWrites, r.peakRssMiB.toFixed(0)])));
  // Ready waits for the Deployment controller and the simulated kubelet as much for the baseline as
  // for Skiff; the objects column is the controller's own work.
  for (const r of rows) {
    console.log(`N=${r.n}: objects within 1.5x of the baseline: ${mark(r.observedS / r.baselineCreateS <= 1.5)}; Ready within 1.5x: ${mark(r.readyS / r.baselineReadyS <= 1.5)}; no-op resync writes 0: ${mark(r.resyncWrites === 0)}`);
  }
}

const sizesArg = (argv: string[]) => {
  const i = argv.indexOf('--sizes');
  return (i >= 0 ? argv[i + 1] : process.env.BENCH_SIZES ?? '100,500,1000').split(',').map(Number).filter((x) => x > 0);
};
export const benchSizes = () => sizesArg(process.argv);

if (process.argv[1]?.endsWith('bench/controller.js')) {
  benchController(benchSizes()).then(printController, (err: Error) => { console.error(err); process.exit(1); }).then(() => process.exit(0));
}
