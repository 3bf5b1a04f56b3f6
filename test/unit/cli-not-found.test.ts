// `kubectl skiff get nosuch` (and the other commands that read one App) says that the App does
// not exist in kubectl's words, `Error from server (NotFound): apps.skiff.dev "nosuch" not
// found`, which people and scripts know from `kubectl get app nosuch`; exit 1. The plugin runs
// as a user runs it, against a stand-in API server that knows no App.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

describe('kubectl skiff: an App that does not exist', function () {
  this.timeout(30_000);
  let server: Server;
  let dir: string;
  let kubeconfig: string;
  before(async () => {
    // The API server's answer for an App it does not have: a Status 404 NotFound.
    server = createServer((req, res) => {
      const name = /\/apps\/([^/?]+)$/.exec(req.url ?? '')?.[1] ?? '';
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `apps.skiff.dev "${name}" not found`, reason: 'NotFound', details: { name, group: 'skiff.dev', kind: 'apps' }, code: 404 }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    dir = mkdtempSync(join(tmpdir(), 'skiff-not-found-'));
    kubeconfig = join(dir, 'config');
    writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: k, namespace: shop}}]\nclusters: [{name: k, cluster: {server: "http://127.0.0.1:${(server.address() as AddressInfo).port}"}}]\n`);
  });
  after(() => { server.close(); rmSync(dir, { recursive: true, force: true }); });

  const run = (args: string[]) => new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(join(root, 'cli', 'kubectl-skiff'), [...args, '--kubeconfig', kubeconfig], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    child.on('close', (code) => done({ code, stdout, stderr }));
  });

  for (const command of ['get', 'status', 'pause', 'resume', 'promote', 'abort', 'undo', 'history']) {
    it(`${command}: kubectl's words, exit 1`, async () => {
      const r = await run([command, 'nosuch']);
      assert.deepEqual(r, { code: 1, stdout: '', stderr: 'Error from server (NotFound): apps.skiff.dev "nosuch" not found\n' });
    });
  }
});
