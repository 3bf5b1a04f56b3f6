// A stand-in for ingress-nginx's data plane as Prometheus sees it: /metrics with the request
// counter and response-time histogram ingress-nginx exports, fed by configured (not real)
// traffic. Deterministic: requests accrue at exactly the configured rate, errors (and a slow
// tail) are an exact share of them, every other request takes exactly the configured time, so
// rate() over a few scrapes gives back the configured numbers.
import { createServer, type Server } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { Counter, Histogram, Registry } from 'prom-client';

export interface TrafficKey {
  namespace: string;
  /** The main Ingress's name (ingress-nginx labels canary requests with it too). */
  ingress: string;
  /** Default `<ingress>.example.com`. */
  host?: string;
  /** The Service this track's upstream is: default `<ingress>` for stable, `<ingress>-canary` for canary. */
  service?: string;
  /** The Service port; default 80. Part of the canary label `<ns>-<service>-<port>`. */
  port?: number;
}

export interface Traffic {
  /** Requests per second. */
  rps: number;
  /** Share of requests answered 500, 0..1. */
  errorRatio: number;
  /** Response time of every request, in milliseconds (but the slow share's). */
  latencyMs: number;
  /** A slow tail: this share of requests (0..1) takes `ms` instead. */
  slow?: { ratio: number; ms: number };
}

export type TrafficTrack = 'stable' | 'canary';

export interface TrafficExporter {
  port: number;
  /** `http://127.0.0.1:<port>`; the metrics are at /metrics. */
  url: string;
  /** Sets (or with undefined, stops) one track's traffic; its series stay, as in ingress-nginx. */
  setTraffic(key: TrafficKey, track: TrafficTrack, traffic: Traffic | undefined): void;
  stop(): Promise<void>;
}

// ingress-nginx's label names (internal/ingress/metric/collectors/socket.go); the controller's own
// labels (controller_namespace/class/pod) are constant for one controller.
const REQUEST_LABELS = ['controller_namespace', 'controller_class', 'controller_pod', 'namespace', 'ingress', 'service', 'canary', 'status', 'method', 'path', 'host'] as const;
const DURATION_LABELS = REQUEST_LABELS.filter((l) => l !== 'status');
// ingress-nginx's default --time-buckets (Prometheus's default buckets).
const TIME_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Flow {
  labels: Record<(typeof DURATION_LABELS)[number], string>;
  traffic: Traffic;
  last: number;
  /** Fractional requests not yet counted. */
  pending: number;
  /** Since the traffic was last set: requests counted, and how many of them were errors or slow. */
  total: number;
  errors: number;
  slow: number;
}

/** `now` is the clock the rates are counted by (tests set their own). */
export async function startTrafficExporter(opts: { tickMs?: number; now?: () => number } = {}): Promise<TrafficExporter> {
  const clock = opts.now ?? Date.now;
  const metrics = ingressMetrics();
  const flows = new Map<string, Flow>();
  const tick = () => {
    const now = clock();
    for (const flow of flows.values()) serve(flow, metrics, now);
  };
  const timer = setInterval(tick, opts.tickMs ?? 200);
  timer.unref();
  const server = await metricsServer(metrics.registry, tick);
  const { port } = server.address() as { port: number };

  return {
    port,
    url: `http://127.0.0.1:${port}`,
    setTraffic(key, track, traffic) {
      const labels = flowLabels(key, track);
      const id = JSON.stringify([key.namespace, key.ingress, labels.host, track]);
      tick(); // what the old setting owed is counted under it
      if (!traffic) {
        flows.delete(id);
        return;
      }
      const slowOk = traffic.slow === undefined || (traffic.slow.ratio >= 0 && traffic.slow.ratio <= 1 && traffic.slow.ms >= 0);
      if (!(traffic.rps >= 0) || !(traffic.errorRatio >= 0 && traffic.errorRatio <= 1) || !(traffic.latencyMs >= 0) || !slowOk) {
        throw new Error(`invalid traffic ${JSON.stringify(traffic)}: rps ≥ 0, errorRatio in 0..1, latencyMs ≥ 0, slow.ratio in 0..1, slow.ms ≥ 0`);
      }
      const before = flows.get(id);
      // The simulator sets every App's traffic again every second. The same setting keeps its
      // counts: the shares are exact over all requests since it was set, and counted afresh each
      // second a small share (5 % of 4 requests) would never come due. Other labels (a Service or
      // port of the key that changed) are another setting: its requests are counted under them.
      if (before && sameTraffic(before.traffic, traffic) && isDeepStrictEqual(before.labels, labels)) return;
      flows.set(id, { labels, traffic: { ...traffic }, last: clock(), pending: before?.pending ?? 0, total: 0, errors: 0, slow: 0 });
    },
    stop() {
      clearInterval(timer);
      flows.clear();
      return new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
    },
  };
}

