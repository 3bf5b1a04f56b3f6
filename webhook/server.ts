// The admission server on node:https (TLS 1.2+): POST /mutate and /validate, and an express app
// for everything else (GET /healthz, /readyz, errors). The certificate files are watched and
// reloaded in place, so a rotation by cert-manager needs no restart and drops no connection.
import { watch, type FSWatcher } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Registry } from 'prom-client';
import { cutText } from '../shared/bounded-text.js';
import { listen } from '../shared/listen.js';
import { boundedText } from '../shared/text.js';
import type { Logger } from '../shared/logger.js';
import { admit, type AdmissionRequest, type Endpoint } from './admission.js';
import { webhookMetrics, type WebhookMetrics } from './metrics.js';
import { readServingPair, readServingPairOrFail, type ServingPair } from './tls-files.js';
import { largeBodyBudget, LARGE_BODY_BYTES, readJsonBody, UNKNOWN_LENGTH_LIMIT_BYTES, type BodyHold, type BodyResult } from './body.js';
import { batchedWrites } from './batched-writes.js';

/**
 * The API server takes an App of up to 3 MiB (its request body limit), and the AdmissionReview
 * around it is larger: the review's own fields, the managedFields the API server adds, and on an
 * UPDATE the stored App as oldObject. Two objects of 3 MiB and 1 MiB for the rest (as
 * controller-runtime allows): a smaller limit answered 413 (a failed call) where a denial naming
 * the bad fields was due.
 */
export const BODY_LIMIT_BYTES = 7 * 1024 * 1024;
/**
 * Large bodies held at once: two of the largest, each parsing to a few times its size, stay well
 * within the webhook's 256Mi. A request whose bytes do not fit beside those held is answered 429
 * and the rest of its body is not kept (the API server calls again on the next write).
 */
export const LARGE_BODIES_IN_FLIGHT_BYTES = 2 * BODY_LIMIT_BYTES;
const TLS_MIN_VERSION = 'TLSv1.2';
/** Characters of a denial message in the log line that records it. */
export const MAX_LOGGED_DENIAL_LENGTH = 2048;
// The API server gives up after the webhook's timeoutSeconds (at most 30 s).
const REQUEST_TIMEOUT_MS = 30_000;
// The API server's webhook client (client-go's transport) keeps an idle connection for reuse up to
// 90 s and does not retry a POST sent on a connection the server closed meanwhile: that admission
// fails (EOF), and the App write with it (failurePolicy: Fail). Node's default of 5 s opened that
// race after every lull in App writes; the client is the one to close idle connections.
export const KEEP_ALIVE_TIMEOUT_MS = 120_000;

export interface WebhookServerOptions {
  port: number;
  host?: string;
  certDir: string;
  log: Logger;
  registry: Registry;
  /** How often the certificate files are checked besides file-system events (default 10 s). */
  certPollMs?: number;
  /** Also deny what the restricted Pod Security profile forbids (--restricted-tenants). */
  restrictedTenants?: boolean;
  /** How long a request, body included, may take to arrive before it is answered 408 (default 30 s). */
  requestTimeoutMs?: number;
}

export interface WebhookServer {
  port: number;
  /** Re-reads the certificate files now; returns whether a new pair is now served. */
  reloadCertificates(): boolean;
  /** undefined while serving admissions, else why not: what /readyz reports, here and on the health port. */
  ready(): string | undefined;
  /**
   * Reports not ready (so the pod leaves the Service's endpoints) but goes on answering, each
   * answer closing its connection, so that the API server's next request opens a connection to a
   * pod that stays. close() after the endpoints have caught up.
   */
  drain(): void;
  close(): Promise<void>;
}

