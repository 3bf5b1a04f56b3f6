// The dashboard's Objects section beyond workloads and routing: the PodDisruptionBudget, the
// HorizontalPodAutoscaler and trackConfig's ConfigMap copies, each in the version the cluster
// serves (discovery), kept slim (no ConfigMap data, no Secret named), and left out without a
// banner where the cluster does not serve the kind or the user may not list it.
import { strict as assert } from 'node:assert';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, makeApi, type Api } from '../../cli/api.js';
import { servedVersions, watchPaths } from '../../cli/dashboard/scope.js';
import { startDashboard } from '../../cli/dashboard/server.js';
import { slimConfigMap, slimDeployment } from '../../cli/dashboard/slim.js';
import { DashboardStore } from '../../cli/dashboard/store.js';
import { detail } from '../../cli/dashboard/views.js';
import type { CliApp } from '../../cli/model.js';
import { ANNOTATION_CONFIG_COPIES, LABEL_APP } from '../../shared/labels.js';

const app: CliApp = {
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop', uid: 'web-uid', generation: 1 },
  spec: { image: 'r/web:1' },
  status: { observedGeneration: 1, stableImage: 'r/web:1' },
};
const labels = { [LABEL_APP]: 'web' };
const budget = (status?: object, generation = 1) => ({
  metadata: { name: 'web', namespace: 'shop', generation, labels, managedFields: [{}] },
  spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
  ...(status ? { status } : {}),
});
const autoscaler = (status?: object) => ({
  metadata: { name: 'web', namespace: 'shop', generation: 2, labels },
  spec: { minReplicas: 2, maxReplicas: 10, scaleTargetRef: { kind: 'Deployment', name: 'web' }, metrics: [{ type: 'Resource' }] },
  ...(status ? { status } : {}),
});
const copies = 'configMap/web-cfg=web-cfg-1111111111,secret/db=db-2222222222';
const deployment = (name: string, record: string) => ({
  metadata: { name, namespace: 'shop', labels },
  spec: { replicas: 2, template: { metadata: { annotations: { [ANNOTATION_CONFIG_COPIES]: record, other: 'x' } }, spec: { containers: [{ image: 'r/web:1' }] } } },
  status: { readyReplicas: 2, updatedReplicas: 2 },
});
const configMap = (name: string) => ({ metadata: { name, namespace: 'shop', labels }, immutable: true, data: { 'app.yaml': 'password: hunter2' }, binaryData: { b: 'AAAA' } });

function storeWith(): DashboardStore {
  const store = new DashboardStore();
  store.handler('apps').reset([app]);
  return store;
}
const objects = (store: DashboardStore) => detail('shop/web', app, store.ownedBy('shop/web'), []).objects.filter((o) => o.kind !== 'Deployment');

