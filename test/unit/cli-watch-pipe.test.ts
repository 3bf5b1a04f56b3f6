// `kubectl skiff get APP --watch | head -3`: the reader goes away while the plugin still draws.
// The next frame's write failed with EPIPE, an 'error' event nobody listened to: the plugin died
// with Node's stack trace on stderr (exit 1). It ends quietly now, as a pipe's reader ending ends
// kubectl get --watch (a shell reports 141 for it), and never with a success the command did not
// have: `status --wait` timed out through a pipe whose reader is gone exits 3, not 0.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

const app = (generation: number) => ({
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop', uid: 'u1', generation, resourceVersion: String(generation) },
  spec: { image: `web:${generation}` }, status: { observedGeneration: generation },
});

describe('kubectl skiff get --watch through a pipe whose reader stops early', function () {
  this.timeout(30_000);
  let server: Server;
  let dir: string;
  let kubeconfig: string;
  before(async () => {
    server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const url = req.url ?? '';
      if (url.includes('watch=1')) {
        // The App changes every 100 ms; the other watches stay open without events.
        if (!url.includes('/apps?')) return;
        let generation = 10;
        const timer = setInterval(() => res.write(`${JSON.stringify({ type: 'MODIFIED', object: app(generation++) })}\n`), 100);
        req.on('close', () => clearInterval(timer));
        return;
      }
      if (url.endsWith('/apps/web')) return void res.end(JSON.stringify(app(1)));
      res.end(JSON.stringify({ metadata: { resourceVersion: '1' }, items: url.includes('/apps?') ? [app(1)] : [] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    dir = mkdtempSync(join(tmpdir(), 'skiff-watch-pipe-'));
    kubeconfig = join(dir, 'config');
    writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: k, namespace: shop}}]\nclusters: [{name: k, cluster: {server: "http://127.0.0.1:${(server.address() as AddressInfo).port}"}}]\n`);
  });
  after(() => { server.closeAllConnections(); server.close(); rmSync(dir, { recursive: true, force: true }); });

  it('ends quietly, without a stack trace', async () => {
    const r = await new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn(join(root, 'cli', 'kubectl-skiff'), ['get', 'web', '--watch', '--kubeconfig', kubeconfig], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.stdout.once('data', () => child.stdout.destroy());
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
      child.on('close', (code) => { clearTimeout(killer); done({ code, stderr }); });
    });
    assert.equal(r.stderr, '');
    assert.equal(r.code, 141, 'as a shell reports kubectl get --watch | head -3');
  });

  it('status --wait whose reader goes after the first line exits 3 at the timeout, not 0; one whose reader went before it wrote anything, 141', async () => {
    // Generation 2 never observed: the rollout never ends. The watch stays open without events.
    const pending = { ...app(2), status: { observedGeneration: 1 } };
    const waiting = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if ((req.url ?? '').includes('watch=1')) return;
      res.end(JSON.stringify((req.url ?? '').endsWith('/apps/web') ? pending : { metadata: { resourceVersion: '2' }, items: [pending] }));
    });
    await new Promise<void>((r) => waiting.listen(0, '127.0.0.1', r));
    const config = join(dir, 'waiting');
    writeFileSync(config, `apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: k, namespace: shop}}]\nclusters: [{name: k, cluster: {server: "http://127.0.0.1:${(waiting.address() as AddressInfo).port}"}}]\n`);
    const run = (readFirst: boolean, timeout: string) => new Promise<number | null>((done) => {
      const child = spawn(join(root, 'cli', 'kubectl-skiff'), ['status', 'web', '--wait', '--timeout', timeout, '--kubeconfig', config], { stdio: ['ignore', 'pipe', 'pipe'] });
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const gone = () => { child.stdout.destroy(); child.stderr.destroy(); };
      // `2>&1 | head -1`: the reader takes the first line (what the wait waits for) and goes.
      if (readFirst) child.stderr.once('data', gone);
      else gone();
      child.on('close', (c) => { clearTimeout(killer); done(c); });
    });
    try {
      assert.equal(await run(true, '1s'), 3, 'the timeout written to a reader that has gone');
      // The reader gone before the first line: ended then, with no status of its own yet. A
      // timeout far off: on a loaded machine the plugin may start slower than 1 s, and its first
      // line would then be the timeout's, whose status (3) it has.
      assert.equal(await run(false, '60s'), 141);
    } finally {
      waiting.closeAllConnections();
      waiting.close();
    }
  });
});
