// `kubectl skiff` as a user runs it: the built plugin (cli/kubectl-skiff) as a child process
// with --kubeconfig, against a real control plane. An App labelled with a shard no controller
// serves has a status and a history written here, as the controller writes them
// (interfaces of the revision history), so that list/get/history are compared with golden text
// and the writes of pause/resume/set image/undo/retry are checked on the App. Promote, abort
// and status --wait run end to end with the real controller, and get --watch in a real
// pseudo-terminal (tmux).
import { strict as assert } from 'node:assert';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { App } from '../../shared/app-types.js';
import {
  ANNOTATION_HISTORY_CHANGES, ANNOTATION_HISTORY_IMAGES, ANNOTATION_HISTORY_OUTCOME, ANNOTATION_HISTORY_STARTED_AT,
  ANNOTATION_RETRY, ANNOTATION_SKIP_CANARY, LABEL_APP, LABEL_REVISION, LABEL_SHARD, LABEL_TRACK,
} from '../../shared/labels.js';
import { condition, createApp, getApp, newNamespace, testLogger } from '../support/apps.js';
import { useControllerCluster } from '../support/controller-cluster.js';
import { kubectl } from '../support/kube.js';
import { kustomize } from '../support/bundle.js';
import { eventually } from '../../dev/wait.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const PLUGIN = join(root, 'cli', 'kubectl-skiff');
/** A shard no controller of this suite serves: the Apps labelled with it are written by the test alone. */
const BY_HAND = 'by-hand';

interface Run { code: number; stdout: string; stderr: string }

