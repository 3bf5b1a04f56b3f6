// The PromQL of canary analysis, character for character: these strings are what Prometheus runs.
import { strict as assert } from 'node:assert';
import {
  escapeLabelValue,
  fillPlaceholders,
  knownPlaceholders,
  latencyPercentileQuery,
  latencyQuery,
  requestCountQuery,
  successRateQuery,
  unknownPlaceholders,
} from '../../controller/analysis/queries.js';
import { checkQueries, evaluateCheck, refusedQueries } from '../../controller/analysis/evaluate.js';
import { runCheck } from '../../controller/analysis/check.js';
import { withDefaults, type DefaultedApp } from '../../shared/defaults.js';
import type { AnalysisSpec, AnalysisTarget } from '../../controller/analysis/types.js';

const ref = { namespace: 'shop', ingress: 'web' };
const target: AnalysisTarget = { namespace: 'shop', app: 'web', ingress: 'web', canaryService: 'web-canary', stableService: 'web' };

describe('built-in analysis queries', () => {
  it("canary success rate: Flagger's, the numerator guarded so all-5xx is 0%, not no data", () => {
    assert.equal(
      successRateQuery(ref, '1m'),
      '(sum(rate(nginx_ingress_controller_requests{namespace="shop",ingress="web",canary!="",status!~"5.*"}[1m])) or vector(0))'
        + ' / sum(rate(nginx_ingress_controller_requests{namespace="shop",ingress="web",canary!=""}[1m])) * 100',
    );
  });

  it('stable success rate: the same over canary=""', () => {
    assert.equal(
      successRateQuery(ref, '30s', 'stable'),
      '(sum(rate(nginx_ingress_controller_requests{namespace="shop",ingress="web",canary="",status!~"5.*"}[30s])) or vector(0))'
        + ' / sum(rate(nginx_ingress_controller_requests{namespace="shop",ingress="web",canary=""}[30s])) * 100',
    );
  });

  it('canary mean latency in milliseconds', () => {
    assert.equal(
      latencyQuery(ref, '1m'),
      'sum(rate(nginx_ingress_controller_response_duration_seconds_sum{namespace="shop",ingress="web",canary!=""}[1m]))'
        + ' / sum(rate(nginx_ingress_controller_response_duration_seconds_count{namespace="shop",ingress="web",canary!=""}[1m])) * 1000',
    );
  });

  it('canary latency percentile in milliseconds, from the request duration histogram as docs/api.md shows it', () => {
    assert.equal(
      latencyPercentileQuery(ref, '1m', 99),
      'histogram_quantile(0.99, sum by (le) (rate(nginx_ingress_controller_request_duration_seconds_bucket{namespace="shop",ingress="web",canary!=""}[1m]))) * 1000',
    );
    assert.match(latencyPercentileQuery(ref, '1m', 50), /^histogram_quantile\(0\.5, /);
    const spec = (percentile?: 99) => ({ interval: '1m', failureLimit: 0, minRequests: 0, noData: 'Wait', latency: { maxMs: 300, percentile } }) as AnalysisSpec;
    assert.deepEqual(checkQueries(spec(99), target).map((q) => q.query), [latencyPercentileQuery(target, '1m', 99)]);
    assert.deepEqual(checkQueries(spec(), target).map((q) => q.query), [latencyQuery(target, '1m')]);
    const [name] = checkQueries(spec(99), target).map((q) => q.name);
    const failed = evaluateCheck(spec(99), { [name]: { ok: true, value: 1800 } });
    assert.equal(failed.result, 'Failed');
    assert.equal(failed.metrics[0].name, 'latency p99');
    assert.match(failed.message, /latency p99 1800(\.0+)? ms > max 300 ms/);
  });

  it('canary request count in the window', () => {
    assert.equal(requestCountQuery(ref, '2m'), 'sum(increase(nginx_ingress_controller_requests{namespace="shop",ingress="web",canary!=""}[2m]))');
  });

  it('escapes label values for PromQL string literals', () => {
    assert.equal(escapeLabelValue('a"b\\c\nd'), 'a\\"b\\\\c\\nd');
    assert.equal(
      requestCountQuery({ namespace: 'x"}) or vector(1) #', ingress: 'a\\' }, '1m'),
      'sum(increase(nginx_ingress_controller_requests{namespace="x\\"}) or vector(1) #",ingress="a\\\\",canary!=""}[1m]))',
    );
  });
});

describe('custom query placeholders', () => {
  const values = { namespace: 'shop', app: 'web', canaryService: 'web-canary', stableService: 'web', ingress: 'web-ing', interval: '30s' };

  it('knows exactly six', () => {
    assert.deepEqual([...knownPlaceholders].sort(), ['app', 'canaryService', 'ingress', 'interval', 'namespace', 'stableService']);
  });

  it('fills every known placeholder, each time it occurs', () => {
    const template = 'sum(rate(errors{namespace="{{namespace}}",app="{{app}}",svc=~"{{canaryService}}|{{stableService}}",ingress="{{ingress}}"}[{{interval}}])) / sum(rate(x{app="{{app}}"}[{{interval}}]))';
    assert.equal(
      fillPlaceholders(template, values),
      'sum(rate(errors{namespace="shop",app="web",svc=~"web-canary|web",ingress="web-ing"}[30s])) / sum(rate(x{app="web"}[30s]))',
    );
  });

  it('escapes filled values and leaves unknown placeholders alone', () => {
    assert.equal(fillPlaceholders('x{a="{{app}}"} {{pod}}', { ...values, app: 'we"b' }), 'x{a="we\\"b"} {{pod}}');
  });

  it('lists unknown placeholders as written, once each', () => {
    assert.deepEqual(unknownPlaceholders('x{a="{{app}}",b="{{pod}}",c="{{ app }}",d="{{pod}}",e="{{}}"}[{{interval}}]'), ['{{pod}}', '{{ app }}', '{{}}']);
    assert.deepEqual(unknownPlaceholders('sum(rate(x{namespace="{{namespace}}"}[{{interval}}]))'), []);
  });
});

describe('checkQueries', () => {
  const spec: AnalysisSpec = {
    interval: '1m',
    failureLimit: 1,
    minRequests: 10,
    noData: 'Wait',
    successRate: { min: 99, maxDropFromStable: 1 },
    latency: { maxMs: 500 },
    metrics: [{ name: 'checkout-errors', query: 'sum(rate(checkout_errors_total{namespace="{{namespace}}",app="{{app}}",track="canary"}[{{interval}}]))', max: 0.5 }],
  };

  it('lists every query one check needs, the custom ones filled in', () => {
    assert.deepEqual(checkQueries(spec, target), [
      { name: 'builtin:requests', query: requestCountQuery(ref, '1m') },
      { name: 'builtin:successRate', query: successRateQuery(ref, '1m') },
      { name: 'builtin:stableSuccessRate', query: successRateQuery(ref, '1m', 'stable') },
      { name: 'builtin:latency', query: latencyQuery(ref, '1m') },
      { name: 'metric:checkout-errors', query: 'sum(rate(checkout_errors_total{namespace="shop",app="web",track="canary"}[1m]))' },
    ]);
  });

  it('leaves out what the spec does not ask for', () => {
    const names = (s: AnalysisSpec) => checkQueries(s, target).map((q) => q.name);
    assert.deepEqual(names({ ...spec, minRequests: 0, successRate: { min: 99 }, latency: undefined, metrics: undefined }), ['builtin:successRate']);
    assert.deepEqual(names({ ...spec, successRate: undefined, latency: undefined }), ['builtin:requests', 'metric:checkout-errors']);
  });
});

describe('custom queries as the controller sends them', () => {
  const spec = (...queries: string[]): AnalysisSpec => ({
    interval: '1m', failureLimit: 1, minRequests: 0, noData: 'Wait',
    metrics: queries.map((query, i) => ({ name: `m${i}`, query, max: 1 })),
  });

  it('confines every custom query to the App\'s namespace', () => {
    assert.deepEqual(checkQueries(spec('count(kube_secret_info{secret=~"a.*"})', 'up{namespace="{{namespace}}"} / on() group_left up'), target), [
      { name: 'metric:m0', query: 'count(kube_secret_info{namespace="shop",secret=~"a.*"})' },
      { name: 'metric:m1', query: 'up{namespace="shop"} / on() group_left up{namespace="shop"}' },
    ]);
    assert.deepEqual(refusedQueries(spec('up'), target), {});
  });

  it('never sends one that cannot be confined: it is a query error saying why', () => {
    const s = spec('up', 'count(kube_secret_info{namespace="payments"})', 'sum(rate(x[{{interval}}])');
    assert.deepEqual(checkQueries(s, target).map((q) => q.name), ['metric:m0']);
    const refused = refusedQueries(s, target);
    assert.deepEqual(Object.keys(refused), ['metric:m1', 'metric:m2']);
    const check = evaluateCheck(s, { ...refused, 'metric:m0': { ok: true, value: 0 } });
    assert.deepEqual(check.metrics.map((m) => [m.name, m.result]), [['m0', 'Passed'], ['m1', 'Inconclusive'], ['m2', 'Inconclusive']]);
    assert.equal(check.metrics[1].message, 'm1: query failed: not sent to Prometheus: the matcher namespace="payments" at character 24 is not allowed: the query may read namespace "shop" only, and every selector gets namespace="shop"');
    assert.equal(check.metrics[2].message, 'm2: query failed: not sent to Prometheus: does not parse as PromQL: the query ends too soon at character 26, after "sum(rate(x[{{interval}}])"');
  });

  it('runCheck asks Prometheus the confined queries only', async () => {
    const app = withDefaults({
      apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: 'shop' },
      spec: { image: 'nginx:1.27', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', analysis: { minRequests: 0, metrics: [
        { name: 'secrets', query: 'count(kube_secret_info)', max: 1 },
        { name: 'foreign', query: 'count(kube_secret_info{namespace="payments"})', max: 1 },
      ] } } },
    }) as DefaultedApp;
    const asked: string[] = [];
    const check = await runCheck({ url: 'http://prometheus', query: async (_url, q) => (asked.push(q), { ok: true, value: 0 }) }, app);
    assert.deepEqual(asked, ['count(kube_secret_info{namespace="shop"})']);
    assert.deepEqual(check.metrics.map((m) => [m.name, m.result]), [['secrets', 'Passed'], ['foreign', 'Inconclusive']]);
  });
});
