// npm run bench:soak [-- --minutes 30 --apps 500 --every-seconds 2 --history-limit 1] — memory over time: the
// controller's bundle, run with its Deployment's flags against a local control plane with the pod
// simulator, keeps --apps canary Apps while a rollout starts every --every-seconds (image changes
// that complete on their own, promoted early, aborted, and Apps deleted and created again). Every
// 10 s: the controller's RSS (/proc/<pid>/status), open file descriptors and sockets
// (/proc/<pid>/fd) and V8 heap (its /metrics). After a warm-up, a least-squares line through the
// heap samples gives the slope in MB/min and its bound (twice its standard error); every figure
// is also fitted against the number of rollouts started, which must not drive it up. A plot goes
// to bench/results/soak.svg, the samples to soak.json.
//
// The Apps keep --history-limit revisions (spec.revisionHistoryLimit, 1 unless told). The
// controller caches every App's ControllerRevisions, up to that limit plus the stable and running
// ones: growth that stops at a bound, but at 500 Apps and a rollout every 2 s an App sees about two
// rollouts in 30 minutes, so at the App's default of 10 that cache is still filling when the run
// ends and its growth cannot be told from a leak. So before the clock starts every App rolls out
// once (to the image `:prime`), which at a limit of 1 brings its history to the size it keeps
// from then on (stable and one before it); what is left to grow is what should not. The number of
// revisions is sampled beside the memory.
import { mkdirSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PatchStrategy, setHeaderOptions, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';
import type { KubeClients } from '../dev/kube-clients.js';
import { forEachLimited } from '../dev/concurrency.js';
import { eventually } from '../dev/wait.js';
import type { App } from '../shared/app-types.js';
import { ANNOTATION_ABORT, ANNOTATION_PROMOTE } from '../shared/labels.js';
import { metricValues } from './footprint.js';
import { appReady, benchControlPlane, follow, freePort, machine, mark, otherCpuNote, processUsage, root, startNode, stop, watchOtherCpu } from './support.js';
import { fitLine, withinNoise } from './fit.js';
export { fitLine, withinNoise } from './fit.js';

const SAMPLE_MS = 10_000;
const NAMESPACE = 'soak';
const appsApi = { group: 'skiff.dev', version: 'v1alpha1', plural: 'apps', namespace: NAMESPACE };
/** Short canary steps: a rollout left alone completes in a few seconds. */
const STEPS = [{ setWeight: 50 }, { pause: { duration: '4s' } }];
/** The mix of rollouts, in turn: most complete by themselves, some are promoted or aborted early, some Apps are deleted and created again. */
const ACTIONS = ['image', 'promote', 'image', 'abort', 'image', 'recreate'] as const;
type Action = (typeof ACTIONS)[number];
/** How long after an image change the promotion or abort comes: during the canary's pause. */
const COMMAND_AFTER_MS = 1_500;

export interface SoakOptions { minutes: number; apps: number; everySeconds: number; historyLimit: number }
export interface Sample { atMin: number; rollouts: number; rssMiB: number; heapMB: number; fds: number; sockets: number; revisions: number }
export interface SoakResult { opts: SoakOptions; samples: Sample[]; warmupMin: number; rollouts: Record<Action, number>; errors: number; readyS: number; primeS: number }

function openFds(pid: number): { fds: number; sockets: number } {
  const fds = readdirSync(`/proc/${pid}/fd`);
  let sockets = 0;
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets++;
    } catch {
      // Closed between the listing and the read.
    }
  }
  return { fds: fds.length, sockets };
}

const appBody = (name: string, image: string, historyLimit: number) => ({
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name },
  spec: { image, replicas: 2, revisionHistoryLimit: historyLimit, ingress: { host: `${name}.soak.example` }, rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, steps: STEPS } },
});

