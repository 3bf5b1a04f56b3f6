// CLI Contexts over a stand-in Api, shared by the CLI's unit tests: for the commands that read an
// App and then follow it (`get --watch`, `status --wait`), reads answer from a function, watches
// stay open until stopped, and any write fails the test; for the commands that read an App and
// then write it (pause, promote, abort, retry, undo, set image), the writes are recorded.
import type { Api } from '../../cli/api.js';
import type { CommandLine } from '../../cli/args.js';
import type { Context } from '../../cli/commands.js';
import type { CliApp } from '../../cli/model.js';
import { plainStyle } from '../../cli/style.js';

/** App web in namespace shop at the given generation, image web:<generation>, observed at generation 1. */
export const followedApp = (generation: number): CliApp => ({
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop', uid: 'u1', generation },
  spec: { image: `web:${generation}` },
  status: { observedGeneration: 1 },
});

/**
 * A Context in namespace shop whose Api answers each read with answer(path) (an Error is thrown),
 * whose watches stay open until stopped, and whose writes throw. What the command writes to stdout
 * and stderr is kept in out and err. The command line is `cmd.command web` with no flags but those
 * cmd sets.
 */
export function followingContext(answer: (path: string) => unknown, cmd: Pick<CommandLine, 'command'> & Partial<CommandLine>) {
  const out: string[] = [];
  const err: string[] = [];
  const api = {
    connection: { server: 'https://127.0.0.1:6443' },
    get: async (path: string) => {
      const a = answer(path);
      if (a instanceof Error) throw a;
      return a;
    },
    mergePatch: async () => { throw new Error('no write expected'); },
    // A watch that stays open until stopped.
    watchOnce: (_p: string, _rv: string, _on: unknown, signal: AbortSignal) => new Promise<void>((_, fail) => signal.addEventListener('abort', () => fail(Object.assign(new Error('aborted'), { name: 'AbortError' })))),
  } as unknown as Api;
  const line: CommandLine = { app: 'web', allNamespaces: false, color: false, watch: false, wait: false, skipCanary: false, ...cmd };
  const ctx: Context = { cmd: line, api, namespace: 'shop', style: plainStyle, out: (t) => void out.push(t), err: (t) => void err.push(t), now: () => new Date(), isTTY: false, columns: () => 80, rows: () => 24 };
  return { ctx, out, err };
}

/**
 * A Context in namespace shop whose Api answers each read with answer(path) and each merge patch
 * with write(patch) (an Error it returns is thrown), recording the patches. What the command writes
 * to stdout is kept in out. The command line is `cmd.command web` with no flags but those cmd sets.
 */
export function writingContext(answer: (path: string) => unknown, write: (patch: unknown) => unknown, cmd: Pick<CommandLine, 'command'> & Partial<CommandLine>) {
  const out: string[] = [];
  const patches: unknown[] = [];
  const api = {
    connection: { server: 'https://127.0.0.1:6443' },
    get: async (path: string) => answer(path),
    mergePatch: async (_path: string, patch: unknown) => {
      patches.push(patch);
      const written = write(patch);
      if (written instanceof Error) throw written;
      return written;
    },
    watchOnce: async () => {},
  } as unknown as Api;
  const line: CommandLine = { app: 'web', allNamespaces: false, color: false, watch: false, wait: false, skipCanary: false, ...cmd };
  const ctx: Context = { cmd: line, api, namespace: 'shop', style: plainStyle, out: (t) => void out.push(t), err: () => {}, now: () => new Date(), isTTY: false, columns: () => 80, rows: () => 24 };
  return { ctx, out, patches };
}

/** What p settles to, or 'still running' if it has not settled within ms. */
export const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<'still running'>((done) => setTimeout(() => done('still running'), ms).unref())]);
