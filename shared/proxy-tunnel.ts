// A kubeconfig cluster's `proxy-url`, as client-go reads it: the connection to the API server goes
// through an HTTP(S) proxy (a CONNECT tunnel) or a SOCKS5 proxy (RFC 1928, with RFC 1929
// username and password when the URL carries them). The tunnel is a plain byte stream to the API
// server's address; TLS to the API server runs inside it, checked as without a proxy.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect, isIP, type Socket } from 'node:net';

/** The proxy schemes client-go takes in `proxy-url`. */
export const PROXY_SCHEMES = ['http:', 'https:', 'socks5:'] as const;

/** A URL's hostname as a socket takes it: an IPv6 address without the brackets a URL writes it in. */
export const bareHost = (hostname: string) => hostname.replace(/^\[|\]$/g, '');

/** The proxy's address for messages: never its password. */
function proxyLabel(proxy: URL): string {
  return `${proxy.protocol}//${proxy.host}`;
}

/**
 * A socket to `host:port` through `proxy`, once the proxy has opened the way; fails with the
 * proxy's refusal in words, or when the tunnel is not up within `timeoutMs`.
 */
export function openTunnel(proxy: URL, host: string, port: number, timeoutMs: number): Promise<Socket> {
  // A proxy that accepts the connection and never answers would otherwise hold it open for good:
  // in a long-running controller, one such socket per attempt.
  const giveUp = new AbortController();
  const opening = proxy.protocol === 'socks5:' ? socks5(proxy, host, port, giveUp.signal) : connectTunnel(proxy, host, port, giveUp.signal);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => {
      giveUp.abort();
      fail(new Error(`the proxy ${proxyLabel(proxy)} did not open a connection to ${hostPort(host, port)} within ${timeoutMs / 1000}s`));
    }, timeoutMs);
  });
  // A tunnel that comes up after the timeout is closed, not left open.
  opening.then((socket) => { if (timer === undefined) socket.destroy(); }, () => undefined);
  return Promise.race([opening, late]).finally(() => {
    clearTimeout(timer);
    timer = undefined;
  });
}

