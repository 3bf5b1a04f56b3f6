// Deciding one analysis check from its query outcomes: table tests over evaluateCheck.
import { strict as assert } from 'node:assert';
import { countsAs, evaluateCheck } from '../../controller/analysis/evaluate.js';
import type { AnalysisSpec, MetricResult, QueryOutcome } from '../../controller/analysis/types.js';

const base: AnalysisSpec = { interval: '1m', failureLimit: 1, minRequests: 10, noData: 'Wait' };

const v = (value: number): QueryOutcome => ({ ok: true, value });
const none: QueryOutcome = { ok: false, reason: 'no-data', message: 'no series' };
const nan: QueryOutcome = { ok: false, reason: 'no-data', message: 'NaN (a 0/0, as a ratio of rates over a window without traffic gives)' };
const refused: QueryOutcome = { ok: false, reason: 'error', message: 'Prometheus at http://prom:9090 unreachable: connect ECONNREFUSED 10.0.0.1:9090' };

interface Case {
  name: string;
  spec: Partial<AnalysisSpec>;
  outcomes: Record<string, QueryOutcome>;
  result: 'Passed' | 'Failed' | 'Inconclusive';
  message: string | RegExp;
  metrics?: Partial<MetricResult>[];
}

const cases: Case[] = [
  {
    name: 'passes when every metric is within its bounds',
    spec: { successRate: { min: 99 }, latency: { maxMs: 500 } },
    outcomes: { 'builtin:requests': v(120), 'builtin:successRate': v(99.5), 'builtin:latency': v(123.456) },
    result: 'Passed',
    message: 'requests, successRate, latency passed',
    metrics: [
      { name: 'requests', value: 120, min: 10, result: 'Passed', message: 'the canary served 120 requests in the last 1m' },
      { name: 'successRate', value: 99.5, min: 99, result: 'Passed', message: 'successRate 99.50 ≥ min 99' },
      { name: 'latency', value: 123.456, max: 500, result: 'Passed', message: 'latency 123.46 ms ≤ max 500 ms' },
    ],
  },
  {
    name: 'fails on a success rate below min',
    spec: { successRate: { min: 99 } },
    outcomes: { 'builtin:requests': v(50), 'builtin:successRate': v(80) },
    result: 'Failed',
    message: 'successRate 80.00 < min 99',
    metrics: [{ name: 'requests', result: 'Passed' }, { name: 'successRate', value: 80, min: 99, result: 'Failed' }],
  },
  {
    name: 'fails on a custom metric above max',
    spec: { metrics: [{ name: 'checkout-errors', query: 'q', max: 0.5 }] },
    outcomes: { 'builtin:requests': v(50), 'metric:checkout-errors': v(0.754321) },
    result: 'Failed',
    message: 'checkout-errors 0.75 > max 0.5',
    metrics: [{ name: 'requests' }, { name: 'checkout-errors', value: 0.754321, max: 0.5, result: 'Failed' }],
  },
  {
    name: 'fails on a custom metric below min, and shows small values with their digits',
    spec: { metrics: [{ name: 'throughput', query: 'q', min: 0.001, max: 10 }] },
    outcomes: { 'builtin:requests': v(50), 'metric:throughput': v(0.000123456789) },
    result: 'Failed',
    message: 'throughput 0.000123 < min 0.001',
    metrics: [{ name: 'requests' }, { name: 'throughput', value: 0.000123457, min: 0.001, max: 10, result: 'Failed' }],
  },
  {
    name: 'passes a custom metric exactly on its bounds',
    spec: { minRequests: 0, metrics: [{ name: 'm', query: 'q', min: 1, max: 1 }] },
    outcomes: { 'metric:m': v(1) },
    result: 'Passed',
    message: 'm passed',
    metrics: [{ name: 'm', value: 1, min: 1, max: 1, result: 'Passed', message: 'm 1.00 ≥ min 1 and ≤ max 1' }],
  },
  {
    // Prometheus computes 1% of 2,000 requests a minute failing as 98.99999999999999: on min, not below it.
    name: 'passes a success rate, a latency and a request count on their bounds within a float\'s rounding',
    spec: { successRate: { min: 99 }, latency: { maxMs: 500 }, minRequests: 10 },
    outcomes: { 'builtin:requests': v(9.999999999999998), 'builtin:successRate': v(1.65 / 1.6666666666666667 * 100), 'builtin:latency': v(500.00000000000006) },
    result: 'Passed',
    message: 'requests, successRate, latency passed',
    metrics: [
      { name: 'requests', result: 'Passed' },
      { name: 'successRate', value: 99, min: 99, result: 'Passed', message: 'successRate 99.00 ≥ min 99' },
      { name: 'latency', value: 500, max: 500, result: 'Passed', message: 'latency 500.00 ms ≤ max 500 ms' },
    ],
  },
  {
    name: 'fails a large custom metric one unit past its bound: the rounding allowed is relative, and far below a count\'s unit',
    spec: { minRequests: 0, metrics: [{ name: 'queue-bytes', query: 'q', max: 5_000_000_000 }, { name: 'stored', query: 'q', min: 20_000_000_000 }] },
    outcomes: { 'metric:queue-bytes': v(5_000_000_001), 'metric:stored': v(19_999_999_999) },
    result: 'Failed',
    message: /queue-bytes 5000000001(\.00)? > max 5000000000.*stored 19999999999(\.00)? < min 20000000000/,
  },
  {
    name: 'fails a success rate below min by more than rounding, however little',
    spec: { successRate: { min: 99 } },
    outcomes: { 'builtin:requests': v(50), 'builtin:successRate': v(98.9999999) },
    result: 'Failed',
    message: 'successRate 98.9999999 < min 99',
    metrics: [{ name: 'requests' }, { name: 'successRate', min: 99, result: 'Failed' }],
  },
  {
    name: 'maxDropFromStable: 95 against stable 96 with a drop of 2 passes',
    spec: { successRate: { maxDropFromStable: 2 } },
    outcomes: { 'builtin:requests': v(50), 'builtin:successRate': v(95), 'builtin:stableSuccessRate': v(96) },
    result: 'Passed',
    message: 'requests, successRate passed',
    metrics: [{ name: 'requests' }, { name: 'successRate', value: 95, min: 94, result: 'Passed', message: 'successRate 95.00 ≥ stable 96.00 - maxDropFromStable 2 = 94.00' }],
  },
  {
    // 99.9 - 0.1 is 99.80000000000001 in floats: a canary exactly 0.1 points below is no more than that.
    name: 'maxDropFromStable: exactly the drop allowed passes, whatever the floats make of the difference',
    spec: { successRate: { maxDropFromStable: 0.1 } },
    outcomes: { 'builtin:requests': v(50), 'builtin:successRate': v(99.8), 'builtin:stableSuccessRate': v(99.9) },
    result: 'Passed',
    message: 'requests, successRate passed',
    metrics: [{ name: 'requests' }, { name: 'successRate', value: 99.8, min: 99.8, result: 'Passed', message: 'successRate 99.80 ≥ stable 99.90 - maxDropFromStable 0.1 = 99.80' }],
  },
  {
    name: 'maxDropFromStable: 90 against stable 96 with a drop of 2 fails',
    spec: { successRate: { min: 85, maxDropFromStable: 2 } },
    outcomes: { 'builtin:requests': v(50), 'builtin:successRate': v(90), 'builtin:stableSuccessRate': v(96) },
    result: 'Failed',
    message: 'successRate 90.00 < stable 96.00 - maxDropFromStable 2 = 94.00',
    metrics: [{ name: 'requests' }, { name: 'successRate', value: 90, min: 94, result: 'Failed' }],
  },
  {
    name: 'min and maxDropFromStable both broken: both named',
    spec: { successRate: { min: 99, maxDropFromStable: 1 } },
    outcomes: { 'builtin:requests': v(50), 'builtin:successRate': v(80), 'builtin:stableSuccessRate': v(100) },
    result: 'Failed',
    message: 'successRate 80.00 < min 99; successRate 80.00 < stable 100.00 - maxDropFromStable 1 = 99.00',
  },
  {
    name: 'stable with no data: the comparison is inconclusive',
    spec: { successRate: { min: 90, maxDropFromStable: 2 } },
    outcomes: { 'builtin:requests': v(50), 'builtin:successRate': v(95), 'builtin:stableSuccessRate': nan },
    result: 'Inconclusive',
    message: 'successRate of stable: no data in the last 1m (NaN (a 0/0, as a ratio of rates over a window without traffic gives)), so maxDropFromStable 2 was not checked',
    metrics: [{ name: 'requests' }, { name: 'successRate', value: 95, min: 90, result: 'Inconclusive' }],
  },
  {
    name: 'stable with no data does not hide a failure against min',
    spec: { successRate: { min: 99, maxDropFromStable: 2 } },
    outcomes: { 'builtin:requests': v(50), 'builtin:successRate': v(95), 'builtin:stableSuccessRate': none },
    result: 'Failed',
    message: 'successRate 95.00 < min 99',
  },
  {
    name: 'fails on latency over its bound',
    spec: { latency: { maxMs: 500 } },
    outcomes: { 'builtin:requests': v(50), 'builtin:latency': v(612.349) },
    result: 'Failed',
    message: 'latency 612.35 ms > max 500 ms',
    metrics: [{ name: 'requests' }, { name: 'latency', value: 612.349, max: 500, result: 'Failed' }],
  },
  {
    name: 'no data for a metric: inconclusive, saying so',
    spec: { successRate: { min: 99 } },
    outcomes: { 'builtin:requests': v(50), 'builtin:successRate': nan },
    result: 'Inconclusive',
    message: 'successRate: no data in the last 1m (NaN (a 0/0, as a ratio of rates over a window without traffic gives))',
    metrics: [{ name: 'requests' }, { name: 'successRate', min: 99, result: 'Inconclusive' }],
  },
  {
    name: 'fewer than minRequests canary requests: inconclusive',
    spec: { successRate: { min: 99 } },
    outcomes: { 'builtin:requests': v(4.5), 'builtin:successRate': v(100) },
    result: 'Inconclusive',
    message: 'the canary served 4.5 requests in the last 1m, fewer than minRequests 10',
    metrics: [{ name: 'requests', value: 4.5, min: 10, result: 'Inconclusive' }, { name: 'successRate', result: 'Passed' }],
  },
  {
    name: 'no canary series at all: zero requests, inconclusive',
    spec: { successRate: { min: 99 } },
    outcomes: { 'builtin:requests': none, 'builtin:successRate': none },
    result: 'Inconclusive',
    message: 'the canary served no requests in the last 1m (minRequests 10); successRate: no data in the last 1m (no series)',
    metrics: [{ name: 'requests', value: 0, min: 10, result: 'Inconclusive' }, { name: 'successRate', result: 'Inconclusive' }],
  },
  {
    name: 'a failure wins over too few requests (as api.md says)',
    spec: { successRate: { min: 99 } },
    outcomes: { 'builtin:requests': v(3), 'builtin:successRate': v(66.6667) },
    result: 'Failed',
    message: 'successRate 66.67 < min 99',
  },
  {
    name: 'a query error: inconclusive, with the error in the message',
    spec: { minRequests: 0, latency: { maxMs: 500 } },
    outcomes: { 'builtin:latency': refused },
    result: 'Inconclusive',
    message: 'latency: query failed: Prometheus at http://prom:9090 unreachable: connect ECONNREFUSED 10.0.0.1:9090',
    metrics: [{ name: 'latency', max: 500, result: 'Inconclusive' }],
  },
  {
    name: 'an outcome missing from the map counts as a query error',
    spec: { minRequests: 0, metrics: [{ name: 'm', query: 'q', max: 1 }] },
    outcomes: {},
    result: 'Inconclusive',
    message: 'm: query failed: not queried',
  },
  {
    name: 'minRequests 0 turns the request count off',
    spec: { minRequests: 0, successRate: { min: 99 } },
    outcomes: { 'builtin:successRate': v(99.99999999999) },
    result: 'Passed',
    message: 'successRate passed',
    metrics: [{ name: 'successRate', value: 100, min: 99, result: 'Passed', message: 'successRate 100.00 ≥ min 99' }],
  },
  {
    name: 'a value just below min is written with the digits that show it below, in the message and in status',
    spec: { successRate: { min: 99.9 } },
    outcomes: { 'builtin:requests': v(5000), 'builtin:successRate': v(99.8961) },
    result: 'Failed',
    message: 'successRate 99.896 < min 99.9',
    metrics: [{ name: 'requests' }, { name: 'successRate', value: 99.8961, min: 99.9, result: 'Failed' }],
  },
  {
    name: 'a value a hair below min is not stored in status as the min itself',
    spec: { successRate: { min: 99.9 } },
    outcomes: { 'builtin:requests': v(5000), 'builtin:successRate': v(99.89999987) },
    result: 'Failed',
    message: 'successRate 99.8999999 < min 99.9',
    metrics: [{ name: 'requests' }, { name: 'successRate', value: 99.8999999, min: 99.9, result: 'Failed' }],
  },
  {
    name: 'a value just below stable minus maxDropFromStable reads below it',
    spec: { successRate: { maxDropFromStable: 2 } },
    outcomes: { 'builtin:requests': v(5000), 'builtin:successRate': v(93.9987), 'builtin:stableSuccessRate': v(96) },
    result: 'Failed',
    message: 'successRate 93.999 < stable 96.00 - maxDropFromStable 2 = 94',
    metrics: [{ name: 'requests' }, { name: 'successRate', value: 93.9987, min: 94, result: 'Failed' }],
  },
  {
    name: 'a latency just over maxMs reads over it',
    spec: { minRequests: 0, latency: { maxMs: 500, percentile: 99 } },
    outcomes: { 'builtin:latency': v(500.0041) },
    result: 'Failed',
    message: 'latency p99 500.004 ms > max 500 ms',
    metrics: [{ name: 'latency p99', value: 500.004, max: 500, result: 'Failed' }],
  },
  {
    name: 'a request count just under minRequests reads under it',
    spec: { successRate: { min: 99 } },
    outcomes: { 'builtin:requests': v(9.96), 'builtin:successRate': v(100) },
    result: 'Inconclusive',
    message: 'the canary served 9.96 requests in the last 1m, fewer than minRequests 10',
    metrics: [{ name: 'requests', value: 9.96, min: 10, result: 'Inconclusive' }, { name: 'successRate', result: 'Passed' }],
  },
  {
    name: 'nothing to check passes',
    spec: { minRequests: 0 },
    outcomes: {},
    result: 'Passed',
    message: 'no metrics to check',
  },
];

