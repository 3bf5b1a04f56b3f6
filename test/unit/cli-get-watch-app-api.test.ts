import { strict as assert } from 'node:assert';
import type { Api } from '../../cli/api.js';
import type { CommandLine } from '../../cli/args.js';
import type { Context } from '../../cli/commands.js';
import { ApiError } from '../../cli/errors.js';
import { get } from '../../cli/get.js';
import type { CliApp } from '../../cli/model.js';
import { APP_API_MISSING } from '../../cli/paths.js';
import { plainStyle } from '../../cli/style.js';

// `kubectl skiff get APP --watch` where the list of Apps it follows answers 404 for the resource
// itself (the CRD deleted after the App was read): no App can come of watching. It ends with exit
// 1 and the words the other commands use, as `status --wait` does, instead of stopping that list
// silently and showing the last frame until Ctrl-C.
const app: CliApp = {
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop', uid: 'u1', generation: 1 },
  spec: { image: 'web:1' },
  status: { observedGeneration: 1 },
};

const notServed = () => new ApiError(404, 'the server could not find the requested resource', 'NotFound');

function context(answer: (path: string) => unknown) {
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
  const cmd = { command: 'get', app: 'web', watch: true, allNamespaces: false, color: false, wait: false, skipCanary: false } as CommandLine;
  const ctx: Context = { cmd, api, namespace: 'shop', style: plainStyle, out: (t) => void out.push(t), err: (t) => void err.push(t), now: () => new Date(), isTTY: false, columns: () => 80, rows: () => 24 };
  return { ctx, out, err };
}

const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<'still running'>((done) => setTimeout(() => done('still running'), ms).unref())]);

describe('kubectl skiff get --watch: the App API not served', () => {
  it('at the list of the App (the CRD deleted after the read): exit 1 at once with the App API missing', async () => {
    const { ctx, err } = context((path) => {
      if (path.endsWith('/apps/web')) return app;
      if (path.includes('/apps?')) return notServed();
      return { metadata: { resourceVersion: '5' }, items: [] };
    });
    assert.equal(await within(get(ctx), 1_000), 1);
    assert.equal(err.at(-1), `error: ${APP_API_MISSING}\n`);
  });

  it('a 404 for another list (not the App\'s) does not end it', async () => {
    const { ctx } = context((path) => {
      if (path.endsWith('/apps/web')) return app;
      if (path.includes('/deployments?')) return notServed();
      return { metadata: { resourceVersion: '5' }, items: path.includes('/apps?') ? [app] : [] };
    });
    const running = get(ctx);
    assert.equal(await within(running, 500), 'still running');
    process.emit('SIGTERM');
    assert.equal(await running, 0);
  });
});
