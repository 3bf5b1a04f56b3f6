// The transport through a kubeconfig cluster's proxy-url (shared/proxy-tunnel.ts): an HTTP
// CONNECT proxy and a SOCKS5 proxy, each a small local server in front of a local HTTPS "API
// server" whose certificate the kubeconfig's CA signed. TLS to the API server runs inside the
// tunnel: the proxy sees only the address it is asked to connect to.
import { strict as assert } from 'node:assert';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer } from 'node:https';
import { connect, createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { generateCA, generateServingCert } from '../../certs/generate.js';
import { makeTransport, readText } from '../../shared/kube-transport.js';
import { ipv6Bytes, openTunnel } from '../../shared/proxy-tunnel.js';
import type { Connection } from '../../shared/kube-connection.js';

const listen = async <S extends Server>(s: S) => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as AddressInfo).port;
};

/** Stops a test server and ends the connections it still holds (a tunnel keeps one alive). */
const closer = (s: Server, sockets: Set<Socket>) => () => {
  s.close();
  for (const k of sockets) k.destroy();
};

/** The "API server": answers every request with its path, and counts TLS connections. */
async function apiServer() {
  const ca = generateCA({ commonName: 'test-ca' });
  const serving = generateServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  let connections = 0;
  const sockets = new Set<Socket>();
  const s = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: req.url, auth: req.headers.authorization }));
  });
  s.on('secureConnection', (socket: Socket) => { connections++; sockets.add(socket); });
  const port = await listen(s);
  const conn = (proxy: string, more: Partial<Connection> = {}): Connection => ({
    server: `https://127.0.0.1:${port}`, namespace: 'default', context: 'x', ca: ca.certPem, insecure: false, files: [], token: 't0k3n', proxy, ...more,
  });
  return { port, conn, connections: () => connections, close: closer(s, sockets) };
}

/** An HTTP proxy that opens CONNECT tunnels (or answers `refuse` with its status), recording each request. */
async function connectProxy(refuse?: number | 'hang up') {
  const seen: { target?: string; auth?: string }[] = [];
  const sockets = new Set<Socket>();
  const s = createHttpServer();
  s.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    seen.push({ target: req.url, auth: req.headers['proxy-authorization'] });
    if (refuse === 'hang up') return void client.destroy();
    if (refuse) {
      client.end(`HTTP/1.1 ${refuse} Proxy Authentication Required\r\n\r\n`);
      return;
    }
    const [host, port] = req.url!.split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  const port = await listen(s);
  return { port, seen, close: closer(s, sockets) };
}

/** A SOCKS5 proxy (RFC 1928 CONNECT; RFC 1929 when `password` is set), recording what it was asked. */
async function socksProxy(password?: { user: string; pass: string }) {
  const seen: { type: number; host: string; port: number; user?: string }[] = [];
  const sockets = new Set<Socket>();
  const s = createNetServer((client) => {
    sockets.add(client);
    let buf = Buffer.alloc(0);
    let stage: 'hello' | 'auth' | 'request' | 'open' = 'hello';
    let user: string | undefined;
    client.on('error', () => undefined);
    client.on('data', (chunk) => {
      if (stage === 'open') return;
      buf = Buffer.concat([buf, chunk]);
      if (stage === 'hello' && buf.length >= 2 && buf.length >= 2 + buf[1]) {
        const methods = [...buf.subarray(2, 2 + buf[1])];
        buf = buf.subarray(2 + buf[1]);
        const method = password ? (methods.includes(2) ? 2 : 0xff) : 0;
        client.write(Buffer.from([5, method]));
        if (method === 0xff) return void client.end();
        stage = password ? 'auth' : 'request';
      }
      if (stage === 'auth' && buf.length >= 2 && buf.length >= 3 + buf[1] && buf.length >= 3 + buf[1] + buf[2 + buf[1]]) {
        const u = buf.subarray(2, 2 + buf[1]).toString();
        const p = buf.subarray(3 + buf[1], 3 + buf[1] + buf[2 + buf[1]]).toString();
        buf = buf.subarray(3 + buf[1] + buf[2 + buf[1]]);
        const ok = u === password!.user && p === password!.pass;
        client.write(Buffer.from([1, ok ? 0 : 1]));
        if (!ok) return void client.end();
        user = u;
        stage = 'request';
      }
      if (stage === 'request' && buf.length >= 5) {
        const type = buf[3];
        const len = type === 1 ? 4 : type === 4 ? 16 : 1 + buf[4];
        if (buf.length < 4 + len + 2) return;
        const host = type === 1 ? [...buf.subarray(4, 8)].join('.') : type === 4 ? buf.subarray(4, 20).toString('hex') : buf.subarray(5, 5 + buf[4]).toString();
        const port = buf.readUInt16BE(4 + len);
        seen.push({ type, host, port, ...(user ? { user } : {}) });
        stage = 'open';
        const upstream = connect(port, type === 3 && host === 'localhost' ? '127.0.0.1' : host, () => {
          client.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
          upstream.pipe(client);
          client.pipe(upstream);
        });
        sockets.add(upstream);
        upstream.on('error', () => { client.end(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0])); });
      }
    });
  });
  const port = await listen(s);
  return { port, seen, close: closer(s, sockets) };
}