/** Client mistakes express itself detects (a malformed URL) stay 4xx; anything else is logged as a 500. */
function errorHandler(log: Logger) {
  return (err: Error & { status?: number }, req: Request, res: Response, _next: NextFunction) => {
    const clientError = typeof err.status === 'number' && err.status >= 400 && err.status < 500;
    if (!clientError) log.error({ err: err.message, path: req.path }, 'request failed');
    res.status(clientError ? err.status! : 500).type('text/plain').send(`${clientError ? err.message : 'internal error'}\n`);
  };
}

/**
 * The webhook: its metrics, the serving certificate, the HTTPS server with the admission
 * endpoints and the ops routes, the certificate watch, then listening.
 */
export async function startWebhookServer(opts: WebhookServerOptions): Promise<WebhookServer> {
  const { log } = opts;
  const largeBodies = largeBodyBudget(LARGE_BODIES_IN_FLIGHT_BYTES);
  const metrics = webhookMetrics(opts.registry, () => largeBodies.held);
  const certificates = servingCertificates(opts.certDir, metrics, log);
  let closing = false;
  const ready = () => (closing ? 'shutting down' : undefined);
  const draining = () => closing;
  const server = httpsServer(certificates.pair(), opsApp(ready, log), admissionHandler(opts, metrics, draining), { log, metrics, draining, largeBodies, requestTimeoutMs: opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS });
  const reloadCertificates = () => certificates.reload(server);
  const watching = watchCertificates(opts.certDir, opts.certPollMs ?? 10_000, reloadCertificates, log);
  const port = await listen(server, opts.port, opts.host);
  log.info({ port, certDir: opts.certDir, notAfter: certificates.pair().notAfter, restrictedTenants: opts.restrictedTenants === true }, 'webhook listening');
  return {
    port,
    reloadCertificates,
    ready,
    drain: () => {
      closing = true;
    },
    close: () => {
      closing = true;
      watching.stop();
      return closeServer(server);
    },
  };
}

/** GET /healthz, /readyz, and the 404 and error answers of everything but the admission endpoints. */
function opsApp(ready: () => string | undefined, log: Logger): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.get('/healthz', (_req, res) => void res.type('text/plain').send('ok\n'));
  app.get('/readyz', (_req, res) => {
    const reason = ready();
    res.status(reason ? 503 : 200).type('text/plain').send(`${reason ?? 'ok'}\n`);
  });
  // The admission paths exist for POST only: another method there is 405 with Allow (RFC 9110), not a missing path.
  // Exactly those paths, as the admission endpoints match them (express routes ignore case and a trailing slash).
  app.all(['/mutate', '/validate'], (req, res, next) => {
    if (req.path !== '/mutate' && req.path !== '/validate') return next();
    res.status(405).set('allow', 'POST').type('text/plain').send(`${req.method} is not allowed on ${req.path}; the webhook serves POST /mutate and POST /validate\n`);
  });
  app.use((req, res) => void res.status(404).type('text/plain').send(`no route for ${req.method} ${req.path}; the webhook serves POST /mutate and POST /validate\n`));
  app.use(errorHandler(log));
  return app;
}

type AdmissionHandler = (endpoint: Endpoint, res: ServerResponse, body: BodyResult, started: number) => void;

/**
 * The admission endpoints on the bare request and response: express swaps the prototypes of both
 * on every request, which cost more than the whole admission (npm run bench:webhook). Answers are
 * written in batches (batched-writes.ts).
 */
