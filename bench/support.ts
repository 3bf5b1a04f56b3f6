// Shared pieces of the benchmarks: child processes, free ports, printing tables, and
// how busy the rest of the machine was.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export { freePort } from '../dev/free-port.js';
import type { KubeConfig, KubernetesObject, ListPromise } from '@kubernetes/client-node';
import { makeKubeClients, type KubeClients } from '../dev/kube-clients.js';
import { ResilientInformer } from '../controller/runtime/informer.js';
import { createLogger } from '../shared/logger.js';
import { startControlPlane, type ControlPlane } from '../dev/control-plane.js';
import { waitForCrdsEstablished } from '../dev/crds.js';
import { startPodSimulator } from '../dev/pod-simulator.js';
import { stopProcess } from '../dev/processes.js';
import { loadKubeConfig } from '../shared/kubeconfig.js';
import { eventually } from '../dev/wait.js';

/** The shipped programs, as config/manager's Deployments run them. */
export const BUNDLES = { controller: 'dist/bundle/controller.mjs', webhook: 'dist/bundle/webhook.mjs' } as const;
export type Program = keyof typeof BUNDLES;

/**
 * Runs a program as its Deployment in config/manager does: its bundle with the Node flags of that
 * container's command, so that what is measured is what runs. `{ build: 'tsc' }` runs the
 * compiled files under dist/ instead (dist/controller/main.js), with the same heap flags, to
 * compare the two.
 */
export function startNode(program: Program, args: string[], env: NodeJS.ProcessEnv = {}, opts: { build?: 'bundle' | 'tsc'; withoutFlags?: string[] } = {}): ChildProcess {
  const flags = bundleNodeFlags(BUNDLES[program]).filter((f) => !opts.withoutFlags?.includes(f));
  const [nodeFlags, script] = opts.build === 'tsc'
    ? [flags.filter((f) => f !== '--enable-source-maps'), join(root, 'dist', program, 'main.js')]
    : [flags, join(root, BUNDLES[program])];
  if (!existsSync(script)) throw new Error(`${script} is missing: npm run build`);
  return spawnNode([...nodeFlags, script, ...args], env);
}

/** Runs a compiled script of dist/ (such as bench/bare-server.js) with Node's default flags. */
export const startScript = (script: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess => spawnNode([join(root, 'dist', script), ...args], env);

const spawnNode = (argv: string[], env: NodeJS.ProcessEnv) =>
  spawn(process.execPath, argv, { env: { ...process.env, SKIFF_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });

/** The flags before `script` in the `command: [node, ...]` of the bundle's container that runs it. */
export function bundleNodeFlags(script: string): string[] {
  const dir = join(root, 'config', 'manager');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      const containers = (doc.toJS() as { spec?: { template?: { spec?: { containers?: { command?: string[] }[] } } } } | null)?.spec?.template?.spec?.containers ?? [];
      for (const { command } of containers) {
        const at = command?.indexOf(script) ?? -1;
        if (command && command[0] === 'node' && at > 0) return command.slice(1, at);
      }
    }
  }
  return [];
}

export const stop = (child: ChildProcess): Promise<void> => stopProcess(child, 5_000);

/** Peak resident memory (VmHWM) and CPU time (user + system) of a running process. */
export function processUsage(pid: number): { peakRssMiB: number; rssMiB: number; cpuS: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  // /proc/<pid>/stat: fields 14 and 15 are utime and stime in clock ticks (100 per second).
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { peakRssMiB: kib('VmHWM') / 1024, rssMiB: kib('VmRSS') / 1024, cpuS: (Number(fields[11]) + Number(fields[12])) / 100 };
}

export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells.map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ')).join('\n');
}

export const mark = (ok: boolean) => (ok ? 'PASS' : 'MISS');

// Other sessions, builds or test runs on the same few cores change the figures more than any
// code change does, so every benchmark says how much CPU the rest of the machine took meanwhile.
const CLOCK_TICKS_PER_S = 100;

function processTimes(): Map<number, { ppid: number; ticks: number }> {
  const out = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces and parentheses: fields start after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(entry), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch {
      // Gone between readdir and read.
    }
  }
  return out;
}