const hostPort = (host: string, port: number) => (isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`);

const userInfo = (proxy: URL) => ({ user: decodeURIComponent(proxy.username), password: decodeURIComponent(proxy.password) });

/** HTTP CONNECT, with Proxy-Authorization (Basic) when the URL has a user, as Go's transport sends it. */
function connectTunnel(proxy: URL, host: string, port: number, signal: AbortSignal): Promise<Socket> {
  const target = hostPort(host, port);
  const headers: Record<string, string> = { host: target };
  if (proxy.username) {
    const { user, password } = userInfo(proxy);
    headers['proxy-authorization'] = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }
  const secure = proxy.protocol === 'https:';
  return new Promise((done, fail) => {
    const req = (secure ? httpsRequest : httpRequest)({
      hostname: bareHost(proxy.hostname), port: proxy.port || (secure ? 443 : 80), method: 'CONNECT', path: target, headers, agent: false,
    });
    req.once('connect', (res: IncomingMessage, socket: Socket, head: Buffer) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        fail(new Error(`the proxy ${proxyLabel(proxy)} refused to connect to ${target}: ${res.statusCode} ${res.statusMessage ?? ''}`.trim()));
        return;
      }
      if (head.length > 0) socket.unshift(head);
      done(socket);
    });
    // Reached, then closed without an answer (a proxy that cannot connect onwards may just hang up).
    let reached = false;
    req.once('socket', (socket: Socket) => socket.once(secure ? 'secureConnect' : 'connect', () => { reached = true; }));
    req.once('error', (err) => fail(new Error(reached
      ? `the proxy ${proxyLabel(proxy)} closed the connection without answering CONNECT ${target} (${err.message})`
      : `cannot reach the proxy ${proxyLabel(proxy)}: ${err.message}`)));
    signal.addEventListener('abort', () => req.destroy(), { once: true });
    req.end();
  });
}

const SOCKS_REPLIES: Record<number, string> = {
  1: 'general SOCKS server failure', 2: 'connection not allowed by ruleset', 3: 'network unreachable', 4: 'host unreachable',
  5: 'connection refused', 6: 'TTL expired', 7: 'command not supported', 8: 'address type not supported',
};

/** SOCKS5 CONNECT; the name is resolved by the proxy (as Go's dialer does: the proxy may be the only one that can). */
async function socks5(proxy: URL, host: string, port: number, signal: AbortSignal): Promise<Socket> {
  const socket = netConnect({ host: bareHost(proxy.hostname), port: Number(proxy.port || 1080) });
  const abandon = () => socket.destroy();
  signal.addEventListener('abort', abandon, { once: true });
  const read = reader(socket);
  const where = proxyLabel(proxy);
  try {
    await new Promise<void>((done, fail) => {
      socket.once('connect', done);
      socket.once('error', (err) => fail(new Error(`cannot reach the proxy ${where}: ${err.message}`)));
    });
    const withPassword = proxy.username !== '';
    socket.write(Buffer.from(withPassword ? [5, 2, 0, 2] : [5, 1, 0]));
    const [version, method] = await read(2);
    if (version !== 5) throw new Error(`${where} is not a SOCKS5 proxy`);
    if (method === 2) {
      const { user, password } = userInfo(proxy);
      const u = Buffer.from(user);
      const p = Buffer.from(password);
      // One byte carries each length (RFC 1929): a longer one would be sent cut, as another user.
      if (u.length > 255 || p.length > 255) throw new Error(`the username and password of proxy-url ${where} are each at most 255 bytes for SOCKS5`);
      socket.write(Buffer.concat([Buffer.from([1, u.length]), u, Buffer.from([p.length]), p]));
      const [, status] = await read(2);
      if (status !== 0) throw new Error(`the proxy ${where} refused the username and password of proxy-url`);
    } else if (method !== 0) {
      throw new Error(`the proxy ${where} accepts none of the ways to authenticate offered${withPassword ? '' : ' (proxy-url has no username and password)'}`);
    }
    const family = isIP(host);
    if (family === 0 && Buffer.byteLength(host) > 255) throw new Error(`the name ${host.slice(0, 64)}… is longer than the 255 bytes SOCKS5 carries`);
    const address = family === 4 ? Buffer.from([1, ...host.split('.').map(Number)])
      : family === 6 ? Buffer.concat([Buffer.from([4]), ipv6Bytes(host)])
        : Buffer.concat([Buffer.from([3, Buffer.byteLength(host)]), Buffer.from(host)]);
    socket.write(Buffer.concat([Buffer.from([5, 1, 0]), address, Buffer.from([port >> 8, port & 0xff])]));
    const [, reply, , type] = await read(4);
    if (reply !== 0) throw new Error(`the proxy ${where} could not connect to ${hostPort(host, port)}: ${SOCKS_REPLIES[reply] ?? `reply ${reply}`}`);
    // The address the proxy bound, then its port: read past them.
    const length = type === 1 ? 4 : type === 4 ? 16 : (await read(1))[0];
    await read(length + 2);
    read.done();
    return socket;
  } catch (err) {
    socket.destroy();
    throw err;
  } finally {
    signal.removeEventListener('abort', abandon);
  }
}

/** The 16 bytes of an IPv6 address in text (`isIP` said it is one). */
export function ipv6Bytes(text: string): Buffer {
  let t = text.replace(/%.*$/, '');
  // An IPv4 tail (::ffff:10.0.0.1) is two groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(t);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number);
    t = `${t.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const split = (part: string) => (part ? part.split(':') : []);
  const [head, tail] = t.includes('::') ? t.split('::') : [t, undefined];
  const groups = tail === undefined ? split(head) : [...split(head), ...Array<string>(8 - split(head).length - split(tail).length).fill('0'), ...split(tail)];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

/** Reads exact byte counts from a socket during a handshake; `done` gives back what came after it. */
function reader(socket: Socket) {
  let buffered = Buffer.alloc(0);
  let waiting: { n: number; done: (b: Buffer) => void; fail: (e: Error) => void } | undefined;
  let ended: Error | undefined;
  const pump = () => {
    if (!waiting) return;
    if (buffered.length >= waiting.n) {
      const { n, done } = waiting;
      waiting = undefined;
      const out = buffered.subarray(0, n);
      buffered = buffered.subarray(n);
      done(out);
    } else if (ended) {
      const { fail } = waiting;
      waiting = undefined;
      fail(ended);
    }
  };
  const onData = (chunk: Buffer) => { buffered = Buffer.concat([buffered, chunk]); pump(); };
  const onEnd = () => { ended ??= new Error('the proxy closed the connection during its handshake'); pump(); };
  const onError = (err: Error) => { ended = err; pump(); };
  socket.on('data', onData);
  socket.on('end', onEnd);
  socket.on('close', onEnd);
  socket.on('error', onError);
  const read = (n: number) => new Promise<Buffer>((done, fail) => { waiting = { n, done, fail }; pump(); });
  read.done = () => {
    socket.off('data', onData);
    socket.off('end', onEnd);
    socket.off('close', onEnd);
    socket.off('error', onError);
    socket.pause();
    if (buffered.length > 0) socket.unshift(buffered);
  };
  return read;
}
