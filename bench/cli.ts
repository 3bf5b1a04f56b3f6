// npm run bench:cli — start-up of the `kubectl skiff` plugin as a user runs it (the launcher
// cli/kubectl-skiff, a new process each time): --help without a cluster, and list and get
// against a local control plane. Medians of several runs; goals from the contract.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { benchControlPlane, mark, otherCpuNote, root, table, watchOtherCpu } from './support.js';

const PLUGIN = join(root, 'cli', 'kubectl-skiff');
const RUNS = 7;
export const GOALS_MS = { help: 150, list: 400 } as const;

export interface CliFigures { helpMs: number; listMs: number; getMs: number }

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** The median wall time of running the plugin with `args`, in milliseconds. */
function timeRuns(args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    execFileSync(PLUGIN, args, { stdio: 'ignore', env: { ...process.env, KUBECONFIG: '/nonexistent' } });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(times);
}

export async function benchCli(): Promise<CliFigures> {
  const helpMs = timeRuns(['--help']);
  const cluster = await benchControlPlane('cli');
  try {
    const kubeconfig = cluster.cp.kubeconfigPath;
    for (let i = 0; i < 5; i++) {
      execFileSync('kubectl', ['--kubeconfig', kubeconfig, 'apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: `web-${i}`, namespace: 'default' }, spec: { image: 'registry.example/web:1' } }), stdio: ['pipe', 'ignore', 'inherit'] });
    }
    timeRuns(['list', '--kubeconfig', kubeconfig]); // the API server's first answers are slower
    return { helpMs, listMs: timeRuns(['list', '--kubeconfig', kubeconfig]), getMs: timeRuns(['get', 'web-0', '--kubeconfig', kubeconfig]) };
  } finally {
    await cluster.stop();
  }
}

export function printCli(f: CliFigures): void {
  console.log(table(['command', `median of ${RUNS}`, 'goal', ''], [
    ['kubectl skiff --help', `${f.helpMs.toFixed(0)} ms`, `< ${GOALS_MS.help} ms`, mark(f.helpMs < GOALS_MS.help)],
    ['kubectl skiff list (5 Apps)', `${f.listMs.toFixed(0)} ms`, `< ${GOALS_MS.list} ms`, mark(f.listMs < GOALS_MS.list)],
    ['kubectl skiff get APP', `${f.getMs.toFixed(0)} ms`, '-', ''],
  ]));
}

if (process.argv[1]?.endsWith('bench/cli.js')) {
  const others = watchOtherCpu();
  benchCli().then((f) => { printCli(f); console.log(otherCpuNote(others.stop())); }, (err: Error) => { console.error(err); process.exit(1); }).then(() => process.exit(0));
}
