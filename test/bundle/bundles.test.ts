// The shipped programs as npm run build bundles them (dist/bundle): each runs alone, without
// node_modules, as the image runs it; its source map turns stack traces back into the sources;
// and the Dockerfile, config/manager and the plugin's launcher run these files.
import { strict as assert } from 'node:assert';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

import { request } from 'node:https';
import { parse, stringify } from 'yaml';
import { ensureCerts } from '../../certs/write.js';
import { freePort } from '../../dev/free-port.js';
import { eventually } from '../../dev/wait.js';
import { kustomize, repoRoot, type K8sObject } from '../support/bundle.js';

const BUNDLE_DIR = join(repoRoot, 'dist', 'bundle');
const PROGRAMS = [
  { name: 'controller', source: 'controller/main.ts', usage: /^usage: skiff-controller \[flags\]$/m, stream: 'stderr' },
  { name: 'webhook', source: 'webhook/main.ts', usage: /^usage: skiff-webhook \[flags\]$/m, stream: 'stderr' },
  { name: 'kubectl-skiff', source: 'cli/kubectl-skiff.ts', usage: /^usage: kubectl skiff <command>/m, stream: 'stdout' },
] as const;

type Container = { name: string; command?: string[] };
type Deployment = K8sObject & { spec: { template: { spec: { containers: Container[] } } } };

/** Where the bundle's code that holds `needle` comes from, by its source map. */
function sourceOf(file: string, needle: string): string | undefined {
  const code = readFileSync(file, 'utf8');
  const at = code.indexOf(needle);
  assert.ok(at >= 0, `${needle} in ${file}`);
  const before = code.slice(0, at);
  const map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
  const entry = map.findEntry(before.split('\n').length - 1, at - (before.lastIndexOf('\n') + 1)) as { originalSource?: string };
  return entry.originalSource;
}

/** POSTs `body` as JSON over HTTPS trusting `ca`, and resolves with the parsed answer. */
const postJson = (url: string, body: unknown, ca: string) => new Promise<unknown>((done, fail) => {
  const req = request(url, { method: 'POST', ca, headers: { 'content-type': 'application/json' } }, (res) => {
    let text = '';
    res.setEncoding('utf8').on('data', (d) => (text += d)).on('end', () => (res.statusCode === 200 ? done(JSON.parse(text)) : fail(new Error(`HTTP ${res.statusCode}: ${text}`))));
  });
  req.on('error', fail).end(JSON.stringify(body));
});

/**
 * A kubeconfig in `dir` whose user's credential comes from an exec plugin (a script that touches
 * `called` and prints a token), for a server where nothing listens.
 */
function execCredentialKubeconfig(dir: string, name: string): { called: string; kubeconfig: string } {
  const called = join(dir, `${name}-credential-called`);
  const credential = join(dir, `${name}-credential.sh`);
  writeFileSync(credential, `#!/bin/sh\ntouch ${called}\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t"}}'\n`);
  chmodSync(credential, 0o755);
  const kubeconfig = join(dir, `${name}-exec.yaml`);
  writeFileSync(kubeconfig, stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'x',
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'u', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: credential, interactiveMode: 'Never' } } }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: 'default' } }],
  }));
  return { called, kubeconfig };
}

const run = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) => execFile(process.execPath, argv, { env: { ...process.env, ...env } }, (err, stdout, stderr) =>
    done({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr })));

