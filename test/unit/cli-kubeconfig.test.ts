import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { impersonationHeaders, KubeConfigError, kubeconfigFiles, loadConnection, resolveConnection } from '../../shared/kube-connection.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const config = {
  'current-context': 'dev',
  clusters: [
    { name: 'dev', cluster: { server: 'https://10.0.0.1:6443/', 'certificate-authority-data': b64('CA PEM') } },
    { name: 'lab', cluster: { server: 'https://lab:443', 'certificate-authority': 'ca.crt', 'tls-server-name': 'api.lab.internal' } },
  ],
  users: [
    { name: 'alice', user: { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') } },
    { name: 'bob', user: { token: 's3cret' } },
    { name: 'carol', user: { tokenFile: 'token' } },
    { name: 'dave', user: { username: 'dave', password: 'pw' } },
    { name: 'erin', user: { exec: { command: 'aws', apiVersion: 'client.authentication.k8s.io/v1' } } },
  ],
  contexts: [
    { name: 'dev', context: { cluster: 'dev', user: 'alice', namespace: 'shop' } },
    { name: 'lab-bob', context: { cluster: 'lab', user: 'bob' } },
    { name: 'lab-carol', context: { cluster: 'lab', user: 'carol' } },
    { name: 'lab-dave', context: { cluster: 'lab', user: 'dave' } },
    { name: 'lab-erin', context: { cluster: 'lab', user: 'erin' } },
    { name: 'broken', context: { cluster: 'nowhere', user: 'bob' } },
  ],
};

describe('kubectl skiff kubeconfig', () => {
  const files: Record<string, string> = { '/k/ca.crt': 'LAB CA', '/k/token': 'file-token\n' };
  const read = (p: string) => {
    if (!(p in files)) throw new Error('ENOENT');
    return Buffer.from(files[p]);
  };
  const resolve = (context?: string) => resolveConnection([{ path: '/k/config', config }], { context }, read);

  it('current-context: server, CA and client certificate from data, namespace from the context', () => {
    const c = resolve();
    assert.deepEqual(
      [c.context, c.server, c.namespace, String(c.ca), String(c.cert), String(c.key), c.insecure, c.token],
      ['dev', 'https://10.0.0.1:6443', 'shop', 'CA PEM', 'CERT', 'KEY', false, undefined],
    );
  });

  it('--context: files relative to the kubeconfig, a token, a token file, basic auth, namespace default', () => {
    const bob = resolve('lab-bob');
    assert.deepEqual([bob.server, String(bob.ca), bob.insecure, bob.token, bob.namespace], ['https://lab:443', 'LAB CA', false, 's3cret', 'default']);
    assert.equal(resolve('lab-carol').token, 'file-token');
    assert.equal(resolve('lab-carol').tokenFile, '/k/token', 'read again by a process that runs for long');
    assert.deepEqual([resolve('lab-dave').username, resolve('lab-dave').password], ['dave', 'pw']);
    assert.deepEqual([bob.serverName, resolve().serverName], ['api.lab.internal', undefined], 'tls-server-name, where the kubeconfig gives one');
  });

  it('reads the user\'s impersonation (as, as-uid, as-groups, as-user-extra); --as and its kin go over it field by field, as kubectl merges them', () => {
    const impersonating = (user: object) => [{ path: '/k/config', config: { ...config, users: [{ name: 'alice', user: { token: 't', ...user } }] } }];
    const full = impersonating({ as: 'jane', 'as-uid': '42', 'as-groups': ['devs', 'ops'], 'as-user-extra': { 'acme.com/team': ['web'], scopes: ['a', 'b'] } });
    assert.deepEqual(resolveConnection(full, {}, read).impersonate, { user: 'jane', uid: '42', groups: ['devs', 'ops'], extra: { 'acme.com/team': ['web'], scopes: ['a', 'b'] } });
    assert.deepEqual(resolveConnection(full, { impersonate: { user: 'joe' } }, read).impersonate, { user: 'joe', uid: '42', groups: ['devs', 'ops'], extra: { 'acme.com/team': ['web'], scopes: ['a', 'b'] } });
    assert.deepEqual(resolveConnection(impersonating({ as: 'jane' }), { impersonate: { groups: ['ops'] } }, read).impersonate, { user: 'jane', groups: ['ops'] });
    assert.equal(resolve().impersonate, undefined);
    // Groups or a uid with nobody to act as: refused, as kubectl refuses it.
    assert.throws(() => resolveConnection(impersonating({ 'as-groups': ['devs'] }), {}, read), /requesting uid, groups or user-extra without impersonating a user/);
    assert.throws(() => resolveConnection(impersonating({}), { impersonate: { uid: '42' } }, read), /without impersonating a user/);
  });

  it('sends an impersonation as client-go does: one header per group and extra value, an extra\'s key escaped where a header name cannot hold it', () => {
    assert.deepEqual(impersonationHeaders(undefined), {});
    assert.deepEqual(impersonationHeaders({ user: 'jane', uid: '42', groups: ['devs', 'ops'], extra: { 'acme.com/team': ['web'], 'a%b c': ['x', 'y'] } }), {
      'impersonate-user': 'jane', 'impersonate-uid': '42', 'impersonate-group': ['devs', 'ops'],
      'impersonate-extra-acme.com%2Fteam': ['web'], 'impersonate-extra-a%25b%20c': ['x', 'y'],
    });
  });

  it('a user with token and tokenFile: the file\'s token whenever the file can be read, as client-go takes it', () => {
    const both = (tokenFile: string) => ({ ...config, users: [{ name: 'alice', user: { token: 'inline', tokenFile } }] });
    const fromFile = resolveConnection([{ path: '/k/config', config: both('token') }], {}, read);
    assert.deepEqual([fromFile.token, fromFile.tokenFile], ['file-token', '/k/token']);
    const unreadable = resolveConnection([{ path: '/k/config', config: both('gone') }], {}, read);
    assert.deepEqual([unreadable.token, unreadable.tokenFile], ['inline', '/k/gone'], 'the inline token stands in; the file is read again later');
    files['/k/empty'] = '\n';
    assert.equal(resolveConnection([{ path: '/k/config', config: both('empty') }], {}, read).token, 'inline', 'an empty file is no token');
    assert.throws(() => resolveConnection([{ path: '/k/config', config: { ...config, users: [{ name: 'alice', user: { tokenFile: 'empty' } }] } }], {}, read), /tokenFile \/k\/empty is empty/);
    assert.throws(() => resolveConnection([{ path: '/k/config', config: { ...config, users: [{ name: 'alice', user: { tokenFile: 'gone' } }] } }], {}, read), /cannot read tokenFile \/k\/gone/);
  });

  it('reads an exec credential plugin\'s settings, for exec-credential.ts to run (not client-node)', () => {
    const erin = resolve('lab-erin');
    assert.deepEqual([erin.exec?.command, erin.exec?.apiVersion, erin.exec?.interactiveMode, erin.exec?.cluster.server, erin.fallback], ['aws', 'client.authentication.k8s.io/v1', 'IfAvailable', 'https://lab:443', undefined]);
    assert.equal(resolve('lab-bob').exec, undefined);
  });

  it('a server without a scheme is https with TLS material and http without, as client-go reads it; one that is no URL is said in words', () => {
    const withServer = (server: string, cluster: Record<string, unknown> = {}, user: Record<string, unknown> = { token: 't' }) => resolveConnection([{ path: '/k/config', config: {
      'current-context': 'c', clusters: [{ name: 'c', cluster: { server, ...cluster } }], users: [{ name: 'u', user }], contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    } }], {}, read).server;
    assert.equal(withServer('10.0.0.1:6443', { 'certificate-authority-data': b64('CA') }), 'https://10.0.0.1:6443');
    assert.equal(withServer('api.lab:6443', { 'insecure-skip-tls-verify': true }), 'https://api.lab:6443');
    assert.equal(withServer('api.lab:6443', {}, { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') }), 'https://api.lab:6443');
    assert.equal(withServer('localhost:8080'), 'http://localhost:8080');
    assert.equal(withServer('https://10.0.0.1:6443/'), 'https://10.0.0.1:6443');
    assert.throws(() => withServer('https://[bad'), (err: Error) => err instanceof KubeConfigError && /cluster "c" has server "https:\/\/\[bad", which is not an http or https URL/.test(err.message));
  });

  it('refuses what kubectl\'s validation refuses: a CA with insecure-skip-tls-verify, a CA as file and data, a client certificate without its key', () => {
    const withCluster = (cluster: object, user: object = { token: 't' }) => resolveConnection([{ path: '/k/config', config: {
      'current-context': 'x', clusters: [{ name: 'c', cluster: { server: 'https://lab:443', ...cluster } }], users: [{ name: 'u', user }], contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    } }], {}, read);
    assert.throws(() => withCluster({ 'certificate-authority': 'ca.crt', 'insecure-skip-tls-verify': true }), /cluster "c": specifying a root certificates file with the insecure flag is not allowed/);
    assert.throws(() => withCluster({ 'certificate-authority': 'ca.crt', 'certificate-authority-data': b64('CA') }), /certificate-authority-data and certificate-authority are both specified/);
    assert.throws(() => withCluster({}, { 'client-certificate-data': b64('CERT') }), /user "u": client-key-data or client-key must be specified/);
    // A key alone is no client certificate to kubectl either: left out, the token used.
    const keyAlone = withCluster({}, { token: 't', 'client-key-data': b64('KEY') });
    assert.deepEqual([keyAlone.cert, keyAlone.key, keyAlone.token], [undefined, undefined, 't']);
    assert.equal(withCluster({ 'insecure-skip-tls-verify': true }).insecure, true);
  });

  it('takes a cluster\'s proxy-url of the schemes client-go takes (http, https, socks5), and refuses others and what is no URL', () => {
    const behind = (proxy: unknown) => resolveConnection([{ path: '/k/config', config: { ...config, clusters: [{ name: 'dev', cluster: { server: 'https://10.0.0.1:6443', 'proxy-url': proxy } }] } }], {}, read);
    assert.equal(behind('http://proxy:3128').proxy, 'http://proxy:3128/');
    assert.equal(behind('https://user:p%40ss@proxy.example:8443').proxy, 'https://user:p%40ss@proxy.example:8443/');
    assert.equal(behind('socks5://127.0.0.1:1080').proxy, 'socks5://127.0.0.1:1080');
    assert.equal(behind('').proxy, undefined);
    assert.throws(() => behind('ftp://proxy:21'), /cluster "dev" has proxy-url "ftp:\/\/proxy:21", whose scheme "ftp" is none of http, https and socks5/);
    assert.throws(() => behind('proxy:3128'), /cluster "dev" has proxy-url "proxy:3128", which is not a URL such as http:\/\/proxy\.example:3128/);
    assert.throws(() => behind('not a url'), /cluster "dev" has proxy-url "not a url", which is not a URL/);
    assert.throws(() => behind(3128), /cluster "dev" has proxy-url 3128, which is not a URL/);
  });

  it('takes a server without a scheme as kubectl does (https with TLS settings, else http), and refuses a scheme it cannot speak', () => {
    const withServer = (cluster: Record<string, unknown>) => resolveConnection([{ path: '/k/config', config: { ...config, clusters: [{ name: 'dev', cluster }] } }], {}, read);
    assert.equal(withServer({ server: '10.0.0.2:6443', 'certificate-authority-data': b64('CA PEM') }).server, 'https://10.0.0.2:6443');
    assert.equal(withServer({ server: 'localhost:6443', 'insecure-skip-tls-verify': true }).server, 'https://localhost:6443');
    // alice's client certificate asks for TLS as well.
    assert.equal(withServer({ server: 'api.internal' }).server, 'https://api.internal');
    const plain = resolveConnection([{ path: '/k/config', config: { ...config, 'current-context': 'lab-bob', clusters: [{ name: 'lab', cluster: { server: 'localhost:8080/' } }] } }], {}, read);
    assert.equal(plain.server, 'http://localhost:8080');
    assert.throws(() => withServer({ server: 'ftp://10.0.0.2:6443' }), /cluster "dev" has server "ftp:\/\/10.0.0.2:6443", which is not an http or https URL/);
    assert.throws(() => withServer({ server: 'https://' }), /cluster "dev" has server "https:\/\/", which is not an http or https URL/);
  });

  it('says which context, cluster or file is missing', () => {
    assert.throws(() => resolve('prod'), /context "prod" not found in the kubeconfig \(\/k\/config\)/);
    assert.throws(() => resolve('broken'), /names cluster "nowhere", which is not in the kubeconfig/);
    assert.throws(() => resolveConnection([{ path: '/k/config', config: { ...config, 'current-context': '' } }], {}, read), /no current-context: pass --context/);
    const noFile = { ...config, users: [{ name: 'alice', user: { 'client-certificate': '/gone/cert', 'client-key': '/gone/key' } }] };
    assert.throws(() => resolveConnection([{ path: '/k/config', config: noFile }], {}, read), /cannot read client-certificate \/gone\/cert/);
  });

  it('reads KUBECONFIG lists (first file wins) and --kubeconfig', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-kubeconfig-'));
    try {
      const a = join(dir, 'a');
      const b = join(dir, 'b');
      writeFileSync(a, stringify({ 'current-context': 'two', contexts: [{ name: 'two', context: { cluster: 'c', user: 'u', namespace: 'from-a' } }] }));
      writeFileSync(b, stringify({ 'current-context': 'one', clusters: [{ name: 'c', cluster: { server: 'https://b' } }], users: [{ name: 'u', user: { token: 't' } }], contexts: [{ name: 'two', context: { cluster: 'c', user: 'u', namespace: 'from-b' } }] }));
      const env = { KUBECONFIG: `${a}:${join(dir, 'missing')}:${b}` };
      assert.deepEqual(kubeconfigFiles(undefined, env), [a, b]);
      const c = loadConnection({}, env);
      assert.deepEqual([c.context, c.namespace, c.server, c.token], ['two', 'from-a', 'https://b', 't']);
      assert.throws(() => loadConnection({ path: join(dir, 'missing') }, env), /cannot read kubeconfig .*missing: no such file/);
      assert.throws(() => loadConnection({}, { HOME: dir }), /no Kubernetes configuration found/);
      // The parser's first line ends in ":" before a snippet of the file: said as a whole sentence.
      const garbage = join(dir, 'garbage');
      writeFileSync(garbage, 'garbage: [\n');
      assert.throws(() => loadConnection({ path: garbage }, env), (err: Error) => err.message === `kubeconfig ${garbage} is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('uses the service account in a pod when the kubeconfig files name no context (empty files), as client-go does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-kubeconfig-'));
    try {
      const sa = join(dir, 'serviceaccount');
      mkdirSync(sa);
      writeFileSync(join(sa, 'token'), 'sa-token\n');
      writeFileSync(join(sa, 'ca.crt'), 'CA PEM');
      writeFileSync(join(sa, 'namespace'), 'skiff-system');
      const empty = join(dir, 'empty');
      writeFileSync(empty, '');
      const pod = { KUBECONFIG: `${empty}:${join(dir, 'missing')}`, KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
      const c = loadConnection({}, pod, sa);
      assert.deepEqual([c.context, c.server, c.token, c.namespace], ['in-cluster', 'https://10.96.0.1:443', 'sa-token', 'skiff-system']);
      assert.equal(loadConnection({ path: empty }, pod, sa).context, 'in-cluster');
      // A context asked for by name is not the service account's; outside a pod it stays an error.
      assert.throws(() => loadConnection({ context: 'dev' }, pod, sa), /context "dev" not found/);
      assert.throws(() => loadConnection({}, { KUBECONFIG: empty }, sa), /no current-context: pass --context/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
