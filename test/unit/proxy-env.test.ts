// The environment's proxy (shared/proxy-env.ts) as Go's http.ProxyFromEnvironment picks it, and
// loadConnection taking it for a cluster without proxy-url (the kubeconfig's own comes first).
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { loadConnection } from '../../shared/kube-connection.js';
import { noProxy, proxyFromEnvironment } from '../../shared/proxy-env.js';

describe('the environment\'s proxy', () => {
  it('HTTPS_PROXY for an https server, HTTP_PROXY for an http one, upper case before lower; none set, none used', () => {
    const env = { HTTPS_PROXY: 'http://secure:3128', https_proxy: 'http://lower:3128', http_proxy: 'http://plain:3128' };
    assert.equal(proxyFromEnvironment('https://api.example:6443', env), 'http://secure:3128');
    assert.equal(proxyFromEnvironment('https://api.example:6443', { https_proxy: 'http://lower:3128' }), 'http://lower:3128');
    assert.equal(proxyFromEnvironment('http://api.example:8080', env), 'http://plain:3128');
    assert.equal(proxyFromEnvironment('https://api.example:6443', { HTTP_PROXY: 'http://plain:3128' }), undefined, 'an https server does not take HTTP_PROXY');
    assert.equal(proxyFromEnvironment('https://api.example:6443', {}), undefined);
    assert.equal(proxyFromEnvironment('https://api.example:6443', { HTTPS_PROXY: 'proxy.corp:3128' }), 'http://proxy.corp:3128', 'no scheme: an http proxy');
    assert.equal(proxyFromEnvironment('https://api.example:6443', { HTTPS_PROXY: 'socks5://127.0.0.1:1080' }), 'socks5://127.0.0.1:1080');
  });

  it('never for localhost or a loopback address', () => {
    const env = { HTTPS_PROXY: 'http://proxy:3128' };
    for (const server of ['https://localhost:6443', 'https://127.0.0.1:6443', 'https://127.1.2.3', 'https://[::1]:6443']) {
      assert.equal(proxyFromEnvironment(server, env), undefined, server);
    }
  });

  it('NO_PROXY: *, names with their subdomains, a leading dot for subdomains only, addresses, CIDR blocks, ports', () => {
    assert.equal(noProxy('*', 'api.example', '443'), true);
    assert.equal(noProxy('example.com', 'example.com', '443'), true);
    assert.equal(noProxy('example.com', 'api.example.com', '443'), true);
    assert.equal(noProxy('example.com', 'notexample.com', '443'), false);
    assert.equal(noProxy('.example.com', 'example.com', '443'), false);
    assert.equal(noProxy('.example.com', 'api.example.com', '443'), true);
    assert.equal(noProxy('*.example.com', 'api.example.com', '443'), true);
    assert.equal(noProxy(' other.org , .svc ,cluster.local', 'kubernetes.default.svc', '443'), true, 'spaces and several entries');
    assert.equal(noProxy('10.96.0.1', '10.96.0.1', '443'), true);
    assert.equal(noProxy('10.96.0.1', '10.96.0.2', '443'), false);
    assert.equal(noProxy('10.96.0.0/12', '10.100.0.1', '443'), true);
    assert.equal(noProxy('10.96.0.0/12', '10.112.0.1', '443'), false);
    assert.equal(noProxy('fd00::/8', 'fd00:10:96::1', '443'), true);
    assert.equal(noProxy('api.example:6443', 'api.example', '6443'), true);
    assert.equal(noProxy('api.example:6443', 'api.example', '443'), false);
    assert.equal(noProxy('[fd00::1]:443', 'fd00::1', '443'), true);
    assert.equal(noProxy('API.Example', 'api.example', '443'), true, 'names compared without case');
    assert.equal(noProxy('10.0.0.0/99, ,', '10.0.0.1', '443'), false, 'an entry that is no CIDR block names nothing');
    assert.equal(proxyFromEnvironment('https://10.96.0.1:443', { HTTPS_PROXY: 'http://proxy:3128', no_proxy: '10.96.0.0/12' }), undefined);
  });

  it('loadConnection: a cluster without proxy-url takes the environment\'s, its own proxy-url comes first, and in a pod as well; a bad value is said', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-proxy-env-'));
    try {
      const file = (proxy?: string) => {
        const path = join(dir, `config-${proxy ? 'own' : 'none'}`);
        writeFileSync(path, stringify({
          'current-context': 'c',
          clusters: [{ name: 'k', cluster: { server: 'https://api.example:6443', ...(proxy ? { 'proxy-url': proxy } : {}) } }],
          users: [{ name: 'u', user: { token: 't' } }],
          contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
        }));
        return path;
      };
      const env = { HTTPS_PROXY: 'http://env-proxy:3128' };
      assert.equal(loadConnection({ path: file() }, env).proxy, 'http://env-proxy:3128/');
      assert.equal(loadConnection({ path: file() }, { ...env, NO_PROXY: 'example' }).proxy, undefined);
      assert.equal(loadConnection({ path: file('socks5://own:1080') }, env).proxy, 'socks5://own:1080', 'the kubeconfig\'s own first');
      assert.throws(() => loadConnection({ path: file() }, { HTTPS_PROXY: 'ftp://x:21' }), /the environment's HTTPS_PROXY is "ftp:\/\/x:21", whose scheme "ftp" is none of http, https and socks5/);
      const sa = join(dir, 'sa');
      writeFileSync(join(dir, 'empty'), '');
      mkdirSync(sa);
      writeFileSync(join(sa, 'token'), 'sa-token');
      writeFileSync(join(sa, 'ca.crt'), 'CA PEM');
      writeFileSync(join(sa, 'namespace'), 'skiff-system');
      const pod = { KUBECONFIG: join(dir, 'empty'), KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443', HTTPS_PROXY: 'http://egress:3128' };
      assert.equal(loadConnection({}, pod, sa).proxy, 'http://egress:3128/', 'in a pod too, as client-go');
      assert.equal(loadConnection({}, { ...pod, NO_PROXY: '10.96.0.0/12,.svc' }, sa).proxy, undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
