// The dashboard's HTTP server: the page and its assets, a small JSON API, the event stream and
// the actions, each request checked first (security.ts). It answers only on the address it was
// given (loopback by default) and holds one watch per kind for every tab (store.ts, stream.ts).
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Api } from '../api.js';
import { CliError } from '../errors.js';
import { watchCollection } from '../live-list.js';
import { ACTIONS, runAction, type Action, type ActionRequest } from './actions.js';
import { actingAs } from './acting-as.js';
import { METADATA_ONLY, METADATA_ONLY_KINDS, servedVersions, watchPaths, type Kind } from './scope.js';
import { refusal, SECURITY_HEADERS, STREAM_PATH, TOKEN_HEADER, urlHost, type Served } from './security.js';
import { DashboardStore } from './store.js';
import { STREAM_HEADERS, StreamHub, type View } from './stream.js';

/** A namespace's name: a DNS-1123 label (at most 63 characters, checked beside it). */
const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The page's files, served from the package (cli/dashboard/assets): nothing from elsewhere. */
const ASSETS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'cli', 'dashboard', 'assets');
const ASSETS: Record<string, [file: string, type: string]> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/index.html': ['index.html', 'text/html; charset=utf-8'],
  '/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/style.css': ['style.css', 'text/css; charset=utf-8'],
  '/favicon.svg': ['favicon.svg', 'image/svg+xml'],
  '/favicon.ico': ['favicon.svg', 'image/svg+xml'],
};
const MAX_BODY = 4096;
const SWEEP_MS = 60_000;

export interface DashboardOptions {
  api: Api;
  /** The namespace it covers; undefined: every namespace (-A). */
  namespace: string | undefined;
  address: string;
  /** 0: any free port. */
  port: number;
  token: string;
}

export interface Dashboard {
  url: string;
  port: number;
  store: DashboardStore;
  hub: StreamHub;
  stop(): Promise<void>;
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

const READ = ['GET', 'HEAD'];

/** 405 names the methods the route takes in Allow, as HTTP requires of it. */
function notAllowed(res: ServerResponse, method: string, allow: string[]): void {
  res.setHeader('allow', allow.join(', '));
  answer(res, 405, { message: `${method} is not allowed here (${allow.join(', ')})` });
}

/** A body over MAX_BODY bytes: answered 413, as HTTP names it. */
class BodyTooLarge extends Error {
  constructor() {
    super(`request body too large (at most ${MAX_BODY} bytes)`);
  }
}

/**
 * The body's text, at most MAX_BODY bytes. A longer one (its Content-Length says so, or its
 * chunks add up to more) is refused without keeping it, and what is left of it is read and
 * dropped rather than the socket destroyed: a client still sending then reads the 413 instead
 * of a reset connection.
 */
function readText(req: IncomingMessage): Promise<string> {
  return new Promise((done, fail) => {
    if (Number(req.headers['content-length']) > MAX_BODY) return fail(new BodyTooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) return void chunks.push(chunk);
      req.off('data', onData);
      req.off('end', onEnd);
      req.resume();
      fail(new BodyTooLarge());
    };
    const onEnd = () => done(Buffer.concat(chunks).toString('utf8'));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', fail);
  });
}

async function readBody(req: IncomingMessage): Promise<ActionRequest> {
  const text = await readText(req);
  const body = (text.trim() ? JSON.parse(text) : {}) as ActionRequest;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('the body must be a JSON object');
  // A field of the wrong type is refused, not read as absent: "skipCanary": "true" taken as false
  // would roll a canary out where an emergency rollback was asked for.
  if (body.skipCanary !== undefined && typeof body.skipCanary !== 'boolean') throw new Error('skipCanary must be true or false');
  // As the plugin's --to-revision (a usage error there): revisions are numbered from 1.
  if (body.revision !== undefined && !(Number.isInteger(body.revision) && body.revision >= 1)) throw new Error('revision must be a revision number, 1 or more');
  if (body.expectRevision !== undefined && typeof body.expectRevision !== 'string') throw new Error('expectRevision must be a string');
  return body;
}

