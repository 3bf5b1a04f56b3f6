// The controller's transport (controller/runtime/transport.ts) and its lists and watches
// (clients.ts, watch.ts) against a local HTTPS server: credentials, one pooled connection, a
// token file read again once a minute by an injected clock, pages of a list, watch streams.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCA, generateServingCert } from '../../certs/generate.js';
import { makeClients } from '../../controller/runtime/clients.js';
import { makeTransport, readText, TOKEN_FILE_REFRESH_MS } from '../../shared/kube-transport.js';
import { makeWatch, WatchError } from '../../controller/runtime/watch.js';
import type { Connection } from '../../shared/kube-connection.js';

interface Seen { method?: string; url?: string; headers: IncomingMessage['headers'] }

async function server(handle: (req: IncomingMessage, res: ServerResponse) => void, names: { dnsNames: string[]; ipAddresses?: string[] } = { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] }) {
  const ca = generateCA({ commonName: 'test-ca' });
  const serving = generateServingCert(ca, names);
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const s = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    seen.push({ method: req.method, url: req.url, headers: req.headers });
    handle(req, res);
  });
  s.on('secureConnection', (socket: Socket) => { connections++; sockets.add(socket); });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const conn = (more: Partial<Connection> = {}): Connection => ({
    server: `https://127.0.0.1:${(s.address() as AddressInfo).port}`, namespace: 'default', context: 'x', ca: ca.certPem, insecure: false, files: [], ...more,
  });
  return { seen, conn, connections: () => connections, close: () => { s.close(); for (const k of sockets) k.destroy(); } };
}

const json = (res: ServerResponse, body: unknown, status = 200) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };

/** How much earlier than its delay, by Date.now, a Node timer may end under load (see its use). */
const TIMER_SLACK_MS = 15;

