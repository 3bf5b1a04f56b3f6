// The plugin's API client (cli/api.ts) against a local HTTP server: what the API server says
// besides its answer reaches the user.
import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CliError, makeApi, warningTexts } from '../../cli/api.js';
import { ApiError } from '../../cli/errors.js';
import type { Connection } from '../../shared/kube-connection.js';

describe('kubectl skiff API client', () => {
  let server: Server;
  let conn: Connection;
  before(async () => {
    server = createServer((req, res) => {
      // What a validating webhook's warnings become (an image with the latest tag), as the API server sends them.
      res.setHeader('warning', ['299 - "spec.image: the tag \\"latest\\" is mutable"', '299 - "another warning"']);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ metadata: { name: 'web' }, method: req.method }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    conn = { server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, namespace: 'default', context: 'x', insecure: false, files: [] };
  });
  after(() => server.close());

  it('reads Warning headers as kubectl does: code 299, the quoted text unescaped', () => {
    assert.deepEqual(warningTexts(['299 - "spec.image: the tag \\"latest\\" is mutable"', '299 kube-apiserver "a", 299 - "b"']), ['spec.image: the tag "latest" is mutable', 'a', 'b']);
    assert.deepEqual(warningTexts(['199 - "not a deprecation warning"', 'garbage']), []);
    assert.deepEqual(warningTexts(undefined), []);
  });

  it('hands the API server\'s warnings on a write to the caller, to be shown as kubectl shows them', async () => {
    const warnings: string[] = [];
    const api = makeApi(conn, (text) => warnings.push(text));
    const patched = await api.mergePatch<{ method: string }>('/apis/skiff.dev/v1alpha1/namespaces/default/apps/web', { spec: { image: 'web:latest' } });
    assert.equal(patched.method, 'PATCH');
    assert.deepEqual(warnings, ['spec.image: the tag "latest" is mutable', 'another warning']);
  });
});

describe('kubectl skiff API client: a refused request', () => {
  let server: Server;
  let conn: Connection;
  before(async () => {
    // An admission webhook's denial of a write (422 Invalid), and a server error (500) on a read.
    server = createServer((req, res) => {
      const [code, reason, message] = req.method === 'PATCH'
        ? [422, 'Invalid', 'admission webhook "mapp.skiff.dev" denied the request: spec.image: must be a valid image reference such as ghcr.io/acme/web:1.4.2']
        : [500, 'InternalError', 'etcdserver: request timed out'];
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    conn = { server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, namespace: 'default', context: 'x', insecure: false, files: [] };
  });
  after(() => server.close());

  it('a write refused for what it asks says the code, the reason and the server\'s words, not the method and path; the page gets the words alone', async () => {
    const err = await makeApi(conn).mergePatch('/apis/skiff.dev/v1alpha1/namespaces/shop/apps/web', { spec: { image: 'UPPER:1' } }).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.message, 'refused (422 Invalid): admission webhook "mapp.skiff.dev" denied the request: spec.image: must be a valid image reference such as ghcr.io/acme/web:1.4.2');
    assert.equal(err.serverMessage, 'admission webhook "mapp.skiff.dev" denied the request: spec.image: must be a valid image reference such as ghcr.io/acme/web:1.4.2');
    assert.equal(err.reason, 'Invalid');
  });

  it('a server error keeps the request it answered, which is what one looks for in the server\'s logs', async () => {
    const err = await makeApi(conn).get('/apis/skiff.dev/v1alpha1/namespaces/shop/apps/web').then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.message, 'GET /apis/skiff.dev/v1alpha1/namespaces/shop/apps/web: 500 etcdserver: request timed out');
    assert.equal(err.serverMessage, 'etcdserver: request timed out');
  });
});

describe('kubectl skiff API client: an answer that is not JSON', () => {
  let server: Server;
  let conn: Connection;
  before(async () => {
    // What a kubeconfig whose server is not the API server gets: a proxy's or a web server's login page, with 200.
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!DOCTYPE html><html><body>Please log in</body></html>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    conn = { server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, namespace: 'default', context: 'x', insecure: false, files: [] };
  });
  after(() => server.close());

  it('is an error in words naming the server and what it answered (shown without a stack), not a JSON parser\'s SyntaxError', async () => {
    const err = await makeApi(conn).get('/apis/skiff.dev/v1alpha1/namespaces/default/apps').then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof CliError, `a CliError: ${(err as Error).constructor.name}: ${(err as Error).message}`);
    assert.match(err.message, /^the API server at http:\/\/127\.0\.0\.1:\d+ answered GET \/apis\/skiff\.dev\/v1alpha1\/namespaces\/default\/apps with something that is not JSON \(is the kubeconfig's server the API server\?\): <!DOCTYPE html>/);
  });
});
