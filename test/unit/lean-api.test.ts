import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { KubeConfig, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import { generateCA, generateServingCert } from '../../certs/generate.js';
import { isConflict, isNotFound, describeError } from '../../controller/runtime/api-errors.js';
import { makeClients, USER_AGENT } from '../../controller/runtime/clients.js';
import { MERGE_PATCH, objectPath } from '../../controller/runtime/lean-api.js';

interface Seen { method: string; url: string; headers: Record<string, string | string[] | undefined>; body: string }

/** An HTTPS server standing in for the API server: records each request and answers with `answer`. */
async function fakeApiServer(answer: (r: Seen) => { status: number; body: unknown }) {
  const ca = generateCA({ commonName: 'test-ca' });
  const serving = generateServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const seen: Seen[] = [];
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const r = { method: req.method!, url: req.url!, headers: req.headers, body };
      seen.push(r);
      const { status, body: out } = answer(r);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caData: Buffer.from(ca.certPem).toString('base64'), skipTLSVerify: false }],
    users: [{ name: 'u', token: 'secret-token' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return { seen, clients: makeClients(kc), close: () => { server.close(); server.closeAllConnections(); } };
}

const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' } };

describe('lean API calls', () => {
  it('knows the paths of the kinds the controller writes, and no others', () => {
    assert.equal(objectPath(deployment), '/apis/apps/v1/namespaces/shop/deployments/web');
    assert.equal(objectPath({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' } }), '/api/v1/namespaces/shop/services/web');
    assert.equal(objectPath({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web', namespace: 'shop' } }), '/apis/networking.k8s.io/v1/namespaces/shop/ingresses/web');
    assert.equal(objectPath({ apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', metadata: { name: 'web', namespace: 'shop' } }), '/apis/policy/v1beta1/namespaces/shop/poddisruptionbudgets/web');
    assert.equal(objectPath({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'shop' } }), '/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers/web');
    assert.equal(objectPath({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'web', namespace: 'shop' } }), '/apis/gateway.networking.k8s.io/v1/namespaces/shop/httproutes/web');
    assert.equal(objectPath({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'shop' } }), undefined);
    assert.equal(objectPath({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } }), undefined, 'no namespace: not ours to guess');
  });

  it('applies and reads owned objects as JSON with the kubeconfig\'s token, the field manager and force', async () => {
    const api = await fakeApiServer((r) => ({ status: 200, body: { ...deployment, metadata: { ...deployment.metadata, resourceVersion: '5', creationTimestamp: '2026-11-23T00:00:00Z' }, seen: r.method } }));
    try {
      const applied = await api.clients.objects.patch({ ...deployment, spec: { replicas: 2 } } as KubernetesObject, undefined, undefined, 'skiff', true, PatchStrategy.ServerSideApply);
      const read = await api.clients.objects.read(deployment);
      const [apply, get] = api.seen;
      assert.equal(apply.method, 'PATCH');
      assert.equal(apply.url, '/apis/apps/v1/namespaces/shop/deployments/web?fieldManager=skiff&force=true');
      assert.equal(apply.headers['content-type'], 'application/apply-patch+yaml');
      assert.deepEqual(JSON.parse(apply.body), { ...deployment, spec: { replicas: 2 } });
      assert.equal(apply.headers.authorization, 'Bearer secret-token');
      assert.equal(apply.headers['user-agent'], USER_AGENT);
      assert.equal(get.method, 'GET');
      assert.equal(get.url, '/apis/apps/v1/namespaces/shop/deployments/web');
      assert.equal(get.headers.authorization, 'Bearer secret-token');
      assert.equal(applied.metadata?.resourceVersion, '5');
      assert.equal((read as unknown as { seen: string }).seen, 'GET');
    } finally {
      api.close();
    }
  });

  it('turns an error answer into an error with the HTTP code and the Status, as client-node does', async () => {
    const api = await fakeApiServer((r) => (r.method === 'GET'
      ? { status: 404, body: { kind: 'Status', code: 404, reason: 'NotFound', message: 'deployments.apps "web" not found' } }
      : { status: 409, body: { kind: 'Status', code: 409, reason: 'Conflict', message: 'Apply failed with 1 conflict' } }));
    try {
      const notFound = await api.clients.objects.read(deployment).then(() => undefined, (e: unknown) => e);
      assert.ok(isNotFound(notFound));
      assert.equal(describeError(notFound), '404 deployments.apps "web" not found');
      const conflict = await api.clients.objects.patch(deployment, undefined, undefined, 'skiff', false, PatchStrategy.ServerSideApply).then(() => undefined, (e: unknown) => e);
      assert.ok(isConflict(conflict));
      assert.match(String((conflict as Error).message), /409.*Apply failed with 1 conflict/);
    } finally {
      api.close();
    }
  });

  it('describes an error whose message quotes a large object in at most 1 KiB', async () => {
    const huge = `Deployment.apps "web" is invalid: metadata.annotations: Too long: ${'a'.repeat(300_000)}`;
    const api = await fakeApiServer(() => ({ status: 422, body: { kind: 'Status', code: 422, reason: 'Invalid', message: huge } }));
    try {
      const invalid = await api.clients.objects.read(deployment).then(() => undefined, (e: unknown) => e);
      const described = describeError(invalid);
      assert.ok(Buffer.byteLength(described) <= 1024, `${Buffer.byteLength(described)} bytes`);
      assert.ok(described.startsWith('422 Deployment.apps "web" is invalid: metadata.annotations: Too long: aaa'), described.slice(0, 100));
      assert.match(described, /… \(\d+ bytes in all\)$/);
      assert.ok(Buffer.byteLength(describeError(new Error('e'.repeat(5_000)))) <= 1024, 'network and other errors too');
    } finally {
      api.close();
    }
  });

  it('patches the App\'s status and metadata with a JSON merge patch, and writes Events', async () => {
    const api = await fakeApiServer(() => ({ status: 201, body: {} }));
    try {
      const target = { group: 'skiff.dev', version: 'v1alpha1', plural: 'apps', namespace: 'shop', name: 'web' };
      await api.clients.custom.patchNamespacedCustomObjectStatus({ ...target, body: { status: { phase: 'x' } } }, MERGE_PATCH);
      await api.clients.custom.patchNamespacedCustomObject({ ...target, body: { metadata: { annotations: { a: null } } } }, MERGE_PATCH);
      await api.clients.core.createNamespacedEvent({ namespace: 'shop', body: { metadata: { name: 'web.1' }, involvedObject: {}, reason: 'Created', message: 'm' } });
      await api.clients.core.patchNamespacedEvent({ namespace: 'shop', name: 'web.1', body: { count: 2 } }, MERGE_PATCH);
      assert.deepEqual(api.seen.map((r) => `${r.method} ${r.url} ${r.headers['content-type']}`), [
        'PATCH /apis/skiff.dev/v1alpha1/namespaces/shop/apps/web/status application/merge-patch+json',
        'PATCH /apis/skiff.dev/v1alpha1/namespaces/shop/apps/web application/merge-patch+json',
        'POST /api/v1/namespaces/shop/events application/json',
        'PATCH /api/v1/namespaces/shop/events/web.1 application/merge-patch+json',
      ]);
      assert.deepEqual(JSON.parse(api.seen[0].body), { status: { phase: 'x' } });
      assert.deepEqual(JSON.parse(api.seen[1].body), { metadata: { annotations: { a: null } } });
      // A fieldManager given to any of the merge patches goes with it.
      await api.clients.custom.patchNamespacedCustomObjectStatus({ ...target, fieldManager: 'skiff', body: { status: {} } }, MERGE_PATCH);
      await api.clients.core.patchNamespacedEvent({ namespace: 'shop', name: 'web.1', fieldManager: 'skiff', body: { count: 3 } }, MERGE_PATCH);
      assert.deepEqual(api.seen.slice(4).map((r) => r.url), [
        '/apis/skiff.dev/v1alpha1/namespaces/shop/apps/web/status?fieldManager=skiff',
        '/api/v1/namespaces/shop/events/web.1?fieldManager=skiff',
      ]);
    } finally {
      api.close();
    }
  });

  it('sends other kinds through client-node, which finds their resource by discovery', async () => {
    const api = await fakeApiServer((r) => (r.url.startsWith('/api/v1/namespaces/')
      ? { status: 200, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'shop' } } }
      : { status: 200, body: { kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true, singularName: 'configmap', verbs: ['get'] }] } }));
    try {
      const read = await api.clients.objects.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'shop' } });
      assert.equal(read.metadata?.name, 'cm');
      assert.deepEqual(api.seen.map((r) => r.url), ['/api/v1', '/api/v1/namespaces/shop/configmaps/cm']);
    } finally {
      api.close();
    }
  });
});
