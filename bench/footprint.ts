// npm run bench:footprint — the fixed cost of the shipped programs: idle RSS and heap of the
// controller connected to a local control plane with no Apps, run as its bundle with the
// Deployment's flags, the same bundle without source maps, and the tsc output under dist/ with
// the same heap flags; and `--help` of the plugin's bundle. Goals from the contract.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { benchControlPlane, freePort, machine, mark, otherCpuNote, processUsage, root, startNode, stop, table, watchOtherCpu } from './support.js';
import { eventually } from '../dev/wait.js';

export const IDLE_RSS_GOAL_MIB = 75;
export const HELP_GOAL_MS = 150;
/** After /metrics first answers: the informers' first lists are done and the heap has settled. */
const SETTLE_MS = 10_000;
const HELP_RUNS = 7;

export interface IdleRow { variant: string; startS: number; rssMiB: number; heapMB: number }
export interface FootprintFigures { idle: IdleRow[]; helpMs: number }

const VARIANTS: { variant: string; opts: Parameters<typeof startNode>[3] }[] = [
  { variant: 'bundle, the Deployment\'s flags', opts: {} },
  { variant: 'bundle without --enable-source-maps', opts: { withoutFlags: ['--enable-source-maps'] } },
  { variant: 'dist/controller/main.js (tsc), same heap flags', opts: { build: 'tsc' } },
];

/** One sample of the controller's own metrics: a gauge by name (NaN when absent). */
export async function metricValues(port: number, names: string[]): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const value = (name: string) => Number(text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))?.split(' ').pop() ?? NaN);
  return Object.fromEntries(names.map((n) => [n, value(n)]));
}

async function idleRun(kubeconfig: string, variant: string, opts: Parameters<typeof startNode>[3]): Promise<IdleRow> {
  const port = await freePort();
  const t0 = Date.now();
  const child: ChildProcess = startNode('controller', ['--health-port=0', `--metrics-port=${port}`], { KUBECONFIG: kubeconfig, SKIFF_LOG_LEVEL: 'error' }, opts);
  try {
    await eventually(async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).ok, { timeoutMs: 30_000, intervalMs: 50, message: 'the controller\'s /metrics' });
    const startS = (Date.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const { nodejs_heap_size_used_bytes: heap } = await metricValues(port, ['nodejs_heap_size_used_bytes']);
    return { variant, startS, rssMiB: processUsage(child.pid!).rssMiB, heapMB: heap / 1e6 };
  } finally {
    await stop(child);
  }
}

/** Median wall time of the plugin's --help through its launcher, in milliseconds. */
export function helpMs(runs = HELP_RUNS): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    execFileSync(join(root, 'cli', 'kubectl-skiff'), ['--help'], { stdio: 'ignore' });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

export async function benchFootprint(): Promise<FootprintFigures> {
  const cluster = await benchControlPlane('footprint');
  try {
    const idle: IdleRow[] = [];
    for (const { variant, opts } of VARIANTS) idle.push(await idleRun(cluster.cp.kubeconfigPath, variant, opts));
    return { idle, helpMs: helpMs() };
  } finally {
    await cluster.stop();
  }
}

export function printFootprint(f: FootprintFigures): void {
  console.log(table(['controller, no Apps', 'until /metrics s', 'idle RSS MiB', 'heap used MB'],
    f.idle.map((r) => [r.variant, r.startS.toFixed(2), r.rssMiB.toFixed(0), r.heapMB.toFixed(1)])));
  const shipped = f.idle[0];
  console.log(`controller idle RSS ${shipped.rssMiB.toFixed(0)} MiB (<= ${IDLE_RSS_GOAL_MIB}): ${mark(shipped.rssMiB <= IDLE_RSS_GOAL_MIB)}`);
  console.log(`kubectl skiff --help ${f.helpMs.toFixed(0)} ms, median of ${HELP_RUNS} (<= ${HELP_GOAL_MS}): ${mark(f.helpMs <= HELP_GOAL_MS)}`);
}

if (process.argv[1]?.endsWith('bench/footprint.js')) {
  const others = watchOtherCpu();
  benchFootprint().then((f) => { console.log(`Machine: ${machine()}`); printFootprint(f); console.log(otherCpuNote(others.stop())); }, (err: Error) => { console.error(err); process.exit(1); }).then(() => process.exit(0));
}
