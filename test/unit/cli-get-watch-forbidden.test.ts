import { strict as assert } from 'node:assert';
import type { Api } from '../../cli/api.js';
import type { CommandLine } from '../../cli/args.js';
import type { Context } from '../../cli/commands.js';
import { ApiError } from '../../cli/errors.js';
import { get } from '../../cli/get.js';
import type { CliApp } from '../../cli/model.js';
import { plainStyle } from '../../cli/style.js';

// `kubectl skiff get APP --watch` by a user who may read the App but not list or watch it (or its
// objects): the API server's refusal does not mend by retrying. It drew "app not found (deleted?);
// waiting for it" about an App that exists and retried the refusal every second until Ctrl-C;
// it ends now as `get` without --watch and `status --wait` do: the refusal on stderr, exit 1.
const app: CliApp = {
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop', uid: 'u1', generation: 1 },
  spec: { image: 'web:1' },
  status: { observedGeneration: 1 },
};

function context(refused: (path: string) => boolean) {
  const out: string[] = [];
  const err: string[] = [];
  const api = {
    connection: { server: 'https://127.0.0.1:6443' },
    get: async (path: string) => {
      if (refused(path)) throw new ApiError(403, 'forbidden (403): apps.skiff.dev is forbidden: User "bob" cannot list resource "apps"', 'Forbidden');
      if (path.endsWith('/apps/web')) return app;
      return { metadata: { resourceVersion: '5' }, items: path.includes('/apps?') ? [app] : [] };
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

describe('kubectl skiff get --watch: a refused list or watch', () => {
  it('of the App ends the command with exit 1 and the refusal on stderr, not an endless "not found (deleted?)"', async () => {
    const { ctx, out, err } = context((p) => p.includes('/apps?'));
    assert.equal(await within(get(ctx), 3000), 1);
    assert.match(err.join(''), /^error: cannot follow app shop\/web: forbidden \(403\)/);
    assert.doesNotMatch(out.join(''), /not found/);
  });

  it('of an object the App owns ends it the same way', async () => {
    const { ctx, err } = context((p) => p.includes('/deployments'));
    assert.equal(await within(get(ctx), 3000), 1);
    assert.match(err.join(''), /forbidden \(403\)/);
  });
});
