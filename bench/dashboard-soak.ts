// npm run bench:dashboard-soak [-- --minutes N] — `kubectl skiff dashboard` over time: on a local
// control plane with the real controller, 10 canary Apps each re-rolled every minute (a rollout
// started, stepped and promoted), two pages following the list and one an App over server-sent
// events, and a page opened and closed every 20 s. The dashboard's RSS is sampled every 10 s;
// after a warm-up a line is fitted to it, and the live heap is measured by a heap snapshot at the
// end of the warm-up and at the end: it must not grow with time or with the rollouts and pages it
// has seen (issue: Argo Rollouts' dashboard grows until it is OOM-killed).
import { get, type ClientRequest } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { createApp, newNamespace } from '../test/support/apps.js';
import { startDashboardProcess } from '../test/support/dashboard.js';
import { benchControlPlane, mark, root, startNode, stop } from './support.js';
import { fitLine, withinNoise } from './fit.js';

const APPS = 10;
const SAMPLE_MS = 10_000;

/**
 * The live JS heap of a process started with --heapsnapshot-signal=SIGUSR2: a snapshot (taken
 * after a full GC) written into `dir`, summed. RSS alone cannot tell a leak from V8 keeping
 * compiled code and freed pages; the live heap can.
 */
async function liveHeapMB(pid: number, dir: string): Promise<number> {
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  for (let last = -1; ; await new Promise((r) => setTimeout(r, 1_000))) {
    const file = readdirSync(dir).find((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
    if (!file) continue;
    const size = statSync(join(dir, file)).size;
    if (size !== last || size === 0) { last = size; continue; }
    const snap = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { snapshot: { meta: { node_fields: string[] } }; nodes: number[] };
    const fields = snap.snapshot.meta.node_fields;
    const at = fields.indexOf('self_size');
    let bytes = 0;
    for (let i = at; i < snap.nodes.length; i += fields.length) bytes += snap.nodes[i];
    return bytes / 1e6;
  }
}

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** A page's event stream: connected and read (and its bytes counted) until closed. */
function follow(port: number, token: string, query = ''): { close(): void; bytes(): number } {
  let bytes = 0;
  let req: ClientRequest | undefined = get({ host: '127.0.0.1', port, path: `/api/stream?token=${token}${query}`, headers: { accept: 'text/event-stream' } }, (res) => res.on('data', (d: Buffer) => { bytes += d.length; }));
  req.on('error', () => {});
  return { close: () => { req?.destroy(); req = undefined; }, bytes: () => bytes };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { minutes: { type: 'string', default: '30' } } });
  const minutes = Number(values.minutes);
  const warmupMin = Math.min(5, minutes / 3);
  const { cp, api, stop: stopCluster } = await benchControlPlane('dashboard-soak');
  const controller = startNode('controller', ['--health-port=0', '--metrics-port=0'], { KUBECONFIG: cp.kubeconfigPath, SKIFF_LOG_LEVEL: 'error' });
  const ns = await newNamespace(api, 'soak');
  const spec = (n: number) => ({ image: `registry.example/web:${n}`, replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary' as const, scaleDownDelaySeconds: 0, steps: [{ setWeight: 50 }, { pause: { duration: '20s' } }] } });
  for (let i = 0; i < APPS; i++) await createApp(api, ns, `app${i}`, spec(0));
  const snapshots = mkdtempSync(join(tmpdir(), 'skiff-dashboard-heap-'));
  const dash = await startDashboardProcess(cp.kubeconfigPath, ['-A', '--port', '0'], { NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshots}` });
  const heap: number[] = [];
  const heapAtWarmup = setTimeout(() => void liveHeapMB(dash.child.pid!, snapshots).then((mb) => heap.push(mb)), warmupMin * 60_000);
  const pages = [follow(dash.port, dash.token), follow(dash.port, dash.token), follow(dash.port, dash.token, `&app=${ns}/app0`)];
  const samples: { min: number; rss: number }[] = [];
  const started = Date.now();
  let rollouts = 0;
  let opened = 0;
  const sampler = setInterval(() => samples.push({ min: (Date.now() - started) / 60_000, rss: rssMiB(dash.child.pid!) }), SAMPLE_MS);
  const tabs = setInterval(() => { const p = follow(dash.port, dash.token, `&app=${ns}/app${opened % APPS}`); opened++; setTimeout(() => p.close(), 5_000); }, 20_000);
  try {
    for (let round = 1; Date.now() - started < minutes * 60_000; round++) {
      for (let i = 0; i < APPS; i++) {
        await api.custom.patchNamespacedCustomObject({ group: 'skiff.dev', version: 'v1alpha1', plural: 'apps', namespace: ns, name: `app${i}`, body: { spec: { image: `registry.example/web:${round}` } } }, mergePatch);
        rollouts++;
      }
      await new Promise((r) => setTimeout(r, Math.min(60_000, minutes * 60_000 - (Date.now() - started))));
    }
    heap.push(await liveHeapMB(dash.child.pid!, snapshots));
  } finally {
    clearTimeout(heapAtWarmup);
    clearInterval(sampler);
    clearInterval(tabs);
    pages.forEach((p) => p.close());
    await dash.stop();
    await stop(controller);
    await stopCluster();
    rmSync(snapshots, { recursive: true, force: true });
  }
  report(samples, warmupMin, heap, { minutes, rollouts, opened, streamed: pages.reduce((n, p) => n + p.bytes(), 0) });
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

function report(samples: { min: number; rss: number }[], warmupMin: number, heap: number[], run: { minutes: number; rollouts: number; opened: number; streamed: number }): void {
  const after = samples.filter((s) => s.min >= warmupMin);
  const fit = fitLine(after.map((s) => s.min), after.map((s) => s.rss));
  const first = after.slice(0, 6).reduce((n, s) => n + s.rss, 0) / Math.max(1, Math.min(6, after.length));
  const last = after.slice(-6).reduce((n, s) => n + s.rss, 0) / Math.max(1, Math.min(6, after.length));
  const flat = withinNoise(fit);
  const cpu = cpus();
  console.log(`Machine: ${cpu.length} x ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`);
  console.log(`kubectl skiff dashboard, ${run.minutes} min: ${APPS} canary Apps re-rolled every minute (${run.rollouts} rollouts), 3 pages following, ${run.opened} pages opened and closed, ${(run.streamed / 1e6).toFixed(1)} MB streamed`);
  console.log(`RSS after a ${warmupMin} min warm-up: ${first.toFixed(1)} MiB at first, ${last.toFixed(1)} MiB at the end, max ${Math.max(...after.map((s) => s.rss)).toFixed(1)} MiB`);
  console.log(`RSS: fitted slope ${fit.slope.toFixed(3)} MiB/min ± ${(2 * fit.se).toFixed(3)} (2 standard errors): within noise ${mark(flat)}`);
  // The verdict is the live heap's: V8 keeps compiled code and freed pages, so RSS creeps for a while without any leak.
  const grew = heap.length === 2 ? heap[1] - heap[0] : NaN;
  console.log(`live JS heap (snapshots after a full GC): ${heap.map((h) => `${h.toFixed(2)} MB`).join(' at the warm-up, ')} at the end: ${Number.isFinite(grew) ? `${grew >= 0 ? '+' : ''}${grew.toFixed(2)} MB` : 'not measured'} (goal: under 1 MB): ${mark(grew < 1)}`);
  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  writeFileSync(join(root, 'bench', 'results', 'dashboard-soak.json'), `${JSON.stringify({ run, warmupMin, fit, heap, samples }, null, 1)}\n`);
}

main().then(() => process.exit(0), (err: Error) => { console.error(err); process.exit(1); });
