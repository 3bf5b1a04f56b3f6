// The controller against a real control plane (etcd, kube-apiserver, kube-controller-manager),
// with the pod simulator standing in for the kubelet. One control plane for the whole file.
import { connectionOf } from '../../dev/connection-of.js';
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { KubeConfig, V1Deployment, V1Ingress, V1Lease, V1Service } from '@kubernetes/client-node';
import type { ControlPlane } from '../../dev/control-plane.js';
import { freePort } from '../../dev/free-port.js';
import type { KubeClients } from '../../dev/kube-clients.js';
import { startController } from '../../controller/controller.js';
import { kubectl } from '../support/kube.js';
import { useControllerCluster, type ControllerCluster } from '../support/controller-cluster.js';
import { appCount, condition, createApp, exists, getApp, newNamespace, observeFor, plain, testLogger } from '../support/apps.js';
import { reconcileCount, resyncsGoBy, sampleSum, sampleValue, scrape } from '../support/metrics.js';
import { eventually, until } from '../../dev/wait.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const RESYNC_MS = 2_000;

// The cluster of the suite below, for the helpers outside it.
let cluster: ControllerCluster;
let cp: ControlPlane;
let kc: KubeConfig;
let api: KubeClients;

const log = testLogger('controller');

async function patchApp(namespace: string, name: string, ops: object[]): Promise<void> {
  await kubectl(cp.kubeconfigPath, ['patch', 'app', name, '-n', namespace, '--type=json', '-p', JSON.stringify(ops)]);
}

const getDeployment = (ns: string, name: string) => api.apps.readNamespacedDeployment({ namespace: ns, name }) as Promise<V1Deployment>;
const getService = (ns: string, name: string) => api.core.readNamespacedService({ namespace: ns, name }) as Promise<V1Service>;
const getIngress = (ns: string, name: string) => api.networking.readNamespacedIngress({ namespace: ns, name }) as Promise<V1Ingress>;

/** The completed requests of the audit log (writes only: its policy leaves reads out). */
const auditEntries = () => readFileSync(cp.auditLogPath!, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l))
  .filter((e) => e.stage === 'ResponseComplete');

/** Writes (create, update, patch, delete) the controller sent to objects of a namespace, from the audit log. */
function controllerWrites(namespace: string, sinceMs: number): { verb: string; resource: string; name: string; at: string }[] {
  return auditEntries()
    .filter((e) => String(e.userAgent).startsWith('skiff-controller/'))
    .filter((e) => ['create', 'update', 'patch', 'delete'].includes(e.verb) && e.objectRef?.namespace === namespace)
    .filter((e) => Date.parse(e.requestReceivedTimestamp) >= sinceMs)
    .map((e) => ({ verb: e.verb, resource: [e.objectRef?.resource, e.objectRef?.subresource].filter(Boolean).join('/'), name: e.objectRef?.name, at: e.requestReceivedTimestamp }));
}

let markers = 0;

/**
 * Resolves once the audit log holds every write completed before the call. The API server logs a
 * request when it completes, which may be just after its client has the response: so this makes
 * a write of its own (a ConfigMap, which the controller ignores; as "skiff-test", not counted as
 * the controller's) and waits for that to show.
 */
async function auditLogCaughtUp(namespace: string): Promise<void> {
  const name = `audit-marker-${++markers}`;
  await api.core.createNamespacedConfigMap({ namespace, body: { metadata: { name } } });
  await until(() => assert.ok(auditEntries().some((e) => e.objectRef?.resource === 'configmaps' && e.objectRef?.namespace === namespace && e.objectRef?.name === name)),
    { timeoutMs: 10_000, intervalMs: 100, message: `the audit log to show ConfigMap ${namespace}/${name}` });
}

/** Lets `n` resyncs of the in-process controller go by (see resyncsGoBy). */
const controllerResyncs = (n: number, why: string) =>
  resyncsGoBy({ n, resyncMs: RESYNC_MS, reconciles: () => reconcileCount(cluster.controller), apps: () => appCount(api), why });

