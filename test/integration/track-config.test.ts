// spec.rollout.trackConfig on a real control plane (etcd, kube-apiserver, kube-controller-manager)
// with the pod simulator standing in for the kubelet. The controller runs with nothing but the
// default bundle's RBAC (its ServiceAccount's token): ConfigMap verbs, and no Secret verb at all,
// so a Secret read would be refused (403) and show as an error.
import { connectionOf } from '../../dev/connection-of.js';
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { CoreV1Api, KubeConfig, type V1ConfigMap, type V1Deployment, type V1PodTemplateSpec } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { startController, type Controller } from '../../controller/controller.js';
import { makeKubeClients, type KubeClients } from '../../dev/kube-clients.js';
import type { AppSpec } from '../../shared/app-types.js';
import { loadKubeConfig } from '../../shared/kubeconfig.js';
import { condition, createApp, exists, getApp, newNamespace, testLogger } from '../support/apps.js';
import { kustomize, repoRoot, type K8sObject } from '../support/bundle.js';
import { useControllerCluster } from '../support/controller-cluster.js';
import { kubectl } from '../support/kube.js';
import { eventually, until } from '../../dev/wait.js';

const yamlOf = (objects: object[]) => objects.map((o) => stringify(o)).join('---\n');

/** config/default with config/components/track-secrets, built as a user's overlay. */
function withTrackSecrets(): K8sObject[] {
  const overlay = mkdtempSync(join(tmpdir(), 'skiff-track-secrets-'));
  try {
    const from = (p: string) => relative(overlay, join(repoRoot, p));
    writeFileSync(join(overlay, 'kustomization.yaml'), stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: [from('config/default')], components: [from('config/components/track-secrets')] }));
    return kustomize(relative(repoRoot, overlay));
  } finally {
    rmSync(overlay, { recursive: true, force: true });
  }
}

/** A kubeconfig with the token of a ServiceAccount of skiff-system. */
async function serviceAccountKubeConfig(admin: KubeConfig, name: string): Promise<KubeConfig> {
  const token = await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({ namespace: 'skiff-system', name, body: { spec: { audiences: [], expirationSeconds: 3600 } } });
  const kc = new KubeConfig();
  const server = admin.getCurrentCluster()!;
  kc.loadFromOptions({
    clusters: [{ name: 'test', server: server.server, caData: server.caData }],
    users: [{ name, token: token.status!.token }],
    contexts: [{ name: 'test', cluster: 'test', user: name }],
    currentContext: 'test',
  });
  return kc;
}

/** The ConfigMap names a pod template references, by where: env, envFrom and the volume. */
function configMapsOf(t: V1PodTemplateSpec | undefined): { env?: string; envFrom?: string; volume?: string } {
  const c = t?.spec?.containers[0];
  return {
    env: c?.env?.find((e) => e.name === 'GREETING')?.valueFrom?.configMapKeyRef?.name,
    envFrom: c?.envFrom?.[0]?.configMapRef?.name,
    volume: t?.spec?.volumes?.find((v) => v.name === 'cfg')?.configMap?.name,
  };
}
const onCopy = (copy: string) => ({ env: copy, envFrom: copy, volume: copy });

function trackedSpec(trackConfig: boolean): AppSpec {
  return {
    image: 'registry.example/web:1',
    replicas: 2,
    ingress: { host: 'web.example.com' },
    env: [{ name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'web-cfg', key: 'greeting' } } }],
    envFrom: [{ configMapRef: { name: 'web-cfg' } }],
    volumes: [{ name: 'cfg', mountPath: '/etc/web', configMap: { name: 'web-cfg' } }],
    rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, trackConfig, steps: [{ setWeight: 50 }, { pause: {} }] },
  };
}