function admissionHandler(opts: Pick<WebhookServerOptions, 'log' | 'restrictedTenants'>, metrics: ReturnType<typeof webhookMetrics>, draining: () => boolean): AdmissionHandler {
  const { log } = opts;
  const queueWrite = batchedWrites((err) => log.error({ err: (err as Error).message }, 'writing an admission answer failed'));
  return (endpoint, res, body, started) => {
    // The answer is decided now and written with the others of this turn of the event loop.
    const finish = (status: number, contentType: string, text: string) => queueWrite(() => {
      // A request that began before draining (its body still arriving) is answered after: its
      // connection closes too, or the API server would send its next admission on it.
      if (draining()) res.shouldKeepAlive = false;
      res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
      res.end(text);
      metrics.recordRequest(endpoint, status, (performance.now() - started) / 1000);
    });
    if (!body.ok) {
      log.warn({ endpoint, status: body.status, error: body.message }, 'bad admission request');
      finish(body.status, 'text/plain', `${body.message}\n`);
      return;
    }
    const answer = admit(endpoint, body.value, { restrictedTenants: opts.restrictedTenants, bodyBytes: body.bytes });
    if (answer.httpStatus !== 200) {
      log.warn({ endpoint, status: answer.httpStatus, error: answer.error }, 'bad admission request');
      finish(answer.httpStatus, 'text/plain', `${answer.error}\n`);
      return;
    }
    const { review, request } = answer;
    if (!review.response.allowed) {
      metrics.denials.inc({ endpoint, code: String(review.response.status?.code ?? 0) });
      // The denial as the user sees it is bounded (formatErrors); its log line is shorter still.
      const message = cutText(review.response.status?.message ?? '', MAX_LOGGED_DENIAL_LENGTH);
      log.info({ endpoint, ...requestFields(request), dryRun: request.dryRun === true, message }, 'denied');
    } else if (log.isLevelEnabled('debug')) {
      log.debug({ endpoint, ...requestFields(request), patched: review.response.patch !== undefined }, 'allowed');
    }
    finish(200, 'application/json', JSON.stringify(review));
  };
}

/**
 * The review's fields a log line names, cut: they are whatever the caller sent (any pod can call
 * the webhook's Service, not only the API server), and a 1 MB uid made a 1 MB line.
 */
function requestFields(request: AdmissionRequest): { uid: string; operation: string; namespace?: string; name?: string } {
  const field = (v: unknown) => (typeof v === 'string' ? boundedText(v) : undefined);
  return { uid: field(request.uid)!, operation: field(request.operation)!, namespace: field(request.namespace), name: field(request.name) };
}

const admissionEndpoint = (req: IncomingMessage): Endpoint | undefined => {
  if (req.method !== 'POST') return undefined;
  const path = (req.url ?? '').split('?')[0];
  return path === '/mutate' ? 'mutate' : path === '/validate' ? 'validate' : undefined;
};

/** A large body's hold on the budget: each chunk as it arrives, all given back when the answer is sent. */
function largeBodyHold(budget: LargeBodyBudget, res: ServerResponse): BodyHold {
  let held = 0;
  res.once('close', () => budget.give(held));
  return (bytes) => {
    if (!budget.take(bytes)) return `too many large admission requests at once (${held + bytes} bytes of this one beside ${budget.held} held): try again`;
    held += bytes;
    return undefined;
  };
}

type LargeBodyBudget = ReturnType<typeof largeBodyBudget>;