describe('controller (real control plane)', function () {
  this.timeout(60_000);

  cluster = useControllerCluster('controller', {
    cluster: { controllerManager: true, auditPolicy: true },
    controllers: () => [{ resyncMs: RESYNC_MS, watchBrokenLimitMs: 3_000, log }],
  });
  before(() => {
    ({ cp, kc, api } = cluster);
  });

  describe('owned objects', () => {
    it('creates the Deployment and Service of a minimal App, owned and labelled', async () => {
      const ns = await newNamespace(api);
      const app = await createApp(api, ns, 'web', { image: 'nginx:1.27' });
      const [deployment, service] = await eventually(async () => [await getDeployment(ns, 'web'), await getService(ns, 'web')] as const, { timeoutMs: 15_000, message: 'objects created' });
      const labels = { 'app.kubernetes.io/name': 'web', 'app.kubernetes.io/managed-by': 'skiff', 'skiff.dev/app': 'web', 'skiff.dev/track': 'stable' };
      const ownerReferences = [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: app.metadata.uid, controller: true, blockOwnerDeletion: true }];
      for (const obj of [deployment, service]) {
        assert.deepEqual(plain(obj.metadata!.ownerReferences), ownerReferences);
        for (const [k, v] of Object.entries(labels)) assert.equal(obj.metadata!.labels![k], v);
      }
      assert.deepEqual(deployment.spec!.selector.matchLabels, { 'skiff.dev/app': 'web', 'skiff.dev/track': 'stable' });
      assert.deepEqual(deployment.spec!.template.metadata!.labels, labels);
      assert.equal(deployment.spec!.replicas, 1);
      const c = deployment.spec!.template.spec!.containers[0];
      assert.deepEqual([c.name, c.image, c.ports![0].containerPort, c.ports![0].name], ['app', 'nginx:1.27', 8080, 'http']);
      assert.equal(c.readinessProbe, undefined);
      assert.equal(deployment.spec!.strategy!.type, 'RollingUpdate');
      assert.equal(deployment.spec!.progressDeadlineSeconds, 600);
      assert.equal(service.spec!.type, 'ClusterIP');
      assert.deepEqual(service.spec!.selector, { 'skiff.dev/app': 'web', 'skiff.dev/track': 'stable' });
      assert.deepEqual([service.spec!.ports![0].port, service.spec!.ports![0].targetPort, service.spec!.ports![0].name], [80, 'http', 'http']);
      assert.equal(await exists(() => getIngress(ns, 'web')), false);
    });

    it('renders every field of a full App, Ingress included', async () => {
      const ns = await newNamespace(api);
      await createApp(api, ns, 'web', {
        image: 'ghcr.io/acme/web:1.4.2', replicas: 2, port: 9090, command: ['/bin/web'], args: ['--verbose'],
        env: [{ name: 'MODE', value: 'prod' }], resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '256Mi' } },
        readinessPath: '/healthz', service: { type: 'NodePort', port: 8000 },
        ingress: { host: 'web.shop.example.com', path: '/', pathType: 'Prefix', className: 'nginx', tlsSecretName: 'web-tls' },
        rollout: { strategy: 'RollingUpdate', progressDeadlineSeconds: 300 },
      });
      // The stable objects are written in one round (act.ts): any of them may be the last to appear.
      const [ingress, deployment, service] = await eventually(() => Promise.all([getIngress(ns, 'web'), getDeployment(ns, 'web'), getService(ns, 'web')]).catch(() => undefined), { timeoutMs: 15_000, message: 'Ingress, Deployment and Service created' });
      const c = deployment.spec!.template.spec!.containers[0];
      assert.deepEqual(c.command, ['/bin/web']);
      assert.deepEqual(c.args, ['--verbose']);
      assert.deepEqual(plain(c.env), [{ name: 'MODE', value: 'prod' }]);
      assert.deepEqual(plain(c.resources), { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '256Mi' } });
      assert.equal(c.readinessProbe!.httpGet!.path, '/healthz');
      assert.equal(c.readinessProbe!.httpGet!.port, 9090);
      assert.equal(deployment.spec!.replicas, 2);
      assert.equal(deployment.spec!.progressDeadlineSeconds, 300);
      assert.equal(service.spec!.type, 'NodePort');
      assert.deepEqual([service.spec!.ports![0].port, service.spec!.ports![0].targetPort], [8000, 'http']);
      assert.equal(deployment.spec!.template.spec!.containers[0].ports![0].containerPort, 9090, 'the named port is the container port');
      assert.equal(ingress.spec!.ingressClassName, 'nginx');
      assert.deepEqual(plain(ingress.spec!.tls), [{ hosts: ['web.shop.example.com'], secretName: 'web-tls' }]);
      const rule = ingress.spec!.rules![0];
      assert.equal(rule.host, 'web.shop.example.com');
      assert.deepEqual(plain(rule.http!.paths[0].backend.service), { name: 'web', port: { number: 8000 } });
      assert.equal(ingress.metadata!.ownerReferences![0].kind, 'App');
      const app = await eventually(async () => {
        const a = await getApp(api, ns, 'web');
        assert.equal(a.status?.url, 'https://web.shop.example.com/');
        return a;
      }, { timeoutMs: 15_000, message: 'status.url' });
      assert.equal(app.status!.stableImage, 'ghcr.io/acme/web:1.4.2');
    });

    it('reports Ready once the pods are ready', async () => {
      const ns = await newNamespace(api);
      await createApp(api, ns, 'web', { image: 'nginx:1.27', replicas: 3 });
      const app = await eventually(async () => {
        const a = await getApp(api, ns, 'web');
        assert.equal(condition(a, 'Ready')?.status, 'True', JSON.stringify(a.status));
        return a;
      }, { timeoutMs: 45_000, message: 'Ready=True' });
      assert.equal(app.status!.ready, '3/3');
      assert.equal(app.status!.readyReplicas, 3);
      assert.equal(app.status!.observedGeneration, app.metadata.generation);
      assert.equal(condition(app, 'Ready')!.reason, 'Available');
      assert.equal(condition(app, 'Progressing')!.reason, 'RolloutComplete');
      assert.deepEqual([condition(app, 'Degraded')!.status, condition(app, 'Degraded')!.reason], ['False', 'AsExpected']);
      assert.equal(app.status!.url, undefined);
    });
  });

  describe('drift and changes', () => {
    let ns: string;
    before(async () => {
      ns = await newNamespace(api);
      await createApp(api, ns, 'web', { image: 'nginx:1.27', replicas: 2, ingress: { host: 'web.example.com' } });
      await eventually(() => getIngress(ns, 'web'), { timeoutMs: 15_000, message: 'objects created' });
    });

    it('scales a Deployment scaled by hand back to spec.replicas', async () => {
      await kubectl(cp.kubeconfigPath, ['scale', 'deployment', 'web', '-n', ns, '--replicas=7']);
      await until(async () => assert.equal((await getDeployment(ns, 'web')).spec!.replicas, 2), { timeoutMs: 10_000, message: 'replicas reverted' });
    });

    it('reverts a changed Service port and selector', async () => {
      await kubectl(cp.kubeconfigPath, ['patch', 'service', 'web', '-n', ns, '--type=json', '-p',
        JSON.stringify([{ op: 'replace', path: '/spec/ports/0/port', value: 81 }, { op: 'replace', path: '/spec/selector/skiff.dev~1track', value: 'canary' }])]);
      await until(async () => {
        const s = await getService(ns, 'web');
        assert.deepEqual(s.spec!.ports!.map((p) => p.port), [80]);
        assert.equal(s.spec!.selector!['skiff.dev/track'], 'stable');
      }, { timeoutMs: 10_000, message: 'Service reverted' });
    });

    it('removes a key added by hand to the Service selector (it would select no pod)', async () => {
      const selector = (await getService(ns, 'web')).spec!.selector;
      await kubectl(cp.kubeconfigPath, ['patch', 'service', 'web', '-n', ns, '--type=merge', '-p', JSON.stringify({ spec: { selector: { oops: 'x' } } })]);
      await until(async () => assert.deepEqual((await getService(ns, 'web')).spec!.selector, selector), { timeoutMs: 10_000, message: 'selector as the App has it' });
    });

    it('recreates a deleted Service', async () => {
      const before = await getService(ns, 'web');
      await api.core.deleteNamespacedService({ namespace: ns, name: 'web' });
      await until(async () => assert.notEqual((await getService(ns, 'web')).metadata!.uid, before.metadata!.uid), { timeoutMs: 10_000, message: 'Service recreated' });
    });

    it('applies App changes, including removed fields', async () => {
      await patchApp(ns, 'web', [{ op: 'add', path: '/spec/readinessPath', value: '/ready' }, { op: 'replace', path: '/spec/replicas', value: 1 }]);
      await until(async () => {
        const d = await getDeployment(ns, 'web');
        assert.equal(d.spec!.replicas, 1);
        assert.equal(d.spec!.template.spec!.containers[0].readinessProbe?.httpGet?.path, '/ready');
      }, { timeoutMs: 10_000, message: 'probe added' });
      await patchApp(ns, 'web', [{ op: 'remove', path: '/spec/readinessPath' }]);
      await until(async () => assert.equal((await getDeployment(ns, 'web')).spec!.template.spec!.containers[0].readinessProbe, undefined), { timeoutMs: 10_000, message: 'probe removed' });
      // The API server defaults fields inside a probe (httpGet.scheme, periods) that apply does not
      // take away (kubernetes/kubernetes#99037): a probe removed, or its handler changed, must still apply.
      await patchApp(ns, 'web', [{ op: 'add', path: '/spec/probes', value: { liveness: { httpGet: { path: '/live' } }, startup: { httpGet: { path: '/start' } } } }]);
      await until(async () => {
        const c = (await getDeployment(ns, 'web')).spec!.template.spec!.containers[0];
        assert.deepEqual([c.livenessProbe?.httpGet?.path, c.livenessProbe?.httpGet?.scheme, c.startupProbe?.httpGet?.path], ['/live', 'HTTP', '/start']);
      }, { timeoutMs: 10_000, message: 'liveness and startup probes added' });
      await patchApp(ns, 'web', [{ op: 'replace', path: '/spec/probes', value: { liveness: { tcpSocket: {} } } }]);
      await until(async () => {
        const c = (await getDeployment(ns, 'web')).spec!.template.spec!.containers[0];
        assert.deepEqual([c.livenessProbe?.httpGet, c.livenessProbe?.tcpSocket?.port, c.startupProbe], [undefined, 8080, undefined]);
      }, { timeoutMs: 10_000, message: 'liveness handler changed, startup probe removed' });
      const app = await getApp(api, ns, 'web');
      assert.equal(app.status?.conditions?.find((c) => c.type === 'Degraded')?.status, 'False', JSON.stringify(app.status?.conditions));
    });

    it('applies a volume whose source changed, an env var that no longer reads a pod field, and both removed', async () => {
      // The same mechanism as the probes above: the API server defaults configMap.defaultMode and
      // fieldRef.apiVersion, which apply leaves behind the old source, beside the new one.
      const pod = async () => (await getDeployment(ns, 'web')).spec!.template.spec!;
      await patchApp(ns, 'web', [
        { op: 'add', path: '/spec/env', value: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] },
        { op: 'add', path: '/spec/volumes', value: [{ name: 'cfg', mountPath: '/etc/cfg', configMap: { name: 'cfg', optional: true } }] },
      ]);
      await until(async () => {
        const p = await pod();
        assert.deepEqual([p.containers[0].env?.[0]?.valueFrom?.fieldRef?.apiVersion, p.volumes?.find((v) => v.name === 'cfg')?.configMap?.defaultMode], ['v1', 420]);
      }, { timeoutMs: 10_000, message: 'fieldRef env and configMap volume, defaulted by the API server' });
      await patchApp(ns, 'web', [
        { op: 'replace', path: '/spec/env', value: [{ name: 'POD', value: 'fixed' }] },
        { op: 'replace', path: '/spec/volumes', value: [{ name: 'cfg', mountPath: '/etc/cfg', emptyDir: {} }] },
      ]);
      await until(async () => {
        const p = await pod();
        const cfg = p.volumes?.find((v) => v.name === 'cfg');
        assert.deepEqual([p.containers[0].env?.[0]?.value, p.containers[0].env?.[0]?.valueFrom, cfg?.configMap, plain(cfg?.emptyDir)], ['fixed', undefined, undefined, {}]);
      }, { timeoutMs: 10_000, message: 'env now a value, volume now an emptyDir' });
      await patchApp(ns, 'web', [
        { op: 'replace', path: '/spec/env', value: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] },
        { op: 'replace', path: '/spec/volumes', value: [{ name: 'cfg', mountPath: '/etc/cfg', secret: { secretName: 'cfg', optional: true } }] },
      ]);
      await until(async () => {
        const p = await pod();
        assert.deepEqual([p.containers[0].env?.[0]?.valueFrom?.fieldRef?.fieldPath, p.volumes?.find((v) => v.name === 'cfg')?.secret?.secretName], ['metadata.name', 'cfg']);
      }, { timeoutMs: 10_000, message: 'back to fieldRef, volume now a secret' });
      await patchApp(ns, 'web', [{ op: 'remove', path: '/spec/env' }, { op: 'remove', path: '/spec/volumes' }]);
      await until(async () => {
        const p = await pod();
        assert.deepEqual([p.containers[0].env, p.volumes?.find((v) => v.name === 'cfg')], [undefined, undefined]);
      }, { timeoutMs: 10_000, message: 'env and volume removed' });
      const app = await getApp(api, ns, 'web');
      assert.equal(condition(app, 'Degraded')?.status, 'False', JSON.stringify(app.status?.conditions));
    });

    it('deletes the Ingress when spec.ingress is removed', async () => {
      await patchApp(ns, 'web', [{ op: 'remove', path: '/spec/ingress' }]);
      await until(async () => assert.equal(await exists(() => getIngress(ns, 'web')), false), { timeoutMs: 10_000, message: 'Ingress deleted' });
      await until(async () => assert.equal((await getApp(api, ns, 'web')).status?.url, undefined), { timeoutMs: 10_000, message: 'url cleared' });
    });
  });

  describe('ownership', () => {
    /** Creates the App web in the namespace and waits for it to report Degraded ResourceConflict. */
    const createdInConflict = async (ns: string) => {
      await createApp(api, ns, 'web', { image: 'nginx:1.27' });
      return eventually(async () => {
        const a = await getApp(api, ns, 'web');
        assert.equal(condition(a, 'Degraded')?.reason, 'ResourceConflict');
        return a;
      }, { timeoutMs: 15_000, message: 'Degraded=ResourceConflict' });
    };

    it('leaves a foreign Deployment of the same name alone and reports ResourceConflict', async () => {
      const ns = await newNamespace(api);
      const since = Date.now();
      await kubectl(cp.kubeconfigPath, ['create', 'deployment', 'web', '-n', ns, '--image=registry.example/foreign:1']);
      const before = await getDeployment(ns, 'web');
      const app = await createdInConflict(ns);
      assert.equal(condition(app, 'Degraded')!.status, 'True');
      assert.match(condition(app, 'Degraded')!.message, new RegExp(`Deployment ${ns}/web exists and is not owned by this App`));
      assert.equal(condition(app, 'Ready')!.status, 'False');
      // The Service is still the App's to create; the Deployment is untouched.
      await eventually(() => getService(ns, 'web'), { timeoutMs: 10_000, message: 'Service created' });
      // A window, not a poll: the foreign Deployment must NOT be written, and an absence has no
      // event to wait for. It ends once the reconcile counter shows a resync of every App gone by.
      await controllerResyncs(1, 'a resync of the conflicting App goes by without writing the foreign Deployment');
      // Its status moves (the Deployment controller runs it); what we could have written does not.
      const after = await getDeployment(ns, 'web');
      assert.equal(after.metadata!.generation, before.metadata!.generation);
      assert.deepEqual(plain(after.spec), plain(before.spec));
      assert.deepEqual(after.metadata!.labels, before.metadata!.labels);
      assert.equal(after.metadata!.ownerReferences, undefined);
      await auditLogCaughtUp(ns);
      assert.deepEqual(controllerWrites(ns, since).filter((w) => w.resource === 'deployments'), []);
      const events = await api.core.listNamespacedEvent({ namespace: ns, fieldSelector: 'reason=ResourceConflict' });
      assert.ok(events.items.some((e) => e.involvedObject.kind === 'App' && e.source?.component === 'skiff-controller'), 'a Warning Event on the App');
    });

    it('leaves a foreign ControllerRevision named as the first history entry alone, reports ResourceConflict, and still creates its objects', async () => {
      const ns = await newNamespace(api);
      const foreign = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'web-1', namespace: ns, labels: { owner: 'someone-else' } }, revision: 7, data: { mine: true } };
      await kubectl(cp.kubeconfigPath, ['create', '-f', '-'], JSON.stringify(foreign));
      const before = await kubectl(cp.kubeconfigPath, ['get', 'controllerrevision', 'web-1', '-n', ns, '-o', 'json']);
      const app = await createdInConflict(ns);
      assert.match(condition(app, 'Degraded')!.message, new RegExp(`ControllerRevision ${ns}/web-1 exists and is not owned by this App`));
      // The App's own objects are not held up by its history.
      await eventually(() => getDeployment(ns, 'web'), { timeoutMs: 10_000, message: 'Deployment created' });
      const after = await kubectl(cp.kubeconfigPath, ['get', 'controllerrevision', 'web-1', '-n', ns, '-o', 'json']);
      assert.deepEqual(JSON.parse(after), JSON.parse(before), 'the foreign ControllerRevision is untouched');
    });

    it('lets the garbage collector delete what a deleted App owned', async function () {
      // The garbage collector rediscovers resource types every 30 s: a CRD installed just before
      // may be unknown to it for that long.
      this.timeout(90_000);
      const ns = await newNamespace(api);
      await createApp(api, ns, 'web', { image: 'nginx:1.27', ingress: { host: 'web.example.com' } });
      await eventually(() => getIngress(ns, 'web'), { timeoutMs: 15_000, message: 'objects created' });
      await api.custom.deleteNamespacedCustomObject({ group: 'skiff.dev', version: 'v1alpha1', plural: 'apps', namespace: ns, name: 'web' });
      await until(async () => {
        assert.equal(await exists(() => getDeployment(ns, 'web')), false, 'Deployment');
        assert.equal(await exists(() => getService(ns, 'web')), false, 'Service');
        assert.equal(await exists(() => getIngress(ns, 'web')), false, 'Ingress');
      }, { timeoutMs: 60_000, message: 'owned objects garbage-collected' });
    });
  });

  describe('writes', () => {
    it('writes nothing when nothing changed (no-op resyncs)', async () => {
      const ns = await newNamespace(api);
      // Fields the API server stores in another form than the one written (a canonical quantity,
      // a request rounded up to milli scale, a number as a string, a 0 left out): still no write.
      await createApp(api, ns, 'quiet', {
        image: 'nginx:1.27', replicas: 2, ingress: { host: 'quiet.example.com' },
        resources: { requests: { cpu: '1.5m', memory: '1024Mi' }, limits: { memory: '2048Mi' } },
        volumes: [{ name: 'tmp', mountPath: '/tmp', emptyDir: { sizeLimit: '1024Mi' } }],
        env: [{ name: 'MEMORY', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: 1 } } }],
        probes: { readiness: { httpGet: { path: '/' }, initialDelaySeconds: 0 } },
      } as Parameters<typeof createApp>[3]);
      await until(async () => { const a = await getApp(api, ns, 'quiet'); assert.equal(condition(a, 'Ready')?.status, 'True', JSON.stringify(a.status?.conditions)); }, { timeoutMs: 45_000, message: 'Ready' });
      // Let the last status write and its watch event settle (a resync of every App after it means
      // the controller's cache has its own last write), then watch a few resyncs go by.
      await controllerResyncs(1, 'the last status write and its watch event settle');
      const since = Date.now();
      // A window, not a poll: no write may happen in it, and an absence has no event to wait for.
      // It ends once the reconcile counter shows two resyncs of every App gone by.
      const reconcilesBefore = await controllerResyncs(2, 'two resyncs go by and must write nothing');
      assert.ok((await reconcileCount(cluster.controller)) - reconcilesBefore >= 2, 'resyncs reconciled the Apps');
      await auditLogCaughtUp(ns); // the audit log is written as requests complete
      assert.deepEqual(controllerWrites(ns, since), []);
      assert.ok(controllerWrites(ns, 0).length > 0, 'the audit log does show the writes that created the objects');
    });
  });

  describe('resilience', () => {
    it('keeps working across an API server restart', async () => {
      const ns = await newNamespace(api);
      await createApp(api, ns, 'web', { image: 'nginx:1.27', replicas: 2 });
      await eventually(() => getDeployment(ns, 'web'), { timeoutMs: 15_000, message: 'Deployment created' });
      await cp.stopApiServer();
      await until(() => assert.match(cluster.controller.ready() ?? '', /watch down/), { timeoutMs: 15_000, message: 'readyz reports the broken watch' });
      await cp.startApiServer();
      // Changed at once, while the controller's watches are still reconnecting: resumed from their
      // last resourceVersion, they must not miss these.
      // (Custom resources may answer 503 for a moment after the API server reports ready.)
      await kubectl(cp.kubeconfigPath, ['scale', 'deployment', 'web', '-n', ns, '--replicas=5']);
      await until(() => patchApp(ns, 'web', [{ op: 'replace', path: '/spec/image', value: 'nginx:1.28' }]), { timeoutMs: 10_000, message: 'App patched' });
      await until(() => assert.equal(cluster.controller.ready(), undefined), { timeoutMs: 30_000, message: 'ready again' });
      await until(async () => {
        const d = await getDeployment(ns, 'web');
        assert.equal(d.spec!.replicas, 2, 'drift reverted');
        assert.equal(d.spec!.template.spec!.containers[0].image, 'nginx:1.28', 'App change applied');
      }, { timeoutMs: 20_000, message: 'changes made around the restart reconciled' });
    });
  });

  describe('leader election (controller processes)', () => {
    const LEASE_SECONDS = 6;
    const lease = { namespace: 'default', name: 'skiff-controller-leader' };
    const procs: Proc[] = [];

    interface Proc { child: ChildProcess; identity: Promise<string>; healthPort: number; metricsPort: number; exited: Promise<number | null> }

    async function startProcess(): Promise<Proc> {
      const [healthPort, metricsPort] = [await freePort(), await freePort()];
      const child = spawn(process.execPath, [
        join(root, 'dist/controller/main.js'), '--leader-elect', '--leader-election-namespace', lease.namespace,
        '--health-port', String(healthPort), '--metrics-port', String(metricsPort), '--resync-seconds', '2',
        '--leader-elect-lease-duration-seconds', String(LEASE_SECONDS), '--leader-elect-renew-deadline-seconds', '4', '--leader-elect-retry-period-seconds', '1',
      ], { env: { ...process.env, KUBECONFIG: cp.kubeconfigPath, SKIFF_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] });
      const identity = new Promise<string>((done) => {
        createInterface({ input: child.stdout! }).on('line', (line) => {
          try {
            const entry = JSON.parse(line);
            if (entry.msg === 'controller started') done(entry.identity);
          } catch {
            // not a log line
          }
        });
      });
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      const p = { child, identity, healthPort, metricsPort, exited };
      procs.push(p);
      return p;
    }

    const metric = async (p: Proc, name: string): Promise<number> => sampleValue(await scrape(p.metricsPort), name);
    /** Resolves once the process's caches are synced (/readyz), so that it could reconcile if it would. */
    const synced = (p: Proc, who: string) =>
      until(async () => assert.equal((await fetch(`http://127.0.0.1:${p.healthPort}/readyz`)).status, 200), { timeoutMs: 15_000, message: `${who}'s /readyz` });
    const holder = async () => ((await api.coordination.readNamespacedLease(lease)) as V1Lease).spec?.holderIdentity;

    before(async () => {
      // From here on only the processes reconcile.
      await cluster.stopController();
    });

    after(async () => {
      for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await Promise.all(procs.map((p) => p.exited));
    });

    it('runs one leader; the standby does not reconcile; SIGKILL fails over within the lease duration', async function () {
      this.timeout(90_000);
      const a = await startProcess();
      const idA = await a.identity;
      await until(async () => assert.equal(await holder(), idA), { timeoutMs: 15_000, message: 'a leads' });
      const b = await startProcess();
      const idB = await b.identity;
      const ns = await newNamespace(api);
      await createApp(api, ns, 'web', { image: 'nginx:1.27' });
      await eventually(() => getDeployment(ns, 'web'), { timeoutMs: 15_000, message: 'the leader reconciles' });
      await synced(b, 'the standby');
      // A window, not a poll: the standby must NOT reconcile, and an absence has no event to wait
      // for. It ends once the leader's reconcile counter shows a resync of every App gone by (the
      // processes resync every 2 s), which the standby would have reconciled too.
      await resyncsGoBy({
        n: 1, resyncMs: 2_000, apps: () => appCount(api),
        reconciles: async () => sampleSum(await scrape(a.metricsPort), 'skiff_controller_reconcile_total'),
        why: 'resyncs go by: the leader reconciles them, the standby must not',
      });
      // Both export the gauge, labelled with their shard ("" without --shard), the standby at 0.
      assert.equal(await metric(a, 'skiff_controller_leader{shard=""}'), 1);
      assert.equal(await metric(b, 'skiff_controller_leader{shard=""}'), 0);
      assert.match(await scrape(b.metricsPort), /^skiff_controller_leader\{shard=""\} 0$/m);
      assert.ok((await metric(a, 'skiff_controller_reconcile_total{result="success"}')) > 0);
      assert.equal(await metric(b, 'skiff_controller_reconcile_total{result="success"}'), 0, 'the standby never reconciled');
      // Its watches queue the Apps' keys as the leader's do, but it has no backlog to report.
      assert.equal(await metric(b, 'skiff_controller_workqueue_depth'), 0, 'the standby reports no queue it never drains');

      const killedAt = Date.now();
      a.child.kill('SIGKILL');
      await until(async () => assert.equal(await holder(), idB), { timeoutMs: (LEASE_SECONDS + 5) * 1000, intervalMs: 200, message: 'b takes over' });
      const failoverMs = Date.now() - killedAt;
      assert.ok(failoverMs <= (LEASE_SECONDS + 3) * 1000, `failover took ${failoverMs}ms`);
      await until(async () => assert.equal(await metric(b, 'skiff_controller_leader'), 1), { timeoutMs: 5_000, message: 'b reconciles' });
      await kubectl(cp.kubeconfigPath, ['scale', 'deployment', 'web', '-n', ns, '--replicas=4']);
      await until(async () => assert.equal((await getDeployment(ns, 'web')).spec!.replicas, 1), { timeoutMs: 10_000, message: 'the new leader reverts drift' });
    });

    it('releases the Lease on SIGTERM so that a standby takes over at once', async function () {
      this.timeout(60_000);
      const leaderProc = procs.find((p) => p.child.exitCode === null && p.child.signalCode === null)!;
      const leaderId = await leaderProc.identity;
      await until(async () => assert.equal(await holder(), leaderId), { timeoutMs: 15_000, message: 'leader holds the lease' });
      const standby = await startProcess();
      const standbyId = await standby.identity;
      // The standby up (caches synced; its elector started before it logged its identity), so that
      // what follows times the handover and not its start.
      await synced(standby, 'the standby');
      const stoppedAt = Date.now();
      leaderProc.child.kill('SIGTERM');
      assert.equal(await leaderProc.exited, 0, 'graceful exit');
      await until(async () => assert.equal(await holder(), standbyId), { timeoutMs: 10_000, intervalMs: 100, message: 'standby takes over' });
      const takeoverMs = Date.now() - stoppedAt;
      assert.ok(takeoverMs < (LEASE_SECONDS * 1000) / 2, `took ${takeoverMs}ms, well under the lease duration`);
    });
  });

  describe('timers', () => {
    it('an App paused for 1000 h costs no more reconciles than one paused for 1 minute', async function () {
      this.timeout(150_000);
      // Each App has a controller of its own (a shard of one App), so that each reconcile counter
      // counts one App, and no resync adds to it. Their validation is off: the rules bound a pause
      // to 24 h, and what is tested is the timer, as for an App stored before such a rule existed.
      const start = (shard: string) => startController({ connection: connectionOf(kc), shard, resyncMs: 0, validateApps: false, log });
      const minute = await start('pause-1m');
      const long = await start('pause-1000h');
      const apps: { ns: string; name: string }[] = [];
      try {
        const paused = async (shard: string, duration: string) => {
          const ns = await newNamespace(api, 'p');
          apps.push({ ns, name: 'web' });
          await createApp(api, ns, 'web', {
            image: 'registry.example/web:1',
            ingress: { host: `${ns}.example.com` },
            rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: { duration } }] },
          }, { labels: { 'skiff.dev/shard': shard } });
          await until(async () => assert.equal(condition(await getApp(api, ns, 'web'), 'Ready')?.status, 'True'), { timeoutMs: 45_000, message: `${shard}: Ready` });
          await patchApp(ns, 'web', [{ op: 'replace', path: '/spec/image', value: 'registry.example/web:2' }]);
          await until(async () => {
            const a = await getApp(api, ns, 'web');
            assert.equal(a.status?.canary?.stepIndex, 1);
            assert.equal(condition(a, 'Progressing')?.reason, 'CanaryPaused');
          }, { timeoutMs: 45_000, message: `${shard}: paused` });
        };
        await Promise.all([paused('pause-1m', '1m'), paused('pause-1000h', '1000h')]);
        const before = [await reconcileCount(minute), await reconcileCount(long)];
        // A window, not a poll: what is measured is how often each App comes back by itself.
        await observeFor(3_000, 'two paused canaries: what their requeues cost');
        const [m, l] = [(await reconcileCount(minute)) - before[0], (await reconcileCount(long)) - before[1]];
        assert.ok(l <= m + 3, `1000 h pause: ${l} reconciles in 3 s; 1 min pause: ${m}`);
        assert.equal(condition(await getApp(api, apps[1].ns, 'web'), 'Progressing')?.reason, 'CanaryPaused', 'still paused');
      } finally {
        await Promise.all([minute.stop(), long.stop()]);
        // Gone before other tests count the Apps the main controller resyncs.
        for (const { ns, name } of apps) {
          await api.custom.deleteNamespacedCustomObject({ group: 'skiff.dev', version: 'v1alpha1', plural: 'apps', namespace: ns, name }).catch(() => undefined);
        }
      }
    });
  });
});
