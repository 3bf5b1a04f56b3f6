import { strict as assert } from 'node:assert';
import type { Api } from '../../cli/api.js';
import type { CommandLine } from '../../cli/args.js';
import type { Context } from '../../cli/commands.js';
import { ApiError, NotFoundError } from '../../cli/errors.js';
import type { CliApp } from '../../cli/model.js';
import { APP_API_MISSING } from '../../cli/paths.js';
import { plainStyle } from '../../cli/style.js';
import { statusWait } from '../../cli/wait.js';

// `kubectl skiff status APP --wait` where the App API answers 404 for the resource itself (the CRD
// not installed, or deleted between the read of the App and the list the wait follows): nothing
// can come of waiting. It ends with exit 1 and the words the other commands use, not at the
// timeout (or never, without one). An App that is not there is a 404 of another kind: "not found".
const app: CliApp = {
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop', uid: 'u1', generation: 2 },
  spec: { image: 'web:2' },
  status: { observedGeneration: 1 },
};

/** The API server's answer for a resource it does not serve (a Status, or a bare "404 page not found"). */
const notServed = () => new ApiError(404, 'the server could not find the requested resource', 'NotFound');
const appNotFound = () => new ApiError(404, 'apps.skiff.dev "web" not found', 'NotFound');

function context(answer: (path: string) => unknown) {
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
  const cmd = { command: 'status', app: 'web', wait: true, timeoutMs: 2_000, allNamespaces: false, color: false, watch: false, skipCanary: false } as CommandLine;
  const ctx: Context = { cmd, api, namespace: 'shop', style: plainStyle, out: () => {}, err: (t) => void err.push(t), now: () => new Date(), isTTY: false, columns: () => 80, rows: () => 24 };
  return { ctx, err };
}

const soon = <T>(p: Promise<T>, ms = 1_000) => Promise.race([p, new Promise<'still waiting'>((done) => setTimeout(() => done('still waiting'), ms).unref())]);

describe('kubectl skiff status --wait: the App API not served', () => {
  it('at the read of the App: fails at once with the App API missing', async () => {
    const { ctx } = context(() => notServed());
    await assert.rejects(soon(statusWait(ctx)), (e: Error) => e instanceof NotFoundError && e.message === APP_API_MISSING);
  });

  it('at the list the wait follows (the CRD deleted after the read): exit 1 at once with the same words, not the timeout', async () => {
    const { ctx, err } = context((path) => (path.endsWith('/apps/web') ? app : notServed()));
    assert.equal(await soon(statusWait(ctx)), 1);
    assert.equal(err.at(-1), `error: ${APP_API_MISSING}\n`);
  });

  it('an App that does not exist is "not found", not the App API missing', async () => {
    const { ctx } = context(() => appNotFound());
    await assert.rejects(soon(statusWait(ctx)), (e: Error) => e instanceof NotFoundError && e.message === 'app "web" not found in namespace "shop"');
  });
});