/** The HTTPS server: admission requests to the handler, everything else to the ops app. */
function httpsServer(pair: ServingPair, ops: express.Express, handle: AdmissionHandler, ctx: { log: Logger; metrics: WebhookMetrics; draining: () => boolean; largeBodies: LargeBodyBudget; requestTimeoutMs: number }): Server {
  const { log, metrics, draining, largeBodies, requestTimeoutMs } = ctx;
  // Node enforces the request and header timeouts when it checks its connections: every second
  // here rather than its default 30 s, so a client trickling a request is cut when they say. A TLS
  // handshake that does not finish is cut after 10 s (Node's default: 120 s).
  const server: Server = createServer({ cert: pair.cert, key: pair.key, minVersion: TLS_MIN_VERSION, connectionsCheckingInterval: 1_000, handshakeTimeout: 10_000 }, (req, res) => {
    // Draining: no keep-alive, so that the client's next request goes to another pod.
    if (draining()) res.shouldKeepAlive = false;
    const endpoint = admissionEndpoint(req);
    if (!endpoint) return void ops(req, res);
    const started = performance.now();
    const declared = Number(req.headers['content-length']);
    const known = req.headers['content-length'] !== undefined && Number.isFinite(declared) && declared >= 0;
    // A body declared past the limit is answered 413 unread, and holds nothing. A small one (an
    // ordinary App's review) is never refused: its bytes are of the order of what its TLS
    // connection holds anyway, which no bound on bodies bounds. A large one (or one of unknown
    // length) holds its bytes as they arrive, so that connections that declare large bodies and
    // send nothing lock out no App write.
    const bytes = known ? declared : UNKNOWN_LENGTH_LIMIT_BYTES;
    const hold = bytes > LARGE_BODY_BYTES && bytes <= BODY_LIMIT_BYTES ? largeBodyHold(largeBodies, res) : undefined;
    readJsonBody(req, known ? BODY_LIMIT_BYTES : UNKNOWN_LENGTH_LIMIT_BYTES, (body) => {
      if (!body.ok && body.status === 429) {
        // The connection closes after the answer (as Go's servers do when more than 256 KiB of a
        // body is left unread): the client stops sending the rest, which a connection kept alive
        // would read in to throw away.
        res.shouldKeepAlive = false;
        log.warn({ endpoint, bytes, held: largeBodies.held }, 'large admission request refused: too many at once');
      }
      try {
        handle(endpoint, res, body, started);
      } catch (err) {
        log.error({ err: (err as Error).message, endpoint }, 'admission failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('internal error\n');
        // Counted like every other answer: a webhook failing its admissions shows in code="500".
        metrics.recordRequest(endpoint, 500, (performance.now() - started) / 1000);
      }
    }, hold, requestTimeoutMs);
  });
  server.requestTimeout = requestTimeoutMs;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.on('tlsClientError', (err) => log.debug({ err: err.message }, 'TLS handshake failed'));
  return server;
}

/** The serving pair as last read from --cert-dir, and its reload into a server. */
function servingCertificates(certDir: string, metrics: ReturnType<typeof webhookMetrics>, log: Logger) {
  let pair = readServingPairOrFail(certDir);
  metrics.certificateExpiry.set(pair.notAfterSeconds);
  return {
    pair: () => pair,
    /** Re-reads the files; returns whether the server now serves a new pair. */
    reload(server: Server): boolean {
      let next: ServingPair;
      try {
        next = readServingPair(certDir);
      } catch (err) {
        // Mid-rotation (one file replaced, not yet the other) or briefly missing: keep serving the old pair.
        log.warn({ err: (err as Error).message }, 'certificate files not usable; keeping the current certificate');
        metrics.certificateReloads.inc({ result: 'error' });
        return false;
      }
      if (next.fingerprint === pair.fingerprint) return false;
      server.setSecureContext({ cert: next.cert, key: next.key, minVersion: TLS_MIN_VERSION });
      pair = next;
      metrics.certificateReloads.inc({ result: 'success' });
      metrics.certificateExpiry.set(next.notAfterSeconds);
      log.info({ notAfter: next.notAfter }, 'serving a new certificate');
      return true;
    },
  };
}

/**
 * Reloads on changes of the certificate directory. Secret volumes update through a symlink swap
 * in the directory, so the directory is watched; polling covers file systems without events.
 */
function watchCertificates(certDir: string, pollMs: number, reload: () => unknown, log: Logger): { stop(): void } {
  let debounce: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(certDir, () => {
      clearTimeout(debounce);
      debounce = setTimeout(reload, 100);
    });
    watcher.on('error', (err) => log.warn({ err: err.message }, 'watching the certificate directory failed; polling only'));
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'cannot watch the certificate directory; polling only');
  }
  const poll = setInterval(reload, pollMs);
  poll.unref();
  return {
    stop() {
      clearInterval(poll);
      clearTimeout(debounce);
      watcher?.close();
    },
  };
}

/** Stops taking connections; admissions in flight get a moment to finish, then the rest is cut. */
function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5_000).unref();
  });
}
