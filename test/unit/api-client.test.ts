import { connectionOf } from '../../dev/connection-of.js';
import { strict as assert } from 'node:assert';
import { createSecureServer } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { generateCA, generateServingCert } from '../../certs/generate.js';
import { ApiStatusError } from '../../controller/runtime/api-client.js';
import { isConflict, isNotFound, describeError } from '../../controller/runtime/api-errors.js';
import { makeClients, USER_AGENT } from '../../controller/runtime/clients.js';
import { RESOURCES } from '../../controller/apply/resources.js';
import { jsonSender } from '../../controller/runtime/http-api-client.js';
import type { Transport } from '../../shared/kube-transport.js';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';

interface Seen { method: string; url: string; httpVersion: string; headers: Record<string, string | string[] | undefined>; body: string }

/**
 * An HTTPS server standing in for the API server, offering HTTP/2 as the real one does: records
 * each request and the TLS connections, and answers with `answer`.
 */
async function fakeApiServer(answer: (r: Seen) => { status: number; body: unknown }) {
  const ca = generateCA({ commonName: 'test-ca' });
  const serving = generateServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createSecureServer({ cert: serving.certPem, key: serving.keyPem, allowHTTP1: true }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const r = { method: req.method, url: req.url, httpVersion: req.httpVersion, headers: req.headers, body };
      seen.push(r);
      const { status, body: out } = answer(r);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out));
    });
  });
  server.on('secureConnection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caData: Buffer.from(ca.certPem).toString('base64'), skipTLSVerify: false }],
    users: [{ name: 'u', token: 'secret-token' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  const close = () => {
    server.close();
    for (const s of sockets) s.destroy();
  };
  return { seen, connections: () => connections, api: makeClients(connectionOf(kc), USER_AGENT, RESOURCES).api, close };
}

const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' } };
const deploymentRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
const rejection = (p: Promise<unknown>) => p.then(() => assert.fail('resolved'), (e: unknown) => e);

describe('the controller\'s API client', () => {
  it('knows the paths of the kinds in its table, and refuses any other kind without a request', async () => {
    const api = await fakeApiServer(() => ({ status: 200, body: {} }));
    try {
      const ref = (apiVersion: string, kind: string) => ({ apiVersion, kind, namespace: 'shop', name: 'web' });
      for (const r of [
        ref('apps/v1', 'Deployment'), ref('v1', 'Service'), ref('networking.k8s.io/v1', 'Ingress'), ref('policy/v1beta1', 'PodDisruptionBudget'),
        ref('autoscaling/v2', 'HorizontalPodAutoscaler'), ref('gateway.networking.k8s.io/v1', 'HTTPRoute'), ref('skiff.dev/v1alpha1', 'App'), ref('v1', 'Event'),
        ref('v1', 'ConfigMap'), ref('v1', 'Secret'),
      ]) await api.api.read(r);
      assert.deepEqual(api.seen.map((r) => r.url), [
        '/apis/apps/v1/namespaces/shop/deployments/web',
        '/api/v1/namespaces/shop/services/web',
        '/apis/networking.k8s.io/v1/namespaces/shop/ingresses/web',
        '/apis/policy/v1beta1/namespaces/shop/poddisruptionbudgets/web',
        '/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers/web',
        '/apis/gateway.networking.k8s.io/v1/namespaces/shop/httproutes/web',
        '/apis/skiff.dev/v1alpha1/namespaces/shop/apps/web',
        '/api/v1/namespaces/shop/events/web',
        '/api/v1/namespaces/shop/configmaps/web',
        '/api/v1/namespaces/shop/secrets/web',
      ]);
      const other = await rejection(api.api.read(ref('v1', 'PersistentVolumeClaim')));
      assert.match(String((other as Error).message), /no resource for kind PersistentVolumeClaim/);
      const inherited = await rejection(api.api.read(ref('v1', 'toString')));
      assert.match(String((inherited as Error).message), /no resource for kind toString/);
      const unnamespaced = await rejection(api.api.apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } }, { fieldManager: 'skiff', force: true }));
      assert.match(String((unnamespaced as Error).message), /needs an apiVersion and a namespace/, 'no namespace: not ours to guess');
      assert.equal(api.seen.length, 10, 'nothing sent for them');
    } finally {
      api.close();
    }
  });

  it('applies and reads objects as JSON with the kubeconfig\'s token, the field manager and force', async () => {
    const api = await fakeApiServer((r) => ({ status: 200, body: { ...deployment, metadata: { ...deployment.metadata, resourceVersion: '5', creationTimestamp: '2026-11-23T00:00:00Z' }, seen: r.method } }));
    try {
      const applied = await api.api.apply({ ...deployment, spec: { replicas: 2 } } as KubernetesObject, { fieldManager: 'skiff', force: true });
      const read = await api.api.read(deploymentRef);
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
      assert.equal(applied.metadata?.resourceVersion, '5', 'the object as stored, for read-your-writes');
      assert.equal(applied.metadata?.creationTimestamp, '2026-11-23T00:00:00Z', 'plain JSON, as answered');
      assert.equal((read as unknown as { seen: string }).seen, 'GET');
      await api.api.apply(deployment, { fieldManager: 'skiff', force: false });
      assert.equal(api.seen[2].url, '/apis/apps/v1/namespaces/shop/deployments/web?fieldManager=skiff&force=false');
    } finally {
      api.close();
    }
  });

  it('sends every call over one pooled HTTP/1.1 connection with keep-alive, though the server offers HTTP/2', async () => {
    const api = await fakeApiServer(() => ({ status: 200, body: {} }));
    try {
      for (let i = 0; i < 4; i++) await api.api.read(deploymentRef);
      await api.api.apply(deployment, { fieldManager: 'skiff', force: true });
      await api.api.delete(deploymentRef);
      assert.deepEqual(api.seen.map((r) => r.httpVersion), ['1.1', '1.1', '1.1', '1.1', '1.1', '1.1']);
      // A request may start before undici has taken the last one's socket back into the pool,
      // so not always exactly one; a connection per call would be six.
      assert.ok(api.connections() <= 2, `${api.connections()} TLS connections for 6 requests`);
    } finally {
      api.close();
    }
  });

  it('turns an error answer into an error with the HTTP code and the Status, as client-node\'s errors read', async () => {
    const api = await fakeApiServer((r) => (r.method === 'GET'
      ? { status: 404, body: { kind: 'Status', code: 404, reason: 'NotFound', message: 'deployments.apps "web" not found' } }
      : { status: 409, body: { kind: 'Status', code: 409, reason: 'Conflict', message: 'Apply failed with 1 conflict' } }));
    try {
      const notFound = await rejection(api.api.read(deploymentRef));
      assert.ok(notFound instanceof ApiStatusError);
      assert.ok(isNotFound(notFound));
      assert.equal(notFound.reason, 'NotFound');
      assert.equal(describeError(notFound), '404 deployments.apps "web" not found');
      const conflict = await rejection(api.api.apply(deployment, { fieldManager: 'skiff', force: false }));
      assert.ok(isConflict(conflict));
      assert.equal((conflict as ApiStatusError).reason, 'Conflict');
      assert.match(String((conflict as Error).message), /409.*Apply failed with 1 conflict/);
    } finally {
      api.close();
    }
  });

  it('describes an error whose message quotes a large object in at most 1 KiB', async () => {
    const huge = `Deployment.apps "web" is invalid: metadata.annotations: Too long: ${'a'.repeat(300_000)}`;
    const api = await fakeApiServer(() => ({ status: 422, body: { kind: 'Status', code: 422, reason: 'Invalid', message: huge } }));
    try {
      const invalid = await rejection(api.api.read(deploymentRef));
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
      const app = { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', namespace: 'shop', name: 'web' };
      const event = { apiVersion: 'v1', kind: 'Event', namespace: 'shop', name: 'web.1' };
      await api.api.patch(app, { status: { phase: 'x' } }, { type: 'merge', subresource: 'status' });
      await api.api.patch(app, { metadata: { annotations: { a: null } } }, { type: 'merge' });
      await api.api.create({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'web.1', namespace: 'shop' }, involvedObject: {}, reason: 'Created', message: 'm' } as KubernetesObject);
      await api.api.patch(event, { count: 2 }, { type: 'merge' });
      assert.deepEqual(api.seen.map((r) => `${r.method} ${r.url} ${r.headers['content-type']}`), [
        'PATCH /apis/skiff.dev/v1alpha1/namespaces/shop/apps/web/status application/merge-patch+json',
        'PATCH /apis/skiff.dev/v1alpha1/namespaces/shop/apps/web application/merge-patch+json',
        'POST /api/v1/namespaces/shop/events application/json',
        'PATCH /api/v1/namespaces/shop/events/web.1 application/merge-patch+json',
      ]);
      assert.deepEqual(JSON.parse(api.seen[0].body), { status: { phase: 'x' } });
      assert.deepEqual(JSON.parse(api.seen[1].body), { metadata: { annotations: { a: null } } });
      // A fieldManager given to any of the merge patches goes with it.
      await api.api.patch(app, { status: {} }, { type: 'merge', subresource: 'status', fieldManager: 'skiff' });
      await api.api.patch(event, { count: 3 }, { type: 'merge', fieldManager: 'skiff' });
      assert.deepEqual(api.seen.slice(4).map((r) => r.url), [
        '/apis/skiff.dev/v1alpha1/namespaces/shop/apps/web/status?fieldManager=skiff',
        '/api/v1/namespaces/shop/events/web.1?fieldManager=skiff',
      ]);
    } finally {
      api.close();
    }
  });

  it('creates a ControllerRevision in Go\'s JSON form (keys sorted, <, > and & escaped), the bytes every later patch of it keeps; anything else as JSON.stringify writes it', async () => {
    const api = await fakeApiServer(() => ({ status: 201, body: {} }));
    try {
      const data = { spec: { image: 'web:1', port: 8080, env: [{ name: 'MODE', value: 'a && b' }] } };
      await api.api.create({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'web-1', namespace: 'shop' }, revision: 1, data } as KubernetesObject);
      await api.api.create({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'web.1', namespace: 'shop' }, message: 'a && b' } as KubernetesObject);
      assert.equal(api.seen[0].body, '{"apiVersion":"apps/v1","data":{"spec":{"env":[{"name":"MODE","value":"a \\u0026\\u0026 b"}],"image":"web:1","port":8080}},"kind":"ControllerRevision","metadata":{"name":"web-1","namespace":"shop"},"revision":1}');
      assert.equal(api.seen[1].body, '{"apiVersion":"v1","kind":"Event","metadata":{"name":"web.1","namespace":"shop"},"message":"a && b"}');
    } finally {
      api.close();
    }
  });

  it('sends strategic merge patches, and deletes with a propagation policy and preconditions', async () => {
    const api = await fakeApiServer(() => ({ status: 200, body: {} }));
    try {
      const service = { apiVersion: 'v1', kind: 'Service', namespace: 'shop', name: 'web' };
      await api.api.patch(service, { spec: { ports: [{ $patch: 'delete', port: 80 }] } }, { type: 'strategic-merge', fieldManager: 'skiff' });
      await api.api.delete(deploymentRef, { propagationPolicy: 'Background', preconditions: { uid: 'u1' } });
      await api.api.delete(deploymentRef);
      assert.deepEqual(api.seen.map((r) => `${r.method} ${r.url} ${r.headers['content-type']}`), [
        'PATCH /api/v1/namespaces/shop/services/web?fieldManager=skiff application/strategic-merge-patch+json',
        'DELETE /apis/apps/v1/namespaces/shop/deployments/web?propagationPolicy=Background application/json',
        'DELETE /apis/apps/v1/namespaces/shop/deployments/web undefined',
      ]);
      assert.deepEqual(JSON.parse(api.seen[0].body), { spec: { ports: [{ $patch: 'delete', port: 80 }] } });
      assert.deepEqual(JSON.parse(api.seen[1].body), { preconditions: { uid: 'u1' } });
      assert.equal(api.seen[2].body, '');
    } finally {
      api.close();
    }
  });
});

