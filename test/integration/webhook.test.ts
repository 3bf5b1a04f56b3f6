// The admission webhook called by a real kube-apiserver over real TLS: the configurations come
// from config/dev (as `npm run dev` installs them), the caBundle from certs/, and the requests
// are made with kubectl the way a user makes them.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { startControlPlane, type ControlPlane } from '../../dev/control-plane.js';
import { startWebhookServer, type WebhookServer } from '../../webhook/server.js';
import { testLogger } from '../support/apps.js';
import { kubectl, kubectlOutput } from '../support/kube.js';
import { startTestWebhook } from '../support/webhook.js';
import { until } from '../../dev/wait.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const sample = (name: string) => join(root, 'config', 'samples', name);

let cp: ControlPlane;
let dir: string;
let webhook: WebhookServer | undefined;
let port: number;
let ns = 'default';

const k = (args: string[], stdin?: string) => kubectl(cp.kubeconfigPath, ['-n', ns, ...args], stdin);

/** kubectl's failure output (stderr), asserting that the command failed. */
async function failure(args: string[], stdin?: string): Promise<string> {
  try {
    await k(args, stdin);
  } catch (err) {
    return (err as { stderr: string }).stderr;
  }
  assert.fail(`kubectl ${args.join(' ')} succeeded but should have been rejected`);
}

const appYaml = (name: string, spec: object) => JSON.stringify({ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name }, spec });

