// The admission server: express on node:https (TLS 1.2+), POST /mutate and /validate, GET
// /healthz and /readyz. The certificate files are watched and reloaded in place, so a rotation by
// cert-manager needs no restart and drops no connection.
import { watch, type FSWatcher } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Registry } from 'prom-client';
import type { Logger } from '../shared/logger.js';
import { admit, type Endpoint } from './admission.js';
import { webhookMetrics } from './metrics.js';
import { readServingPair, type ServingPair } from './tls-files.js';

/** AdmissionReviews of large Apps stay far below this; the API server itself caps at 3 MiB. */
export const BODY_LIMIT = '3mb';
const TLS_MIN_VERSION = 'TLSv1.2';
// The API server gives up after the webhook's timeoutSeconds (at most 30 s).
const REQUEST_TIMEOUT_MS = 30_000;

export interface WebhookServerOptions {
  port: number;
  host?: string;
  certDir: string;
  log: Logger;
  registry: Registry;
  /** How often the certificate files are checked besides file-system events (default 10 s). */
  certPollMs?: number;
}

export interface WebhookServer {
  port: number;
  /** Re-reads the certificate files now; resolves with whether a new pair is served. */
  reloadCertificates(): boolean;
  close(): Promise<void>;
}

/** Maps body-parser failures to client errors with a reason; anything else is a 500. */
function errorHandler(log: Logger) {
  return (err: Error & { type?: string; status?: number; limit?: number }, req: Request, res: Response, _next: NextFunction) => {
    let status = 500;
    let message = 'internal error';
    if (err.type === 'entity.too.large') {
      status = 413;
      message = `the body exceeds the limit of ${BODY_LIMIT}`;
    } else if (err.type === 'entity.parse.failed') {
      status = 400;
      message = `the body is not valid JSON: ${err.message}`;
    } else if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') {
      status = 415;
      message = err.message;
    } else if (typeof err.status === 'number' && err.status >= 400 && err.status < 500) {
      status = err.status;
      message = err.message;
    } else {
      log.error({ err: err.message, path: req.path }, 'request failed');
    }
    res.status(status).type('text/plain').send(`${message}\n`);
  };
}

export async function startWebhookServer(opts: WebhookServerOptions): Promise<WebhookServer> {
  const { log } = opts;
  const metrics = webhookMetrics(opts.registry);
  let pair: ServingPair = readServingPair(opts.certDir);

  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => void res.type('text/plain').send('ok\n'));
  app.get('/readyz', (_req, res) => void res.type('text/plain').send('ok\n'));

  for (const endpoint of ['mutate', 'validate'] as const satisfies readonly Endpoint[]) {
    app.post(`/${endpoint}`, (req, res, next) => {
      const stop = metrics.duration.startTimer({ endpoint });
      res.on('finish', () => {
        stop();
        metrics.requests.inc({ endpoint, code: String(res.statusCode) });
      });
      next();
    }, express.json({ limit: BODY_LIMIT, strict: false }), (req, res) => {
      if (!req.is('application/json')) {
        res.status(415).type('text/plain').send('expected Content-Type: application/json\n');
        return;
      }
      const answer = admit(endpoint, req.body);
      if (answer.httpStatus !== 200) {
        log.warn({ endpoint, error: answer.error }, 'bad admission request');
        res.status(answer.httpStatus).type('text/plain').send(`${answer.error}\n`);
        return;
      }
      const { review, request } = answer;
      const line = { endpoint, uid: request.uid, operation: request.operation, namespace: request.namespace, name: request.name, dryRun: request.dryRun };
      if (!review.response.allowed) {
        metrics.denials.inc({ endpoint, code: String(review.response.status?.code ?? 0) });
        log.info({ ...line, message: review.response.status?.message }, 'denied');
      } else {
        log.debug({ ...line, patched: review.response.patch !== undefined }, 'allowed');
      }
      res.status(200).json(review);
    });
  }
  app.use((req, res) => void res.status(404).type('text/plain').send(`no route for ${req.method} ${req.path}; the webhook serves POST /mutate and POST /validate\n`));
  app.use(errorHandler(log));

  const server: Server = createServer({ cert: pair.cert, key: pair.key, minVersion: TLS_MIN_VERSION }, app);
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = 10_000;
  server.on('tlsClientError', (err) => log.debug({ err: err.message }, 'TLS handshake failed'));

  const reloadCertificates = (): boolean => {
    let next: ServingPair;
    try {
      next = readServingPair(opts.certDir);
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
    log.info({ notAfter: next.notAfter }, 'serving a new certificate');
    return true;
  };

  // Secret volumes update through a symlink swap in the directory, so the directory is watched;
  // polling covers file systems without events.
  let debounce: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(opts.certDir, () => {
      clearTimeout(debounce);
      debounce = setTimeout(reloadCertificates, 100);
    });
    watcher.on('error', (err) => log.warn({ err: err.message }, 'watching the certificate directory failed; polling only'));
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'cannot watch the certificate directory; polling only');
  }
  const poll = setInterval(reloadCertificates, opts.certPollMs ?? 10_000);
  poll.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  log.info({ port, certDir: opts.certDir, notAfter: pair.notAfter }, 'webhook listening');

  return {
    port,
    reloadCertificates,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(poll);
        clearTimeout(debounce);
        watcher?.close();
        server.close(() => resolve());
        server.closeIdleConnections();
        // In-flight admissions get a moment to finish; then the rest is cut.
        setTimeout(() => server.closeAllConnections(), 5_000).unref();
      }),
  };
}