describe('kubectl skiff (real control plane)', function () {
  this.timeout(120_000);
  const cluster = useControllerCluster('cli', {
    cluster: { controllerManager: true },
    controllers: () => [{ resyncMs: 30_000, watchBrokenLimitMs: 5_000, log: testLogger('controller') }],
  });
  const k = (args: string[], stdin?: string) => kubectl(cluster.cp.kubeconfigPath, args, stdin);
  const plugin = (args: string[]): Promise<Run> => new Promise((done) => {
    const env = { ...process.env, KUBECONFIG: '/nonexistent' };
    execFile(PLUGIN, [...args, '--kubeconfig', cluster.cp.kubeconfigPath], { env }, (err, stdout, stderr) =>
      done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
  const ok = async (args: string[]) => {
    const r = await plugin(args);
    assert.equal(r.code, 0, `kubectl skiff ${args.join(' ')}: exit ${r.code}: ${r.stderr}${r.stdout}`);
    return r.stdout;
  };
  /** Output with the namespace and ages (at the ends of lines) made constant. */
  const normalise = (text: string, ns: string) => text.split(ns).join('<ns>').replace(/ {2,}(\d+[smhdy](\d+[smhd])?)$/gm, (m, a: string) => m.replace(a, '<age>'));

  const REVISIONS = [
    { n: 1, hash: 'aaaaaaaaaa', spec: { image: 'registry.example/web:1', env: [{ name: 'MODE', value: 'old' }] }, changes: '', outcome: 'Promoted' },
    { n: 2, hash: 'bbbbbbbbbb', spec: { image: 'registry.example/web:2' }, changes: 'image,env MODE', outcome: 'Promoted' },
    { n: 3, hash: 'cccccccccc', spec: { image: 'registry.example/web:3' }, changes: 'image', outcome: 'Running' },
  ];

  /** The App mid-canary, its history and owned objects, all written by hand; resolves with its namespace. */
  async function handWrittenApp(): Promise<string> {
    const ns = await newNamespace(cluster.api, 'cli');
    const labels = { [LABEL_APP]: 'web', [LABEL_SHARD]: BY_HAND };
    const app = await createApp(cluster.api, ns, 'web', {
      image: 'registry.example/web:3', replicas: 2, ingress: { host: 'web.example.com' },
      rollout: { strategy: 'Canary', steps: [{ setWeight: 25 }, { pause: {} }] },
    }, { labels: { [LABEL_SHARD]: BY_HAND } });
    const status = {
      observedGeneration: 1, stableImage: 'registry.example/web:2', stableRevision: 'bbbbbbbbbb', replicas: 3, readyReplicas: 3,
      canary: { image: 'registry.example/web:3', revision: 'cccccccccc', changes: ['image'], weight: 25, stepIndex: 1, stepStartedAt: new Date().toISOString(), analysis: { checks: 3, failures: 1, lastResult: 'Failed', lastWeight: 25 } },
      conditions: [{ type: 'Progressing', status: 'True', reason: 'CanaryPaused', message: 'paused', lastTransitionTime: new Date().toISOString() }],
    };
    await k(['patch', 'app', 'web', '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
    for (const r of REVISIONS) {
      await k(['create', '-n', ns, '-f', '-'], JSON.stringify({
        apiVersion: 'apps/v1', kind: 'ControllerRevision', revision: r.n, data: { spec: r.spec },
        // Controlled by the App, as the controller writes its history: only those are the App's.
        metadata: { name: `web-${r.n}`, labels: { ...labels, [LABEL_REVISION]: r.hash }, ownerReferences: [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: app.metadata.uid, controller: true }], annotations: {
          [ANNOTATION_HISTORY_IMAGES]: r.spec.image, [ANNOTATION_HISTORY_CHANGES]: r.changes, [ANNOTATION_HISTORY_OUTCOME]: r.outcome,
          [ANNOTATION_HISTORY_STARTED_AT]: new Date(Date.now() - (4 - r.n) * 3_600_000).toISOString(),
        } },
      }));
    }
    // Controlled by the App, as the controller makes them: get shows only what the App controls.
    const ownerReferences = [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: app.metadata.uid, controller: true }];
    const deployment = (name: string, track: string, hash: string, image: string, replicas: number) => ({
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name, labels: { ...labels, [LABEL_TRACK]: track }, annotations: { [LABEL_REVISION]: hash }, ownerReferences },
      spec: { replicas, selector: { matchLabels: { [LABEL_APP]: 'web', [LABEL_TRACK]: track } }, template: { metadata: { labels: { [LABEL_APP]: 'web', [LABEL_TRACK]: track } }, spec: { containers: [{ name: 'app', image }] } } },
    });
    const service = (name: string, track: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, labels, ownerReferences }, spec: { selector: { [LABEL_APP]: 'web', [LABEL_TRACK]: track }, ports: [{ port: 80, targetPort: 8080 }] } });
    const ingress = (name: string, annotations: Record<string, string>) => ({
      apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name, labels, annotations, ownerReferences },
      spec: { rules: [{ host: 'web.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name, port: { number: 80 } } } }] } }] },
    });
    const objects = [
      deployment('web', 'stable', 'bbbbbbbbbb', 'registry.example/web:2', 2), deployment('web-canary', 'canary', 'cccccccccc', 'registry.example/web:3', 1),
      service('web', 'stable'), service('web-canary', 'canary'),
      ingress('web', {}), ingress('web-canary', { 'nginx.ingress.kubernetes.io/canary': 'true', 'nginx.ingress.kubernetes.io/canary-weight': '25' }),
    ];
    await k(['create', '-n', ns, '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
    await eventually(async () => {
      const ready = await Promise.all(['web', 'web-canary'].map((n) => cluster.api.apps.readNamespacedDeployment({ namespace: ns, name: n })));
      return ready.every((d) => d.status?.availableReplicas === d.spec?.replicas && d.status?.updatedReplicas === d.spec?.replicas);
    }, { timeoutMs: 60_000, message: 'the hand-written Deployments to be available' });
    return ns;
  }

  let byHand: string;
  before(async function () {
    this.timeout(90_000);
    byHand = await handWrittenApp();
  });

  it('list, get and history print the contract columns and tree (golden text)', async () => {
    assert.equal(normalise(await ok(['list', '-n', byHand]), byHand), [
      'NAME   STRATEGY   STATUS        STEP   WEIGHT   IMAGE                                              AGE',
      'web    Canary     Progressing   2/2    25%      registry.example/web:2 -> registry.example/web:3   <age>',
      '',
    ].join('\n'));
    const all = await ok(['list', '-A']);
    assert.match(all.split('\n')[0], /^NAMESPACE +NAME +STRATEGY +STATUS +STEP +WEIGHT +IMAGE +AGE$/);
    assert.match(all, new RegExp(`^${byHand} +web +Canary +Progressing +2/2 +25%`, 'm'));

    assert.equal(normalise(await ok(['history', 'web', '-n', byHand]), byHand), [
      'REVISION   HASH         IMAGE                    CHANGES           OUTCOME    AGE',
      '1          aaaaaaaaaa   registry.example/web:1   -                 Promoted   <age>',
      '2          bbbbbbbbbb   registry.example/web:2   image, env MODE   Promoted   <age>',
      '3          cccccccccc   registry.example/web:3   image             Running    <age>',
      '',
    ].join('\n'));

    assert.equal(normalise(await ok(['get', 'web', '-n', byHand]), byHand), [
      'Name:     <ns>/web',
      'Status:   Progressing',
      'Strategy: Canary',
      'Step:     2/2 pause until promoted (kubectl skiff promote to continue)',
      'Weight:   25% set, 25% actual',
      'Images:   registry.example/web:2 (stable), registry.example/web:3 (canary)',
      'Replicas: 2 desired, 3 current, 1 updated, 3 ready, 3 available',
      '',
      'App web',
      '|-- revision 3  cccccccccc  registry.example/web:3  changed image  Running (canary)  <age>',
      '|   `-- Deployment web-canary  1/1 ready  registry.example/web:3  canary',
      '|-- revision 2  bbbbbbbbbb  registry.example/web:2  changed image, env MODE  Promoted (stable)  <age>',
      '|   `-- Deployment web  2/2 ready  registry.example/web:2  stable',
      '|-- revision 1  aaaaaaaaaa  registry.example/web:1  Promoted  <age>',
      '|-- Service web  port 80',
      '|-- Service web-canary  port 80',
      '|-- Ingress web  web.example.com',
      '|-- Ingress web-canary  web.example.com  canary weight 25%',
      '`-- Analysis  passed 2, failed 1  last Failed at 25%',
      '',
    ].join('\n'));
  });

  it('pause, resume, set image, retry and undo write the App fields and annotations of the contract', async () => {
    const app = () => getApp(cluster.api, byHand, 'web') as Promise<App & { spec: { rollout?: { paused?: boolean } } }>;
    assert.match(await ok(['pause', 'web', '-n', byHand]), /^app .*\/web: paused \(the canary holds its weight and step; a new pod template waits; kubectl skiff resume to go on\)/);
    assert.equal((await app()).spec.rollout?.paused, true);
    assert.match(await ok(['resume', 'web', '-n', byHand]), /^app .*\/web: resumed/);
    assert.equal((await app()).spec.rollout?.paused, false);

    const refused = await plugin(['retry', 'web', '-n', byHand]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /no aborted rollout to retry/);
    await k(['patch', 'app', 'web', '-n', byHand, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { abortedRevision: 'dddddddddd', abortedImage: 'registry.example/web:4' } })]);
    assert.match(await ok(['retry', 'web', '-n', byHand]), /retrying the rollout of revision dddddddddd \(registry\.example\/web:4\)/);
    assert.equal((await app()).metadata.annotations?.[ANNOTATION_RETRY], 'true');

    // Revision 3 is running and was never promoted: no skipping its canary.
    const never = await plugin(['undo', 'web', '--to-revision', '3', '--skip-canary', '-n', byHand]);
    assert.equal(never.code, 1);
    assert.match(never.stderr, /revision 3 \(hash cccccccccc\) was never promoted/);
    assert.equal((await plugin(['undo', 'web', '--to-revision', '9', '-n', byHand])).code, 1);

    assert.equal(await ok(['undo', 'web', '--to-revision', '1', '--skip-canary', '-n', byHand]),
      `app ${byHand}/web: undo to revision 1 (hash aaaaaaaaaa, image registry.example/web:1), straight to stable without the canary (the controller checks that the template is revision 1's; a Warning Event says when it is not)\n`);
    let a = await app();
    assert.equal(a.spec.image, 'registry.example/web:1');
    assert.deepEqual(a.spec.env, [{ name: 'MODE', value: 'old' }]);
    assert.equal(a.metadata.annotations?.[ANNOTATION_SKIP_CANARY], 'aaaaaaaaaa');
    assert.equal(a.spec.replicas, 2, 'fields outside the pod template stay');

    // Default: the newest promoted revision whose template is not the current (newest) one's.
    assert.equal(await ok(['undo', 'web', '-n', byHand]), `app ${byHand}/web: undo to revision 2 (hash bbbbbbbbbb, image registry.example/web:2)\n`);
    a = await app();
    assert.equal(a.spec.image, 'registry.example/web:2');
    assert.equal(a.spec.env, undefined, 'a field revision 2 did not set is removed');

    assert.match(await ok(['set', 'image', 'web', 'registry.example/web:5', '-n', byHand]), /image registry\.example\/web:5 \(was registry\.example\/web:2\)/);
    assert.equal((await app()).spec.image, 'registry.example/web:5');
  });

  it('explains usage errors (exit 2), a missing App, context or kubeconfig (exit 1)', async () => {
    const usage = await plugin(['undo']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /undo: missing APP/);
    assert.equal((await plugin(['list', '--watch'])).code, 2);
    const missing = await plugin(['get', 'nothere', '-n', byHand]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'Error from server (NotFound): apps.skiff.dev "nothere" not found\n');
    const context = await plugin(['list', '--context', 'elsewhere']);
    assert.equal(context.code, 1);
    assert.match(context.stderr, /context "elsewhere" not found/);
  });

  it('status --wait exits 0 once rolled out, 3 at its timeout, 1 when aborted; promote and abort end to end', async () => {
    const ns = await newNamespace(cluster.api, 'cli');
    await createApp(cluster.api, ns, 'web', { image: 'registry.example/web:1', replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, steps: [{ setWeight: 50 }, { pause: {} }] } });
    const first = await plugin(['status', 'web', '--wait', '--timeout', '60s', '-n', ns]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /rolled out \(registry\.example\/web:1\)/);

    await ok(['set', 'image', 'web', 'registry.example/web:2', '-n', ns]);
    await eventually(async () => condition(await getApp(cluster.api, ns, 'web'), 'Progressing')?.reason === 'CanaryPaused', { timeoutMs: 30_000, message: 'CanaryPaused' });
    const timedOut = await plugin(['status', 'web', '--wait', '--timeout', '2s', '-n', ns]);
    assert.equal(timedOut.code, 3);
    assert.match(timedOut.stderr, /timed out after 2s/);
    const got = await ok(['get', 'web', '-n', ns]);
    assert.match(got, /^Step: +2\/2 pause until promoted/m);
    assert.match(got, /^Weight: +50% set, 50% actual$/m);
    assert.match(got, /registry\.example\/web:1 \(stable\), registry\.example\/web:2 \(canary\)/);
    assert.match(got, /Deployment web-canary +1\/1 ready/);
    assert.match(await ok(['promote', 'web', '-n', ns]), /promoting registry\.example\/web:2/);
    assert.equal((await plugin(['status', 'web', '--wait', '--timeout', '60s', '-n', ns])).code, 0);
    assert.equal((await getApp(cluster.api, ns, 'web')).status?.stableImage, 'registry.example/web:2');

    await ok(['set', 'image', 'web', 'registry.example/web:3', '-n', ns]);
    await eventually(async () => (await getApp(cluster.api, ns, 'web')).status?.canary !== undefined, { timeoutMs: 30_000, message: 'the canary of web:3' });
    assert.match(await ok(['abort', 'web', '-n', ns]), /aborting the canary of registry\.example\/web:3/);
    const aborted = await plugin(['status', 'web', '--wait', '--timeout', '60s', '-n', ns]);
    assert.equal(aborted.code, 1);
    assert.match(aborted.stderr, /Degraded/);
  });

  it('status --wait on a paused App: exit 0 when nothing is held back, the timeout while a change waits, 0 once resumed', async () => {
    const ns = await newNamespace(cluster.api, 'cli');
    await createApp(cluster.api, ns, 'web', { image: 'registry.example/web:1', replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, steps: [{ setWeight: 50 }] } });
    assert.equal((await plugin(['status', 'web', '--wait', '--timeout', '60s', '-n', ns])).code, 0);
    await ok(['pause', 'web', '-n', ns]);
    await eventually(async () => condition(await getApp(cluster.api, ns, 'web'), 'Progressing')?.reason === 'RolloutPaused', { timeoutMs: 30_000, message: 'RolloutPaused' });
    // Progressing stays Unknown while paused, as a paused Deployment's does; the App is still rolled out.
    const idle = await plugin(['status', 'web', '--wait', '--timeout', '0', '-n', ns]);
    assert.equal(idle.code, 0, idle.stderr);
    assert.match(idle.stderr, /rolled out \(registry\.example\/web:1\); rollouts of the App are paused/);

    await ok(['set', 'image', 'web', 'registry.example/web:2', '-n', ns]);
    await eventually(async () => {
      const app = await getApp(cluster.api, ns, 'web');
      return app.status?.observedGeneration === app.metadata?.generation && app.status?.updateRevision !== app.status?.stableRevision;
    }, { timeoutMs: 30_000, message: 'the held change in status.updateRevision' });
    const held = await plugin(['status', 'web', '--wait', '--timeout', '1.5s', '-n', ns]);
    assert.equal(held.code, 3, held.stderr);
    assert.match(held.stderr, /timed out after 1\.5s .*its rollout starts once spec\.rollout\.paused is false/);

    await ok(['resume', 'web', '-n', ns]);
    const done = await plugin(['status', 'web', '--wait', '--timeout', '60s', '-n', ns]);
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stderr, /rolled out \(registry\.example\/web:2\)/);
  });

  it('status --wait: a user who may read the App but not watch it is refused at once (exit 1); a server that never answers times out at --timeout, the first read included', async () => {
    const ns = await newNamespace(cluster.api, 'cli');
    await createApp(cluster.api, ns, 'web', { image: 'registry.example/web:1', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 50 }, { pause: {} }] } });
    await eventually(async () => condition(await getApp(cluster.api, ns, 'web'), 'Ready')?.status === 'True', { timeoutMs: 30_000, message: 'Ready' });
    await ok(['set', 'image', 'web', 'registry.example/web:2', '-n', ns]);
    // A user with get on Apps, and no list or watch.
    await cluster.api.core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'getter' } } });
    await k(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'v1', kind: 'List', items: [
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'getter', namespace: ns }, rules: [{ apiGroups: ['skiff.dev'], resources: ['apps'], verbs: ['get'] }] },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'getter', namespace: ns }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'getter' }, subjects: [{ kind: 'ServiceAccount', name: 'getter', namespace: ns }] },
      ],
    }));
    const token = await cluster.api.core.createNamespacedServiceAccountToken({ namespace: ns, name: 'getter', body: { spec: { audiences: [], expirationSeconds: 3600 } } });
    const admin = JSON.parse(await k(['config', 'view', '--raw', '-o', 'json'])) as { clusters: { cluster: Record<string, unknown> }[] };
    const dir = mkdtempSync(join(tmpdir(), 'skiff-cli-'));
    const kubeconfig = (server: Record<string, unknown>, user: Record<string, unknown>) => {
      const path = join(dir, `${Object.keys(user)[0]}-${Date.now()}.kubeconfig`);
      writeFileSync(path, JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'c', cluster: server }], users: [{ name: 'u', user }], contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: ns } }], 'current-context': 'x' }));
      return path;
    };
    const as = (path: string, args: string[]) => new Promise<Run & { ms: number }>((done) => {
      const t0 = Date.now();
      execFile(PLUGIN, [...args, '--kubeconfig', path], { env: { ...process.env, KUBECONFIG: '/nonexistent' } }, (err, stdout, stderr) =>
        done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr, ms: Date.now() - t0 }));
    });
    const silent = createServer(() => { /* accepts the connection, never answers: not even TLS */ });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const getter = kubeconfig(admin.clusters[0].cluster, { token: token.status!.token });
      assert.equal((await as(getter, ['status', 'web'])).code, 0, 'status alone only reads');
      const refused = await as(getter, ['status', 'web', '--wait', '--timeout', '60s']);
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /^error: cannot follow app [^/]+\/web: forbidden \(403\).*cannot list resource "apps"/m);
      assert.ok(refused.ms < 20_000, `${refused.ms} ms: no retrying a refusal until the timeout`);

      const nowhere = kubeconfig({ server: `https://127.0.0.1:${(silent.address() as AddressInfo).port}`, 'insecure-skip-tls-verify': true }, { token: 'x' });
      const stuck = await as(nowhere, ['status', 'web', '--wait', '--timeout', '2s']);
      assert.equal(stuck.code, 3, stuck.stderr);
      assert.match(stuck.stderr, /timed out after 2s waiting for app [^/]+\/web: the API server at https:\/\/127\.0\.0\.1:\d+ had not answered the first read of the App by then/);
      assert.ok(stuck.ms < 15_000, `${stuck.ms} ms for a timeout of 2 s (the connect timeout is 30 s)`);
    } finally {
      silent.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('acts as the user the kubeconfig impersonates (as, as-groups), and as --as says, as kubectl does: a reader\'s promote is the API server\'s refusal', async () => {
    const ns = await newNamespace(cluster.api, 'cli');
    await createApp(cluster.api, ns, 'web', { image: 'registry.example/web:1', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 50 }, { pause: {} }] } });
    await eventually(async () => condition(await getApp(cluster.api, ns, 'web'), 'Ready')?.status === 'True', { timeoutMs: 30_000, message: 'Ready' });
    await ok(['set', 'image', 'web', 'registry.example/web:2', '-n', ns]);
    await eventually(async () => (await getApp(cluster.api, ns, 'web')).status?.canary?.stepIndex === 1, { timeoutMs: 30_000, message: 'the canary at its pause' });
    // Readers of Apps: the user reader, and the members of the group readers.
    await k(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'v1', kind: 'List', items: [
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader', namespace: ns }, rules: [{ apiGroups: ['skiff.dev'], resources: ['apps'], verbs: ['get', 'list', 'watch'] }] },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'reader', namespace: ns }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
          subjects: [{ kind: 'User', name: 'reader', apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'Group', name: 'readers', apiGroup: 'rbac.authorization.k8s.io' }] },
      ],
    }));
    // The admin's own kubeconfig, its user impersonating (as kubectl's --as writes it there).
    const admin = JSON.parse(await k(['config', 'view', '--raw', '-o', 'json'])) as { clusters: { cluster: Record<string, unknown> }[]; users: { user: Record<string, unknown> }[] };
    const dir = mkdtempSync(join(tmpdir(), 'skiff-cli-'));
    const impersonating = (as: Record<string, unknown>) => {
      const path = join(dir, `${Object.values(as).join('-')}.kubeconfig`);
      writeFileSync(path, JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'c', cluster: admin.clusters[0].cluster }], users: [{ name: 'u', user: { ...admin.users[0].user, ...as } }], contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: ns } }], 'current-context': 'x' }));
      return path;
    };
    const run = (args: string[]) => new Promise<Run>((done) => {
      execFile(PLUGIN, args, { env: { ...process.env, KUBECONFIG: '/nonexistent' } }, (err, stdout, stderr) => done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    });
    try {
      for (const [who, kubeconfig, flags] of [
        ['as: reader', impersonating({ as: 'reader' }), []],
        ['as: someone, as-groups: [readers]', impersonating({ as: 'someone', 'as-groups': ['readers'] }), []],
        ['--as reader', cluster.cp.kubeconfigPath, ['--as', 'reader', '-n', ns]],
      ] as const) {
        const status = await run(['status', 'web', '--kubeconfig', kubeconfig, ...flags]);
        assert.equal(status.code, 0, `${who}: status reads: ${status.stderr}`);
        const promote = await run(['promote', 'web', '--kubeconfig', kubeconfig, ...flags]);
        assert.equal(promote.code, 1, `${who}: ${promote.stdout}${promote.stderr}`);
        assert.match(promote.stderr, /forbidden \(403\).*User "(reader|someone)" cannot (patch|update) resource "apps"/, who);
      }
      assert.equal((await getApp(cluster.api, ns, 'web')).metadata.annotations?.['skiff.dev/promote'], undefined, 'nobody promoted');
      assert.equal((await getApp(cluster.api, ns, 'web')).status?.canary?.stepIndex, 1);
      // --as-group over the kubeconfig's `as`, field by field as kubectl merges them.
      const merged = await run(['promote', 'web', '--kubeconfig', impersonating({ as: 'someone' }), '--as-group', 'readers']);
      assert.match(merged.stderr, /User "someone" cannot patch resource "apps"/);
      assert.equal((await run(['status', 'web', '--kubeconfig', impersonating({ as: 'someone' }), '--as-group', 'readers'])).code, 0, 'as someone in readers');
      // --as-group alone names nobody to act as, as kubectl says.
      const alone = await run(['status', 'web', '--kubeconfig', cluster.cp.kubeconfigPath, '--as-group', 'readers', '-n', ns]);
      assert.equal(alone.code, 1, alone.stderr);
      assert.match(alone.stderr, /without impersonating a user/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with the bundle\'s App roles, Kubernetes\' own edit role runs a release and its view role reads it (aggregated ClusterRoles)', async () => {
    const ns = await newNamespace(cluster.api, 'cli');
    const roles = kustomize('config/default').filter((o) => o.kind === 'ClusterRole' && /aggregate-to-/.test(JSON.stringify(o.metadata)));
    assert.deepEqual(roles.map((r) => r.metadata.name).sort(), ['skiff-app-editor-role', 'skiff-app-viewer-role']);
    await k(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [
      ...roles,
      ...['edit', 'view'].map((role) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: `${role}or`, namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects: [{ kind: 'User', name: `${role}or`, apiGroup: 'rbac.authorization.k8s.io' }] })),
    ] }));
    // kube-controller-manager aggregates the rules into edit and view.
    await eventually(async () => (await k(['auth', 'can-i', 'patch', 'apps.skiff.dev', '-n', ns, '--as', 'editor']).catch(() => 'no')).trim() === 'yes', { timeoutMs: 30_000, message: 'edit aggregates the App editor rules' });
    await eventually(async () => (await k(['auth', 'can-i', 'watch', 'apps.skiff.dev', '-n', ns, '--as', 'viewor']).catch(() => 'no')).trim() === 'yes', { timeoutMs: 30_000, message: 'view aggregates the App viewer rules' });
    assert.equal((await k(['auth', 'can-i', 'patch', 'apps.skiff.dev', '--subresource', 'status', '-n', ns, '--as', 'editor']).catch(() => 'no')).trim(), 'no', 'the status is the controller\'s');
    // The editor creates the App and runs its release; the viewer follows it and is refused a promote.
    await k(['create', '-n', ns, '--as', 'editor', '-f', '-'], JSON.stringify({ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web' },
      spec: { image: 'registry.example/web:1', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, steps: [{ setWeight: 50 }, { pause: {} }] } } }));
    await eventually(async () => condition(await getApp(cluster.api, ns, 'web'), 'Ready')?.status === 'True', { timeoutMs: 30_000, message: 'Ready' });
    await ok(['set', 'image', 'web', 'registry.example/web:2', '-n', ns, '--as', 'editor']);
    await eventually(async () => (await getApp(cluster.api, ns, 'web')).status?.canary?.stepIndex === 1, { timeoutMs: 30_000, message: 'the canary at its pause' });
    assert.match(await ok(['status', 'web', '-n', ns, '--as', 'viewor']), /web/);
    const refused = await plugin(['promote', 'web', '-n', ns, '--as', 'viewor']);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /forbidden \(403\).*User "viewor" cannot patch resource "apps"/);
    await ok(['promote', 'web', '-n', ns, '--as', 'editor']);
    assert.equal((await plugin(['status', 'web', '--wait', '--timeout', '60s', '-n', ns, '--as', 'viewor'])).code, 0, 'rolled out, as the viewer follows it');
    assert.equal((await getApp(cluster.api, ns, 'web')).status?.stableImage, 'registry.example/web:2');
  });

  it('get --watch redraws in a terminal when the App changes, and Ctrl-C ends it', async () => {
    const ns = await newNamespace(cluster.api, 'cli');
    await createApp(cluster.api, ns, 'web', { image: 'registry.example/web:1', replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, steps: [{ setWeight: 50 }, { pause: {} }] } });
    assert.equal((await plugin(['status', 'web', '--wait', '--timeout', '60s', '-n', ns])).code, 0);
    const socket = `skiff-cli-${process.pid}`;
    const tmux = (args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
    const screen = () => tmux(['capture-pane', '-p', '-t', 'watch']);
    const command = `env -u NO_COLOR TERM=xterm-256color ${PLUGIN} get web --watch -n ${ns} --kubeconfig ${cluster.cp.kubeconfigPath}; echo "EXITED $?"; sleep 60`;
    tmux(['new-session', '-d', '-x', '160', '-y', '50', '-s', 'watch', command]);
    try {
      await eventually(async () => /✔ Healthy/.test(screen()), { timeoutMs: 15_000, intervalMs: 100, message: () => `the first frame:\n${screen()}` });
      assert.doesNotMatch(screen(), /\(canary\)/);
      await k(['patch', 'app', 'web', '-n', ns, '--type=merge', '-p', JSON.stringify({ spec: { image: 'registry.example/web:2' } })]);
      await eventually(async () => /◌ Progressing/.test(screen()), { timeoutMs: 5_000, intervalMs: 50, message: () => `Progressing on screen:\n${screen()}` });
      // The weight follows the canary's readiness a pass later: a redraw of its own, waited for.
      await eventually(async () => /registry\.example\/web:2 \(canary\)/.test(screen()) && /Deployment web-canary +1\/1 ready/.test(screen()) && /Weight: +50% set, 50% actual/.test(screen()),
        { timeoutMs: 30_000, intervalMs: 100, message: () => `the canary at 50% on screen:\n${screen()}` });
      const text = screen();
      assert.equal(text.split('\n').filter((l) => l.startsWith('Name:')).length, 1, 'each frame overwrites the last');
      tmux(['send-keys', '-t', 'watch', 'C-c']);
      await eventually(async () => /EXITED 0/.test(screen()), { timeoutMs: 5_000, intervalMs: 100, message: () => `exit after Ctrl-C:\n${screen()}` });
    } finally {
      tmux(['kill-server']);
    }
  });
});