describe('the transport through a kubeconfig\'s proxy-url', () => {
  it('an HTTP proxy: a CONNECT tunnel to the API server\'s address, with the proxy\'s credentials; TLS and the token inside it; one tunnel kept alive', async () => {
    const api = await apiServer();
    const proxy = await connectProxy();
    try {
      const t = makeTransport(api.conn(`http://al%40ice:s3cret@127.0.0.1:${proxy.port}`), 'skiff-test/1');
      for (let i = 0; i < 3; i++) assert.deepEqual(JSON.parse(await readText(await t.send('GET', `/api/v1/namespaces?i=${i}`))), { path: `/api/v1/namespaces?i=${i}`, auth: 'Bearer t0k3n' });
      assert.deepEqual(proxy.seen, [{ target: `127.0.0.1:${api.port}`, auth: `Basic ${Buffer.from('al@ice:s3cret').toString('base64')}` }], 'one CONNECT, with the proxy-url\'s user and password');
      assert.equal(api.connections(), 1);
      t.close();
    } finally {
      proxy.close();
      api.close();
    }
  });

  it('through the proxy, the API server\'s certificate is still checked against the kubeconfig\'s CA', async () => {
    const api = await apiServer();
    const proxy = await connectProxy();
    try {
      const t = makeTransport(api.conn(`http://127.0.0.1:${proxy.port}`, { ca: generateCA({ commonName: 'other-ca' }).certPem }), 'skiff-test/1');
      await assert.rejects(t.send('GET', '/api'), /certificate/);
      t.close();
    } finally {
      proxy.close();
      api.close();
    }
  });

  it('a proxy that refuses the tunnel, or cannot be reached, fails the request with that in words', async () => {
    const api = await apiServer();
    const proxy = await connectProxy(407);
    try {
      const t = makeTransport(api.conn(`http://127.0.0.1:${proxy.port}`), 'skiff-test/1');
      await assert.rejects(t.send('GET', '/api'), new RegExp(`the proxy http://127\\.0\\.0\\.1:${proxy.port} refused to connect to 127\\.0\\.0\\.1:${api.port}: 407`));
      t.close();
      const closed = makeTransport(api.conn(`http://user:pw@127.0.0.1:1`), 'skiff-test/1');
      await assert.rejects(closed.send('GET', '/api'), (err: Error) => /cannot reach the proxy http:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/.test(err.message) && !err.message.includes('pw'));
      closed.close();
      const hangsUp = await connectProxy('hang up');
      const silent = makeTransport(api.conn(`http://127.0.0.1:${hangsUp.port}`), 'skiff-test/1');
      await assert.rejects(silent.send('GET', '/api'), new RegExp(`the proxy http://127\\.0\\.0\\.1:${hangsUp.port} closed the connection without answering CONNECT 127\\.0\\.0\\.1:${api.port}`));
      silent.close();
      hangsUp.close();
    } finally {
      proxy.close();
      api.close();
    }
  });

  it('a SOCKS5 proxy: an IPv4 address as such, a name for the proxy to resolve, a username and password when the URL has them', async () => {
    const api = await apiServer();
    const open = await socksProxy();
    const guarded = await socksProxy({ user: 'bob', pass: 'pw' });
    try {
      const t = makeTransport(api.conn(`socks5://127.0.0.1:${open.port}`), 'skiff-test/1');
      assert.equal(JSON.parse(await readText(await t.send('GET', '/version'))).path, '/version');
      t.close();
      const named = makeTransport(api.conn(`socks5://127.0.0.1:${open.port}`, { server: `https://localhost:${api.port}` }), 'skiff-test/1');
      assert.equal(JSON.parse(await readText(await named.send('GET', '/api'))).path, '/api');
      named.close();
      assert.deepEqual(open.seen, [{ type: 1, host: '127.0.0.1', port: api.port }, { type: 3, host: 'localhost', port: api.port }]);
      const withPassword = makeTransport(api.conn(`socks5://bob:pw@127.0.0.1:${guarded.port}`), 'skiff-test/1');
      assert.equal(JSON.parse(await readText(await withPassword.send('GET', '/apis'))).path, '/apis');
      withPassword.close();
      const wrong = makeTransport(api.conn(`socks5://bob:nope@127.0.0.1:${guarded.port}`), 'skiff-test/1');
      await assert.rejects(wrong.send('GET', '/apis'), /refused the username and password of proxy-url/);
      wrong.close();
      const none = makeTransport(api.conn(`socks5://127.0.0.1:${guarded.port}`), 'skiff-test/1');
      await assert.rejects(none.send('GET', '/apis'), /accepts none of the ways to authenticate offered \(proxy-url has no username and password\)/);
      none.close();
      assert.deepEqual(guarded.seen, [{ type: 1, host: '127.0.0.1', port: api.port, user: 'bob' }]);
    } finally {
      open.close();
      guarded.close();
      api.close();
    }
  });

  it('a SOCKS5 proxy that cannot connect says why', async () => {
    const api = await apiServer();
    const open = await socksProxy();
    try {
      const t = makeTransport(api.conn(`socks5://127.0.0.1:${open.port}`), 'skiff-test/1');
      api.close();
      await assert.rejects(t.send('GET', '/api'), /could not connect to 127\.0\.0\.1:\d+: connection refused/);
      t.close();
    } finally {
      open.close();
    }
  });

  it('a proxy that accepts the connection and never answers: the attempt fails at its timeout and its connection is closed, not left open', async () => {
    // The proxy's end sees every connection closed: nothing is held open after the attempt is given up.
    const accepted: Promise<void>[] = [];
    const mute = createNetServer((client) => {
      client.on('error', () => undefined);
      client.resume(); // reads what it is sent (and so sees the end), answers nothing
      accepted.push(new Promise((closed) => client.once('close', () => closed())));
    });
    const port = await listen(mute);
    try {
      for (const scheme of ['http', 'socks5']) {
        await assert.rejects(openTunnel(new URL(`${scheme}://127.0.0.1:${port}`), 'api.example', 6443, 200),
          new RegExp(`the proxy ${scheme}://127\\.0\\.0\\.1:${port} did not open a connection to api\\.example:6443 within 0\\.2s`));
      }
      assert.equal(accepted.length, 2, 'one connection per attempt reached the proxy');
      await Promise.all(accepted);
    } finally {
      mute.close();
    }
  });

  it('SOCKS5: a username, password or name longer than the one byte of its length is refused in words, not sent cut', async () => {
    const open = await socksProxy({ user: 'bob', pass: 'pw' });
    try {
      const long = 'x'.repeat(256);
      await assert.rejects(openTunnel(new URL(`socks5://bob:${long}@127.0.0.1:${open.port}`), '127.0.0.1', 6443, 5000), /are each at most 255 bytes for SOCKS5/);
      const plain = await socksProxy();
      try {
        await assert.rejects(openTunnel(new URL(`socks5://127.0.0.1:${plain.port}`), `${'a'.repeat(250)}.example`, 6443, 5000), /is longer than the 255 bytes SOCKS5 carries/);
      } finally {
        plain.close();
      }
      assert.deepEqual(open.seen, []);
    } finally {
      open.close();
    }
  });

  it('writes an IPv6 address as its 16 bytes', () => {
    assert.equal(ipv6Bytes('::1').toString('hex'), '00000000000000000000000000000001');
    assert.equal(ipv6Bytes('fd00:10:96::1').toString('hex'), 'fd000010009600000000000000000001');
    assert.equal(ipv6Bytes('2001:db8:0:0:1:0:0:1').toString('hex'), '20010db8000000000001000000000001');
    assert.equal(ipv6Bytes('::ffff:10.0.0.1').toString('hex'), '00000000000000000000ffff0a000001');
    assert.equal(ipv6Bytes('fe80::1%eth0').toString('hex'), 'fe800000000000000000000000000001');
  });
});
