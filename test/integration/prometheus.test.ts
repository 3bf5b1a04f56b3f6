// Canary analysis against a real Prometheus (Debian's 2.42, installed on first run) scraping the
// ingress-nginx stand-in: the built-in queries, through queryInstant, give back the traffic the
// exporter was told to produce, and a check decided from them says what is wrong.
import { strict as assert } from 'node:assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkQueries, evaluateCheck } from '../../controller/analysis/evaluate.js';
import { queryInstant } from '../../controller/analysis/prometheus.js';
import { latencyPercentileQuery, latencyQuery, requestCountQuery, successRateQuery } from '../../controller/analysis/queries.js';
import type { AnalysisSpec, QueryOutcome } from '../../controller/analysis/types.js';
import { startTrafficExporter, type TrafficExporter } from '../../dev/nginx-traffic.js';
import { ensurePrometheus, startPrometheus, type RunningPrometheus } from '../../dev/prometheus.js';
import { testLogger } from '../support/apps.js';
import { eventually } from '../../dev/wait.js';

const log = testLogger('prometheus');

// Timing: Prometheus scrapes every 1 s and the queries use a 10 s window. rate() needs two samples
// inside its window, so the scrape interval must be at most half the window (here a tenth, so that
// ~10 samples and ~90 requests per track make the ratios exact to about a point: 10 rps with every
// 5th request an error is 18 errors ± 1 in 90). The first usable value comes two scrapes after
// the target is found. Finding it is the slow part: Prometheus 2.42 hands discovered targets
// (file_sd, and static ones too) to its scrape loops only on a 5 s tick, so a new target is
// first scraped 4-6 s after it is written (measured; up to ~10 s if two ticks are missed).
const SCRAPE_SECONDS = 1;
const WINDOW = '10s';

const shop = { namespace: 'shop', ingress: 'web' };
const broken = { namespace: 'shop', ingress: 'broken' }; // canary answers nothing but 500s
const idle = { namespace: 'shop', ingress: 'idle' }; // no canary traffic at all
const tail = { namespace: 'shop', ingress: 'tail' }; // 3% of canary requests take 2 s

