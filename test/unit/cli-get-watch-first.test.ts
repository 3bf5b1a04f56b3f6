import { strict as assert } from 'node:assert';
import type { Api } from '../../cli/api.js';
import type { CommandLine } from '../../cli/args.js';
import type { Context } from '../../cli/commands.js';
import { get } from '../../cli/get.js';
import type { CliApp } from '../../cli/model.js';
import { plainStyle } from '../../cli/style.js';

// `kubectl skiff get APP --watch` draws once the first of its lists has come; when the list of the
// App itself came more than a moment after another one (a remote API server, a new TLS connection
// per list), the first frame said `app "web" not found (deleted?)` about the App it had just read,
// and without a terminal that line stayed in the output (a CI log). Until its list comes, the App
// drawn is the one read at the start.
const app: CliApp = {
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop', uid: 'u1', generation: 1 },
  spec: { image: 'web:1' },
  status: { observedGeneration: 1 },
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('kubectl skiff get --watch: the App\'s list slower than the others', () => {
  it('draws the App read at the start, never "not found (deleted?)"', async () => {
    const out: string[] = [];
    const api = {
      connection: { server: 'https://127.0.0.1:6443' },
      get: async (path: string) => {
        if (path.endsWith('/apps/web')) return app;
        if (path.includes('/apps?')) await sleep(400);
        return { metadata: { resourceVersion: '5' }, items: path.includes('/apps?') ? [app] : [] };
      },
      watchOnce: (_p: string, _rv: string, _on: unknown, signal: AbortSignal) => new Promise<void>((_, fail) => signal.addEventListener('abort', () => fail(Object.assign(new Error('aborted'), { name: 'AbortError' })))),
    } as unknown as Api;
    const cmd = { command: 'get', app: 'web', watch: true, allNamespaces: false, color: false, wait: false, skipCanary: false } as CommandLine;
    const ctx: Context = { cmd, api, namespace: 'shop', style: plainStyle, out: (t) => void out.push(t), err: () => {}, now: () => new Date(), isTTY: false, columns: () => 80, rows: () => 24 };
    const running = get(ctx);
    await sleep(700);
    const before = process.listenerCount('SIGTERM');
    process.emit('SIGTERM');
    assert.equal(await running, 0);
    assert.ok(before >= 1);
    assert.doesNotMatch(out.join(''), /not found/);
    assert.match(out.join(''), /^Name: +shop\/web$/m);
  });
});
