import { strict as assert } from 'node:assert';
import { Registry } from 'prom-client';
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
    const m = webhookMetrics(registry);
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
    assert.equal(bucket('1'), 5); // 2 s is above the last bound...
    assert.equal(bucket('+Inf'), 6); // ...and only in +Inf
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

  it('keeps totals across scrapes: a scrape neither loses nor counts twice', async () => {
    const registry = new Registry();
    const m = webhookMetrics(registry);
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