describe('analysis against a real Prometheus', function () {
  this.timeout(40_000);

  let exporter: TrafficExporter;
  let prom: RunningPrometheus;
  let dir: string;
  let bin: string;

  const value = async (query: string): Promise<number | undefined> => {
    const out = await queryInstant(prom.url, query, { timeoutMs: 2_000 });
    return out.ok ? out.value : undefined;
  };
  const near = (actual: number | undefined, want: number, within: number) => actual !== undefined && Math.abs(actual - want) <= within;

  before(async function () {
    this.timeout(300_000); // the first run installs Debian's package
    bin = await ensurePrometheus((line) => log.info(line));
    exporter = await startTrafficExporter();
    exporter.setTraffic(shop, 'canary', { rps: 10, errorRatio: 0.2, latencyMs: 120 });
    exporter.setTraffic(shop, 'stable', { rps: 10, errorRatio: 0, latencyMs: 40 });
    exporter.setTraffic(broken, 'canary', { rps: 10, errorRatio: 1, latencyMs: 5 });
    exporter.setTraffic(broken, 'stable', { rps: 10, errorRatio: 0, latencyMs: 40 });
    exporter.setTraffic(idle, 'stable', { rps: 10, errorRatio: 0, latencyMs: 40 });
    exporter.setTraffic(tail, 'canary', { rps: 20, errorRatio: 0, latencyMs: 40, slow: { ratio: 0.03, ms: 2000 } });
    dir = await mkdtemp(join(tmpdir(), 'skiff-prometheus-'));
  });

  after(async () => {
    await prom?.stop();
    await exporter?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('starts with no targets and picks up a target written to its file_sd file', async () => {
    let started = Date.now();
    prom = await startPrometheus({ dir, targets: [], scrapeIntervalSeconds: SCRAPE_SECONDS, bin, log: (line) => log.info(line) });
    log.info({ ms: Date.now() - started }, 'prometheus ready');
    assert.deepEqual(await queryInstant(prom.url, 'up'), { ok: false, reason: 'no-data', message: 'no series' });

    started = Date.now();
    await prom.setTargets([`127.0.0.1:${exporter.port}`]);
    await eventually(async () => (await value('up')) === 1, { timeoutMs: 15_000, intervalMs: 100, message: 'the exporter scraped (up == 1)' });
    log.info({ ms: Date.now() - started }, 'file_sd target scraped');
  });

  it('the built-in queries give back the configured traffic', async () => {
    const started = Date.now();
    const canary = successRateQuery(shop, WINDOW, 'canary');
    await eventually(async () => near(await value(canary), 80, 2), { timeoutMs: 20_000, message: 'canary success rate ≈ 80' });
    log.info({ ms: Date.now() - started }, 'canary success rate ≈ 80');

    assert.ok(near(await value(successRateQuery(shop, WINDOW, 'stable')), 100, 0.001));
    const latency = await value(latencyQuery(shop, WINDOW));
    assert.ok(near(latency, 120, 1), `canary latency ${latency}`);
    const requests = await value(requestCountQuery(shop, WINDOW));
    assert.ok(requests !== undefined && requests > 0, `canary requests ${requests}`);
  });

  it('a slow tail: the mean stays low while p99 reads the tail and p50 the body', async () => {
    // 3% at 2 s and 97% at 40 ms: a mean of 0.97 * 40 + 0.03 * 2000 = 98.8 ms.
    await eventually(async () => near(await value(latencyQuery(tail, WINDOW)), 98.8, 15), { timeoutMs: 20_000, message: 'the tail\'s mean ≈ 99 ms' });
    const p99 = await value(latencyPercentileQuery(tail, WINDOW, 99));
    // Interpolated within the (1 s, 2.5 s] bucket that holds the slow requests.
    assert.ok(p99 !== undefined && p99 > 1000 && p99 <= 2500, `p99 ${p99}`);
    const p50 = await value(latencyPercentileQuery(tail, WINDOW, 50));
    assert.ok(p50 !== undefined && p50 > 25 && p50 <= 50, `p50 ${p50} in the (25 ms, 50 ms] bucket`);
    const quiet = await queryInstant(prom.url, latencyPercentileQuery(idle, WINDOW, 99));
    assert.equal(!quiet.ok && quiet.reason, 'no-data', 'no canary traffic: no percentile either');

    // A check with percentile: 99 fails the tail that the mean lets through.
    const check = async (latency: AnalysisSpec['latency']) => {
      const spec: AnalysisSpec = { interval: WINDOW, failureLimit: 0, minRequests: 0, noData: 'Wait', latency };
      const outcomes: Record<string, QueryOutcome> = {};
      for (const q of checkQueries(spec, { ...tail, app: 'tail', canaryService: 'tail-canary', stableService: 'tail' })) outcomes[q.name] = await queryInstant(prom.url, q.query);
      return evaluateCheck(spec, outcomes);
    };
    const mean = await check({ maxMs: 300 });
    assert.equal(mean.result, 'Passed', mean.message);
    const percentile = await check({ maxMs: 300, percentile: 99 });
    assert.equal(percentile.result, 'Failed', percentile.message);
    assert.match(percentile.message, /latency p99 \d+(\.\d+)? ms > max 300/);
  });

  it('a canary answering only 5xx has a success rate of 0, not "no data"', async () => {
    assert.ok(near(await value(successRateQuery(broken, WINDOW)), 0, 0.001));
    // Flagger's unguarded query is empty here: with noData: Pass that canary would be promoted.
    const unguarded = successRateQuery(broken, WINDOW).replace(/^\((.*) or vector\(0\)\)/, '$1');
    assert.deepEqual(await queryInstant(prom.url, unguarded), { ok: false, reason: 'no-data', message: 'no series' });
  });

  it('no canary traffic is no data, never 0% or 100%', async () => {
    for (const query of [successRateQuery(idle, WINDOW), latencyQuery(idle, WINDOW), requestCountQuery(idle, WINDOW)]) {
      const out = await queryInstant(prom.url, query);
      assert.equal(!out.ok && out.reason, 'no-data', query);
    }
  });

  it('one check, queried in parallel and decided', async () => {
    const spec: AnalysisSpec = {
      interval: WINDOW, failureLimit: 1, minRequests: 10, noData: 'Wait',
      successRate: { min: 99, maxDropFromStable: 1 },
      latency: { maxMs: 500 },
      metrics: [{ name: 'series', query: 'count(nginx_ingress_controller_requests{namespace="{{namespace}}",ingress="{{ingress}}"})', min: 1 }],
    };
    const target = { namespace: 'shop', app: 'web', ingress: 'web', canaryService: 'web-canary', stableService: 'web' };
    const queries = checkQueries(spec, target);
    const outcomes: Record<string, QueryOutcome> = Object.fromEntries(
      await Promise.all(queries.map(async (q) => [q.name, await queryInstant(prom.url, q.query)] as const)),
    );
    const check = evaluateCheck(spec, outcomes);
    log.info({ check }, 'check');
    assert.equal(check.result, 'Failed');
    // The canary's 80% to the precision of the first test here (a scrape more or fewer in the window moves it a point or two).
    const [, rate] = /^successRate (\d+\.\d\d) < min 99; successRate \1 < stable 100\.00 - maxDropFromStable 1 = 99\.00$/.exec(check.message) ?? [];
    assert.ok(rate !== undefined && near(Number(rate), 80, 2), check.message);
    assert.deepEqual(check.metrics.map((m) => [m.name, m.result]), [['requests', 'Passed'], ['successRate', 'Failed'], ['latency', 'Passed'], ['series', 'Passed']]);
    assert.equal(check.metrics.find((m) => m.name === 'series')?.value, 3); // canary 200, canary 500, stable 200
  });

  it('once Prometheus is gone, a query is an error at once', async () => {
    await prom.stop();
    const started = Date.now();
    const out = await queryInstant(prom.url, successRateQuery(shop, WINDOW));
    assert.equal(!out.ok && out.reason, 'error');
    assert.match(!out.ok ? out.message : '', new RegExp(`^Prometheus at ${prom.url} unreachable: connect ECONNREFUSED`));
    assert.ok(Date.now() - started < 1_000);
  });
});
