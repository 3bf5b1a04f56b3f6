// The controller's flags as an operator meets them: a value it cannot run with is a usage error
// (exit 2, one line naming it, then the usage), found before anything connects to the cluster.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../support/bundle.js';

/** Runs the controller with `args` against an API server that refuses connections; kills it after timeoutMs. */
function runController(args: string[], timeoutMs = 8000): Promise<{ code: number | null; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-controller-flags-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, [
    'apiVersion: v1', 'kind: Config',
    'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]',
    'users: [{name: u, user: {token: x}}]',
    'contexts: [{name: c, context: {cluster: c, user: u}}]',
    'current-context: c', '',
  ].join('\n'));
  const child = spawn(process.execPath, [join(repoRoot, 'dist', 'controller', 'main.js'), '--health-port=0', '--metrics-port=0', `--kubeconfig=${kubeconfig}`, ...args], {
    env: { ...process.env, SKIFF_LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => child.on('exit', (code) => {
    clearTimeout(timer);
    rmSync(dir, { recursive: true, force: true });
    resolve({ code, stderr });
  }));
}

describe('controller flags', function () {
  this.timeout(20_000);

  for (const [what, args, message] of [
    ['a renew deadline not below the lease duration', ['--leader-elect', '--leader-elect-renew-deadline-seconds=20'], /retry period < renew deadline < lease duration/],
    ['a retry period of 0', ['--leader-elect', '--leader-elect-retry-period-seconds=0'], /retry period above 0/],
  ] as const) {
    it(`exits 2 with one line at once for leader-election periods that cannot work: ${what}`, async () => {
      const { code, stderr } = await runController([...args]);
      assert.equal(code, 2, stderr);
      assert.match(stderr.split('\n')[0], message);
    });
  }

  for (const flag of ['--namespace', '--leader-election-namespace'] as const) {
    it(`exits 2 with one line for a ${flag} no namespace can have (it watched nothing, or never got the Lease, without a word)`, async () => {
      const { code, stderr } = await runController(['--leader-elect', `${flag}=Shop`]);
      assert.equal(code, 2, stderr);
      assert.equal(stderr.split('\n')[0], `${flag} "Shop": must be a namespace name (at most 63 lower-case letters, digits and "-", starting and ending with a letter or digit)`);
    });
  }

  for (const flag of ['--concurrency', '--analysis-concurrency'] as const) {
    it(`exits 2 with one line for ${flag}=0 (it ran 1 at a time without a word)`, async () => {
      const { code, stderr } = await runController([`${flag}=0`]);
      assert.equal(code, 2, stderr);
      assert.equal(stderr.split('\n')[0], `${flag} 0: must be at least 1`);
    });
  }

  it('exits 2 with one line for --shard given empty (a template\'s missing value would make a shard\'s Deployment a second controller of the Apps without the label)', async () => {
    for (const args of [['--shard='], ['--shard', '']]) {
      const { code, stderr } = await runController(args);
      assert.equal(code, 2, stderr);
      assert.equal(stderr, '--shard: empty: leave the flag out for the controller of the Apps without a skiff.dev/shard label\n', 'one line, as the other shard errors');
    }
  });

  describe('--prometheus-bearer-token-file', () => {
    let dir: string;
    before(() => { dir = mkdtempSync(join(tmpdir(), 'skiff-controller-token-')); });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('exits 2 with one line for a file it cannot read, or one without a token, never showing its content', async () => {
      const missing = join(dir, 'missing');
      let run = await runController(['--prometheus-url=https://thanos-querier.openshift-monitoring:9091', `--prometheus-bearer-token-file=${missing}`]);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stderr.split('\n')[0], `--prometheus-bearer-token-file: cannot read the bearer token file ${missing}: no such file`);
      const odd = join(dir, 'odd');
      writeFileSync(odd, 'token: s3cret\n');
      run = await runController(['--prometheus-url=http://prometheus.monitoring:9090', `--prometheus-bearer-token-file=${odd}`]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr.split('\n')[0], /^--prometheus-bearer-token-file: the bearer token file .*odd holds characters other than visible ASCII/);
      assert.ok(!run.stderr.includes('s3cret'), run.stderr);
    });

    it('exits 2 with one line beside user:password in --prometheus-url, or without --prometheus-url', async () => {
      const file = join(dir, 'token');
      writeFileSync(file, 'tok-ok\n');
      let run = await runController(['--prometheus-url=http://user:s3cret@prometheus.monitoring:9090', `--prometheus-bearer-token-file=${file}`]);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stderr.split('\n')[0], '--prometheus-url: Prometheus URL "http://prometheus.monitoring:9090" has user:password credentials, and --prometheus-bearer-token-file is set as well: use one of them');
      run = await runController([`--prometheus-bearer-token-file=${file}`]);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stderr.split('\n')[0], '--prometheus-bearer-token-file: needs --prometheus-url (the Prometheus it authenticates to)');
    });

    it('starts with a readable token file', async () => {
      const file = join(dir, 'token-good');
      writeFileSync(file, 'tok-ok\n');
      const { code, stderr } = await runController(['--prometheus-url=http://prometheus.monitoring:9090', `--prometheus-bearer-token-file=${file}`], 1500);
      assert.equal(code, null, `still running (trying to reach the API server) when killed: ${stderr}`);
    });
  });

  it('takes the same periods without --leader-elect (they are not used)', async () => {
    const { code } = await runController(['--leader-elect-renew-deadline-seconds=20'], 1500);
    assert.equal(code, null, 'still running (trying to reach the API server) when killed');
  });
});

describe('port flags of both processes', function () {
  this.timeout(20_000);
  for (const [main, flag] of [['controller/main.js', '--health-port'], ['controller/main.js', '--metrics-port'], ['webhook/main.js', '--port'], ['webhook/main.js', '--health-port']] as const) {
    it(`${main.split('/')[0]} ${flag}=70000 is a usage error (exit 2, one line), not a stack trace from listen()`, async () => {
      const child = spawn(process.execPath, [join(repoRoot, 'dist', main), `${flag}=70000`, '--kubeconfig=/nonexistent', '--cert-dir=/nonexistent'].filter((a) => main.startsWith('controller') ? !a.startsWith('--cert-dir') : !a.startsWith('--kubeconfig')), { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      clearTimeout(timer);
      assert.equal(code, 2, stderr);
      assert.equal(stderr.split('\n')[0], `${flag}: expected a port from 0 to 65535, got "70000"`);
    });
  }
});
