// Exec credential plugins run as kubectl runs them: what they say on stderr reaches the user (a
// device code to enter), stdin is theirs only where they may ask (never a pipe left open for
// ever), KUBERNETES_EXEC_INFO carries the cluster when they ask for it, and the credential is
// kept until it expires. Real shell scripts as plugins.
import { strict as assert } from 'node:assert';
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execConfig, execCredentials, type ExecConfig } from '../../shared/exec-credential.js';
import { repoRoot } from '../support/bundle.js';

const V1 = 'client.authentication.k8s.io/v1';
const credential = (status: object, apiVersion = V1) => JSON.stringify({ apiVersion, kind: 'ExecCredential', status });

describe('exec credential plugins', function () {
  this.timeout(20_000);
  let dir: string;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'skiff-exec-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A plugin: a shell script with `body`, and its settings as a kubeconfig user would give them. */
  function plugin(name: string, body: string, exec: Record<string, unknown> = {}, cluster: Record<string, unknown> = { server: 'https://10.0.0.1:6443' }): ExecConfig {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return execConfig({ apiVersion: V1, interactiveMode: 'Never', command: `./${name}`, ...exec }, dir, cluster, Buffer.from('CA PEM'));
  }

  it('takes the token, or a client certificate and key, from what the plugin prints; a relative command from the kubeconfig\'s folder', async () => {
    const token = plugin('token', `echo '${credential({ token: 'from-plugin' })}'`);
    assert.equal(token.command, join(dir, 'token'));
    assert.deepEqual(await execCredentials(token, { terminal: false })(), { token: 'from-plugin' });
    const cert = plugin('cert', `echo '${credential({ clientCertificateData: 'CERT', clientKeyData: 'KEY' })}'`);
    assert.deepEqual(await execCredentials(cert, { terminal: false })(), { cert: 'CERT', key: 'KEY' });
  });

  it('runs the plugin again once its credential has expired, not before; calls at the same time share one run', async () => {
    const runs = join(dir, 'runs');
    writeFileSync(runs, '');
    let now = Date.parse('2026-11-28T10:00:00Z');
    const c = plugin('expiring', `echo run >> ${runs}\necho '${credential({ token: 't', expirationTimestamp: '2026-11-28T10:05:00Z' })}'`);
    const get = execCredentials(c, { terminal: false, nowMs: () => now });
    await Promise.all([get(), get(), get()]);
    await get();
    assert.equal(readFileSync(runs, 'utf8').split('\n').filter(Boolean).length, 1);
    now = Date.parse('2026-11-28T10:05:01Z');
    await get();
    assert.equal(readFileSync(runs, 'utf8').split('\n').filter(Boolean).length, 2);
  });

  it('tells the plugin the cluster in KUBERNETES_EXEC_INFO when it asks (provideClusterInfo), and whether it may ask the user', async () => {
    const seen = join(dir, 'exec-info');
    const c = plugin('info', `printf '%s' "$KUBERNETES_EXEC_INFO" > ${seen}\necho '${credential({ token: 't' })}'`, { provideClusterInfo: true },
      { server: 'https://10.0.0.1:6443', 'tls-server-name': 'api.lab', extensions: [{ name: 'client.authentication.k8s.io/exec', extension: { audience: 'lab' } }] });
    await execCredentials(c, { terminal: false })();
    assert.deepEqual(JSON.parse(readFileSync(seen, 'utf8')), {
      kind: 'ExecCredential', apiVersion: V1,
      spec: { interactive: false, cluster: { server: 'https://10.0.0.1:6443', 'tls-server-name': 'api.lab', 'certificate-authority-data': Buffer.from('CA PEM').toString('base64'), config: { audience: 'lab' } } },
    });
    const without = plugin('no-info', `printf '%s' "$KUBERNETES_EXEC_INFO" > ${seen}\necho '${credential({ token: 't' })}'`);
    await execCredentials(without, { terminal: false })();
    assert.deepEqual(JSON.parse(readFileSync(seen, 'utf8')), { kind: 'ExecCredential', apiVersion: V1, spec: { interactive: false } });
  });

  it('lets what the plugin says on stderr through, and gives it no stdin to wait on when it may not ask', async () => {
    // A login plugin: it prints where to sign in and reads an answer; without a terminal it gets
    // end-of-file at once (the open pipe it had before kept it waiting for ever).
    const c = plugin('login', `echo 'To sign in, open https://login.example/device and enter ABCD-1234' >&2\nread -r answer\necho '${credential({ token: 't' })}'`, { interactiveMode: 'IfAvailable' });
    const script = `import { execCredentials } from ${JSON.stringify(new URL('../../shared/exec-credential.js', import.meta.url).href)};
      const c = ${JSON.stringify(c)};
      console.log(JSON.stringify(await execCredentials(c, { terminal: false })()));`;
    const out = await new Promise<{ stdout: string; stderr: string }>((done, fail) => {
      const child = execFile(process.execPath, ['--input-type=module', '-e', script], { timeout: 10_000 }, (err, stdout, stderr) => (err ? fail(err) : done({ stdout, stderr })));
      child.stdin?.end();
    });
    assert.match(out.stderr, /To sign in, open https:\/\/login\.example\/device and enter ABCD-1234/);
    assert.deepEqual(JSON.parse(out.stdout), { token: 't' });
  });

  it('kubectl skiff with a login plugin: its message is seen and the command goes on, though stdin is a pipe nobody closes', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(String(req.headers.authorization));
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404, message: 'apps.skiff.dev "web" not found', details: { name: 'web', group: 'skiff.dev', kind: 'apps' } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const login = plugin('login-cli', `echo 'To sign in, open https://login.example/device and enter ABCD-1234' >&2
read -r answer
echo '${credential({ token: 'signed-in' })}'`, { interactiveMode: 'IfAvailable' });
    const kubeconfig = join(dir, 'login-config');
    writeFileSync(kubeconfig, JSON.stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
      clusters: [{ name: 'k', cluster: { server: `http://127.0.0.1:${(server.address() as AddressInfo).port}` } }],
      users: [{ name: 'u', user: { exec: { apiVersion: V1, command: login.command, interactiveMode: 'IfAvailable' } } }],
      contexts: [{ name: 'c', context: { cluster: 'k', user: 'u', namespace: 'shop' } }],
    }));
    try {
      const run = await new Promise<{ code: number | null; stderr: string }>((done) => {
        const child = spawn(join(repoRoot, 'cli', 'kubectl-skiff'), ['status', 'web', '--kubeconfig', kubeconfig], { stdio: ['pipe', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.on('close', (code) => { clearTimeout(timer); done({ code, stderr }); });
      });
      assert.match(run.stderr, /To sign in, open https:\/\/login\.example\/device and enter ABCD-1234/);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /apps\.skiff\.dev "web" not found/);
      assert.deepEqual(seen, ['Bearer signed-in']);
    } finally {
      server.close();
    }
  });

  it('says what went wrong: a plugin not installed (with its install hint), failing, printing nothing usable; Always without a terminal', async () => {
    const fails = async (c: ExecConfig, message: RegExp, terminal = false) => assert.rejects(execCredentials(c, { terminal })(), message);
    await fails(execConfig({ apiVersion: V1, command: 'skiff-no-such-plugin', interactiveMode: 'Never', installHint: 'Install it with: brew install no-such' }, dir, {}, undefined),
      /executable skiff-no-such-plugin not found\n\nInstall it with: brew install no-such/);
    await fails(plugin('exit3', 'exit 3'), /failed with exit code 3/);
    await fails(plugin('garbage', 'echo hello'), /printed no ExecCredential/);
    await fails(plugin('old', `echo '${credential({ token: 't' }, 'client.authentication.k8s.io/v1beta1')}'`), /ExecCredential of "client.authentication.k8s.io\/v1beta1", not the client.authentication.k8s.io\/v1/);
    await fails(plugin('empty', `echo '${credential({})}'`), /neither a token nor a client certificate/);
    await fails(plugin('always', `echo '${credential({ token: 't' })}'`, { interactiveMode: 'Always' }), /needs a terminal/);
    await fails(plugin('alpha', `echo '${credential({ token: 't' })}'`, { apiVersion: 'client.authentication.k8s.io/v1alpha1' }), /apiVersion "client.authentication.k8s.io\/v1alpha1" is none of/);
  });
});