/** Samples every process each second; stop() gives the cores used on average by processes outside this process tree. */
export function watchOtherCpu(): { stop(): number } {
  const started = Date.now();
  let last = processTimes();
  let otherTicks = 0;
  const sample = () => {
    const now = processTimes();
    const ours = new Set([process.pid]);
    // Parents before children is not guaranteed by pid order, so grow the set until it is stable.
    for (let grew = true; grew;) {
      grew = false;
      for (const [pid, p] of now) if (!ours.has(pid) && ours.has(p.ppid)) { ours.add(pid); grew = true; }
    }
    for (const [pid, p] of now) if (!ours.has(pid)) otherTicks += Math.max(0, p.ticks - (last.get(pid)?.ticks ?? 0));
    last = now;
  };
  const timer = setInterval(sample, 1_000);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sample();
      return otherTicks / CLOCK_TICKS_PER_S / Math.max(1, (Date.now() - started) / 1000);
    },
  };
}

export function otherCpuNote(cores: number): string {
  const note = `other processes on the machine used ${cores.toFixed(2)} cores on average meanwhile`;
  return cores > 0.1 ? `WARNING: ${note}; these figures are disturbed` : note;
}

/**
 * A control plane with an audit log, the given CRDs established and the pod simulator, for the
 * length of `fn`; everything is stopped and removed afterwards.
 */
export async function withBenchCluster<T>(name: string, crds: { file: string; name: string }[], fn: (cp: ControlPlane, api: KubeClients, kc: KubeConfig) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), `skiff-bench-${name}-`));
  const cp = await startControlPlane({ dir, controllerManager: true, auditPolicy: true });
  const kc = loadKubeConfig({ path: cp.kubeconfigPath });
  const kubectl = (args: string[]) => execFileSync('kubectl', ['--kubeconfig', cp.kubeconfigPath, ...args], { stdio: 'ignore' });
  for (const crd of crds) kubectl(['apply', '-f', crd.file]);
  await waitForCrdsEstablished(cp.kubeconfigPath, crds.map((c) => c.name));
  const simulator = await startPodSimulator(kc, { intervalMs: 500 });
  try {
    return await fn(cp, makeKubeClients(kc, 'skiff-bench'), kc);
  } finally {
    await simulator.stop();
    await cp.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An App whose Ready condition is True: what the benchmarks wait for. */
export const appReady = (app: { status?: { conditions?: { type: string; status: string }[] } }): boolean =>
  app.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/**
 * When each of `n` objects first met a condition, followed with a watch (one list, then changes).
 * The benchmarks measure progress this way rather than by listing every object every half
 * second: at 1,000 Apps those lists loaded the API server during the measured controller run,
 * and not while the baseline created its objects.
 */
export function follow<T extends KubernetesObject>(api: KubeClients, opts: { path: string; list: ListPromise<T>; conditions: Record<string, (obj: T) => boolean> }) {
  const met = Object.fromEntries(Object.keys(opts.conditions).map((name) => [name, new Set<string>()]));
  const informer = new ResilientInformer<T>({
    resource: opts.path,
    path: opts.path,
    list: opts.list,
    watch: api.watch,
    log: createLogger('bench'),
    onChange: (obj) => {
      for (const [name, check] of Object.entries(opts.conditions)) if (check(obj)) met[name].add(obj.metadata!.name!);
    },
  });
  informer.start();
  return {
    /** Resolves when `n` objects have met `name`, with the time since `t0` in seconds. */
    reached: async (name: string, n: number, t0: number, timeoutMs = 3_600_000): Promise<number> => {
      await eventually(async () => met[name].size >= n, { timeoutMs, intervalMs: 50, message: () => `${n} objects: ${name} (${met[name].size} so far)` });
      return (Date.now() - t0) / 1000;
    },
    stop: () => informer.stop(),
  };
}

/**
 * A control plane with the App CRD established and a quick pod simulator, for a benchmark that
 * runs its own controller: stop() stops and removes all of it.
 */
export async function benchControlPlane(name: string): Promise<{ cp: ControlPlane; kc: KubeConfig; api: KubeClients; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), `skiff-bench-${name}-`));
  const cp = await startControlPlane({ dir, controllerManager: true });
  const kc = loadKubeConfig({ path: cp.kubeconfigPath });
  execFileSync('kubectl', ['--kubeconfig', cp.kubeconfigPath, 'apply', '-f', join(root, 'config/crd/bases/skiff.dev_apps.yaml')]);
  await waitForCrdsEstablished(cp.kubeconfigPath, ['apps.skiff.dev']);
  const simulator = await startPodSimulator(kc, { intervalMs: 100 });
  return {
    cp, kc,
    api: makeKubeClients(kc, 'skiff-bench'),
    async stop() {
      await simulator.stop();
      await cp.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The machine the figures come from, as every benchmark prints it. */
export function machine(): string {
  const cpu = cpus();
  return `${cpu.length} x ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, Kubernetes 1.20.2 control plane on loopback`;
}
