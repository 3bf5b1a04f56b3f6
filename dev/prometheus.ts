// A real Prometheus on loopback for analysis tests and `npm run dev`: Debian's package (2.42),
// installed when missing, run as a child process with its own config and storage. Targets are
// a file_sd JSON file that Prometheus watches, so they can change while it runs.
import type { ChildProcess } from 'node:child_process';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { ensureDebianProgram, firstExecutable, type Log } from './debian-package.js';
import { freePort } from './free-port.js';
import { startProcess, stopProcess, waitFor } from './processes.js';

const quiet: Log = () => {};

async function findPrometheus(): Promise<string | undefined> {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  return firstExecutable([...dirs.map((d) => join(d, 'prometheus')), '/usr/bin/prometheus']);
}

/** The path of a `prometheus` binary: on PATH, or /usr/bin/prometheus, or Debian's package installed now. */
export function ensurePrometheus(log: Log = quiet): Promise<string> {
  return ensureDebianProgram('prometheus', findPrometheus, 'on PATH or at /usr/bin/prometheus', log);
}

export interface PrometheusOptions {
  /** Config, targets file and TSDB go here (made if missing). */
  dir: string;
  /** Scrape targets, `host:port` (each serving /metrics). */
  targets: string[];
  /** Keep it at most half the shortest rate() window queried (rate() needs two samples). */
  scrapeIntervalSeconds?: number;
  log?: Log;
  /** The binary; ensurePrometheus() otherwise. */
  bin?: string;
  /** Listen on this loopback port (to start again where a client expects it); a free one otherwise. */
  port?: number;
  /** Rule files (recording and alerting rules) to load. */
  ruleFiles?: string[];
}

export interface RunningPrometheus {
  /** Base URL for queryInstant, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Replaces the scrape targets; Prometheus picks the file up within about a second. */
  setTargets(targets: string[]): Promise<void>;
  stop(): Promise<void>;
}

/** Starts Prometheus on a free loopback port; resolves once `/-/ready` answers 200. */
export async function startPrometheus(opts: PrometheusOptions): Promise<RunningPrometheus> {
  const log = opts.log ?? quiet;
  const interval = opts.scrapeIntervalSeconds ?? 1;
  const bin = opts.bin ?? (await ensurePrometheus(log));
  await mkdir(join(opts.dir, 'data'), { recursive: true });
  const targetsFile = join(opts.dir, 'targets.json');
  const configFile = join(opts.dir, 'prometheus.yml');

  // Written whole and renamed into place: Prometheus watches the file and must never read half of it.
  const setTargets = async (targets: string[]) => {
    const tmp = `${targetsFile}.tmp`;
    await writeFile(tmp, `${JSON.stringify([{ targets, labels: {} }], null, 2)}\n`);
    await rename(tmp, targetsFile);
  };
  await setTargets(opts.targets);
  await writeFile(configFile, [
    'global:',
    `  scrape_interval: ${interval}s`,
    `  scrape_timeout: ${interval}s`,
    `  evaluation_interval: ${interval}s`,
    ...(opts.ruleFiles?.length ? ['rule_files:', ...opts.ruleFiles.map((f) => `  - ${JSON.stringify(f)}`)] : []),
    'scrape_configs:',
    '  - job_name: skiff-dev',
    '    file_sd_configs:',
    `      - files: [${JSON.stringify(targetsFile)}]`,
    '        refresh_interval: 1s', // the fallback: a file watch (inotify) normally sees changes at once
    '',
  ].join('\n'));

  for (let attempt = 1; ; attempt++) {
    const port = opts.port ?? (await freePort());
    try {
      const child = await launch(bin, opts.dir, configFile, port, log);
      const url = `http://127.0.0.1:${port}`;
      log(`prometheus ready at ${url}`);
      return { url, setTargets, stop: () => stopProcess(child) };
    } catch (err) {
      // Another process may take the free port before Prometheus binds it: try another.
      if (opts.port !== undefined || attempt >= 3 || !/address already in use/i.test((err as Error).message)) throw err;
    }
  }
}

async function launch(bin: string, dir: string, configFile: string, port: number, log: Log): Promise<ChildProcess> {
  const proc = startProcess('prometheus', bin, [
    `--config.file=${configFile}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--web.enable-lifecycle',
    '--log.level=warn',
  ], log);
  const ready = async () => {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/-/ready`, { signal: AbortSignal.timeout(1_000) });
      await res.body?.cancel();
      return res.status === 200;
    } catch {
      return false; // not listening yet
    }
  };
  try {
    await waitFor(`prometheus on port ${port}`, proc, ready, 30_000, 100);
  } catch (err) {
    await stopProcess(proc.child);
    throw err;
  }
  return proc.child;
}
