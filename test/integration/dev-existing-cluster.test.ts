// `npm run dev -- --kubeconfig PATH` (api.md, "Commands a user runs"): against an existing
// cluster (here a real control plane started for the test), it installs the CRD and the webhook
// configurations there, runs the webhook and the controller locally, and on Ctrl-C removes the
// webhook configurations again: they have failurePolicy Fail, and left behind they would refuse
// every App write in that cluster. Run as a user runs it, piped into tee: Ctrl-C ends tee too,
// and every later line the dev process writes meets a closed pipe.
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DEV_WEBHOOK_CONFIGURATIONS } from '../../dev/install.js';
import { freePort } from '../../dev/free-port.js';
import { poll } from '../../dev/wait.js';
import { repoRoot } from '../support/bundle.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { kubectl, kubectlOutput } from '../support/kube.js';

/** Whether a webhook configuration of the dev bundle is in the cluster. */
async function installed(kubeconfig: string, kind: string, name: string): Promise<boolean> {
  const { stdout } = await kubectlOutput(kubeconfig, ['get', kind.toLowerCase(), name, '--ignore-not-found', '-o', 'name']);
  return stdout.trim() !== '';
}

describe('npm run dev --kubeconfig: an existing cluster (real control plane)', function () {
  this.timeout(180_000);
  let cluster: TestCluster;
  let stateDir: string;
  let dev: ChildProcess | undefined;

  before(async function () {
    this.timeout(180_000);
    cluster = await startTestCluster('dev-existing', { controllerManager: false });
    stateDir = mkdtempSync(join(tmpdir(), 'skiff-dev-state-'));
  });
  after(async () => {
    dev?.kill('SIGKILL');
    await cluster?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('installs and serves the webhook, runs the controller, and on Ctrl-C with its output gone (| tee) still removes the webhook configurations', async () => {
    const kubeconfig = cluster.cp.kubeconfigPath;
    const [webhookPort, ...ports] = await Promise.all([0, 1, 2, 3, 4].map(() => freePort()));
    dev = spawn(process.execPath, [join(repoRoot, 'dist/dev/run.js'), '--kubeconfig', kubeconfig, '--state-dir', stateDir,
      '--webhook-port', String(webhookPort), '--webhook-health-port', String(ports[0]), '--webhook-metrics-port', String(ports[1]),
      '--controller-health-port', String(ports[2]), '--controller-metrics-port', String(ports[3])], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    const child = dev;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));
    const lines: string[] = [];
    for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on('line', (l) => lines.push(l));
    const ready = await poll(async () => lines.some((l) => l.includes('ready. In another terminal')), { timeoutMs: 90_000, giveUp: () => (child.exitCode !== null ? new Error(`dev exited: ${lines.join('\n')}`) : undefined) });
    assert.ok(ready.done, `dev was not ready:\n${lines.join('\n')}`);
    for (const [kind, name] of Object.entries(DEV_WEBHOOK_CONFIGURATIONS)) assert.ok(await installed(kubeconfig, kind, name), `${kind} ${name} installed`);

    // The webhook answers for the cluster (the mutating one fills replicas), and the controller acts.
    await kubectl(kubeconfig, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: 'default' }, spec: { image: 'nginx:1.27' } }));
    assert.equal(await kubectl(kubeconfig, ['get', 'app', 'web', '-o', 'jsonpath={.spec.replicas}']), '1');
    const deployed = await poll(() => kubectlOutput(kubeconfig, ['get', 'deployment', 'web', '--ignore-not-found', '-o', 'name']).then((r) => r.stdout.trim() !== ''), { timeoutMs: 30_000 });
    assert.ok(deployed.done, `the controller created Deployment web:\n${lines.join('\n')}`);

    // Ctrl-C ends tee with the rest: nobody reads the dev process's output any more.
    child.stdout!.destroy();
    child.stderr!.destroy();
    child.kill('SIGINT');
    const end = await exited;
    assert.deepEqual(end, { code: 0, signal: null }, 'dev stopped as asked, not on a write to the closed pipe');
    for (const [kind, name] of Object.entries(DEV_WEBHOOK_CONFIGURATIONS)) assert.equal(await installed(kubeconfig, kind, name), false, `${kind} ${name} removed`);
    // With the webhook gone and its configurations with it, App writes go through again.
    await kubectl(kubeconfig, ['label', 'app', 'web', 'after-dev=true']);
    dev = undefined;
  });
});