const sameTraffic = (a: Traffic, b: Traffic) =>
  a.rps === b.rps && a.errorRatio === b.errorRatio && a.latencyMs === b.latencyMs && a.slow?.ratio === b.slow?.ratio && a.slow?.ms === b.slow?.ms;

interface IngressMetrics {
  registry: Registry;
  requests: Counter<(typeof REQUEST_LABELS)[number]>;
  duration: Histogram<(typeof DURATION_LABELS)[number]>;
  requestDuration: Histogram<(typeof REQUEST_LABELS)[number]>;
}

/** The series ingress-nginx exports, as it names and labels them. */
function ingressMetrics(): IngressMetrics {
  const registry = new Registry();
  const requests = new Counter({
    name: 'nginx_ingress_controller_requests',
    help: 'The total number of client requests',
    labelNames: REQUEST_LABELS,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'nginx_ingress_controller_response_duration_seconds',
    help: 'The time spent on receiving the response from the upstream server',
    labelNames: DURATION_LABELS,
    buckets: TIME_BUCKETS,
    registers: [registry],
  });
  const requestDuration = new Histogram({
    name: 'nginx_ingress_controller_request_duration_seconds',
    help: 'The request processing time in milliseconds',
    labelNames: REQUEST_LABELS,
    buckets: TIME_BUCKETS,
    registers: [registry],
  });
  return { registry, requests, duration, requestDuration };
}

/** Counts the requests a flow served since it was last served, errors as an exact share of them. */
function serve(flow: Flow, { requests, duration, requestDuration }: IngressMetrics, now: number): void {
  // Elapsed time, not tick count: a late timer still yields the configured rate.
  flow.pending += (flow.traffic.rps * (now - flow.last)) / 1000;
  flow.last = now;
  const n = Math.floor(flow.pending);
  if (n <= 0) return;
  flow.pending -= n;
  flow.total += n;
  // Errors as an exact share of all requests so far (the epsilon absorbs 0.2 * 10 = 1.9999…).
  const errorsDue = Math.floor(flow.total * flow.traffic.errorRatio + 1e-9) - flow.errors;
  flow.errors += errorsDue;
  if (errorsDue > 0) requests.inc({ ...flow.labels, status: '500' }, errorsDue);
  if (n - errorsDue > 0) requests.inc({ ...flow.labels, status: '200' }, n - errorsDue);
  // The slow tail, as exact a share as the errors; slow requests are counted among the 200s first.
  const slowDue = Math.floor(flow.total * (flow.traffic.slow?.ratio ?? 0) + 1e-9) - flow.slow;
  flow.slow += slowDue;
  const observe = (status: string, count: number, ms: number) => {
    for (let i = 0; i < count; i++) {
      duration.observe(flow.labels, ms / 1000);
      requestDuration.observe({ ...flow.labels, status }, ms / 1000);
    }
  };
  const slowOk = Math.min(slowDue, n - errorsDue);
  observe('200', n - errorsDue - slowOk, flow.traffic.latencyMs);
  observe('200', slowOk, flow.traffic.slow?.ms ?? 0);
  observe('500', errorsDue - (slowDue - slowOk), flow.traffic.latencyMs);
  observe('500', slowDue - slowOk, flow.traffic.slow?.ms ?? 0);
}

/** The labels ingress-nginx puts on the requests of one Ingress's stable or canary backend. */
function flowLabels(key: TrafficKey, track: TrafficTrack) {
  const service = key.service ?? (track === 'canary' ? `${key.ingress}-canary` : key.ingress);
  return {
    controller_namespace: 'ingress-nginx',
    controller_class: 'k8s.io/ingress-nginx',
    controller_pod: 'ingress-nginx-controller-0',
    namespace: key.namespace,
    ingress: key.ingress,
    service,
    canary: track === 'canary' ? `${key.namespace}-${service}-${key.port ?? 80}` : '',
    method: 'GET',
    path: '/',
    host: key.host ?? `${key.ingress}.example.com`,
  };
}

/** GET /metrics on 127.0.0.1 (a port of the kernel's choice); a scrape sees every request up to now. */
async function metricsServer(registry: Registry, tick: () => void): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404).end('not found\n');
      return;
    }
    tick();
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: Error) => res.writeHead(500).end(`${err.message}\n`),
    );
  });
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ready());
  });
  return server;
}