/** How many ControllerRevisions the namespace holds: one page of one, and the count of the rest. */
async function revisionCount(api: KubeClients): Promise<number> {
  const page = await api.apps.listNamespacedControllerRevision({ namespace: NAMESPACE, limit: 1 });
  return page.items.length + (page.metadata?.remainingItemCount ?? 0);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One rollout of App `name`; `version` makes every image new. */
async function startRollout(api: KubeClients, opts: SoakOptions, action: Action, name: string, version: number): Promise<void> {
  const image = `registry.example/web:${version}`;
  const patch = (body: object) => api.custom.patchNamespacedCustomObject({ ...appsApi, name, body }, mergePatch);
  if (action === 'recreate') {
    await api.custom.deleteNamespacedCustomObject({ ...appsApi, name });
    await eventually(async () => api.custom.getNamespacedCustomObject({ ...appsApi, name }).then(() => false, () => true), { timeoutMs: 60_000, intervalMs: 250, message: `${name} deleted` });
    await api.custom.createNamespacedCustomObject({ ...appsApi, body: appBody(name, image, opts.historyLimit) });
    return;
  }
  await patch({ spec: { image } });
  if (action === 'image') return;
  await sleep(COMMAND_AFTER_MS);
  await patch({ metadata: { annotations: { [action === 'promote' ? ANNOTATION_PROMOTE : ANNOTATION_ABORT]: 'true' } } });
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** The soak's App names, app-0 to app-<n - 1>: the load takes them in turn. */
const appNames = (n: number) => Array.from({ length: n }, (_, i) => `app-${i}`);

/** Follows the soak's Apps with a watch until each meets `condition`. */
const followApps = (api: KubeClients, condition: (app: App & KubernetesObject) => boolean) => follow<App & KubernetesObject>(api, {
  path: `/apis/skiff.dev/v1alpha1/namespaces/${NAMESPACE}/apps`,
  list: () => api.custom.listNamespacedCustomObject(appsApi) as Promise<KubernetesListObject<App & KubernetesObject>>,
  conditions: { met: condition },
});

/** Creates the Apps and waits until every one is Ready; resolves with the seconds it took. */
async function createApps(api: KubeClients, opts: SoakOptions): Promise<number> {
  await api.core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  const progress = followApps(api, appReady);
  try {
    const t0 = Date.now();
    await forEachLimited(appNames(opts.apps), 20, (name) => api.custom.createNamespacedCustomObject({ ...appsApi, body: appBody(name, 'registry.example/web:0', opts.historyLimit) }));
    return await progress.reached('met', opts.apps, t0, 600_000);
  } finally {
    await progress.stop();
  }
}

const PRIME_IMAGE = 'registry.example/web:prime';

/** One rollout of every App, to PRIME_IMAGE; resolves with the seconds until every App runs it as stable and is Ready. */
async function primeHistories(api: KubeClients, opts: SoakOptions): Promise<number> {
  const progress = followApps(api, (a) => a.status?.stableImage === PRIME_IMAGE && appReady(a));
  try {
    const t0 = Date.now();
    await forEachLimited(appNames(opts.apps), 20, (name) => api.custom.patchNamespacedCustomObject({ ...appsApi, name, body: { spec: { image: PRIME_IMAGE } } }, mergePatch));
    return await progress.reached('met', opts.apps, t0, 600_000);
  } finally {
    await progress.stop();
  }
}

/** The load: a rollout every `everySeconds`, on the Apps in turn, until `until`. */
function driveRollouts(api: KubeClients, opts: SoakOptions, until: number) {
  const counts = Object.fromEntries(ACTIONS.map((a) => [a, 0])) as Record<Action, number>;
  const inFlight = new Set<Promise<void>>();
  let started = 0;
  let errors = 0;
  const timer = setInterval(() => {
    if (Date.now() >= until) return;
    const action = ACTIONS[started % ACTIONS.length];
    const name = `app-${started % opts.apps}`;
    started++;
    counts[action]++;
    const p = startRollout(api, opts, action, name, started).catch((err: Error) => {
      errors++;
      console.error(`  ${action} ${name}: ${err.message}`);
    }).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }, opts.everySeconds * 1000);
  return {
    started: () => started,
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
      return { counts, errors };
    },
  };
}

export async function benchSoak(opts: SoakOptions): Promise<SoakResult> {
  const cluster = await benchControlPlane('soak');
  const port = await freePort();
  const controller = startNode('controller', ['--health-port=0', `--metrics-port=${port}`], { KUBECONFIG: cluster.cp.kubeconfigPath, SKIFF_LOG_LEVEL: 'error' });
  try {
    await eventually(async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).ok, { timeoutMs: 60_000, intervalMs: 100, message: 'the controller\'s /metrics' });
    const readyS = await createApps(cluster.api, opts);
    console.error(`  ${opts.apps} Apps Ready in ${readyS.toFixed(1)} s`);
    const primeS = await primeHistories(cluster.api, opts);
    console.error(`  every App rolled out once in ${primeS.toFixed(1)} s; soaking for ${opts.minutes} min`);
    const t0 = Date.now();
    const load = driveRollouts(cluster.api, opts, t0 + opts.minutes * 60_000);
    const samples: Sample[] = [];
    const sample = async () => {
      if (controller.exitCode !== null) throw new Error(`the controller exited (code ${controller.exitCode})`);
      const m = await metricValues(port, ['nodejs_heap_size_used_bytes']);
      samples.push({ atMin: (Date.now() - t0) / 60_000, rollouts: load.started(), rssMiB: processUsage(controller.pid!).rssMiB, heapMB: m.nodejs_heap_size_used_bytes / 1e6, ...openFds(controller.pid!), revisions: await revisionCount(cluster.api) });
      const s = samples.at(-1)!;
      console.error(`  ${s.atMin.toFixed(1)} min: ${s.rollouts} rollouts, RSS ${s.rssMiB.toFixed(0)} MiB, heap ${s.heapMB.toFixed(1)} MB, ${s.fds} fds, ${s.sockets} sockets, ${s.revisions} revisions`);
    };
    await sample();
    while (Date.now() - t0 < opts.minutes * 60_000) {
      await sleep(SAMPLE_MS - ((Date.now() - t0) % SAMPLE_MS));
      await sample();
    }
    const { counts, errors } = await load.stop();
    return { opts, samples, warmupMin: warmupMinutes(opts.minutes), rollouts: counts, errors, readyS, primeS };
  } finally {
    await stop(controller);
    await cluster.stop();
  }
}