/** `/api/apps/NS/NAME[/ACTION]` in parts; `bad` when a part is not a percent-encoded name. */
function appRoute(path: string): { ns: string; name: string; action?: string } | 'bad' | undefined {
  const m = /^\/api\/apps\/([^/]+)\/([^/]+)(?:\/([a-z]+))?$/.exec(path);
  if (!m) return undefined;
  try {
    return { ns: decodeURIComponent(m[1]), name: decodeURIComponent(m[2]), action: m[3] };
  } catch {
    return 'bad';
  }
}

function streamView(url: URL): View | undefined {
  const app = url.searchParams.get('app');
  if (app) return /^[^/]+\/[^/]+$/.test(app) ? { kind: 'app', key: app } : undefined;
  return { kind: 'list' };
}

type Handle = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> | void;

function routes(opts: DashboardOptions, store: DashboardStore, hub: StreamHub): Handle {
  const inScope = (ns: string) => opts.namespace === undefined || opts.namespace === ns;
  // Only a namespace that can exist is offered as a command to run: not whatever a request's path held.
  const outOfScope = (ns: string) => (NAMESPACE_NAME.test(ns) && ns.length <= 63
    ? `namespace ${ns} is not in this dashboard's scope (namespace ${opts.namespace}); kubectl skiff dashboard -n ${ns}, or -A, shows it`
    : `${JSON.stringify(ns.slice(0, 80))} is no namespace name, and this dashboard's scope is namespace ${opts.namespace}`);
  return async (req, res, url) => {
    const path = url.pathname;
    const asset = ASSETS[path];
    // HEAD is GET without the body (Node's response drops it), as HTTP asks of every server; any
    // other method a route does not take is 405 with the ones it does, not "no such page".
    const read = req.method === 'GET' || req.method === 'HEAD';
    const app = path.startsWith('/api/apps/') ? appRoute(path) : undefined;
    const allowed = asset || [STREAM_PATH, '/api/session', '/api/apps'].includes(path) ? READ
      : app === undefined || app === 'bad' ? undefined : app.action ? ['POST'] : READ;
    if (allowed && !allowed.includes(req.method ?? '')) return notAllowed(res, req.method ?? '', allowed);
    if (read && asset) {
      res.writeHead(200, { 'content-type': asset[1] });
      return void res.end(await readFile(join(ASSETS_DIR, asset[0])));
    }
    if (read && path === STREAM_PATH) {
      const view = streamView(url);
      if (!view) return answer(res, 400, { message: 'app must be NAMESPACE/NAME' });
      // As GET /api/apps/NS/NAME: the caches hold nothing of another namespace, so a stream of
      // one would say "not there yet" for ever.
      const ns = view.kind === 'app' ? view.key.slice(0, view.key.indexOf('/')) : undefined;
      if (ns !== undefined && !inScope(ns)) return answer(res, 404, { message: outOfScope(ns) });
      // A HEAD gets the stream's headers only: it would never end, and no event is sent to it.
      if (req.method === 'HEAD') return void res.writeHead(200, STREAM_HEADERS).end();
      return hub.add(res, view);
    }
    if (read && path === '/api/session') return answer(res, 200, { scope: opts.namespace ?? null, context: opts.api.connection.context, actingAs: actingAs(opts.api.connection.impersonate) });
    if (read && path === '/api/apps') return answer(res, 200, { scope: opts.namespace ?? null, ...hub.list() });
    const route = app;
    // Past this point the method is one the path takes: GET or HEAD for an App, POST for an action.
    if (!route) return answer(res, 404, { message: `no such page: ${path}` });
    if (route === 'bad') return answer(res, 400, { message: 'the request target is not a URL path: a namespace or a name in it is not percent-encoded' });
    if (!inScope(route.ns)) return answer(res, 404, { message: outOfScope(route.ns) });
    if (!route.action) {
      const d = hub.detail(`${route.ns}/${route.name}`);
      return d ? answer(res, 200, d) : answer(res, 404, { message: `app "${route.name}" not found in namespace "${route.ns}"` });
    }
    if (!(ACTIONS as readonly string[]).includes(route.action)) return answer(res, 404, { message: `no action ${route.action}` });
    let body: ActionRequest;
    try {
      body = await readBody(req);
    } catch (err) {
      return answer(res, err instanceof BodyTooLarge ? 413 : 400, { message: (err as Error).message });
    }
    // The dashboard's own request succeeded even when the API server refused the user's: the
    // refusal is in the answer (ok: false, its status and message), for the page to show as it is.
    answer(res, 200, await runAction(opts.api, route.ns, route.name, route.action as Action, body));
  };
}