describe('tracked configuration (real control plane)', function () {
  this.timeout(120_000);
  const cluster = useControllerCluster('track-config', { cluster: { controllerManager: true } });
  let api: KubeClients;
  let controller: Controller | undefined;

  before(async function () {
    this.timeout(60_000);
    api = cluster.api;
    // The default bundle's RBAC, and a kubeconfig with its ServiceAccount's token.
    const bundle = kustomize('config/default');
    const rbac = bundle.filter((o) => ['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'].includes(o.kind));
    await kubectl(cluster.cp.kubeconfigPath, ['apply', '--server-side', '-f', '-'], yamlOf(rbac));
    const admin = loadKubeConfig({ path: cluster.cp.kubeconfigPath });
    const kc = await serviceAccountKubeConfig(admin, 'skiff-controller');
    await assert.rejects(makeKubeClients(kc, 'skiff-test').core.listSecretForAllNamespaces(), (err: { code?: number }) => err.code === 403, 'the controller may not read Secrets');
    controller = await startController({ connection: connectionOf(kc), log: testLogger('controller'), resyncMs: 30_000, watchBrokenLimitMs: 5_000 });
    await until(() => assert.equal(controller!.ready(), undefined), { timeoutMs: 30_000, message: 'controller ready' });
  });

  let secretsController: Controller | undefined;
  after(async () => {
    await controller?.stop();
    await secretsController?.stop();
  });

  const deployment = (ns: string, name: string) => api.apps.readNamespacedDeployment({ namespace: ns, name }).catch((err) => (err.code === 404 ? undefined : Promise.reject(err))) as Promise<V1Deployment | undefined>;
  const configMap = (ns: string, name: string) => api.core.readNamespacedConfigMap({ namespace: ns, name });
  const copiesOf = async (ns: string) => (await api.core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'skiff.dev/app=web' })).items.map((c) => c.metadata!.name!).sort();
  const setGreeting = (ns: string, greeting: string) =>
    kubectl(cluster.cp.kubeconfigPath, ['patch', 'configmap', 'web-cfg', '-n', ns, '--type=merge', '-p', JSON.stringify({ data: { greeting } })]);
  /** Runs the built kubectl plugin; resolves with its exit code and output. */
  const plugin = (args: string[]) => new Promise<{ code: number; out: string }>((done) =>
    execFile(join(repoRoot, 'cli', 'kubectl-skiff'), [...args, '--kubeconfig', cluster.cp.kubeconfigPath], (err, stdout, stderr) =>
      done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` })));
  const annotate = (ns: string, annotation: string) => kubectl(cluster.cp.kubeconfigPath, ['annotate', 'app', 'web', '-n', ns, `${annotation}=true`]);

  /** A namespace with web-cfg and the App web, its first version Ready; resolves with the stable copy's name. */
  async function readyApp(trackConfig: boolean): Promise<{ ns: string; copy: string }> {
    const ns = await newNamespace(api, 'tc');
    await api.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'web-cfg' }, data: { greeting: 'hello' } } });
    await createApp(api, ns, 'web', trackedSpec(trackConfig));
    const app = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return condition(a, 'Ready')?.status === 'True' && a.status?.stableRevision !== undefined && a;
    }, { timeoutMs: 40_000, message: 'the first version Ready' });
    assert.equal(condition(app, 'Degraded')?.status, 'False', JSON.stringify(app.status?.conditions));
    const stable = await deployment(ns, 'web');
    return { ns, copy: configMapsOf(stable?.spec?.template).volume! };
  }

  it('copies a referenced ConfigMap, rolls its change out as a canary on a new copy while stable keeps the old one, and deletes the old copy after the promotion', async () => {
    const { ns, copy: first } = await readyApp(true);
    assert.match(first, /^web-cfg-[0-9a-f]{10}$/);
    const stable = await deployment(ns, 'web');
    assert.deepEqual(configMapsOf(stable?.spec?.template), onCopy(first), 'env, envFrom and the volume on the copy');
    const copy: V1ConfigMap = await configMap(ns, first);
    assert.equal(copy.immutable, true);
    assert.deepEqual(copy.data, { greeting: 'hello' });
    assert.equal(copy.metadata?.labels?.['skiff.dev/app'], 'web');
    const app = await getApp(api, ns, 'web');
    assert.deepEqual(copy.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]), [['App', 'web', app.metadata.uid, true]]);
    assert.equal(condition(app, 'ConfigTracked')?.status, 'True');

    await setGreeting(ns, 'bonjour');
    const canary = await eventually(async () => {
      const d = await deployment(ns, 'web-canary');
      return d && configMapsOf(d.spec?.template).volume !== first && d;
    }, { timeoutMs: 30_000, message: 'a canary on a new copy' });
    const second = configMapsOf(canary.spec?.template).volume!;
    assert.match(second, /^web-cfg-[0-9a-f]{10}$/);
    assert.deepEqual(configMapsOf(canary.spec?.template), onCopy(second));
    assert.deepEqual((await configMap(ns, second)).data, { greeting: 'bonjour' });
    assert.deepEqual(configMapsOf((await deployment(ns, 'web'))?.spec?.template), onCopy(first), 'stable keeps the old copy during the canary');
    const during = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return a.status?.canary?.stepIndex === 1 && a;
    }, { timeoutMs: 30_000, message: 'the canary at its pause' });
    assert.deepEqual(during.status?.canary?.changes, ['configMap web-cfg']);
    assert.deepEqual(await copiesOf(ns), [first, second].sort(), 'both copies while both run');

    await annotate(ns, 'skiff.dev/promote');
    await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return !a.status?.canary && configMapsOf((await deployment(ns, 'web'))?.spec?.template).volume === second && !(await deployment(ns, 'web-canary'));
    }, { timeoutMs: 40_000, message: 'the promotion: stable on the new copy, the canary gone' });
    await eventually(async () => !(await exists(() => configMap(ns, first))), { timeoutMs: 20_000, message: 'the old copy deleted' });
    assert.deepEqual(await copiesOf(ns), [second]);
    assert.equal((await configMap(ns, 'web-cfg')).data?.greeting, 'bonjour', 'the source is left alone');

    // Revision 1 differs only in the source's data, which lives in the ConfigMap: the plugin
    // says so and writes nothing, rather than patching the App with what it has already.
    const generation = (await getApp(api, ns, 'web')).metadata.generation;
    const undo = await plugin(['undo', 'web', '-n', ns]);
    assert.equal(undo.code, 1, undo.out);
    assert.match(undo.out, /revision 1 .*\(configMap web-cfg\), which undo cannot put back/);
    assert.equal((await getApp(api, ns, 'web')).metadata.generation, generation, 'nothing written');
  });

  it('stable\'s copy deleted by hand during a canary of a renamed reference is made again from its source, which still holds its data', async () => {
    const { ns, copy: first } = await readyApp(true);
    await api.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'web-cfg-v2' }, data: { greeting: 'hej' } } });
    const renamed = trackedSpec(true);
    renamed.env = [{ name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'web-cfg-v2', key: 'greeting' } } }];
    renamed.envFrom = [{ configMapRef: { name: 'web-cfg-v2' } }];
    renamed.volumes = [{ name: 'cfg', mountPath: '/etc/web', configMap: { name: 'web-cfg-v2' } }];
    await kubectl(cluster.cp.kubeconfigPath, ['patch', 'app', 'web', '-n', ns, '--type=merge', '-p', JSON.stringify({ spec: { env: renamed.env, envFrom: renamed.envFrom, volumes: renamed.volumes } })]);
    await eventually(async () => (await getApp(api, ns, 'web')).status?.canary?.stepIndex === 1, { timeoutMs: 30_000, message: 'the canary of web-cfg-v2 at its pause' });
    assert.deepEqual(configMapsOf((await deployment(ns, 'web'))?.spec?.template), onCopy(first), 'stable on its copy of web-cfg');
    const uid = (await configMap(ns, first)).metadata!.uid;
    await api.core.deleteNamespacedConfigMap({ namespace: ns, name: first });
    const again = await eventually(async () => {
      const c = await configMap(ns, first).catch(() => undefined);
      return c && c.metadata?.uid !== uid && c;
    }, { timeoutMs: 20_000, message: 'stable\'s copy made again' });
    assert.deepEqual(again.data, { greeting: 'hello' });
    assert.equal(again.immutable, true);
    const app = await getApp(api, ns, 'web');
    assert.equal(condition(app, 'ConfigTracked')?.status, 'True', JSON.stringify(condition(app, 'ConfigTracked')));
  });

  it('a copy in use that someone takes from the App (its ownerReference removed, then deleted and made again with other data) is reported at once as ResourceConflict, left alone, and made again once that object goes', async () => {
    const { ns, copy } = await readyApp(true);
    await kubectl(cluster.cp.kubeconfigPath, ['patch', 'configmap', copy, '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/metadata/ownerReferences"}]']);
    await api.core.deleteNamespacedConfigMap({ namespace: ns, name: copy });
    // Skiff may make the copy again first, between the two: then this create is refused, and so is the test's premise.
    const made = await api.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: copy }, data: { greeting: 'evil' } } }).then(() => true, () => false);
    if (made) {
      // Well within the controller's 30 s resync: the events of the copy bring the App.
      const tracked = await eventually(async () => {
        const c = condition(await getApp(api, ns, 'web'), 'ConfigTracked');
        return c?.reason === 'ResourceConflict' && c;
      }, { timeoutMs: 10_000, message: 'ConfigTracked says the copy is taken' });
      assert.equal(tracked.status, 'False');
      assert.deepEqual((await configMap(ns, copy)).data, { greeting: 'evil' }, 'not written over');
      await api.core.deleteNamespacedConfigMap({ namespace: ns, name: copy });
    }
    const again = await eventually(async () => {
      const c = await configMap(ns, copy).catch(() => undefined);
      return c?.metadata?.ownerReferences?.length && c;
    }, { timeoutMs: 45_000, message: 'the copy made again' });
    assert.deepEqual(again.data, { greeting: 'hello' });
    await eventually(async () => condition(await getApp(api, ns, 'web'), 'ConfigTracked')?.status === 'True', { timeoutMs: 10_000, message: 'ConfigTracked again' });
  });

  it('keeps the old copy and deletes the new one when the canary is aborted', async () => {
    const { ns, copy: first } = await readyApp(true);
    await setGreeting(ns, 'hola');
    const canary = await eventually(async () => {
      const d = await deployment(ns, 'web-canary');
      return d && configMapsOf(d.spec?.template).volume !== first && d;
    }, { timeoutMs: 30_000, message: 'a canary on a new copy' });
    const second = configMapsOf(canary.spec?.template).volume!;
    await annotate(ns, 'skiff.dev/abort');
    const app = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return condition(a, 'Degraded')?.reason === 'RolloutAborted' && !(await deployment(ns, 'web-canary')) && a;
    }, { timeoutMs: 40_000, message: 'the abort, and the canary Deployment gone' });
    assert.ok(app.status?.abortedRevision);
    await eventually(async () => !(await exists(() => configMap(ns, second))), { timeoutMs: 20_000, message: 'the new copy deleted' });
    assert.deepEqual(await copiesOf(ns), [first], 'the old copy stays');
    assert.deepEqual(configMapsOf((await deployment(ns, 'web'))?.spec?.template), onCopy(first), 'stable still on the old copy');
  });

  it('a source deleted during a canary: the canary goes on on its copy, and an abort still takes the traffic back; then ConfigNotFound, and the canary\'s copy goes', async () => {
    const { ns, copy: first } = await readyApp(true);
    // The canary's pods outlive its abort by 2 s (status.scaleDown), the source gone meanwhile.
    await kubectl(cluster.cp.kubeconfigPath, ['patch', 'app', 'web', '-n', ns, '--type=merge', '-p', JSON.stringify({ spec: { rollout: { scaleDownDelaySeconds: 2 } } })]);
    await setGreeting(ns, 'salut');
    await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return a.status?.canary?.stepIndex === 1 && a;
    }, { timeoutMs: 30_000, message: 'the canary at its pause' });
    const canaryCopy = configMapsOf((await deployment(ns, 'web-canary'))?.spec?.template).volume!;
    assert.notEqual(canaryCopy, first);
    await api.core.deleteNamespacedConfigMap({ namespace: ns, name: 'web-cfg' });
    await annotate(ns, 'skiff.dev/abort');
    const aborted = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return a.status?.abortedRevision !== undefined && !a.status.canary && !(await deployment(ns, 'web-canary')) && a;
    }, { timeoutMs: 40_000, message: 'the abort acted on, the canary gone' });
    assert.ok(!aborted.metadata.annotations?.['skiff.dev/abort'], 'the abort annotation consumed');
    assert.deepEqual(configMapsOf((await deployment(ns, 'web'))?.spec?.template), onCopy(first), 'stable still on its copy');
    await eventually(async () => condition(await getApp(api, ns, 'web'), 'Degraded')?.reason === 'ConfigNotFound', { timeoutMs: 20_000, message: 'then Degraded ConfigNotFound: nothing new without the source' });
    // No Deployment uses the aborted canary's copy any more: it goes, stable's stays.
    await eventually(async () => !(await exists(() => configMap(ns, canaryCopy))), { timeoutMs: 20_000, message: 'the aborted canary\'s copy deleted' });
    assert.ok(await exists(() => configMap(ns, first)), 'stable\'s copy stays');
    const after = await getApp(api, ns, 'web');
    assert.equal(after.status?.scaleDown, undefined, 'no scale-down left over');
    assert.equal(condition(after, 'Degraded')?.reason, 'ConfigNotFound');
  });

  it('gives each App that shares a ConfigMap its own copy: no conflict, and one App pruning its copies leaves the other\'s', async () => {
    const { ns, copy: webCopy } = await readyApp(true);
    await createApp(api, ns, 'api', { ...trackedSpec(true), ingress: { host: 'api.example.com' } });
    const app = await eventually(async () => {
      const a = await getApp(api, ns, 'api');
      return condition(a, 'Ready')?.status === 'True' && a.status?.stableRevision !== undefined && a;
    }, { timeoutMs: 40_000, message: 'the second App Ready' });
    assert.equal(condition(app, 'Degraded')?.status, 'False', JSON.stringify(app.status?.conditions));
    const apiCopy = configMapsOf((await deployment(ns, 'api'))?.spec?.template).volume!;
    assert.match(apiCopy, /^web-cfg-[0-9a-f]{10}$/);
    assert.notEqual(apiCopy, webCopy);
    assert.deepEqual(configMapsOf((await deployment(ns, 'api'))?.spec?.template), onCopy(apiCopy));
    assert.deepEqual((await configMap(ns, apiCopy)).metadata?.ownerReferences?.map((r) => r.name), ['api']);
    assert.deepEqual((await configMap(ns, apiCopy)).data, { greeting: 'hello' });

    // A change of the shared source: each App canaries it on a copy of its own.
    await setGreeting(ns, 'hola');
    const canaryCopy = (name: string) => eventually(async () => {
      const d = await deployment(ns, `${name}-canary`);
      return d && configMapsOf(d.spec?.template).volume;
    }, { timeoutMs: 30_000, message: `${name}'s canary` });
    const [webNext, apiNext] = [await canaryCopy('web'), await canaryCopy('api')];
    assert.ok(![webCopy, apiCopy, apiNext].includes(webNext), `${webNext} is web's alone`);
    // web promoted: it prunes its old copy; api, still mid-canary, keeps both of its own.
    await annotate(ns, 'skiff.dev/promote');
    await eventually(async () => !(await exists(() => configMap(ns, webCopy))), { timeoutMs: 40_000, message: 'web\'s old copy pruned after its promotion' });
    assert.deepEqual(configMapsOf((await deployment(ns, 'web'))?.spec?.template), onCopy(webNext));
    assert.ok(await exists(() => configMap(ns, apiCopy)), 'api\'s stable copy stays');
    assert.ok(await exists(() => configMap(ns, apiNext)), 'api\'s canary copy stays');
    assert.deepEqual(configMapsOf((await deployment(ns, 'api'))?.spec?.template), onCopy(apiCopy));
    assert.equal(condition(await getApp(api, ns, 'api'), 'Degraded')?.status, 'False');
  });

  it('leaves an App without trackConfig as it is when its ConfigMap changes: no new revision, the source referenced', async () => {
    const { ns, copy } = await readyApp(false);
    assert.equal(copy, 'web-cfg', 'the source itself');
    const before = await getApp(api, ns, 'web');
    await setGreeting(ns, 'hallo');
    // A change outside the pod template: once it is observed, the controller has looked at the App after the edit.
    await kubectl(cluster.cp.kubeconfigPath, ['patch', 'app', 'web', '-n', ns, '--type=merge', '-p', '{"spec":{"replicas":3}}']);
    const after = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return a.status?.observedGeneration === a.metadata.generation && (await deployment(ns, 'web'))?.spec?.replicas === 3 && a;
    }, { timeoutMs: 30_000, message: 'the replicas change applied' });
    assert.equal(after.status?.stableRevision, before.status?.stableRevision, 'no new revision');
    assert.equal(after.status?.canary, undefined);
    assert.equal(await deployment(ns, 'web-canary'), undefined);
    assert.deepEqual(configMapsOf((await deployment(ns, 'web'))?.spec?.template), onCopy('web-cfg'));
    assert.deepEqual(await copiesOf(ns), [], 'no copies');
    assert.equal(condition(after, 'ConfigTracked'), undefined);
  });

  it('without --track-secrets reads no Secret: the reference stays on the Secret and the status says so', async () => {
    const ns = await newNamespace(api, 'tc');
    await api.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'db-creds' }, stringData: { password: 's3cret' } } });
    await api.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'web-cfg' }, data: { greeting: 'hello' } } });
    const spec = trackedSpec(true);
    spec.env = [...spec.env!, { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db-creds', key: 'password' } } }];
    await createApp(api, ns, 'web', spec);
    const app = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return condition(a, 'Ready')?.status === 'True' && condition(a, 'ConfigTracked') && a;
    }, { timeoutMs: 40_000, message: 'the App Ready' });
    const tracked = condition(app, 'ConfigTracked')!;
    assert.equal(tracked.status, 'False');
    assert.equal(tracked.reason, 'SecretsNotTracked');
    assert.match(tracked.message, /--track-secrets.*secret db-creds/);
    assert.equal(condition(app, 'Degraded')?.status, 'False', 'no refused request (the controller has no Secret verb)');
    const template = (await deployment(ns, 'web'))?.spec?.template;
    assert.equal(template?.spec?.containers[0].env?.find((e) => e.name === 'PASSWORD')?.valueFrom?.secretKeyRef?.name, 'db-creds');
    assert.match(configMapsOf(template).volume!, /^web-cfg-[0-9a-f]{10}$/, 'the ConfigMap is still tracked');
    const restarts = await controller!.metrics.registry.getSingleMetricAsString('skiff_controller_watch_restarts_total').catch(() => '');
    assert.doesNotMatch(restarts, /secrets/, 'no watch of Secrets was tried');
  });

  it('is Degraded ConfigNotFound for a missing source and renders nothing, then goes on once it is created', async () => {
    const ns = await newNamespace(api, 'tc');
    await createApp(api, ns, 'web', trackedSpec(true));
    const app = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return condition(a, 'Degraded')?.reason === 'ConfigNotFound' && a;
    }, { timeoutMs: 30_000, message: 'Degraded ConfigNotFound' });
    assert.match(condition(app, 'Degraded')!.message, /configMap web-cfg/);
    assert.equal(await deployment(ns, 'web'), undefined, 'nothing rendered with a dangling reference');
    await api.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'web-cfg' }, data: { greeting: 'hello' } } });
    const recovered = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return condition(a, 'Ready')?.status === 'True' && a;
    }, { timeoutMs: 40_000, message: 'Ready once the ConfigMap exists' });
    assert.equal(condition(recovered, 'Degraded')?.status, 'False');
    assert.match(configMapsOf((await deployment(ns, 'web'))?.spec?.template).volume!, /^web-cfg-[0-9a-f]{10}$/);
  });

  it('leaves a missing optional source out, as Kubernetes would, instead of waiting for it', async () => {
    const ns = await newNamespace(api, 'tc');
    const spec = trackedSpec(true);
    spec.env = [{ name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'web-cfg', key: 'greeting', optional: true } } }];
    spec.envFrom = [{ configMapRef: { name: 'web-cfg', optional: true } }];
    spec.volumes = [{ name: 'cfg', mountPath: '/etc/web', configMap: { name: 'web-cfg', optional: true } }];
    await createApp(api, ns, 'web', spec);
    await eventually(async () => condition(await getApp(api, ns, 'web'), 'Ready')?.status === 'True', { timeoutMs: 40_000, message: 'Ready without the optional ConfigMap' });
    const template = (await deployment(ns, 'web'))?.spec?.template;
    assert.equal(template?.spec?.containers[0].env, undefined);
    assert.equal(template?.spec?.containers[0].envFrom, undefined);
    assert.deepEqual(template?.spec?.volumes?.map((v) => [v.name, v.emptyDir !== undefined]), [['cfg', true]]);
  });

  it('with --track-secrets and the RBAC of config/components/track-secrets, copies Secrets too and canaries their changes', async () => {
    // A controller of its own (shard "secrets"), under the component's role bound to a ServiceAccount of its own.
    const role = withTrackSecrets().find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'skiff-controller-role')!;
    const account = 'skiff-controller-secrets';
    await kubectl(cluster.cp.kubeconfigPath, ['apply', '--server-side', '-f', '-'], yamlOf([
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account, namespace: 'skiff-system' } },
      { ...role, metadata: { ...role.metadata, name: account } },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: account }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: account }, subjects: [{ kind: 'ServiceAccount', name: account, namespace: 'skiff-system' }] },
    ]));
    const kc = await serviceAccountKubeConfig(loadKubeConfig({ path: cluster.cp.kubeconfigPath }), account);
    secretsController = await startController({ connection: connectionOf(kc), shard: 'secrets', trackSecrets: true, log: testLogger('controller'), resyncMs: 30_000, watchBrokenLimitMs: 5_000 });
    await until(() => assert.equal(secretsController!.ready(), undefined), { timeoutMs: 30_000, message: 'the --track-secrets controller ready' });

    const ns = await newNamespace(api, 'tc');
    await api.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'db-creds' }, stringData: { password: 'one' } } });
    await api.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'web-cfg' }, data: { greeting: 'hello' } } });
    const spec = trackedSpec(true);
    spec.env = [...spec.env!, { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db-creds', key: 'password' } } }];
    await createApp(api, ns, 'web', spec, { labels: { 'skiff.dev/shard': 'secrets' } });
    const passwordFrom = (t: V1PodTemplateSpec | undefined) => t?.spec?.containers[0].env?.find((e) => e.name === 'PASSWORD')?.valueFrom?.secretKeyRef?.name;
    const app = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return condition(a, 'Ready')?.status === 'True' && a;
    }, { timeoutMs: 40_000, message: 'the App Ready' });
    assert.equal(condition(app, 'ConfigTracked')?.status, 'True', JSON.stringify(app.status?.conditions));
    assert.equal(condition(app, 'Degraded')?.status, 'False');
    const first = passwordFrom((await deployment(ns, 'web'))?.spec?.template)!;
    assert.match(first, /^db-creds-[0-9a-f]{10}$/);
    const copy = await api.core.readNamespacedSecret({ namespace: ns, name: first });
    assert.equal(copy.immutable, true);
    assert.equal(Buffer.from(copy.data!.password, 'base64').toString(), 'one');
    assert.equal(copy.metadata?.labels?.['skiff.dev/shard'], 'secrets');

    await kubectl(cluster.cp.kubeconfigPath, ['patch', 'secret', 'db-creds', '-n', ns, '--type=merge', '-p', JSON.stringify({ stringData: { password: 'two' } })]);
    const canary = await eventually(async () => {
      const d = await deployment(ns, 'web-canary');
      return d && passwordFrom(d.spec?.template) !== first && d;
    }, { timeoutMs: 30_000, message: 'a canary on a new Secret copy' });
    assert.equal(passwordFrom((await deployment(ns, 'web'))?.spec?.template), first, 'stable keeps the old Secret copy');
    const second = passwordFrom(canary.spec?.template)!;
    assert.equal(Buffer.from((await api.core.readNamespacedSecret({ namespace: ns, name: second })).data!.password, 'base64').toString(), 'two');
    const during = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return a.status?.canary?.stepIndex === 1 && a;
    }, { timeoutMs: 30_000, message: 'the canary at its pause' });
    assert.deepEqual(during.status?.canary?.changes, ['secret db-creds']);
  });
});