describe('the bundles (dist/bundle)', function () {
  this.timeout(30_000);
  let alone: string;

  before(() => {
    // Each program copied with nothing but its own files: no node_modules, no dist/ beside it.
    alone = mkdtempSync(join(tmpdir(), 'skiff-bundles-'));
    for (const { name } of PROGRAMS) {
      for (const f of [`${name}.mjs`, `${name}.mjs.map`]) cpSync(join(BUNDLE_DIR, f), join(alone, f));
    }
    for (const chunks of ['kubectl-skiff', 'controller']) cpSync(join(BUNDLE_DIR, chunks), join(alone, chunks), { recursive: true });
  });

  after(() => rmSync(alone, { recursive: true, force: true }));

  for (const p of PROGRAMS) {
    it(`${p.name}.mjs: one minified file with its map beside it, of the project's sources only`, () => {
      const file = join(BUNDLE_DIR, `${p.name}.mjs`);
      const code = readFileSync(file, 'utf8');
      assert.match(code.trimEnd(), new RegExp(`//# sourceMappingURL=${p.name}\\.mjs\\.map$`));
      const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
      assert.ok(map.sources.some((s) => s.endsWith(p.source)), `${p.source} among the sources`);
      assert.deepEqual(map.sources.filter((s) => s.includes('node_modules')), [], 'no mappings into dependencies (their frames point into the bundle)');
      // Minified: the source's comments are gone.
      const firstComment = readFileSync(join(repoRoot, p.source), 'utf8').split('\n')[0];
      assert.ok(firstComment.startsWith('// ') && !code.includes(firstComment.slice(3)), 'minified');
    });

    it(`${p.name}.mjs --help, alone in a directory without node_modules: exit 0 and the usage`, () => {
      const help = spawnSync(process.execPath, ['--enable-source-maps', join(alone, `${p.name}.mjs`), '--help'], { encoding: 'utf8' });
      assert.equal(help.status, 0, help.stderr);
      assert.match(help[p.stream], p.usage);
    });
  }

  for (const program of ['controller', 'webhook']) {
    it(`${program}.mjs: an empty SKIFF_LOG_LEVEL counts as unset; an unknown one is one line and exit 2, not a stack trace`, () => {
      const run = (level: string) => spawnSync(process.execPath, [join(alone, `${program}.mjs`), '--help'], { encoding: 'utf8', env: { ...process.env, SKIFF_LOG_LEVEL: level } });
      assert.equal(run('').status, 0, run('').stderr);
      const bad = run('warning');
      assert.deepEqual([bad.status, bad.stderr], [2, 'SKIFF_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not "warning"\n']);
    });
  }

  it('maps code back to the TypeScript it came from', () => {
    assert.equal(sourceOf(join(BUNDLE_DIR, 'controller.mjs'), 'cannot read kubeconfig'), '../../shared/kube-connection.ts');
    assert.equal(sourceOf(join(BUNDLE_DIR, 'webhook.mjs'), 'the serving certificate must be in'), '../../webhook/main.ts');
  });

  it('keeps names: a bug\'s stack trace names the functions and their TypeScript files', async () => {
    // An API server whose list holds items that are not a list: an error the plugin does not
    // explain (a bug, as far as it can tell), so it prints the stack.
    const server: Server = createServer((_req, res) => res.end('{"kind":"AppList","metadata":{},"items":7}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const kubeconfig = join(alone, 'odd-list.yaml');
    writeFileSync(kubeconfig, stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'x',
      clusters: [{ name: 'c', cluster: { server: `http://127.0.0.1:${(server.address() as AddressInfo).port}` } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: 'default' } }],
    }));
    try {
      const out = await run(['--enable-source-maps', join(alone, 'kubectl-skiff.mjs'), 'list', '--kubeconfig', kubeconfig]);
      assert.equal(out.code, 1, out.stderr);
      assert.match(out.stderr, /TypeError/);
      assert.match(out.stderr, /at formatList \(.*cli\/format-list\.ts:\d+:\d+\)/, out.stderr);
    } finally {
      server.close();
    }
    // An error the plugin explains is recognised by its class's name, which minifying would otherwise change.
    const explained = await run([join(alone, 'kubectl-skiff.mjs'), 'list', '--kubeconfig', join(alone, 'none.yaml')]);
    assert.equal(explained.code, 1);
    assert.equal(explained.stderr, `error: cannot read kubeconfig ${join(alone, 'none.yaml')}: no such file\n`);
  });

  it('the webhook bundle, alone, denies the invalid sample naming its fields: the schema compiled at build time is in it', async () => {
    const certDir = join(alone, 'webhook-certs');
    const { caPem } = await ensureCerts(certDir, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const port = await freePort();
    const child = spawn(process.execPath, [join(alone, 'webhook.mjs'), `--port=${port}`, '--bind-address=127.0.0.1', `--cert-dir=${certDir}`, '--health-port=0', '--metrics-port=0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    try {
      const invalid = parse(readFileSync(join(repoRoot, 'config', 'samples', 'invalid-app.yaml'), 'utf8'));
      const review = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u1', kind: { group: 'skiff.dev', version: 'v1alpha1', kind: 'App' }, operation: 'CREATE', namespace: 'default', name: invalid.metadata.name, object: invalid } };
      const answer = await eventually(() => postJson(`https://127.0.0.1:${port}/validate`, review, caPem), { timeoutMs: 15_000, intervalMs: 100, message: () => `the webhook bundle answering:\n${stderr}` });
      const response = (answer as { response: { allowed: boolean; status?: { message?: string } } }).response;
      assert.equal(response.allowed, false);
      assert.match(response.status?.message ?? '', /spec\.replicas/);
      assert.match(response.status?.message ?? '', /spec\.image/);
    } finally {
      child.kill();
    }
  });

  it('the webhook on SIGTERM: not ready at once, admissions still answered through --shutdown-delay-seconds, then it exits 0', async () => {
    const certDir = join(alone, 'webhook-drain-certs');
    const { caPem } = await ensureCerts(certDir, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const [port, healthPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, [join(alone, 'webhook.mjs'), `--port=${port}`, '--bind-address=127.0.0.1', `--cert-dir=${certDir}`, `--health-port=${healthPort}`, '--metrics-port=0', '--shutdown-delay-seconds=4'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout!.on('data', (d) => (stderr += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const readyz = () => fetch(`http://127.0.0.1:${healthPort}/readyz`).then((r) => r.status, () => 0);
    const review = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u1', kind: { group: 'skiff.dev', version: 'v1alpha1', kind: 'App' }, operation: 'CREATE', namespace: 'default', name: 'web', object: { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web' }, spec: { image: 'nginx:1.27' } } } };
    try {
      await eventually(async () => (await readyz()) === 200, { timeoutMs: 15_000, intervalMs: 100, message: () => `the webhook ready:\n${stderr}` });
      child.kill('SIGTERM');
      await eventually(async () => (await readyz()) === 503, { timeoutMs: 3_000, intervalMs: 20, message: () => `not ready after SIGTERM:\n${stderr}` });
      const answer = await postJson(`https://127.0.0.1:${port}/validate`, review, caPem) as { response: { allowed: boolean } };
      assert.equal(answer.response.allowed, true, 'still answering while the endpoints catch up');
      assert.equal(await exited, 0);
      assert.match(stderr, /shutting down: not ready, still answering/);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('the plugin runs an exec credential plugin itself, alone in a directory without node_modules', async () => {
    // Nothing listens on port 1: the request fails after the credential was obtained.
    const { called, kubeconfig } = execCredentialKubeconfig(alone, 'plugin');
    const out = await run([join(alone, 'kubectl-skiff.mjs'), 'list', '--kubeconfig', kubeconfig]);
    assert.ok(existsSync(called), `the credential plugin ran: ${out.stderr}`);
    assert.equal(out.code, 1);
    assert.match(out.stderr, /^error: cannot reach the API server at https:\/\/127\.0\.0\.1:1/);
  });

  it('the plugin loads client-node on demand for an auth-provider, from its own chunks (its refusal of a plain-http server is client-node\'s own)', async () => {
    const kubeconfig = join(alone, 'auth-provider.yaml');
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const idToken = `${part({ alg: 'none' })}.${part({ exp: Math.floor(Date.now() / 1000) + 3600, iss: 'https://issuer.example' })}.sig`;
    writeFileSync(kubeconfig, stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'x',
      clusters: [{ name: 'c', cluster: { server: 'http://127.0.0.1:1' } }],
      users: [{ name: 'u', user: { 'auth-provider': { name: 'oidc', config: { 'id-token': idToken, 'client-id': 'skiff', 'idp-issuer-url': 'https://issuer.example' } } } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: 'default' } }],
    }));
    const out = await run([join(alone, 'kubectl-skiff.mjs'), 'list', '--kubeconfig', kubeconfig]);
    assert.equal(out.code, 1);
    assert.match(out.stderr, /^error: cannot get the credentials of context "x" \(an auth-provider\): HTTP protocol is not allowed/);
  });

  it('the controller runs an exec credential plugin itself, alone in a directory without node_modules', async () => {
    const { called, kubeconfig } = execCredentialKubeconfig(alone, 'controller');
    // Nothing listens on port 1: the controller keeps trying discovery once it has the credential.
    const child = spawn(process.execPath, [join(alone, 'controller.mjs'), `--kubeconfig=${kubeconfig}`, '--health-port=0', '--metrics-port=0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    try {
      await eventually(() => existsSync(called), { timeoutMs: 15_000, intervalMs: 50, message: () => `the credential plugin run by the controller:\n${output}` });
      // The request went out with the credential, to the server of the kubeconfig.
      await eventually(() => /ECONNREFUSED/.test(output), { timeoutMs: 15_000, intervalMs: 50, message: () => `a connection refused by 127.0.0.1:1 in the log:\n${output}` });
    } finally {
      child.kill();
    }
  });

  it('config/manager runs the bundles with source maps; the Dockerfile ships only them and runs the controller\'s command', () => {
    const objects = kustomize('config/default');
    const command = (name: string) => (objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name) as Deployment).spec.template.spec.containers[0].command!;
    const controller = command('skiff-controller');
    const webhook = command('skiff-webhook');
    assert.deepEqual([controller[0], controller.at(-1)], ['node', 'dist/bundle/controller.mjs']);
    assert.deepEqual(webhook, ['node', '--enable-source-maps', 'dist/bundle/webhook.mjs']);
    assert.ok(controller.includes('--enable-source-maps'));

    const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const copied = [...runtime.matchAll(/^COPY (.*)$/gm)].flatMap((m) => m[1].split(/\s+/).slice(0, -1)).filter((a) => !a.startsWith('--'));
    // controller/: the chunks the controller imports, client-node's (for an auth-provider) among them.
    assert.deepEqual(copied.map((f) => basename(f)).sort(), ['controller', 'controller.mjs', 'controller.mjs.map', 'webhook.mjs', 'webhook.mjs.map']);
    assert.doesNotMatch(runtime, /npm|node_modules/, 'the runtime stage installs no packages');
    assert.match(dockerfile, /RUN .*node hack\/bundle\.mjs/);
    const cmd = JSON.parse(/^CMD (.*)$/m.exec(runtime)![1]) as string[];
    assert.deepEqual(cmd, controller, 'the image alone runs what the Deployment runs');
  });

  it('the Dockerfile\'s build stage builds the bundles from what docker copies (the repository without .dockerignore\'s files)', function () {
    this.timeout(240_000);
    const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
    const build = dockerfile.slice(dockerfile.indexOf('COPY . .'), dockerfile.lastIndexOf('\nFROM '));
    const steps = [...build.matchAll(/^RUN (.*)$/gm)].map((m) => m[1]);
    assert.ok(steps.length > 0, 'RUN steps after COPY . .');
    const ignored = readFileSync(join(repoRoot, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    const isIgnored = (file: string) => ignored.some((pattern) => pattern.startsWith('*.') ? file.endsWith(pattern.slice(1)) : file === pattern || file.startsWith(`${pattern}/`));
    const files = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: repoRoot, encoding: 'utf8' }).stdout.split('\n').filter((f) => f && !isIgnored(f));
    const context = mkdtempSync(join(tmpdir(), 'skiff-image-'));
    try {
      for (const f of files) if (existsSync(join(repoRoot, f))) cpSync(join(repoRoot, f), join(context, f), { recursive: true });
      // npm ci of the stage above: the same packages.
      symlinkSync(join(repoRoot, 'node_modules'), join(context, 'node_modules'));
      for (const step of steps) {
        const run = spawnSync('sh', ['-c', step], { cwd: context, encoding: 'utf8' });
        assert.equal(run.status, 0, `RUN ${step}:\n${run.stdout}${run.stderr}`);
      }
      for (const file of ['controller.mjs', 'controller.mjs.map', 'webhook.mjs', 'webhook.mjs.map']) assert.ok(existsSync(join(context, 'dist', 'bundle', file)), file);
    } finally {
      rmSync(context, { recursive: true, force: true });
    }
  });

  it('the certificates the README makes without cert-manager (a CA key among them) are kept out of git and of the image\'s build context', () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    const dir = /dist\/certs\/main\.js --dir \.\/([\w.-]+)/.exec(readme)?.[1];
    assert.ok(dir, 'the README runs certs/ with --dir');
    const ignoredByGit = spawnSync('git', ['check-ignore', '--no-index', '-q', `${dir}/ca.key`], { cwd: repoRoot });
    assert.equal(ignoredByGit.status, 0, `${dir}/ is not in .gitignore`);
    const ignored = readFileSync(join(repoRoot, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim().replace(/\/$/, ''));
    assert.ok(ignored.includes(dir), `${dir} is not in .dockerignore`);
  });

  it('the launcher cli/kubectl-skiff runs the plugin\'s bundle', () => {
    const launcher = readFileSync(join(repoRoot, 'cli', 'kubectl-skiff'), 'utf8');
    assert.match(launcher, /exec "\$node" --enable-source-maps "\$root\/dist\/bundle\/kubectl-skiff\.mjs" "\$@"/);
    const help = spawnSync(join(repoRoot, 'cli', 'kubectl-skiff'), ['--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^usage: kubectl skiff <command>/m);
  });
});
