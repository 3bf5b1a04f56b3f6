// Child processes of the local tooling (control plane, `npm run dev`): stopped gently, and never
// left behind when this process exits or is interrupted without stopping them.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { poll } from './wait.js';

const running = new Set<ChildProcess>();
let handlersInstalled = false;

function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      for (const child of running) child.kill('SIGKILL');
      // Only exit when nobody else (such as `npm run dev`) handles the signal.
      if (process.listenerCount(signal) === 1) process.exit(130);
    });
  }
}

/** Kills `child` when this process exits or gets SIGINT/SIGTERM, unless it ended before. */
export function killOnExit(child: ChildProcess): void {
  installExitHandlers();
  running.add(child);
  const forget = () => running.delete(child);
  child.once('exit', forget);
  child.once('error', forget);
}

/** SIGTERM, then SIGKILL after `timeoutMs`; resolves once the process has exited. */
export function stopProcess(child: ChildProcess | undefined, timeoutMs = 10_000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
  });
}

/** A child process with what it printed last. */
export interface Proc {
  child: ChildProcess;
  /** The last lines it printed, for error messages. */
  tail: string[];
  /**
   * The first lines saying why it stopped (klog's F lines, Go's panic, cobra's Error:): a Go
   * process that dies on klog.Fatal prints every goroutine's stack after its reason, so the tail
   * alone holds only stack frames.
   */
  fatal: string[];
}

const FATAL_LINE = /^(F\d{4} |panic: |fatal error: |Error: )/;

/** What a process printed before it ended, reason first. */
export function lastWords(proc: Proc): string {
  return [...proc.fatal, ...(proc.fatal.length ? ['...'] : []), ...proc.tail].join('\n');
}

/** Starts `bin`, stopped with this process; every line it prints goes to `log` as "name: line". */
export function startProcess(name: string, bin: string, args: string[], log: (line: string) => void): Proc {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  killOnExit(child);
  const tail: string[] = [];
  const fatal: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      tail.push(line);
      if (tail.length > 30) tail.shift();
      if (fatal.length < 5 && FATAL_LINE.test(line)) fatal.push(line);
      log(`${name}: ${line}`);
    });
  }
  // A binary that cannot be started gets an exit code too (the negative errno).
  child.once('error', (err) => tail.push(String(err)));
  return { child, tail, fatal };
}

/** Why `child` is no longer running ("code 1", "SIGKILL"), or undefined while it runs. */
export function exitReason(child: ChildProcess): string | undefined {
  if (child.exitCode === null && child.signalCode === null) return undefined;
  return child.signalCode ?? `code ${child.exitCode}`;
}

/** Resolves once `check` passes; throws when the process ends first (saying why) or at `timeoutMs`. */
export async function waitFor(what: string, proc: Proc, check: () => Promise<boolean>, timeoutMs: number, intervalMs = 200): Promise<void> {
  const exited = () => {
    const reason = exitReason(proc.child);
    return reason === undefined ? undefined : new Error(`${what} exited (${reason}):\n${lastWords(proc)}`);
  };
  const polled = await poll(check, { timeoutMs, intervalMs, giveUp: exited });
  if (!polled.done) throw new Error(`${what} was not ready within ${timeoutMs} ms:\n${lastWords(proc)}`);
}
