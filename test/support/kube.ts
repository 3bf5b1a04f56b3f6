// Small helpers for tests against the real control plane.
import { execFile } from 'node:child_process';

/** Runs kubectl against a kubeconfig; resolves with its output, rejects with stderr in the message. */
export function kubectlOutput(kubeconfigPath: string, args: string[], stdin?: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = execFile('kubectl', ['--kubeconfig', kubeconfigPath, ...args], { maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) {
        const failure = new Error(`kubectl ${args.join(' ')}: ${stderr.trim() || err.message}`) as Error & { stderr: string; stdout: string };
        failure.stderr = stderr;
        failure.stdout = stdout;
        fail(failure);
      } else done({ stdout, stderr });
    });
    child.stdin!.end(stdin ?? '');
  });
}

/** Runs kubectl against a kubeconfig; resolves with stdout. */
export const kubectl = async (kubeconfigPath: string, args: string[], stdin?: string): Promise<string> =>
  (await kubectlOutput(kubeconfigPath, args, stdin)).stdout;

export interface EventuallyOptions {
  timeoutMs: number;
  intervalMs?: number;
  /** Says what was awaited when it times out. */
  message: string;
}

/**
 * Calls `check` until it returns a truthy value (which it resolves with) or the time is up.
 * A throw counts as "not yet"; the last error is part of the timeout message.
 */
export type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

export async function eventually<T>(check: () => Promise<T> | T, opts: EventuallyOptions): Promise<Truthy<T>> {
  const deadline = Date.now() + opts.timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as Truthy<T>;
      last = `returned ${JSON.stringify(value)}`;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 200));
  }
  const detail = last instanceof Error ? last.message : String(last);
  throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${opts.message}: ${detail}`);
}
