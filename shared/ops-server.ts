// Plain-HTTP endpoints for the kubelet and Prometheus: /healthz and /readyz on the health
// port, /metrics on the metrics port (the same server when both ports are equal; 0 = off).
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { listen } from './listen.js';

export interface Check {
  /** undefined when fine, otherwise why not */
  (): string | undefined;
}

export interface OpsOptions {
  healthPort: number;
  metricsPort: number;
  host?: string;
  registry: Registry;
  healthy: Check;
  ready: Check;
}

export interface OpsServers {
  healthPort?: number;
  metricsPort?: number;
  close(): Promise<void>;
}

function handler(opts: OpsOptions, serveHealth: boolean, serveMetrics: boolean) {
  return (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    const check = path === '/healthz' ? opts.healthy : path === '/readyz' ? opts.ready : undefined;
    if (serveHealth && check) {
      const problem = check();
      res.writeHead(problem ? 503 : 200, { 'content-type': 'text/plain' });
      res.end(problem ? `not ok: ${problem}\n` : 'ok\n');
      return;
    }
    if (serveMetrics && path === '/metrics') {
      opts.registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': opts.registry.contentType });
          res.end(text);
        },
        (err: Error) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`metrics: ${err.message}\n`);
        },
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found\n');
  };
}

export async function startOpsServers(opts: OpsOptions): Promise<OpsServers> {
  const host = opts.host;
  const servers: Server[] = [];
  const out: OpsServers = {
    close: () =>
      Promise.all(servers.map((s) => new Promise<void>((r) => { s.closeAllConnections(); s.close(() => r()); }))).then(() => undefined),
  };
  if (opts.healthPort > 0 && opts.healthPort === opts.metricsPort) {
    const s = createServer(handler(opts, true, true));
    servers.push(s);
    out.healthPort = out.metricsPort = await listen(s, opts.healthPort, host);
    return out;
  }
  if (opts.healthPort >= 0 && opts.healthPort !== 0) {
    const s = createServer(handler(opts, true, false));
    servers.push(s);
    out.healthPort = await listen(s, opts.healthPort, host);
  }
  if (opts.metricsPort >= 0 && opts.metricsPort !== 0) {
    const s = createServer(handler(opts, false, true));
    servers.push(s);
    out.metricsPort = await listen(s, opts.metricsPort, host);
  }
  return out;
}
