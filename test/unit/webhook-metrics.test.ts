import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import { parseAllDocuments } from 'yaml';
import { DURATION_BUCKETS, webhookMetrics } from '../../webhook/metrics.js';

/** The value of one exposition line, e.g. `name{a="b"}`. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  assert.ok(line, `no line for ${series} in\n${text}`);
  return Number(line.slice(series.length + 1));
}

describe('webhook metrics', () => {
  it('exposes recorded requests as a cumulative histogram and a counter, in the Prometheus text format', async () => {
    const registry = new Registry();
    const m = webhookMetrics(registry, () => 0);
    for (const s of [0.0002, 0.0007, 0.003, 0.003, 2]) m.recordRequest('validate', 200, s);
    m.recordRequest('validate', 413, 0.0001);
    m.recordRequest('mutate', 200, 0.02);

    const text = await registry.metrics();
    assert.match(text, /# TYPE skiff_webhook_request_duration_seconds histogram/);
    const bucket = (le: string, endpoint = 'validate') => sample(text, `skiff_webhook_request_duration_seconds_bucket{le="${le}",endpoint="${endpoint}"}`);
    assert.equal(bucket('0.0005'), 2); // 0.0002 and the 413's 0.0001
    assert.equal(bucket('0.001'), 3);
    assert.equal(bucket('0.005'), 5);
    assert.equal(bucket('0.25'), 5);
    assert.equal(bucket('1'), 5); // 2 s is above 1 s...
    assert.equal(bucket('2.5'), 6); // ...and below 2.5 s
    assert.equal(bucket('+Inf'), 6);
    assert.equal(bucket('0.01', 'mutate'), 0);
    assert.equal(bucket('0.025', 'mutate'), 1);
    assert.equal(sample(text, 'skiff_webhook_request_duration_seconds_count{endpoint="validate"}'), 6);
    assert.ok(Math.abs(sample(text, 'skiff_webhook_request_duration_seconds_sum{endpoint="validate"}') - 2.007) < 1e-9);
    // Every bound is listed, in order, and the counts never fall.
    const counts = DURATION_BUCKETS.map((le) => bucket(String(le)));
    assert.deepEqual([...counts].sort((a, b) => a - b), counts);
    assert.equal(sample(text, 'skiff_webhook_requests_total{endpoint="validate",code="200"}'), 5);
    assert.equal(sample(text, 'skiff_webhook_requests_total{endpoint="validate",code="413"}'), 1);
  });

  it('has buckets up to the API server\'s timeout for the webhook, so that a slow admission is told apart from one about to time out', async () => {
    const manifests = parseAllDocuments(readFileSync(new URL('../../../config/webhook/manifests.yaml', import.meta.url), 'utf8')).map((d) => d.toJSON());
    const timeouts = manifests.flatMap((m: { webhooks?: { timeoutSeconds?: number }[] }) => (m.webhooks ?? []).map((w) => w.timeoutSeconds ?? 10));
    assert.ok(timeouts.length > 0);
    assert.ok(DURATION_BUCKETS.at(-1)! >= Math.max(...timeouts), `the last bound ${DURATION_BUCKETS.at(-1)} s is below the timeout of ${Math.max(...timeouts)} s`);
    const registry = new Registry();
    const m = webhookMetrics(registry, () => 0);
    m.recordRequest('validate', 200, 1.5);
    m.recordRequest('validate', 200, 4.5);
    const text = await registry.metrics();
    const bucket = (le: string) => sample(text, `skiff_webhook_request_duration_seconds_bucket{le="${le}",endpoint="validate"}`);
    assert.equal(bucket('2.5'), 1);
    assert.equal(bucket('5'), 2);
  });

  it('keeps totals across scrapes: a scrape neither loses nor counts twice', async () => {
    const registry = new Registry();
    const m = webhookMetrics(registry, () => 0);
    m.recordRequest('mutate', 200, 0.001);
    await registry.metrics();
    await registry.metrics();
    m.recordRequest('mutate', 200, 0.001);
    const text = await registry.metrics();
    assert.equal(sample(text, 'skiff_webhook_requests_total{endpoint="mutate",code="200"}'), 2);
    assert.equal(sample(text, 'skiff_webhook_request_duration_seconds_count{endpoint="mutate"}'), 2);
    const json = await registry.getMetricsAsJSON();
    assert.ok(json.some((metric) => metric.name === 'skiff_webhook_request_duration_seconds'));
  });
});