function serve(opts: DashboardOptions, store: DashboardStore, hub: StreamHub, served: () => Served): Server {
  const handle = routes(opts, store, hub);
  return createServer((req, res) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    // A request target URL cannot parse (`GET http://[ HTTP/1.1` from any local process) is refused
    // here: thrown inside this callback, it would end the process.
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://dashboard.invalid');
    } catch {
      return answer(res, 400, { message: 'the request target is not a URL path' });
    }
    const refused = refusal(served(), {
      method: req.method ?? 'GET', path: url.pathname, host: req.headers.host, origin: req.headers.origin,
      headerToken: req.headers[TOKEN_HEADER] as string | undefined, queryToken: url.searchParams.get('token') ?? undefined,
    });
    if (refused) return answer(res, refused.status, { message: refused.reason });
    Promise.resolve(handle(req, res, url)).catch((err: Error) => {
      if (!res.headersSent) answer(res, 500, { message: err.message });
      else res.destroy();
    });
  });
}

/** Why the server could not listen, in words and with what to change: not a stack trace. */
export function listenError(err: NodeJS.ErrnoException, address: string, port: number): Error {
  const where = `${address.includes(':') ? `[${address}]` : address}:${port}`;
  const why: Record<string, string> = {
    EADDRINUSE: `${where} is already in use; choose another port with --port`,
    EADDRNOTAVAIL: `${address} is not an address of this machine; choose one with --address`,
    EACCES: `no permission to listen on ${where}; choose a port above 1023 with --port`,
  };
  const text = err.code !== undefined ? why[err.code] : undefined;
  return new CliError(`the dashboard cannot listen on ${where}: ${text ?? err.message}`);
}

/** Starts the watches and the server; resolves once it listens. */
export async function startDashboard(opts: DashboardOptions): Promise<Dashboard> {
  const store = new DashboardStore();
  const hub = new StreamHub(store);
  const paths = watchPaths(opts.namespace, await servedVersions(opts.api));
  const watches = (Object.entries(paths) as [Kind, string][]).map(([kind, path]) =>
    // Without the App API there is nothing to show: the page says so, and the watch waits for it.
    watchCollection(opts.api, path, store.handler(kind), {
      retryMs: 500, maxRetryMs: 5_000, awaitAbsent: kind === 'apps', ...(METADATA_ONLY_KINDS.has(kind) ? { accept: METADATA_ONLY } : {}),
    }));
  const sweep = setInterval(() => store.sweepEvents(), SWEEP_MS);
  sweep.unref();
  let port = opts.port;
  const server = serve(opts, store, hub, () => ({ address: opts.address, port, token: opts.token }));
  try {
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(opts.port, opts.address, () => done());
    });
  } catch (err) {
    for (const w of watches) w.stop();
    clearInterval(sweep);
    hub.close();
    throw listenError(err as NodeJS.ErrnoException, opts.address, opts.port);
  }
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://${urlHost(opts.address, port)}/?token=${encodeURIComponent(opts.token)}`, port, store, hub,
    async stop() {
      for (const w of watches) w.stop();
      clearInterval(sweep);
      hub.close();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
