import { strict as assert } from 'node:assert';
import { KubeConfig } from '@kubernetes/client-node';
import { createSecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';
import { pooledAuthentication } from '../../controller/runtime/clients.js';
import { generateCA, generateServingCert } from '../../certs/generate.js';

type Ctx = Parameters<KubeConfig['applySecurityAuthentication']>[0];

/** A request context that records what authentication puts on it. */
function context() {
  const headers: Record<string, string> = {};
  let dispatcher: unknown;
  const ctx = {
    setHeaderParam: (k: string, v: string) => { headers[k] = v; },
    setDispatcher: (d: unknown) => { dispatcher = d; },
  } as unknown as Ctx;
  return { ctx, headers, dispatcher: () => dispatcher as { constructor: { name: string } } | undefined };
}

function kubeconfig(server: string, token: string, caData?: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, caData, skipTLSVerify: false }],
    users: [{ name: 'u', token }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

describe('API client connections (pooled authentication)', () => {
  it('gives every request one Agent and the kubeconfig\'s current headers', async () => {
    const { certPem } = generateCA({ commonName: 'test-ca' });
    const kc = kubeconfig('https://127.0.0.1:6443', 'first', Buffer.from(certPem).toString('base64'));
    const auth = pooledAuthentication(kc);
    const [a, b] = [context(), context()];
    await auth.applySecurityAuthentication(a.ctx);
    (kc.getCurrentUser() as { token?: string }).token = 'renewed'; // as an exec plugin or a token file renews it
    await auth.applySecurityAuthentication(b.ctx);
    assert.equal(a.headers.Authorization, 'Bearer first');
    assert.equal(b.headers.Authorization, 'Bearer renewed', 'headers are taken per request');
    assert.ok(a.dispatcher() instanceof Agent);
    assert.equal(a.dispatcher(), b.dispatcher(), 'one connection pool for both');
    await (a.dispatcher() as unknown as Agent).close();
  });

  it('reuses HTTP/1.1 connections across requests, though the server offers HTTP/2', async () => {
    const ca = generateCA({ commonName: 'test-ca' });
    const serving = generateServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const versions: string[] = [];
    const clientPorts = new Set<number>();
    let connections = 0;
    const server = createSecureServer({ cert: serving.certPem, key: serving.keyPem, allowHTTP1: true }, (req, res) => {
      versions.push(req.httpVersion);
      clientPorts.add(req.socket.remotePort!);
      res.end('{}');
    });
    server.on('secureConnection', () => connections++);
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    try {
      const { port } = server.address() as AddressInfo;
      const auth = pooledAuthentication(kubeconfig(`https://127.0.0.1:${port}`, 't', Buffer.from(ca.certPem).toString('base64')));
      for (let i = 0; i < 4; i++) {
        const c = context();
        await auth.applySecurityAuthentication(c.ctx);
        const res = await request(`https://127.0.0.1:${port}/`, { dispatcher: c.dispatcher() as unknown as Dispatcher, headers: c.headers });
        await res.body.text();
      }
      assert.deepEqual(versions, ['1.1', '1.1', '1.1', '1.1']);
      // A request may start before undici has taken the last one's socket back into the pool,
      // so not always exactly one; a new Agent per request would be four.
      assert.ok(connections <= 2 && clientPorts.size === connections, `${connections} TLS connections for 4 requests`);
    } finally {
      server.close();
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
    }
  });

  it('through a proxy, keeps client-node\'s dispatcher for it, made once', async () => {
    const { certPem } = generateCA({ commonName: 'test-ca' });
    const kc = kubeconfig('https://10.0.0.1:6443', 't', Buffer.from(certPem).toString('base64'));
    (kc.getCurrentCluster() as { proxyUrl?: string }).proxyUrl = 'http://127.0.0.1:3128';
    const auth = pooledAuthentication(kc);
    const [a, b] = [context(), context()];
    await auth.applySecurityAuthentication(a.ctx);
    await auth.applySecurityAuthentication(b.ctx);
    assert.equal(a.headers.Authorization, 'Bearer t');
    assert.equal(a.dispatcher()?.constructor.name, 'ProxyAgent');
    assert.equal(a.dispatcher(), b.dispatcher());
  });
});