/** A fifth of the run, at least a minute: caches filled, the first rollouts' objects made, the heap at its working size. */
export const warmupMinutes = (minutes: number) => Math.max(1, minutes / 5);

const FIGURES: { key: 'rssMiB' | 'heapMB' | 'fds' | 'sockets'; label: string; unit: string }[] = [
  { key: 'heapMB', label: 'heap used', unit: 'MB' },
  { key: 'rssMiB', label: 'RSS', unit: 'MiB' },
  { key: 'fds', label: 'open fds', unit: '' },
  { key: 'sockets', label: 'sockets', unit: '' },
];

export function soakGoals(r: SoakResult): string[] {
  const after = r.samples.filter((s) => s.atMin >= r.warmupMin);
  const heap = fitLine(after.map((s) => s.atMin), after.map((s) => s.heapMB));
  const goals = [`heap after the ${r.warmupMin.toFixed(0)}-minute warm-up (${heap.n} samples): slope ${heap.slope.toFixed(3)} MB/min, bound ±${(2 * heap.se).toFixed(3)} (2 standard errors), ${(heap.slope * 60).toFixed(1)} MB/hour; within noise: ${mark(withinNoise(heap))}`];
  // The heap's floor (its lowest sample in each whole minute) is where a leak shows first, under the collector's sawtooth.
  const byMinute = new Map<number, number[]>();
  for (const s of after) byMinute.set(Math.floor(s.atMin), [...(byMinute.get(Math.floor(s.atMin)) ?? []), s.heapMB]);
  // Whole minutes only: the last sample alone in its minute is no floor.
  const floors = [...byMinute].filter(([, hs]) => hs.length >= (60_000 / SAMPLE_MS) - 1).map(([m, hs]) => [m, Math.min(...hs)]);
  const floor = fitLine(floors.map(([m]) => m), floors.map(([, v]) => v));
  if (Number.isFinite(floor.slope)) goals.push(`heap floor (lowest sample of each minute, ${floor.n} minutes): ${floors.map(([, v]) => v.toFixed(1)).join(' ')} MB; slope ${floor.slope.toFixed(3)} MB/min, bound ±${(2 * floor.se).toFixed(3)}`);
  for (const f of FIGURES) {
    const fit = fitLine(after.map((s) => s.rollouts), after.map((s) => s[f.key]));
    const per100 = (v: number) => (v * 100).toFixed(f.unit ? 2 : 3);
    goals.push(`${f.label} against rollouts started: ${per100(fit.slope)}${f.unit ? ` ${f.unit}` : ''} per 100 rollouts, bound ±${per100(2 * fit.se)}; does not grow with them: ${mark(withinNoise(fit))}`);
  }
  goals.push(`the controller stayed up and every rollout was accepted (${r.errors} errors): ${mark(r.errors === 0)}`);
  return goals;
}

