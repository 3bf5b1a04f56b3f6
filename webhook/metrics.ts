// Prometheus metrics of the webhook (prom-client), one registry per server.
//
// Every admission is counted and timed on plain numbers, and prom-client reads them only when
// /metrics is scraped: prom-client's per-call label validation and hashing cost a tenth of the
// webhook's throughput at 50 connections (npm run bench:webhook), on the API server's request path.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Endpoint } from './admission.js';

const DURATION_NAME = 'skiff_webhook_request_duration_seconds';
const DURATION_HELP = 'Time from request to response, body parsing included';
// Admission calls sit in the API server's request path: resolution below 1 ms matters. The
// bounds go on to the API server's timeout for the webhook (5 s in config/webhook, 10 s by
// default), so that a slow admission can be told from one that is about to time out.
export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 2.5, 5, 10];

/** Counts of one endpoint's request durations: per bucket (not cumulative), their sum and count. */
interface DurationTally { buckets: number[]; sum: number; count: number }

export interface WebhookMetrics {
  /** One answered admission request: its endpoint, HTTP status and duration in seconds. */
  recordRequest(endpoint: Endpoint, httpStatus: number, seconds: number): void;
  denials: Counter<'endpoint' | 'code'>;
  certificateReloads: Counter<'result'>;
  /** When the certificate being served expires (seconds since the epoch): an expired one fails every App write. */
  certificateExpiry: Gauge;
}

/** The duration histogram as prom-client's registry reads a metric, built from the tallies on each scrape. */
function durationMetric(tallies: Map<Endpoint, DurationTally>) {
  const get = async () => {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    for (const [endpoint, t] of tallies) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += t.buckets[i];
        values.push({ metricName: `${DURATION_NAME}_bucket`, labels: { le, endpoint }, value: cumulative });
      });
      values.push({ metricName: `${DURATION_NAME}_bucket`, labels: { le: '+Inf', endpoint }, value: t.count });
      values.push({ metricName: `${DURATION_NAME}_sum`, labels: { endpoint }, value: t.sum });
      values.push({ metricName: `${DURATION_NAME}_count`, labels: { endpoint }, value: t.count });
    }
    return { name: DURATION_NAME, help: DURATION_HELP, type: 'histogram', values, aggregator: 'sum' };
  };
  return { name: DURATION_NAME, help: DURATION_HELP, type: 'histogram', aggregator: 'sum', get, reset: () => tallies.clear() };
}

/**
 * The webhook's metrics. `largeBodyBytes` reads the bytes of large request bodies held now (see
 * largeBodyBudget) when scraped: at the bound, large reviews are answered 429.
 */
export function webhookMetrics(registry: Registry, largeBodyBytes: () => number): WebhookMetrics {
  new Gauge({
    name: 'skiff_webhook_large_request_body_bytes',
    help: 'Bytes of admission request bodies over 64 KiB held now, as they arrive; past 14 MiB such requests are answered 429',
    registers: [registry],
    collect() {
      this.set(largeBodyBytes());
    },
  });
  // endpoint + ' ' + code -> requests not yet handed to the counter.
  const pending = new Map<string, number>();
  const tallies = new Map<Endpoint, DurationTally>();
  new Counter({
    name: 'skiff_webhook_requests_total',
    help: 'Admission requests by endpoint and HTTP status code',
    labelNames: ['endpoint', 'code'],
    registers: [registry],
    collect() {
      for (const [key, n] of pending) {
        const [endpoint, code] = key.split(' ');
        this.inc({ endpoint, code }, n);
      }
      pending.clear();
    },
  });
  // Registered as is: the registry only calls get() (and reset() when asked to).
  registry.registerMetric(durationMetric(tallies) as unknown as Histogram);

  return {
    recordRequest(endpoint, httpStatus, seconds) {
      const key = `${endpoint} ${httpStatus}`;
      pending.set(key, (pending.get(key) ?? 0) + 1);
      let t = tallies.get(endpoint);
      if (!t) tallies.set(endpoint, (t = { buckets: DURATION_BUCKETS.map(() => 0), sum: 0, count: 0 }));
      const i = DURATION_BUCKETS.findIndex((le) => seconds <= le);
      if (i >= 0) t.buckets[i] += 1;
      t.sum += seconds;
      t.count += 1;
    },
    denials: new Counter({ name: 'skiff_webhook_denials_total', help: 'AdmissionReviews answered with allowed: false, by the status code of the denial', labelNames: ['endpoint', 'code'], registers: [registry] }),
    certificateReloads: new Counter({ name: 'skiff_webhook_certificate_reloads_total', help: 'Serving certificate reloads from --cert-dir', labelNames: ['result'], registers: [registry] }),
    certificateExpiry: new Gauge({ name: 'skiff_webhook_certificate_expiration_timestamp_seconds', help: 'When the serving certificate being served expires (its notAfter), in seconds since the Unix epoch', registers: [registry] }),
  };
}
