// The plugin's output through a pipe (`kubectl skiff list -A | grep web`, `| less`) arrives whole:
// a pipe takes 64 KiB at once, and what Node queues beyond that is lost if the process exits
// before it is written. A reader that goes away early (`| head -1`) ends the plugin quietly.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const APPS = 3000;

describe('kubectl skiff output through a pipe', function () {
  this.timeout(30_000);
  let server: Server;
  let dir: string;
  let kubeconfig: string;
  before(async () => {
    const items = Array.from({ length: APPS }, (_, i) => ({
      apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
      metadata: { name: `app-${i}`, namespace: 'shop', generation: 1, creationTimestamp: new Date().toISOString() },
      spec: { image: 'registry.example.com/team/a-long-image-name:1.2.3' }, status: { observedGeneration: 1 },
    }));
    const body = JSON.stringify({ metadata: { resourceVersion: '1' }, items });
    server = createServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(body); });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    dir = mkdtempSync(join(tmpdir(), 'skiff-pipe-'));
    kubeconfig = join(dir, 'config');
    writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: k, namespace: shop}}]\nclusters: [{name: k, cluster: {server: "http://127.0.0.1:${(server.address() as AddressInfo).port}"}}]\n`);
  });
  after(() => { server.close(); rmSync(dir, { recursive: true, force: true }); });

  /** Runs the plugin with its stdout a pipe read `readBytes` at most (then closed), as a shell pipeline does. */
  const run = (readBytes = Infinity) => new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(join(root, 'cli', 'kubectl-skiff'), ['list', '--kubeconfig', kubeconfig], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.length >= readBytes) child.stdout.destroy();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    child.on('close', (code) => done({ code, stdout, stderr }));
  });

  it('writes every line before it exits', async () => {
    const r = await run();
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n').filter(Boolean);
    assert.equal(lines.length, APPS + 1, `${lines.length} lines of ${APPS + 1} (${r.stdout.length} bytes)`);
    assert.match(r.stdout, new RegExp(`^app-${APPS - 1} `, 'm'));
  });

  it('ends quietly when the reader stops early (| head -1): no stack trace', async () => {
    const r = await run(100);
    assert.equal(r.stderr, '');
  });
});