export function printSoak(r: SoakResult): void {
  const first = r.samples.find((s) => s.atMin >= r.warmupMin) ?? r.samples[0];
  const last = r.samples.at(-1)!;
  const total = Object.values(r.rollouts).reduce((a, b) => a + b, 0);
  console.log(`${r.opts.apps} Apps (Ready after ${r.readyS.toFixed(0)} s, each rolled out once in ${r.primeS.toFixed(0)} s more; revisionHistoryLimit ${r.opts.historyLimit}), ${r.opts.minutes} min, a rollout every ${r.opts.everySeconds} s: ${total} rollouts (${Object.entries(r.rollouts).map(([a, n]) => `${a} ${n}`).join(', ')})`);
  console.log(`after warm-up -> end: RSS ${first.rssMiB.toFixed(0)} -> ${last.rssMiB.toFixed(0)} MiB (peak ${Math.max(...r.samples.map((s) => s.rssMiB)).toFixed(0)}), heap ${first.heapMB.toFixed(1)} -> ${last.heapMB.toFixed(1)} MB, fds ${first.fds} -> ${last.fds}, sockets ${first.sockets} -> ${last.sockets}, ControllerRevisions ${first.revisions} -> ${last.revisions}`);
  for (const g of soakGoals(r)) console.log(g);
}

