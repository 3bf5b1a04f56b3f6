// The dashboard's HTTP answers over an in-memory API: what each route does with methods, bodies
// and names it does not expect, answered in JSON with the status code HTTP gives them.
import { strict as assert } from 'node:assert';
import { request } from 'node:http';
import type { Api } from '../../cli/api.js';
import { runAction } from '../../cli/dashboard/actions.js';
import { dashboardToken } from '../../cli/dashboard/command.js';
import { actingAs } from '../../cli/dashboard/acting-as.js';
import { startDashboard, type Dashboard } from '../../cli/dashboard/server.js';
import { ApiError, CliError } from '../../cli/errors.js';
import type { CliApp } from '../../cli/model.js';

const token = 'k'.repeat(32);
const app: CliApp = {
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop', generation: 1, creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { image: 'r/web:1' },
  status: { observedGeneration: 1, stableImage: 'r/web:1' },
};

function fakeApi(patched: unknown[]): Api {
  return {
    connection: { context: 'test' } as Api['connection'],
    async get<T>(path: string): Promise<T> {
      if (path.startsWith('/apis/gateway')) throw new ApiError(404, 'not found');
      if (path.endsWith('/apps/web')) return app as T;
      return { metadata: { resourceVersion: '1' }, items: path.includes('skiff.dev') ? [app] : [] } as T;
    },
    async mergePatch<T>(_path: string, patch: unknown): Promise<T> {
      patched.push(patch);
      return app as T;
    },
    watchOnce: (_path, _rv, _on, signal) => new Promise((_, fail) => signal.addEventListener('abort', () => fail(new Error('aborted')))),
  };
}

