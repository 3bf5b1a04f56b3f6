// Custom analysis queries against a real Prometheus (Debian's 2.42) holding the series of two
// namespaces: what the controller sends for an App in one of them reads that namespace's series
// only, however the query was written, while the same text sent as written reads both.
import { strict as assert } from 'node:assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prometheusClient, runCheck } from '../../controller/analysis/check.js';
import { queryInstant } from '../../controller/analysis/prometheus.js';
import type { QueryOutcome } from '../../controller/analysis/types.js';
import { startTrafficExporter, type TrafficExporter } from '../../dev/nginx-traffic.js';
import { ensurePrometheus, startPrometheus, type RunningPrometheus } from '../../dev/prometheus.js';
import { withDefaults, type DefaultedApp } from '../../shared/defaults.js';
import { testLogger } from '../support/apps.js';
import { eventually } from '../../dev/wait.js';

const log = testLogger('prometheus');

// Series counts are exact once every series exists: each track of each Ingress has a status="200"
// series and, with errors, a status="500" one. shop: the canary's 200 and 500 (2 series);
// payments: both tracks' 200 and 500 (4 series).
const SHOP_SERIES = 2;
const ALL_SERIES = 6;

const app = (queries: Record<string, string>): DefaultedApp => withDefaults({
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: 'shop' },
  spec: {
    image: 'nginx:1.27', ingress: { host: 'web.example.com' },
    rollout: { strategy: 'Canary', analysis: { interval: '10s', minRequests: 0, metrics: Object.entries(queries).map(([name, query]) => ({ name, query, max: 1e9 })) } },
  },
}) as DefaultedApp;

describe('custom analysis queries confined to the App\'s namespace (real Prometheus)', function () {
  this.timeout(60_000);

  let exporter: TrafficExporter;
  let prom: RunningPrometheus;
  let dir: string;
  const value = (out: QueryOutcome) => (out.ok ? out.value : out.message);

  before(async function () {
    this.timeout(300_000); // the first run installs Debian's package
    const bin = await ensurePrometheus((line) => log.info(line));
    exporter = await startTrafficExporter();
    exporter.setTraffic({ namespace: 'shop', ingress: 'web' }, 'canary', { rps: 10, errorRatio: 0.2, latencyMs: 50 });
    exporter.setTraffic({ namespace: 'payments', ingress: 'checkout' }, 'canary', { rps: 10, errorRatio: 0.5, latencyMs: 50 });
    exporter.setTraffic({ namespace: 'payments', ingress: 'checkout' }, 'stable', { rps: 10, errorRatio: 0.5, latencyMs: 50 });
    dir = await mkdtemp(join(tmpdir(), 'skiff-prometheus-'));
    prom = await startPrometheus({ dir, targets: [`127.0.0.1:${exporter.port}`], scrapeIntervalSeconds: 1, bin, log: (line) => log.info(line) });
    // Both namespaces' series are in Prometheus: what a query as written would read.
    await eventually(async () => value(await queryInstant(prom.url, 'count(nginx_ingress_controller_requests)')) === ALL_SERIES,
      { timeoutMs: 30_000, intervalMs: 250, message: `Prometheus holding the ${ALL_SERIES} request series of both namespaces` });
  });

  after(async () => {
    await prom?.stop();
    await exporter?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a check of an App in shop reads shop\'s series only, whatever the query selects', async () => {
    const queries = {
      series: 'count(nginx_ingress_controller_requests)',
      namespaces: 'count(count by (namespace) ({__name__="nginx_ingress_controller_requests"}))',
      'other-ingress': 'sum(nginx_ingress_controller_requests{ingress="checkout"})',
      'by-regex': 'count(nginx_ingress_controller_requests{ingress=~".+"} / on(ingress, status, canary, service) group_left nginx_ingress_controller_requests)',
    };
    // As written, each of them reads the other namespace too.
    const raw = Object.fromEntries(await Promise.all(Object.entries(queries).map(async ([name, q]) => [name, value(await queryInstant(prom.url, q))])));
    assert.equal(raw.series, ALL_SERIES);
    assert.equal(raw.namespaces, 2);
    assert.ok(typeof raw['other-ingress'] === 'number' && raw['other-ingress'] > 0, `payments' requests as written: ${raw['other-ingress']}`);
    assert.equal(raw['by-regex'], ALL_SERIES);

    // What the controller sends.
    const check = await runCheck(prometheusClient(prom.url), app(queries));
    const got = Object.fromEntries(check.metrics.map((m) => [m.name, m.value ?? m.message]));
    assert.deepEqual(got, {
      series: SHOP_SERIES,
      namespaces: 1,
      'other-ingress': 'other-ingress: no data in the last 10s (no series)',
      'by-regex': SHOP_SERIES,
    });
  });

  it('a query naming the other namespace is never sent', async () => {
    const check = await runCheck(prometheusClient(prom.url), app({ foreign: 'sum(nginx_ingress_controller_requests{namespace="payments"})' }));
    assert.equal(check.metrics[0].result, 'Inconclusive');
    assert.match(check.metrics[0].message, /^foreign: query failed: not sent to Prometheus: the matcher namespace="payments" at character 39 is not allowed/);
  });
});