describe('the controller\'s transport', () => {
  let dir: string;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'skiff-transport-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('sends the token, the user agent and JSON, trusting the kubeconfig\'s CA, over one kept-alive connection', async () => {
    const s = await server((_req, res) => json(res, { ok: true }));
    try {
      const t = makeTransport(s.conn({ token: 't0k3n' }), 'skiff-test/1');
      for (let i = 0; i < 5; i++) assert.equal(await readText(await t.send('GET', `/api/v1/namespaces?i=${i}`)), '{"ok":true}');
      await readText(await t.send('POST', '/api/v1/namespaces', { body: '{"a":1}', contentType: 'application/merge-patch+json' }));
      assert.deepEqual(s.seen.map((r) => r.headers.authorization), Array(6).fill('Bearer t0k3n'));
      assert.equal(s.seen[0].headers['user-agent'], 'skiff-test/1');
      assert.equal(s.seen[5].headers['content-type'], 'application/merge-patch+json');
      assert.equal(s.connections(), 1, 'one TLS connection for every request');
      t.close();
    } finally {
      s.close();
    }
  });

  it('refuses a server whose certificate the kubeconfig\'s CA did not sign', async () => {
    const s = await server((_req, res) => json(res, {}));
    try {
      const other = generateCA({ commonName: 'other-ca' });
      const t = makeTransport(s.conn({ ca: other.certPem }), 'skiff-test/1');
      await assert.rejects(t.send('GET', '/api'), /certificate/);
      t.close();
    } finally {
      s.close();
    }
  });

  it('checks the certificate against the kubeconfig\'s tls-server-name instead of the address\'s host', async () => {
    const s = await server((_req, res) => json(res, { ok: true }), { dnsNames: ['api.internal'] });
    try {
      const bare = makeTransport(s.conn(), 'skiff-test/1');
      await assert.rejects(bare.send('GET', '/api'), /altnames|certificate|IP: 127\.0\.0\.1/);
      bare.close();
      const named = makeTransport(s.conn({ serverName: 'api.internal' }), 'skiff-test/1');
      assert.equal(await readText(await named.send('GET', '/api')), '{"ok":true}');
      named.close();
    } finally {
      s.close();
    }
  });

  it('a tls-server-name that is an IP address: the certificate is checked against it, without Node\'s warning that SNI takes no IP address', async () => {
    const s = await server((_req, res) => json(res, { ok: true }), { dnsNames: [], ipAddresses: ['10.9.8.7'] });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const named = makeTransport(s.conn({ serverName: '10.9.8.7' }), 'skiff-test/1');
      assert.equal(await readText(await named.send('GET', '/api')), '{"ok":true}');
      named.close();
      const wrong = makeTransport(s.conn({ serverName: '10.9.8.6' }), 'skiff-test/1');
      await assert.rejects(wrong.send('GET', '/api'), /IP: 10\.9\.8\.6 is not in the cert's list/);
      wrong.close();
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(warnings.filter((w) => /ServerName to an IP address/.test(w)), []);
    } finally {
      process.off('warning', onWarning);
      s.close();
    }
  });

  it('reads a token file again once a minute has passed (a rotated service account token), and keeps the last token while the file is unreadable', async () => {
    const s = await server((_req, res) => json(res, {}));
    const file = join(dir, 'token');
    writeFileSync(file, 'first\n');
    let now = 0;
    try {
      const t = makeTransport(s.conn({ token: 'first', tokenFile: file }), 'skiff-test/1', () => now);
      const auth = async () => { await readText(await t.send('GET', '/api')); return s.seen.at(-1)!.headers.authorization; };
      assert.equal(await auth(), 'Bearer first');
      writeFileSync(file, 'second\n');
      now = TOKEN_FILE_REFRESH_MS - 1;
      assert.equal(await auth(), 'Bearer first', 'not before a minute');
      now = TOKEN_FILE_REFRESH_MS;
      assert.equal(await auth(), 'Bearer second');
      rmSync(file);
      now = 3 * TOKEN_FILE_REFRESH_MS;
      assert.equal(await auth(), 'Bearer second');
      t.close();
    } finally {
      s.close();
    }
  });

  it('measures the minute between token file reads on the monotonic clock: a wall clock set back does not keep a rotated token out', async () => {
    const s = await server((_req, res) => json(res, {}));
    const file = join(dir, 'token-clock');
    writeFileSync(file, 'first\n');
    const [realDateNow, realPerformanceNow] = [Date.now, performance.now];
    let wall = realDateNow();
    let monotonic = realPerformanceNow.call(performance);
    Date.now = () => wall;
    performance.now = () => monotonic;
    try {
      const t = makeTransport(s.conn({ token: 'first', tokenFile: file }), 'skiff-test/1');
      const auth = async () => { await readText(await t.send('GET', '/api')); return s.seen.at(-1)!.headers.authorization; };
      assert.equal(await auth(), 'Bearer first');
      writeFileSync(file, 'second\n');
      // An hour set back (NTP at boot, a VM resumed) while a minute and more passes.
      wall -= 3_600_000;
      // A minute and a millisecond: (m + 60000) - m of a fractional m can be a hair under 60000.
      monotonic += TOKEN_FILE_REFRESH_MS + 1;
      assert.equal(await auth(), 'Bearer second');
      t.close();
    } finally {
      Date.now = realDateNow;
      performance.now = realPerformanceNow;
      s.close();
    }
  });

  it('fails a request the server does not answer within its timeout', async () => {
    const s = await server(() => { /* never answers */ });
    try {
      const t = makeTransport(s.conn({ token: 't' }), 'skiff-test/1');
      const t0 = Date.now();
      await assert.rejects(t.send('GET', '/api/v1/services', { timeoutMs: 200 }), /no answer from the API server for 0.2s/);
      // Node starts a timer from the event loop's cached time, which a busy loop has left a few ms
      // behind the clock: a 200 ms timer can end 199 ms after t0 by Date.now. Not at once, though.
      assert.ok(Date.now() - t0 >= 200 - TIMER_SLACK_MS, `${Date.now() - t0} ms`);
      t.close();
    } finally {
      s.close();
    }
  });

  it('fails a request whose connection never comes up (a TLS handshake the server never answers), a watch too', async () => {
    const silent = createNetServer(() => { /* accepts, never speaks */ });
    const held = new Set<Socket>();
    silent.on('connection', (socket) => held.add(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const t = makeTransport({ server: `https://127.0.0.1:${(silent.address() as AddressInfo).port}`, namespace: 'default', context: 'x', insecure: false, files: [], token: 't' }, 'skiff-test/1');
      await assert.rejects(t.send('GET', '/api/v1/services?watch=true', { timeoutMs: 0, connectTimeoutMs: 200 }), /could not connect to the API server at https:\/\/127\.0\.0\.1:\d+ within 0\.2s/);
      t.close();
    } finally {
      silent.close();
      for (const s of held) s.destroy();
    }
  });

  it('sends basic credentials when the kubeconfig has a username and no token', async () => {
    const s = await server((_req, res) => json(res, {}));
    try {
      const t = makeTransport(s.conn({ username: 'ann', password: 'pw' }), 'skiff-test/1');
      await readText(await t.send('GET', '/api'));
      assert.equal(s.seen[0].headers.authorization, `Basic ${Buffer.from('ann:pw').toString('base64')}`);
      t.close();
    } finally {
      s.close();
    }
  });

  it('lists every page, with the selector on each and the resourceVersion of the last', async () => {
    const pages = [
      { metadata: { resourceVersion: '10', continue: 'p2' }, items: [{ metadata: { name: 'a' } }] },
      { metadata: { resourceVersion: '10', continue: 'p3' }, items: [{ metadata: { name: 'b' } }] },
      { metadata: { resourceVersion: '10' }, items: [{ metadata: { name: 'c' } }] },
    ];
    const s = await server((req, res) => json(res, pages[new URL(req.url!, 'https://x').searchParams.get('continue') === 'p2' ? 1 : new URL(req.url!, 'https://x').searchParams.get('continue') === 'p3' ? 2 : 0]));
    try {
      const clients = makeClients(s.conn({ token: 't' }), 'skiff-test/1');
      const list = await clients.list('/api/v1/services', 'a=b');
      assert.deepEqual(list.items.map((o) => o.metadata?.name), ['a', 'b', 'c']);
      assert.equal(list.metadata?.resourceVersion, '10');
      assert.deepEqual(s.seen.map((r) => r.url), [
        '/api/v1/services?limit=500&labelSelector=a%3Db',
        '/api/v1/services?limit=500&labelSelector=a%3Db&continue=p2',
        '/api/v1/services?limit=500&labelSelector=a%3Db&continue=p3',
      ]);
      clients.close();
    } finally {
      s.close();
    }
  });

  it('watches: events split across chunks arrive whole and in order, then done(null) when the server ends the stream', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const lines = [{ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '2' } } }, { type: 'BOOKMARK', object: { metadata: { resourceVersion: '3' } } }].map((e) => `${JSON.stringify(e)}\n`).join('');
      res.write(lines.slice(0, 17));
      setTimeout(() => { res.write(lines.slice(17)); res.end(); }, 20);
    });
    try {
      const clients = makeClients(s.conn({ token: 't' }), 'skiff-test/1');
      const events: string[] = [];
      const ended = await new Promise<unknown>((done) => void clients.watch.watch('/api/v1/services', { resourceVersion: '1', labelSelector: 'a=b' }, (phase, obj) => events.push(`${phase} ${(obj as { metadata: { resourceVersion: string } }).metadata.resourceVersion}`), done));
      assert.equal(ended, null);
      assert.deepEqual(events, ['ADDED 2', 'BOOKMARK 3']);
      const url = new URL(s.seen[0].url!, 'https://x');
      assert.equal(url.searchParams.get('watch'), 'true');
      assert.equal(url.searchParams.get('allowWatchBookmarks'), 'true');
      assert.equal(url.searchParams.get('resourceVersion'), '1');
      assert.equal(url.searchParams.get('labelSelector'), 'a=b');
      const timeout = Number(url.searchParams.get('timeoutSeconds'));
      assert.ok(timeout >= 300 && timeout < 600, `the server ends it after 5 to 10 minutes: ${timeout}`);
      clients.close();
    } finally {
      s.close();
    }
  });

  it('a watch that hears nothing, not even a bookmark, for the silence limit ends as the server\'s own end does (resumed, not a failure); bookmarks keep it open', async () => {
    const held: ServerResponse[] = [];
    const s = await server((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('');
      held.push(res);
      if (req.url!.startsWith('/bookmarked')) {
        const beat = setInterval(() => res.write(`${JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '5' } } })}\n`), 50);
        res.on('close', () => clearInterval(beat));
      }
    });
    try {
      const watch = makeWatch(makeTransport(s.conn({ token: 't' }), 'skiff-test/1'), Math.random, 300);
      const t0 = Date.now();
      const err = await new Promise<unknown>((done) => void watch.watch('/silent', {}, () => {}, done));
      assert.equal(err, null, 'ended without an error: the informer watches again from its version, without a list');
      assert.ok(Date.now() - t0 >= 300 - TIMER_SLACK_MS, `${Date.now() - t0} ms`);
      let ended: unknown = 'open';
      let bookmarks = 0;
      const handle = await watch.watch('/bookmarked', {}, () => { bookmarks++; }, (e) => { ended = e; });
      await new Promise((r) => setTimeout(r, 700));
      assert.equal(ended, 'open', 'bookmarks every 50 ms: alive');
      assert.ok(bookmarks > 3);
      handle.abort();
    } finally {
      for (const r of held) r.destroy();
      s.close();
    }
  });

  it('a refused watch ends with its HTTP code (410 Gone tells the informer to list again); an aborted one ends quietly', async () => {
    let hold: ServerResponse | undefined;
    const s = await server((req, res) => {
      if (req.url!.includes('gone')) return json(res, { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' }, 410);
      res.writeHead(200);
      res.write('');
      hold = res;
    });
    try {
      const clients = makeClients(s.conn({ token: 't' }), 'skiff-test/1');
      const err = await new Promise<unknown>((done) => void clients.watch.watch('/gone', {}, () => {}, done));
      assert.ok(err instanceof WatchError);
      assert.equal((err as WatchError).statusCode, 410);
      assert.match((err as Error).message, /too old resource version/);
      let called = false;
      const handle = await clients.watch.watch('/held', {}, () => {}, () => { called = true; });
      handle.abort();
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(called, false, 'stopping a watch is not its end');
      hold?.end();
      clients.close();
    } finally {
      s.close();
    }
  });
});