/** A request with a body of `size` bytes written in pieces, as a client that streams it would. */
function post(d: Dashboard, path: string, size: number, headers: Record<string, string | number> = {}) {
  const base = `http://127.0.0.1:${d.port}`;
  return new Promise<{ status?: number; body: string } | { error: string }>((done) => {
    const req = request(`${base}${path}`, { method: 'POST', headers: { 'x-skiff-token': token, origin: base, 'content-type': 'application/json', ...headers } }, (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => done({ status: res.statusCode, body }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => done({ error: err.code ?? err.message }));
    // A JSON object padded with spaces: well-formed whatever its size.
    const piece = Buffer.alloc(64 * 1024, ' ');
    req.write('{}');
    let sent = 2;
    const pump = (): void => {
      while (sent < size) {
        const n = Math.min(piece.length, size - sent);
        sent += n;
        if (!req.write(piece.subarray(0, n))) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

describe('dashboard requests', () => {
  let d: Dashboard;
  const patched: unknown[] = [];
  beforeEach(async () => {
    patched.length = 0;
    d = await startDashboard({ api: fakeApi(patched), namespace: 'shop', address: '127.0.0.1', port: 0, token });
  });
  afterEach(async () => d.stop());

  it('a body over the limit is answered 413 in JSON, with its length declared or not, and nothing is written', async () => {
    for (const [size, headers] of [[8 * 1024 * 1024, { 'content-length': 8 * 1024 * 1024 }], [8 * 1024 * 1024, { 'transfer-encoding': 'chunked' }], [5000, {}]] as const) {
      const got = await post(d, '/api/apps/shop/web/pause', size, headers);
      assert.ok('status' in got, `${size} bytes: the client was cut off (${JSON.stringify(got)}) instead of answered`);
      assert.equal(got.status, 413, got.body);
      assert.match(JSON.parse(got.body).message, /body too large/);
    }
    assert.deepEqual(patched, []);
    const fine = await post(d, '/api/apps/shop/web/pause', 100);
    assert.ok('status' in fine && fine.status === 200, JSON.stringify(fine));
  });

  it('HEAD is answered as GET without a body; a method a route does not take is 405 with an Allow header', async () => {
    const base = `http://127.0.0.1:${d.port}`;
    const read = { 'x-skiff-token': token };
    const write = { ...read, origin: base };
    for (const path of ['/', '/app.js', '/api/session', '/api/apps', '/api/apps/shop/web', `/api/stream?token=${token}`]) {
      const res = await fetch(`${base}${path}`, { method: 'HEAD', headers: read });
      assert.equal(res.status, 200, `HEAD ${path}`);
      assert.equal(await res.text(), '', `HEAD ${path}: no body`);
    }
    for (const [method, path, allow] of [
      ['POST', '/api/apps', 'GET, HEAD'], ['DELETE', '/api/session', 'GET, HEAD'], ['POST', '/', 'GET, HEAD'], ['PUT', '/api/stream', 'GET, HEAD'],
      ['DELETE', '/api/apps/shop/web', 'GET, HEAD'], ['GET', '/api/apps/shop/web/promote', 'POST'], ['PUT', '/api/apps/shop/web/undo', 'POST'],
    ]) {
      const res = await fetch(`${base}${path}`, { method, headers: write });
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.equal(res.headers.get('allow'), allow, `${method} ${path}`);
      assert.match(res.headers.get('content-type') ?? '', /application\/json/);
      assert.match(((await res.json()) as { message: string }).message, new RegExp(`${method} is not allowed`));
    }
    assert.deepEqual(patched, []);
  });

  it('the stream of an App in a namespace outside the scope is refused 404, as the App\'s own request is, rather than waiting for it forever', async () => {
    const base = `http://127.0.0.1:${d.port}`;
    const detail = await fetch(`${base}/api/apps/other/web`, { headers: { 'x-skiff-token': token } });
    assert.equal(detail.status, 404);
    const ac = new AbortController();
    try {
      const stream = await fetch(`${base}/api/stream?token=${token}&app=${encodeURIComponent('other/web')}`, { signal: ac.signal });
      assert.equal(stream.status, 404);
      assert.match(((await stream.json()) as { message: string }).message, /namespace other is not in this dashboard's scope/);
      assert.equal(d.hub.size, 0, 'no subscriber kept for it');
      const inScope = await fetch(`${base}/api/stream?token=${token}&app=${encodeURIComponent('shop/web')}`, { signal: ac.signal });
      assert.equal(inScope.status, 200);
      // What no namespace can be named is not offered back as a command to run.
      const odd = await fetch(`${base}/api/apps/shop%2F..%2Fother/web`, { headers: { 'x-skiff-token': token } });
      assert.equal(odd.status, 404);
      assert.equal(((await odd.json()) as { message: string }).message, '"shop/../other" is no namespace name, and this dashboard\'s scope is namespace shop');
    } finally {
      ac.abort();
    }
  });

  it('an action\'s body that is not an object of the documented fields is 400 saying what is wrong, and nothing is written', async () => {
    const base = `http://127.0.0.1:${d.port}`;
    const send = async (body: string) => {
      const res = await fetch(`${base}/api/apps/shop/web/undo`, { method: 'POST', headers: { 'x-skiff-token': token, origin: base, 'content-type': 'application/json' }, body });
      return [res.status, ((await res.json()) as { message: string }).message];
    };
    assert.deepEqual(await send('null'), [400, 'the body must be a JSON object']);
    assert.deepEqual(await send('[1]'), [400, 'the body must be a JSON object']);
    assert.deepEqual(await send('{"revision": 1, "skipCanary": "true"}'), [400, 'skipCanary must be true or false'], 'not read as false: an undo that was to skip the canary would run one');
    // As --to-revision 0 is a usage error in the terminal: revisions are numbered from 1.
    for (const revision of ['0', '-3', '1.5', '"2"']) assert.deepEqual(await send(`{"revision": ${revision}}`), [400, 'revision must be a revision number, 1 or more'], revision);
    assert.deepEqual(patched, []);
  });
});

describe('dashboard actions on an App that is not there', () => {
  it('answer the API server\'s 404, not 409 "nothing to do"', async () => {
    const missing: Api = {
      ...fakeApi([]),
      async get<T>(path: string): Promise<T> {
        if (path.endsWith('/apps/nope')) throw new ApiError(404, 'apps.skiff.dev "nope" not found', 'NotFound');
        throw new ApiError(404, 'the server could not find the requested resource', 'NotFound');
      },
    };
    for (const action of ['promote', 'abort', 'pause', 'resume', 'retry', 'undo'] as const) {
      const result = await runAction(missing, 'shop', 'nope', action, {});
      assert.deepEqual(result, { ok: false, status: 404, reason: 'NotFound', message: 'app "nope" not found in namespace "shop"' }, action);
    }
    const noApi = await runAction(missing, 'shop', 'web', 'pause', {});
    assert.equal(noApi.ok === false && noApi.status, 404, 'the App API not installed: not found either');
  });
});

describe('dashboard token from SKIFF_DASHBOARD_TOKEN', () => {
  it('is used when long enough, is new when unset, and is an error otherwise rather than replaced without a word', () => {
    assert.equal(dashboardToken({ SKIFF_DASHBOARD_TOKEN: 'abcdefghijklmnop' }), 'abcdefghijklmnop');
    assert.equal(dashboardToken({ SKIFF_DASHBOARD_TOKEN: 'sixteen chars ok' }), 'sixteen chars ok');
    assert.match(dashboardToken({}), /^[A-Za-z0-9_-]{32}$/);
    assert.match(dashboardToken({ SKIFF_DASHBOARD_TOKEN: '' }), /^[A-Za-z0-9_-]{32}$/, 'set to nothing: as unset');
    // Too short, or with a character a browser cannot send in the X-Skiff-Token header: the
    // pages it was set for would be refused after the restart it was meant to survive.
    for (const given of ['short', 'sixteen-chars-é!', ' sixteen-chars-ok', 'sixteen-chars-ok\n']) {
      assert.throws(() => dashboardToken({ SKIFF_DASHBOARD_TOKEN: given }), (err: Error) => err instanceof CliError && /SKIFF_DASHBOARD_TOKEN/.test(err.message), given);
    }
  });
});

describe('the dashboard\'s first line', () => {
  it('names the user its requests act as when that is an impersonated one (--as), not the kubeconfig\'s', () => {
    assert.equal(actingAs(undefined), "acting with your kubeconfig's credentials");
    assert.equal(actingAs({ user: 'viewer2' }), "acting as viewer2 (impersonated with your kubeconfig's credentials)");
    assert.equal(actingAs({ user: 'jane', groups: ['dev', 'ops'] }), "acting as jane in groups dev, ops (impersonated with your kubeconfig's credentials)");
  });
});