/** The samples over time: memory with the heap's fitted line, and descriptors. */
export function soakSvg(r: SoakResult): string {
  const [w, h, left, right, top, bottom] = [720, 300, 60, 170, 30, 45];
  const xMax = Math.max(r.opts.minutes, ...r.samples.map((s) => s.atMin));
  const x = (m: number) => left + (m / xMax) * (w - left - right);
  const after = r.samples.filter((s) => s.atMin >= r.warmupMin);
  const heapFit = fitLine(after.map((s) => s.atMin), after.map((s) => s.heapMB));
  const meanX = after.reduce((a, s) => a + s.atMin, 0) / Math.max(1, after.length);
  const meanY = after.reduce((a, s) => a + s.heapMB, 0) / Math.max(1, after.length);
  const fitted = (m: number) => meanY + heapFit.slope * (m - meanX);
  const chart = (top0: number, title: string, series: { name: string; color: string; y: (s: Sample) => number; dash?: string }[], line?: { from: number; to: number; y: (m: number) => number }) => {
    const yMax = Math.max(1, ...r.samples.flatMap((s) => series.map((se) => se.y(s)))) * 1.1;
    const y = (v: number) => top0 + h - bottom - (v / yMax) * (h - top - bottom);
    const out = [`<text x="${left}" y="${top0 + 18}" font-weight="bold">${title}</text>`,
      `<line x1="${left}" y1="${y(0)}" x2="${w - right}" y2="${y(0)}" stroke="black"/>`, `<line x1="${left}" y1="${top0 + top}" x2="${left}" y2="${y(0)}" stroke="black"/>`,
      `<line x1="${x(r.warmupMin).toFixed(1)}" y1="${top0 + top}" x2="${x(r.warmupMin).toFixed(1)}" y2="${y(0)}" stroke="#aaa" stroke-dasharray="4 3"/>`,
      `<text x="${(x(r.warmupMin) + 4).toFixed(1)}" y="${y(0) - 6}" fill="#777">warm-up ends</text>`,
      `<text x="${(left + w - right) / 2}" y="${top0 + h - 10}" text-anchor="middle">minutes</text>`];
    for (let i = 0; i <= 4; i++) {
      const v = (yMax / 4) * i;
      out.push(`<text x="${left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${v.toFixed(0)}</text>`);
      out.push(`<text x="${x((xMax / 4) * i).toFixed(1)}" y="${y(0) + 16}" text-anchor="middle">${((xMax / 4) * i).toFixed(1)}</text>`);
    }
    series.forEach((se, i) => {
      out.push(`<polyline points="${r.samples.map((s) => `${x(s.atMin).toFixed(1)},${y(se.y(s)).toFixed(1)}`).join(' ')}" fill="none" stroke="${se.color}" stroke-width="1.5" stroke-dasharray="${se.dash ?? ''}"/>`);
      const ly = top0 + top + 10 + i * 20;
      out.push(`<line x1="${w - right + 15}" y1="${ly}" x2="${w - right + 45}" y2="${ly}" stroke="${se.color}" stroke-width="2" stroke-dasharray="${se.dash ?? ''}"/>`, `<text x="${w - right + 50}" y="${ly + 4}">${se.name}</text>`);
    });
    if (line && Number.isFinite(line.y(line.from))) out.push(`<line x1="${x(line.from).toFixed(1)}" y1="${y(line.y(line.from)).toFixed(1)}" x2="${x(line.to).toFixed(1)}" y2="${y(line.y(line.to)).toFixed(1)}" stroke="black" stroke-width="1.5" stroke-dasharray="6 3"/>`);
    return out;
  };
  return [`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${2 * h}" font-family="sans-serif" font-size="12">`, `<rect width="${w}" height="${2 * h}" fill="white"/>`,
    ...chart(0, `Controller memory, ${r.opts.apps} Apps, a rollout every ${r.opts.everySeconds} s (dashed: heap fit, ${heapFit.slope.toFixed(3)} MB/min)`, [
      { name: 'RSS MiB', color: '#2ca02c', y: (s) => s.rssMiB },
      { name: 'heap used MB', color: '#1f77b4', y: (s) => s.heapMB },
    ], { from: r.warmupMin, to: xMax, y: fitted }),
    ...chart(h, 'Controller descriptors', [
      { name: 'open fds', color: '#d62728', y: (s) => s.fds },
      { name: 'sockets', color: '#9467bd', y: (s) => s.sockets, dash: '5 3' },
    ]),
    '</svg>'].join('\n') + '\n';
}

/** The plot, and the samples beside it (soak.json) to fit or draw again later. */
export function writeSoakSvg(r: SoakResult): string {
  const dir = join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'soak.svg');
  writeFileSync(path, soakSvg(r));
  writeFileSync(join(dir, 'soak.json'), `${JSON.stringify({ machine: machine(), ...r }, null, 1)}\n`);
  return path;
}

function soakArgs(argv: string[]): SoakOptions {
  const num = (flag: string, dflt: number) => {
    const i = argv.indexOf(`--${flag}`);
    const v = i >= 0 ? Number(argv[i + 1]) : dflt;
    if (!(v > 0)) throw new Error(`--${flag}: expected a positive number, got ${argv[i + 1]}`);
    return v;
  };
  return { minutes: num('minutes', 30), apps: num('apps', 500), everySeconds: num('every-seconds', 2), historyLimit: num('history-limit', 1) };
}

if (process.argv[1]?.endsWith('bench/soak.js')) {
  const others = watchOtherCpu();
  benchSoak(soakArgs(process.argv.slice(2))).then((r) => {
    console.log(`Machine: ${machine()}`);
    printSoak(r);
    console.log(`plot: ${writeSoakSvg(r)}`);
    console.log(otherCpuNote(others.stop()));
  }, (err: Error) => { console.error(err); process.exit(1); }).then(() => process.exit(0));
}