describe('admission webhook through the API server (real TLS)', function () {
  this.timeout(60_000);

  before(async function () {
    this.timeout(180_000);
    dir = mkdtempSync(join(tmpdir(), 'skiff-webhook-'));
    cp = await startControlPlane({ dir: join(dir, 'cluster'), controllerManager: false });
    webhook = await startTestWebhook(cp.kubeconfigPath, dir);
    port = webhook.port;
    ns = `wh-${Date.now().toString(36)}`;
    await kubectl(cp.kubeconfigPath, ['create', 'namespace', ns]);
  });

  after(async function () {
    this.timeout(60_000);
    await webhook?.close();
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('rejects config/samples/invalid-app.yaml with one message naming every bad field', async () => {
    const stderr = await failure(['create', '-f', sample('invalid-app.yaml')]);
    assert.match(stderr, /Error from server: .*admission webhook "[a-z]+\.skiff\.dev" denied the request: /);
    for (const path of [
      'spec.image', 'spec.replicas', 'spec.port', 'spec.env[0].name', 'spec.env[2].name', 'spec.resources.requests.memory',
      'spec.resources.requests.cpu', 'spec.ingress.host', 'spec.ingress.path', 'spec.rollout.steps[0].setWeight',
      'spec.rollout.steps[1].pause.duration', 'spec.replica',
    ]) {
      assert.ok(stderr.includes(`${path}:`), `the message names ${path}: ${stderr}`);
    }
    assert.match(stderr, /spec\.replicas: must be <= 1000/);
    assert.match(stderr, /spec\.ingress\.host: must be a DNS-1123 subdomain/);
    await assert.rejects(k(['get', 'app', 'broken']), /NotFound|not found/);
  });

  it('stores config/samples/app.yaml with every default filled in', async () => {
    await k(['apply', '-f', sample('app.yaml')]);
    const app = JSON.parse(await k(['get', 'app', 'web', '-o', 'json']));
    assert.deepEqual(app.spec, {
      image: 'nginxinc/nginx-unprivileged:1.27',
      replicas: 1,
      revisionHistoryLimit: 10,
      port: 8080,
      service: { type: 'ClusterIP', port: 80 },
      ingress: { host: 'web.example.com', path: '/', pathType: 'Prefix', className: 'nginx' },
      rollout: { strategy: 'RollingUpdate', progressDeadlineSeconds: 600, scaleDownDelaySeconds: 30, paused: false, trackConfig: false },
    });
  });

  it('fills the canary steps of a Canary App and keeps what the user set', async () => {
    await k(['create', '-f', '-'], appYaml('canary', { image: 'nginx:1.27', replicas: 4, ingress: { host: 'c.example.com', path: '/shop' }, rollout: { strategy: 'Canary' } }));
    const app = JSON.parse(await k(['get', 'app', 'canary', '-o', 'json']));
    assert.equal(app.spec.replicas, 4);
    assert.equal(app.spec.ingress.path, '/shop');
    assert.deepEqual(app.spec.rollout.steps, [{ setWeight: 20 }, { pause: { duration: '60s' } }, { setWeight: 50 }, { pause: {} }]);
  });

  it('rejects an unknown field under spec instead of dropping it', async () => {
    const stderr = await failure(['create', '--validate=false', '-f', '-'], appYaml('typo', { image: 'nginx:1.27', replica: 3 }));
    assert.match(stderr, /spec\.replica: unknown field/);
  });

  it('rejects an update that breaks a rule, naming the field, and keeps the stored App', async () => {
    const stderr = await failure(['patch', 'app', 'web', '--type=merge', '-p', JSON.stringify({ spec: { replicas: 5000, rollout: { strategy: 'Canary', steps: [{ setWeight: 101 }] } } })]);
    assert.match(stderr, /spec\.replicas: must be <= 1000/);
    assert.match(stderr, /spec\.rollout\.steps\[0\]\.setWeight: must be <= 100/);
    const app = JSON.parse(await k(['get', 'app', 'web', '-o', 'json']));
    assert.equal(app.spec.replicas, 1);
  });

  it('rejects Canary without an ingress (traffic is split at the ingress)', async () => {
    const stderr = await failure(['create', '-f', '-'], appYaml('noingress', { image: 'nginx:1.27', rollout: { strategy: 'Canary' } }));
    assert.match(stderr, /spec\.ingress: /);
  });

  it('reads a null as a field left out under server-side apply too (a Helm value left empty): defaulted, and the same App as a client-side apply stores', async () => {
    // Client-side apply drops nulls before sending; server-side apply sends them to the webhooks.
    const manifest = (name: string) => [
      'apiVersion: skiff.dev/v1alpha1', 'kind: App', `metadata: {name: ${name}}`, 'spec:', '  image: nginx:1.27', '  replicas:',
      '  service:', '  ingress: {host: nulls.example.com, path: null}', '  autoscaling: null', '',
    ].join('\n');
    await k(['apply', '--server-side', '-f', '-'], manifest('nulls-ssa'));
    await k(['apply', '-f', '-'], manifest('nulls-csa'));
    const ssa = JSON.parse(await k(['get', 'app', 'nulls-ssa', '-o', 'json']));
    const csa = JSON.parse(await k(['get', 'app', 'nulls-csa', '-o', 'json']));
    assert.equal(ssa.spec.replicas, 1);
    assert.deepEqual(ssa.spec.service, { type: 'ClusterIP', port: 80 });
    assert.equal(ssa.spec.ingress.path, '/');
    assert.equal('autoscaling' in ssa.spec, false);
    assert.deepEqual(ssa.spec, csa.spec);
  });

  it('defaults and validates a server-side dry run too, storing nothing', async () => {
    const out = JSON.parse(await k(['apply', '--dry-run=server', '-o', 'json', '-f', '-'], appYaml('dry', { image: 'nginx:1.27' })));
    assert.equal(out.spec.replicas, 1);
    assert.equal(out.spec.rollout.strategy, 'RollingUpdate');
    await assert.rejects(k(['get', 'app', 'dry']), /not found/i);
    const stderr = await failure(['apply', '--dry-run=server', '-f', '-'], appYaml('dry', { image: 'nginx:1.27', port: 0 }));
    assert.match(stderr, /spec\.port: must be >= 1/);
  });

  it('denies a custom analysis query that reads another namespace or does not parse, naming the field; admits one naming its own', async () => {
    const spec = (query: string) => ({
      image: 'nginx:1.27', ingress: { host: 'q.example.com' },
      rollout: { strategy: 'Canary', analysis: { minRequests: 0, metrics: [{ name: 'up', query: 'up', max: 1 }, { name: 'secrets', query, max: 1 }] } },
    });
    const foreign = await failure(['create', '-f', '-'], appYaml('foreign-query', spec('count(kube_secret_info{namespace="payments",secret=~"a.*"})')));
    assert.match(foreign, new RegExp(`spec\\.rollout\\.analysis\\.metrics\\[1\\]\\.query: the matcher namespace="payments" at character 24 is not allowed: the query may read namespace "${ns}" only`));
    const broken = await failure(['create', '-f', '-'], appYaml('broken-query', spec('count(kube_secret_info')));
    assert.match(broken, /spec\.rollout\.analysis\.metrics\[1\]\.query: does not parse as PromQL: the query ends too soon at character 23/);
    await assert.rejects(k(['get', 'app', 'foreign-query']), /not found/i);
    await assert.rejects(k(['get', 'app', 'broken-query']), /not found/i);
    // Stored as written: the controller adds the matcher each time it sends the query.
    await k(['create', '-f', '-'], appYaml('own-query', spec(`count(kube_secret_info{namespace="${ns}"})`)));
    const stored = JSON.parse(await k(['get', 'app', 'own-query', '-o', 'json']));
    assert.equal(stored.spec.rollout.analysis.metrics[1].query, `count(kube_secret_info{namespace="${ns}"})`);
  });

  it('warns about an untagged or latest image and stores it', async () => {
    const untagged = (await kubectlOutput(cp.kubeconfigPath, ['-n', ns, 'create', '-f', '-'], appYaml('untagged', { image: 'nginx' }))).stderr;
    assert.match(untagged, /Warning: .*spec\.image/i);
    const latest = (await kubectlOutput(cp.kubeconfigPath, ['-n', ns, 'create', '-f', '-'], appYaml('latest', { image: 'nginx:latest' }))).stderr;
    assert.match(latest, /Warning: .*latest/i);
    JSON.parse(await k(['get', 'app', 'latest', '-o', 'json']));
  });

  it('lets an App be deleted', async () => {
    await k(['delete', 'app', 'untagged', '--wait=true']);
    await assert.rejects(k(['get', 'app', 'untagged']), /not found/i);
  });

  it('fails closed while the webhook restarts during a stream of creates, and stores only admitted Apps', async () => {
    // Raw creates (no defaults, one of them invalid every tenth time) as fast as they go, while the
    // webhook stops and starts again.
    const results: { name: string; ok: boolean; invalid: boolean }[] = [];
    let stop = false;
    const stream = (async () => {
      for (let i = 0; !stop; i++) {
        const name = `stream-${i}`;
        const invalid = i % 10 === 9;
        const spec = invalid ? { image: 'nginx:1.27', replicas: 5000 } : { image: 'nginx:1.27' };
        const ok = await k(['create', '-f', '-'], appYaml(name, spec)).then(() => true, () => false);
        results.push({ name, ok, invalid });
      }
    })();
    // The stream is under way: creates go through the webhook (not a fixed time, which a slow
    // machine could spend on its first kubectl).
    await until(() => assert.ok(results.some((r) => r.ok)), { timeoutMs: 20_000, intervalMs: 50, message: 'a create of the stream to succeed' });
    await webhook!.close();
    webhook = undefined;
    const closedAt = results.length;
    const whileDown = await failure(['create', '-f', '-'], appYaml('while-down', { image: 'nginx:1.27' }));
    assert.match(whileDown, /failed calling webhook|connection refused/i);
    // The stream meets the stopped webhook too.
    await until(() => assert.ok(results.slice(closedAt).some((r) => !r.ok && !r.invalid)), { timeoutMs: 20_000, intervalMs: 50, message: 'a valid create of the stream to be refused while the webhook is down' });
    // Same port and certificates (startTestWebhook wrote them to <dir>/certs), so the installed configurations still point at it.
    const restartedAt = results.length;
    webhook = await startWebhookServer({ port, host: '127.0.0.1', certDir: join(dir, 'certs'), log: testLogger('webhook'), registry: new Registry() });
    // The stream works again: three creates in a row after the restart each succeed if and only if valid.
    await until(() => {
      const since = results.slice(restartedAt);
      assert.ok(since.length >= 3 && since.slice(-3).every((r) => r.ok === !r.invalid));
    }, { timeoutMs: 20_000, intervalMs: 50, message: 'the stream to work again after the restart' });
    stop = true;
    await stream;

    assert.ok(results.some((r) => !r.ok && !r.invalid), 'some creates were refused while the webhook was down');
    assert.ok(results.slice(-3).every((r) => r.ok === !r.invalid), 'creates work again once it is back');
    const stored = new Map((JSON.parse(await k(['get', 'apps', '-o', 'json'])).items as { metadata: { name: string }; spec: { replicas?: number; rollout?: unknown } }[])
      .filter((a) => a.metadata.name.startsWith('stream-')).map((a) => [a.metadata.name, a]));
    for (const r of results) {
      assert.equal(stored.has(r.name), r.ok, `${r.name}: stored if and only if the create succeeded`);
      if (r.invalid) assert.equal(r.ok, false, `${r.name}: an invalid App is never stored`);
      if (r.ok) assert.ok(stored.get(r.name)!.spec.replicas === 1 && stored.get(r.name)!.spec.rollout, `${r.name}: stored with its defaults, so it went through the webhook`);
    }
    await assert.rejects(k(['get', 'app', 'while-down']), /not found/i);
  });

  it('serves the CRD with descriptions (kubectl explain)', async () => {
    const app = await k(['explain', 'app']);
    assert.match(app, /spec\s+<[^>]*>[^\n]*\n\s+The desired state of a web workload/);
    assert.match(app, /status\s+<.*>/);
    // An API server before 1.27 publishes no fields below a node that keeps unknown fields (the
    // price of rejecting typos under spec instead of pruning them); newer ones serve them all.
    const spec = await k(['explain', 'app.spec']);
    assert.match(spec, /The desired state of a web workload/);
  });
});