describe('jsonSender and Retry-After', () => {
  /** A transport answering each request with the next of `answers`, and the waits asked for. */
  function scripted(answers: { status: number; retryAfter?: string; body?: unknown }[], writeRefused?: () => string | undefined) {
    const sent: string[] = [];
    const transport: Transport = {
      server: 'https://x',
      async send(method, path) {
        sent.push(`${method} ${path}`);
        const a = answers[Math.min(sent.length - 1, answers.length - 1)];
        const res = new PassThrough() as unknown as IncomingMessage & PassThrough;
        res.statusCode = a.status;
        res.headers = a.retryAfter === undefined ? {} : { 'retry-after': a.retryAfter };
        res.end(JSON.stringify(a.body ?? { kind: 'Status', code: a.status, message: `answer ${a.status}` }));
        return res;
      },
      close() {},
    };
    const waits: number[] = [];
    const send = jsonSender(transport, async (ms) => void waits.push(ms), writeRefused);
    return { send, sent, waits };
  }

  it('a write is not sent while writeRefused gives a reason (a replica no longer sure it leads), a read is; a retry after Retry-After asks again', async () => {
    let why: string | undefined = 'not the leader';
    const s = scripted([{ status: 200, body: { kind: 'Deployment' } }], () => why);
    for (const method of ['POST', 'PATCH', 'PUT', 'DELETE']) {
      const err = await rejection(s.send(method, '/apis/apps/v1/namespaces/shop/deployments/web', '', {}));
      assert.match(String((err as Error).message), new RegExp(`^${method} /apis/apps/v1/namespaces/shop/deployments/web: not sent: not the leader$`));
    }
    assert.deepEqual(s.sent, [], 'no write reached the API server');
    assert.deepEqual(await s.send('GET', '/apis/apps/v1/namespaces/shop/deployments/web', ''), { kind: 'Deployment' });
    why = undefined;
    assert.deepEqual(await s.send('PATCH', '/apis/apps/v1/namespaces/shop/deployments/web', '', {}), { kind: 'Deployment' });
    assert.equal(s.sent.length, 2);

    // Refused between a 429 and its retry: the retry is not sent either.
    const busy = scripted([{ status: 429, retryAfter: '1' }, { status: 200, body: {} }], () => why);
    const pending = busy.send('PATCH', '/apis/apps/v1/namespaces/shop/deployments/web', '', {});
    why = 'lost the lease';
    assert.match(String(((await rejection(pending)) as Error).message), /not sent: lost the lease$/);
    assert.equal(busy.sent.length, 1);
  });

  it('a 429 (the API server\'s priority and fairness, its max in-flight) is sent again after the Retry-After it gives, for any method', async () => {
    const s = scripted([{ status: 429, retryAfter: '1' }, { status: 429, retryAfter: '2' }, { status: 200, body: { kind: 'Deployment' } }]);
    assert.deepEqual(await s.send('PATCH', '/apis/apps/v1/namespaces/shop/deployments/web', '', {}), { kind: 'Deployment' });
    assert.equal(s.sent.length, 3);
    assert.deepEqual(s.waits, [1000, 2000]);
  });

  it('a 5xx with Retry-After is sent again for a read only; the retries end, and then the answer is the error', async () => {
    const read = scripted([{ status: 503, retryAfter: '1' }, { status: 200, body: { items: [] } }]);
    assert.deepEqual(await read.send('GET', '/api/v1/services', ''), { items: [] });
    const write = scripted([{ status: 503, retryAfter: '1' }]);
    assert.equal(((await rejection(write.send('POST', '/api/v1/namespaces/shop/events', '', {}))) as ApiStatusError).code, 503);
    assert.equal(write.sent.length, 1, 'a write that may have been done is not sent again');
    const busy = scripted([{ status: 429, retryAfter: '1' }]);
    assert.equal(((await rejection(busy.send('GET', '/apis', ''))) as ApiStatusError).code, 429);
    assert.ok(busy.sent.length > 1 && busy.sent.length <= 11, `${busy.sent.length} requests`);
    assert.ok(busy.waits.reduce((a, b) => a + b, 0) <= 10_000, 'a call waits 10 s in all at most');
    const later = scripted([{ status: 429, retryAfter: '60' }]);
    assert.equal(((await rejection(later.send('GET', '/apis', ''))) as ApiStatusError).code, 429);
    assert.deepEqual(later.waits, [], 'a wait past the budget is left to the work queue\'s backoff');
    const plain = scripted([{ status: 500 }]);
    await rejection(plain.send('GET', '/apis', ''));
    assert.equal(plain.sent.length, 1, 'no Retry-After: not sent again');
  });
});
