// The HTTP connection of the controller and the plugin to the API server, over node:https: one
// keep-alive pool for every request (client-go keeps one transport per config), the kubeconfig's
// TLS material and credentials, and a token file read again every minute (the in-cluster token
// is rotated).
//
// client-node (and the undici it brings) is not loaded for this: its generated API alone kept
// 35 MiB of the controller's idle RSS (npm run bench:footprint). Users authenticating through
// an auth-provider get their credentials from client-node, loaded then only; exec credential
// plugins are run by exec-credential.ts.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { checkServerIdentity, connect as tlsConnect, createSecureContext, type ConnectionOptions as TlsConnectionOptions, type PeerCertificate } from 'node:tls';
import { fallbackAuthentication } from './kube-auth-fallback.js';
import { execCredentials } from './exec-credential.js';
import { impersonationHeaders, KubeConfigError, type Connection } from './kube-connection.js';
import { bareHost, openTunnel } from './proxy-tunnel.js';
import { TOKEN_FILE_REFRESH_MS, tokenFromFile } from './token-file.js';

export interface SendOptions {
  body?: string;
  contentType?: string;
  /** The Accept header (default `application/json`): several media types, comma-separated, the first the server serves wins. */
  accept?: string;
  signal?: AbortSignal;
  /** Fails the request when its socket is silent this long (default REQUEST_TIMEOUT_MS; 0: never, for watches). */
  timeoutMs?: number;
  /** Fails the request when a new connection is not up (TCP and TLS) this soon (default CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
}

/**
 * A new connection that is not up in this time fails, watches included: Node starts a request's
 * socket timeout only once connected, and an unreachable address would otherwise hold it for the
 * system's own connect timeout (minutes), a TLS handshake that never ends for ever.
 */
export const CONNECT_TIMEOUT_MS = 30_000;

/** An API server that stops answering fails the call instead of holding a worker for ever. */
export const REQUEST_TIMEOUT_MS = 60_000;

export interface Transport {
  readonly server: string;
  /** Sends one request; resolves with the response once its head arrived, its body unread. */
  send(method: string, path: string, opts?: SendOptions): Promise<IncomingMessage>;
  /** Closes the idle connections of the pool. */
  close(): void;
}

/** How often a token file is read again (shared/token-file.ts). */
export { TOKEN_FILE_REFRESH_MS };

type Credentials = (() => Promise<{ headers: Record<string, string>; tls?: RequestOptions }>) & {
  /** The API server refused the credentials (401): the next request gets fresh ones, where they can be. */
  refused?: () => void;
};

/** The Authorization header of the connection, a token file's content read again when stale. */
function credentials(conn: Connection, nowMs: () => number): Credentials {
  if (conn.exec) {
    const credential = execCredentials(conn.exec);
    const get: Credentials = async () => {
      // The plugin's failure is the kubeconfig user's, told as such (see below).
      const { token, cert, key } = await credential().catch((err: Error) => {
        throw new KubeConfigError(`cannot get the credentials of context "${conn.context}" (an exec credential plugin): ${err.message}`);
      });
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      return { headers, ...(cert ? { tls: { cert, key } } : {}) };
    };
    // As client-go: a credential the API server refuses (revoked, rotated) is asked for again.
    get.refused = () => credential.forget();
    return get;
  }
  if (conn.fallback) {
    const fallback = fallbackAuthentication(conn);
    return async () => {
      // The plugin's failure (not installed, refused, expired login) is the kubeconfig user's: told
      // as such, not as an API server that cannot be reached, which no request went to.
      const { headers, ca, cert, key, rejectUnauthorized } = await fallback().catch((err: Error) => {
        throw new KubeConfigError(`cannot get the credentials of context "${conn.context}" (${conn.fallback}): ${err.message}`);
      });
      // Impersonation is the connection's own (it also takes --as): client-node's header, under
      // another spelling, would go out beside it.
      const own = Object.entries((headers ?? {}) as Record<string, string>).filter(([k]) => !k.toLowerCase().startsWith('impersonate-'));
      return { headers: Object.fromEntries(own), tls: { ca, cert, key, rejectUnauthorized } };
    };
  }
  if (conn.username !== undefined && !conn.token) {
    const basic = { authorization: `Basic ${Buffer.from(`${conn.username}:${conn.password ?? ''}`).toString('base64')}` };
    return async () => ({ headers: basic });
  }
  // An empty file is no token (client-go: "read empty token from file"): the last one stays in use.
  const current = conn.tokenFile ? tokenFromFile(conn.tokenFile, nowMs, { token: conn.token, usable: (t) => t !== '' }) : async () => conn.token;
  return async () => {
    const token = await current();
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    return { headers };
  };
}

// The token file's age is measured on the monotonic clock: on the wall clock, one set back by an
// hour kept a rotated token out for that hour more.
export function makeTransport(conn: Connection, userAgent: string, nowMs: () => number = () => performance.now()): Transport {
  const url = new URL(conn.server);
  const tls = url.protocol === 'https:';
  const auth = credentials(conn, nowMs);
  const impersonate = impersonationHeaders(conn.impersonate);
  const prefix = url.pathname.replace(/\/+$/, '');
  const target = {
    protocol: url.protocol, hostname: bareHost(url.hostname), port: url.port || (tls ? 443 : 80),
    // The certificate is checked against this name instead of the address's host.
    // An IP address is no SNI name (Node warns of it on every run): the certificate is checked
    // against it all the same, and no server name is sent, as Go's TLS client does.
    ...(tls && conn.serverName ? (isIP(conn.serverName) ? { servername: '', checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity(conn.serverName!, cert) } : { servername: conn.serverName }) : {}),
  };
  const tlsOptions = { ca: conn.ca, cert: conn.cert, key: conn.key, rejectUnauthorized: !conn.insecure };
  const proxy = conn.proxy ? new URL(conn.proxy) : undefined;
  let agent: HttpAgent | undefined;
  /** The client certificate the pool's connections present (one from a credential plugin may change). */
  let presented: string | undefined;
  // The pool is made with the first request: with an exec plugin, its TLS material comes then.
  // One TLS context for every connection: given the CA and the client certificate instead, each
  // connection would build a context of its own. A new certificate from the plugin (the first
  // one expired) makes a new pool: the old one's connections go as their requests end.
  const pool = (extra?: RequestOptions) => {
    // Compared as text: the auth-provider path hands over a new Buffer of the same PEM each time.
    const offered = extra?.cert !== undefined ? String(extra.cert) : presented;
    if (agent && (!tls || offered === presented)) return agent;
    if (agent) retire(agent);
    if (!tls) return (agent = proxied(new HttpAgent({ keepAlive: true }), proxy, false));
    const { ca, cert, key } = { ...tlsOptions, ...(extra?.ca ? { ca: extra.ca } : {}), ...(extra?.cert ? { cert: extra.cert, key: extra.key } : {}) };
    presented = cert === undefined ? undefined : String(cert);
    return (agent = proxied(new HttpsAgent({ keepAlive: true, rejectUnauthorized: tlsOptions.rejectUnauthorized, secureContext: createSecureContext({ ca, cert, key }) }), proxy, true));
  };
  return {
    server: conn.server,
    async send(method, path, opts = {}) {
      const { headers: authHeaders, tls: extra } = await auth();
      const headers: OutgoingHttpHeaders = { ...authHeaders, ...impersonate, 'user-agent': userAgent, accept: opts.accept ?? 'application/json' };
      if (opts.body !== undefined) {
        headers['content-type'] = opts.contentType ?? 'application/json';
        headers['content-length'] = Buffer.byteLength(opts.body);
      }
      const requestAgent = pool(extra);
      return new Promise<IncomingMessage>((done, fail) => {
        const answered = (res: IncomingMessage) => {
          if (res.statusCode === 401) auth.refused?.();
          done(res);
        };
        const req = (tls ? httpsRequest : httpRequest)({ ...target, agent: requestAgent, method, path: `${prefix}${path}`, headers, signal: opts.signal }, answered);
        req.on('error', fail);
        req.once('socket', (socket) => {
          // A pooled connection, already up; through a proxy, the tunnel kept its own time.
          if (!socket.connecting) return;
          const connectMs = opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
          const timer = setTimeout(() => req.destroy(new Error(`${method} ${path}: could not connect to the API server at ${conn.server} within ${connectMs / 1000}s`)), connectMs);
          const up = () => clearTimeout(timer);
          socket.once(tls ? 'secureConnect' : 'connect', up);
          socket.once('close', up);
        });
        const timeoutMs = opts.timeoutMs ?? REQUEST_TIMEOUT_MS;
        // Also 0 for a watch: the pooled socket may still carry the timeout of an earlier request.
        if (timeoutMs > 0) req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer from the API server for ${timeoutMs / 1000}s`)));
        else req.setTimeout(0);
        req.end(opts.body);
      });
    },
    close: () => agent?.destroy(),
  };
}

/**
 * `agent`, its connections made through `proxy` (the kubeconfig's proxy-url) when there is one:
 * a tunnel to the API server's address, with TLS inside it for an https server, set up as the
 * agent would set it up on a direct connection (its CA, client certificate and server name).
 */
function proxied<A extends HttpAgent>(agent: A, proxy: URL | undefined, tls: boolean): A {
  if (!proxy) return agent;
  type Options = TlsConnectionOptions & { host?: string; port?: number | string };
  type Created = (err: Error | null, socket?: Duplex) => void;
  (agent as unknown as { createConnection: (options: Options, created: Created) => undefined }).createConnection = (options, created) => {
    openTunnel(proxy, bareHost(String(options.host ?? 'localhost')), Number(options.port), CONNECT_TIMEOUT_MS).then(
      (socket) => created(null, tls ? tlsConnect({ ...options, socket }) : socket),
      (err: Error) => created(err),
    );
    return undefined;
  };
  return agent;
}

/** An agent no longer used: its idle connections close now, the others once their requests end. */
function retire(agent: HttpAgent): void {
  (agent as HttpAgent & { keepSocketAlive: () => boolean }).keepSocketAlive = () => false;
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}

/** The body of a response as text. */
export async function readText(res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let text = '';
  for await (const chunk of res) text += chunk;
  return text;
}