describe('dashboard: budgets, autoscalers and config copies', () => {
  it('shows the PodDisruptionBudget with its budget, healthy pods and disruptions allowed', () => {
    const store = storeWith();
    const budgets = store.handler('disruptionBudgets');
    budgets.reset([budget({ observedGeneration: 1, currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1, expectedPods: 3 })]);
    assert.deepEqual(objects(store), [{ kind: 'PodDisruptionBudget', name: 'web', ready: true, text: 'maxUnavailable 1 · 3/2 healthy · 1 disruption allowed' }]);
    budgets.reset([budget({ observedGeneration: 1, currentHealthy: 1, desiredHealthy: 2, disruptionsAllowed: 0 })]);
    assert.deepEqual(objects(store).map((o) => [o.ready, o.text]), [[false, 'maxUnavailable 1 · 1/2 healthy · 0 disruptions allowed']]);
    budgets.reset([budget({ observedGeneration: 1, currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1 }, 2)]);
    assert.deepEqual(objects(store).map((o) => [o.ready, o.text]), [[false, 'maxUnavailable 1 · not counted yet']], 'a status of an earlier budget');
  });

  it('shows the HorizontalPodAutoscaler with min..max and its current and desired replicas', () => {
    const store = storeWith();
    const autoscalers = store.handler('autoscalers');
    autoscalers.reset([autoscaler()]);
    assert.deepEqual(objects(store), [{ kind: 'HorizontalPodAutoscaler', name: 'web', ready: false, text: '2..10 replicas · not measured yet' }]);
    autoscalers.reset([autoscaler({ observedGeneration: 2, currentReplicas: 3, desiredReplicas: 3, conditions: [{ type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound', message: 'm'.repeat(500) }] })]);
    assert.deepEqual(objects(store).map((o) => [o.ready, o.text]), [[true, '2..10 replicas · 3 now, 3 desired']]);
    autoscalers.reset([autoscaler({ observedGeneration: 2, currentReplicas: 3, desiredReplicas: 5 })]);
    assert.deepEqual(objects(store).map((o) => [o.ready, o.text]), [[false, '2..10 replicas · 3 now, 5 desired']]);
    autoscalers.reset([autoscaler({ observedGeneration: 2, currentReplicas: 2, desiredReplicas: 2, conditions: [{ type: 'ScalingActive', status: 'False', reason: 'FailedGetResourceMetric' }] })]);
    assert.deepEqual(objects(store).map((o) => [o.ready, o.text]), [[false, '2..10 replicas · 2 now, 2 desired · cannot scale: FailedGetResourceMetric']]);
  });

  it('shows each ConfigMap copy with its source and the Deployments using it, never its data nor a Secret', () => {
    const slim = slimConfigMap(configMap('web-cfg-1111111111'));
    assert.deepEqual(slim, { metadata: { name: 'web-cfg-1111111111', namespace: 'shop', resourceVersion: undefined, creationTimestamp: undefined, labels, annotations: undefined } });
    assert.deepEqual(slimDeployment(deployment('web', copies)).spec?.template?.metadata, { annotations: { [ANNOTATION_CONFIG_COPIES]: 'configMap/web-cfg=web-cfg-1111111111' } });
    assert.equal(slimDeployment(deployment('web', 'secret/db=db-2222222222')).spec?.template?.metadata, undefined);
    const store = storeWith();
    store.handler('deployments').reset([deployment('web', copies), deployment('web-canary', 'configMap/web-cfg=web-cfg-3333333333')]);
    store.handler('configMaps').reset([configMap('web-cfg-3333333333'), configMap('web-cfg-1111111111'), configMap('web-cfg-0000000000')]);
    assert.deepEqual(objects(store), [
      { kind: 'ConfigMap', name: 'web-cfg-0000000000', ready: true, text: 'copy · used by no Deployment' },
      { kind: 'ConfigMap', name: 'web-cfg-1111111111', ready: true, text: 'copy of web-cfg · used by web' },
      { kind: 'ConfigMap', name: 'web-cfg-3333333333', ready: true, text: 'copy of web-cfg · used by web-canary' },
    ]);
    const page = JSON.stringify(detail('shop/web', app, store.ownedBy('shop/web'), []));
    assert.doesNotMatch(page, /hunter2|AAAA|db-2222222222|secret/i);
  });

  it('a kind refused (403) or not served (404) is left out with no banner; a refused Deployment watch still says so', () => {
    const store = storeWith();
    store.handler('configMaps').reset([configMap('web-cfg-1111111111')]);
    let changes = 0;
    store.onChange(() => changes++);
    store.handler('configMaps').error!(new ApiError(403, 'forbidden (403): configmaps is forbidden'), false);
    assert.deepEqual(objects(store), [], 'what the user may no longer read is not shown');
    assert.equal(changes, 1, 'the pages are told');
    store.handler('disruptionBudgets').error!(new ApiError(403, 'forbidden (403)'), false);
    store.handler('autoscalers').error!(new ApiError(404, 'not found'), true);
    store.handler('routes').error!(new ApiError(403, 'forbidden (403)'), false);
    assert.deepEqual([...store.errors], []);
    assert.equal(changes, 1, 'nothing shown changed');
    store.handler('deployments').error!(new ApiError(403, 'forbidden (403)'), false);
    assert.deepEqual([...store.errors.keys()], ['deployments']);
  });

  it('watches each kind once, labelled, in the version discovery found; Secrets never', () => {
    const paths = watchPaths('shop', { disruptionBudgets: 'policy/v1beta1', autoscalers: 'autoscaling/v2' });
    assert.equal(paths.disruptionBudgets, '/apis/policy/v1beta1/namespaces/shop/poddisruptionbudgets?labelSelector=skiff.dev%2Fapp');
    assert.equal(paths.autoscalers, '/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers?labelSelector=skiff.dev%2Fapp');
    assert.equal(paths.configMaps, '/api/v1/namespaces/shop/configmaps?labelSelector=skiff.dev%2Fapp');
    assert.equal(paths.routes, undefined, 'not served: not watched');
    assert.doesNotMatch(Object.values(paths).join(' '), /secrets/);
    assert.equal(watchPaths(undefined, {}).configMaps, '/api/v1/configmaps?labelSelector=skiff.dev%2Fapp');
  });

  it('finds by discovery the newest version served of each kind, and none where none is', async () => {
    const served: Record<string, string[]> = {
      '/apis/policy/v1beta1': ['poddisruptionbudgets', 'podsecuritypolicies'],
      '/apis/autoscaling/v2': ['horizontalpodautoscalers', 'horizontalpodautoscalers/status'],
      '/apis/autoscaling/v2beta2': ['horizontalpodautoscalers'],
      '/apis/gateway.networking.k8s.io/v1beta1': ['gateways'],
    };
    const asked: string[] = [];
    const api = {
      async get<T>(path: string): Promise<T> {
        asked.push(path);
        if (!served[path]) throw new ApiError(404, 'the server could not find the requested resource');
        return { resources: served[path].map((name) => ({ name })) } as T;
      },
    } as Api;
    assert.deepEqual(await servedVersions(api), { disruptionBudgets: 'policy/v1beta1', autoscalers: 'autoscaling/v2' });
    assert.ok(!asked.includes('/apis/autoscaling/v2beta2'), 'the newest served is taken');
    const refused = { get: async () => { throw new ApiError(403, 'forbidden (403)'); } } as unknown as Api;
    await assert.rejects(servedVersions(refused), /forbidden/, 'discovery refused is no "not served"');
  });
});

describe('dashboard: the ConfigMap copies asked for as metadata only', () => {
  const LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
  const WATCH = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
  let server: Server;
  /** Each request's path and Accept header, as the API server received them. */
  const asked: { path: string; accept?: string }[] = [];
  const partial = (name: string) => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name, namespace: 'shop', resourceVersion: '7', labels } });
  before(async () => {
    // An API server as content negotiation makes it: the copies' metadata alone to an Accept that
    // asks for it first; full ConfigMaps, data and all, otherwise.
    server = createServer((req: IncomingMessage, res) => {
      const path = req.url ?? '';
      asked.push({ path, accept: req.headers.accept });
      const json = (code: number, body: unknown) => { res.writeHead(code, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };
      if (!path.includes('?')) return json(404, { kind: 'Status', code: 404, message: 'not found' });
      const metadataOnly = req.headers.accept?.startsWith('application/json;as=PartialObjectMetadata') ?? false;
      if (path.includes('watch=1')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        if (path.includes('/configmaps') && metadataOnly) res.write(`${JSON.stringify({ type: 'ADDED', object: partial('web-cfg-2222222222') })}\n`);
        return; // held open, as a watch is, until the dashboard stops
      }
      if (path.includes('/configmaps')) {
        return json(200, metadataOnly
          ? { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '5' }, items: [partial('web-cfg-1111111111')] }
          : { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: [configMap('web-cfg-1111111111')] });
      }
      json(200, { metadata: { resourceVersion: '5' }, items: path.includes('/apps?') ? [app] : [] });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('lists and watches the copies with an Accept for PartialObjectMetadata (JSON after it), every other kind in full', async () => {
    const api = makeApi({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, namespace: 'shop', context: 'x', insecure: false, files: [] });
    const d = await startDashboard({ api, namespace: 'shop', address: '127.0.0.1', port: 0, token: 'k'.repeat(32) });
    try {
      const names = () => d.store.ownedBy('shop/web').configMaps.map((c) => c.metadata.name).sort();
      for (let i = 0; i < 100 && names().length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      const of = (kind: string, watch: boolean) => asked.filter((a) => a.path.includes(`/${kind}?`) && a.path.includes('watch=1') === watch).map((a) => a.accept);
      assert.deepEqual(of('configmaps', false), [LIST], 'the list asks for PartialObjectMetadataList');
      assert.deepEqual(of('configmaps', true), [WATCH], 'the watch asks for PartialObjectMetadata');
      assert.deepEqual(of('deployments', false), ['application/json'], 'a Deployment is shown from its spec and status');
      assert.deepEqual(names(), ['web-cfg-1111111111', 'web-cfg-2222222222'], 'listed and watched copies filed under their App, whatever their kind says');
    } finally {
      await d.stop();
    }
  });
});
