// Child processes of the local tooling (control plane, `npm run dev`): stopped gently, and never
// left behind when this process exits or is interrupted without stopping them.
import type { ChildProcess } from 'node:child_process';

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