describe('evaluateCheck', () => {
  for (const c of cases) {
    it(c.name, () => {
      const check = evaluateCheck({ ...base, ...c.spec }, c.outcomes);
      assert.equal(check.result, c.result, check.message);
      if (typeof c.message === 'string') assert.equal(check.message, c.message);
      else assert.match(check.message, c.message);
      if (c.metrics) {
        assert.equal(check.metrics.length, c.metrics.length, JSON.stringify(check.metrics));
        c.metrics.forEach((want, i) => {
          for (const [k, val] of Object.entries(want)) assert.deepEqual(check.metrics[i]![k as keyof MetricResult], val, `${want.name}.${k}`);
        });
      }
    });
  }

  it('leaves value out when there is none, and never produces NaN', () => {
    const check = evaluateCheck({ ...base, successRate: { min: 99 }, latency: { maxMs: 1 } }, { 'builtin:requests': v(50), 'builtin:successRate': none, 'builtin:latency': v(Number.NaN) });
    assert.equal('value' in check.metrics[1]!, false);
    assert.equal('value' in check.metrics[2]!, false);
    assert.match(check.metrics[2]!.message, /latency: NaN is not a finite number/);
    assert.ok(!JSON.stringify(check).includes('null'));
  });
});

describe('evaluateCheck with long errors', () => {
  it('holds every metric\'s message and the check\'s to 1 KiB, whatever Prometheus said', () => {
    const long: QueryOutcome = { ok: false, reason: 'error', message: `Prometheus answered HTTP 422: ${'x'.repeat(50_000)}` };
    const metrics = Array.from({ length: 10 }, (_, i) => ({ name: `m${i}`, query: 'up', max: 1 }));
    const outcomes = Object.fromEntries([['builtin:requests', long], ['builtin:successRate', long], ['builtin:latency', long], ...metrics.map((m) => [`metric:${m.name}`, long])]);
    const check = evaluateCheck({ ...base, successRate: { min: 99 }, latency: { maxMs: 500 }, metrics }, outcomes);
    assert.equal(check.result, 'Inconclusive');
    assert.equal(check.metrics.length, 13);
    for (const m of check.metrics) {
      assert.ok(Buffer.byteLength(m.message) <= 1024, `${m.name}: ${Buffer.byteLength(m.message)} bytes`);
      assert.match(m.message, new RegExp(`^${m.name}: query failed: Prometheus answered HTTP 422: x+… \\(\\d+ bytes in all\\)$`));
    }
    assert.ok(Buffer.byteLength(check.message) <= 1024, `${Buffer.byteLength(check.message)} bytes`);
    assert.ok(check.message.startsWith('requests: query failed: Prometheus answered HTTP 422: xxx'));
  });
});

describe('countsAs (noData)', () => {
  it('applies noData to inconclusive checks only', () => {
    assert.equal(countsAs('Passed', 'Fail'), 'Passed');
    assert.equal(countsAs('Failed', 'Pass'), 'Failed');
    assert.equal(countsAs('Inconclusive', 'Wait'), 'Wait');
    assert.equal(countsAs('Inconclusive', 'Fail'), 'Failed');
    assert.equal(countsAs('Inconclusive', 'Pass'), 'Passed');
  });
});
