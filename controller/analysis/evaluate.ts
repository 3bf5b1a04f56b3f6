// One analysis check, decided: which queries it needs, and what their answers mean against the
// App's bounds. Pure: the Prometheus client (prometheus.ts) runs the queries in between.
//
//   const queries = checkQueries(spec, target);
//   const answers = await Promise.all(queries.map(async (q) => [q.name, await queryInstant(url, q.query)]));
//   const check = evaluateCheck(spec, { ...refusedQueries(spec, target), ...Object.fromEntries(answers) });
import { customQuery } from '../../shared/custom-queries.js';
import type { Confinement } from '../../shared/promql.js';
import type { AnalysisStatus } from '../../shared/app-types.js';
import { boundedText, MESSAGE_BYTES } from '../../shared/text.js';
import { latencyPercentileQuery, latencyQuery, requestCountQuery, successRateQuery } from './queries.js';
import type { AnalysisSpec, AnalysisTarget, CheckResult, MetricResult, MetricVerdict, NoDataPolicy, QueryOutcome } from './types.js';

// Query keys: built-ins and custom metrics in separate namespaces, so no metric name can collide.
const Q = {
  successRate: 'builtin:successRate',
  stableSuccessRate: 'builtin:stableSuccessRate',
  latency: 'builtin:latency',
  requests: 'builtin:requests',
  custom: (name: string) => `metric:${name}`,
};

export interface NamedQuery {
  /** The key its outcome goes under in `evaluateCheck`'s `outcomes`. */
  name: string;
  query: string;
}

/**
 * The instant queries one check of `spec` needs; independent of each other (run them in parallel).
 * Custom queries are filled and confined to the target's namespace; one that cannot be is left
 * out here and has its outcome in `refusedQueries`: it never reaches Prometheus as written.
 */
export function checkQueries(spec: AnalysisSpec, target: AnalysisTarget): NamedQuery[] {
  const window = spec.interval;
  const queries: NamedQuery[] = [];
  const measured = target.measured ?? { ingress: target.ingress, track: 'canary' as const };
  const baseline = target.baseline === undefined ? { ingress: target.ingress, track: 'stable' as const } : target.baseline;
  const ref = { namespace: target.namespace, ingress: measured.ingress };
  if (spec.minRequests > 0) queries.push({ name: Q.requests, query: requestCountQuery(ref, window, measured.track) });
  if (spec.successRate) {
    queries.push({ name: Q.successRate, query: successRateQuery(ref, window, measured.track) });
    if (spec.successRate.maxDropFromStable !== undefined && baseline) {
      queries.push({ name: Q.stableSuccessRate, query: successRateQuery({ namespace: target.namespace, ingress: baseline.ingress }, window, baseline.track) });
    }
  }
  if (spec.latency) {
    const { percentile } = spec.latency;
    queries.push({ name: Q.latency, query: percentile === undefined ? latencyQuery(ref, window, measured.track) : latencyPercentileQuery(ref, window, percentile, measured.track) });
  }
  for (const [name, c] of customQueries(spec, target)) if (c.ok) queries.push({ name, query: c.query });
  return queries;
}

/**
 * The outcomes of the custom queries that cannot run (they do not parse, or match on another
 * namespace), keyed as `checkQueries` keys them: query errors saying why. Admission refuses such
 * queries; an App stored before that rule can still have one.
 */
export function refusedQueries(spec: AnalysisSpec, target: AnalysisTarget): Record<string, QueryOutcome> {
  const refused: Record<string, QueryOutcome> = {};
  for (const [name, c] of customQueries(spec, target)) if (!c.ok) refused[name] = { ok: false, reason: 'error', message: `not sent to Prometheus: ${c.error}` };
  return refused;
}

function customQueries(spec: AnalysisSpec, target: AnalysisTarget): [string, Confinement][] {
  const values = { ...target, interval: spec.interval };
  return (spec.metrics ?? []).map((m) => [Q.custom(m.name), customQuery(m.query, values)]);
}

/**
 * Decides one check from the outcomes of `checkQueries(spec, …)` (keyed by their `name`; a
 * missing one counts as a query error). Failed when any metric is out of range; else
 * Inconclusive when any metric had no data or a query error, or the canary (`subject`, in
 * messages) served fewer than `minRequests` requests in the window; else Passed. `noData` is not
 * applied here: see `countsAs`.
 */
export function evaluateCheck(spec: AnalysisSpec, outcomes: Readonly<Record<string, QueryOutcome>>, subject = 'the canary'): CheckResult {
  const outcome = (key: string): QueryOutcome =>
    outcomes[key] ?? { ok: false, reason: 'error', message: 'not queried' };
  const window = spec.interval;
  const metrics: MetricResult[] = [];

  if (spec.minRequests > 0) metrics.push(requests(outcome(Q.requests), spec.minRequests, window, subject));
  if (spec.successRate) {
    const stable = spec.successRate.maxDropFromStable === undefined ? undefined : outcome(Q.stableSuccessRate);
    metrics.push(successRate(outcome(Q.successRate), stable, spec.successRate, window));
  }
  if (spec.latency) {
    // The metric's name says which: "latency" (the mean) or "latency p99".
    const name = spec.latency.percentile === undefined ? 'latency' : `latency p${spec.latency.percentile}`;
    metrics.push(bounded(name, outcome(Q.latency), { max: spec.latency.maxMs }, window, ' ms'));
  }
  for (const m of spec.metrics ?? []) metrics.push(bounded(m.name, outcome(Q.custom(m.name)), m, window));

  // Messages quote Prometheus' errors and go into status, Events and the log: each is held to
  // MESSAGE_BYTES, and so is the check's, which joins those of several metrics.
  const held = metrics.map((m) => ({ ...m, message: boundedText(m.message, MESSAGE_BYTES) }));
  const verdict = overall(held);
  return { ...verdict, message: boundedText(verdict.message, MESSAGE_BYTES), metrics: held };
}

/** What a check counts as for the step engine: an inconclusive one per the App's `noData`. */
export function countsAs(result: MetricVerdict, noData: NoDataPolicy): 'Passed' | 'Failed' | 'Wait' {
  if (result !== 'Inconclusive') return result;
  return noData === 'Fail' ? 'Failed' : noData === 'Pass' ? 'Passed' : 'Wait';
}

/** "1 check", "2 checks": the count of failed checks in an abort's message. */
export const checksCount = (n: number): string => `${n} check${n === 1 ? '' : 's'}`;

/**
 * How a check was counted, for the parentheses before its message: an inconclusive one failed by
 * `noData: Fail` says so. Before the message, which ends with whatever outside text it bounds.
 */
export function countedNote(result: Pick<CheckResult, 'result'>, counted: 'Passed' | 'Failed' | 'Wait'): string {
  return result.result === 'Inconclusive' && counted === 'Failed' ? '; inconclusive, counted as failed by noData: Fail' : '';
}

/**
 * What a rollout's last check found when it did not count as passed, as the end of a Warning
 * ("was inconclusive: …", "failed, within failureLimit 1: …"); undefined when it passed, or none
 * was counted. For a rollout that goes on past it (a promotion after a pause, a blue-green
 * scale-down), which only a failure beyond failureLimit stops.
 */
export function unconfirmedBy(analysis: Pick<AnalysisStatus, 'lastResult' | 'message'> | undefined, policy: { noData: NoDataPolicy; failureLimit: number }): string | undefined {
  const last = analysis?.lastResult;
  if (last === undefined || countsAs(last, policy.noData) === 'Passed') return undefined;
  const what = last === 'Inconclusive' ? 'was inconclusive' : `failed, within failureLimit ${policy.failureLimit}`;
  return `${what}: ${analysis!.message ?? 'no message'}`;
}

function overall(metrics: MetricResult[]): Pick<CheckResult, 'result' | 'message'> {
  for (const verdict of ['Failed', 'Inconclusive'] as const) {
    const these = metrics.filter((m) => m.result === verdict);
    if (these.length > 0) return { result: verdict, message: these.map((m) => m.message).join('; ') };
  }
  if (metrics.length === 0) return { result: 'Passed', message: 'no metrics to check' };
  return { result: 'Passed', message: `${metrics.map((m) => m.name).join(', ')} passed` };
}

/** A value for messages: 2 decimals (80.00), or 3 significant digits when that would show 0.00. */
function fmt(v: number): string {
  return v !== 0 && Math.abs(v) < 0.01 ? v.toPrecision(3) : v.toFixed(2);
}

/** A value for status: 6 significant digits, so 79.99999999999 is 80 and 0.000012345 stays. */
const stored = (v: number) => Number(v.toPrecision(6));

/**
 * The fewest significant digits, `from` or more, at which `v` and `bound` rounded alike still
 * compare as they do. Rounding never swaps two numbers, but it can make them equal: a success
 * rate of 99.8961 against min 99.9 would read "99.90 < min 99.9", and status would hold value
 * 99.9 beside min 99.9 with result Failed.
 */
function digitsApart(v: number, bound: number, from: number): number {
  const side = Math.sign(v - bound);
  let p = from;
  while (p < 17 && Math.sign(Number(v.toPrecision(p)) - Number(bound.toPrecision(p))) !== side) p++;
  return p;
}

/** `v` and `bound` for a message that says `v` is beyond `bound`: as fmt writes them, or with the digits that tell them apart. */
function fmtApart(v: number, bound: number): [string, string] {
  if (Math.sign(Number(fmt(v)) - Number(fmt(bound))) === Math.sign(v - bound)) return [fmt(v), fmt(bound)];
  const p = digitsApart(v, bound, 3);
  return [String(Number(v.toPrecision(p))), String(Number(bound.toPrecision(p)))];
}

/** `v` and `bound` for status, as `stored` keeps them or with the digits that tell them apart. */
function storedApart(v: number, bound: number): [number, number] {
  const p = digitsApart(v, bound, 6);
  return [Number(v.toPrecision(p)), Number(bound.toPrecision(p))];
}

/** Inconclusive from a query that gave no number (or a number nothing can be judged by). */
function noNumber(name: string, o: QueryOutcome, window: string, what = ''): MetricResult {
  if (o.ok) return { name, result: 'Inconclusive', message: `${name}${what}: ${o.value} is not a finite number` };
  const message = o.reason === 'no-data'
    ? `${name}${what}: no data in the last ${window} (${o.message})`
    : `${name}${what}: query failed: ${o.message}`;
  return { name, result: 'Inconclusive', message };
}

const usable = (o: QueryOutcome): o is { ok: true; value: number } => o.ok && Number.isFinite(o.value);

/** Points of success rate below which a difference is a float's rounding, not a drop. */
const DROP_TOLERANCE = 1e-9;

/**
 * Whether a value is below (or above) a bound by more than a float's rounding. Prometheus's
 * arithmetic lands a ratio that is exactly the bound a few ulps off it (990/1000*100 can read
 * 98.99999999999999): that value is on the bound, which passes, not out of range. Relative, and
 * far below any difference a count makes: 5000000001 is above a max of 5000000000.
 */
const BOUND_TOLERANCE = 1e-12;
const below = (value: number, bound: number) => value < bound - Math.abs(bound) * BOUND_TOLERANCE;
const above = (value: number, bound: number) => value > bound + Math.abs(bound) * BOUND_TOLERANCE;

function requests(o: QueryOutcome, minRequests: number, window: string, subject: string): MetricResult {
  const base = { name: 'requests', min: minRequests };
  // An empty result means no series of the measured requests in the window at all: zero requests.
  if (!o.ok && o.reason === 'no-data') {
    return { ...base, value: 0, result: 'Inconclusive', message: `${subject} served no requests in the last ${window} (minRequests ${minRequests})` };
  }
  if (!usable(o)) return { ...noNumber('requests', o, window), min: minRequests };
  // increase() extrapolates to the window's edges, so counts need not be whole.
  const count = Number.isInteger(o.value) ? String(o.value) : o.value.toFixed(1);
  if (below(o.value, minRequests)) {
    // 9.96 is fewer than 10, and must not read "10.0".
    const fewer = Number(count) < minRequests ? count : String(Number(o.value.toPrecision(digitsApart(o.value, minRequests, 2))));
    return { ...base, value: storedApart(o.value, minRequests)[0], result: 'Inconclusive', message: `${subject} served ${fewer} requests in the last ${window}, fewer than minRequests ${minRequests}` };
  }
  return { ...base, value: stored(o.value), result: 'Passed', message: `${subject} served ${count} requests in the last ${window}` };
}

function successRate(
  canary: QueryOutcome,
  stable: QueryOutcome | undefined,
  bounds: NonNullable<AnalysisSpec['successRate']>,
  window: string,
): MetricResult {
  const name = 'successRate';
  if (!usable(canary)) return { ...noNumber(name, canary, window), ...(bounds.min !== undefined && { min: bounds.min }) };
  const value = canary.value;
  const failures: string[] = [];
  const held: string[] = [];
  let min = bounds.min;
  if (bounds.min !== undefined) {
    if (below(value, bounds.min)) failures.push(`${name} ${fmtApart(value, bounds.min)[0]} < min ${bounds.min}`);
    else held.push(`≥ min ${bounds.min}`);
  }
  let stableProblem: string | undefined;
  if (bounds.maxDropFromStable !== undefined && stable) {
    if (usable(stable)) {
      const floor = stable.value - bounds.maxDropFromStable;
      min = Math.max(min ?? -Infinity, floor);
      const against = (shownFloor: string) => `stable ${fmt(stable.value)} - maxDropFromStable ${bounds.maxDropFromStable} = ${shownFloor}`;
      // The floor is a difference of floats (99.9 - 0.1 is 99.80000000000001): a canary exactly
      // maxDropFromStable below stable is not "more than that many points below".
      if (value < floor - DROP_TOLERANCE) {
        const [shownValue, shownFloor] = fmtApart(value, floor);
        failures.push(`${name} ${shownValue} < ${against(shownFloor)}`);
      } else held.push(`≥ ${against(fmt(floor))}`);
    } else {
      stableProblem = noNumber(name, stable, window, ' of stable').message + `, so maxDropFromStable ${bounds.maxDropFromStable} was not checked`;
    }
  }
  // Status keeps a failed value apart from the min it is below.
  const [storedValue, storedMin] = min !== undefined && failures.length > 0 && value < min ? storedApart(value, min) : [stored(value), min === undefined ? undefined : stored(min)];
  const result = { name, value: storedValue, ...(storedMin !== undefined && { min: storedMin }) };
  if (failures.length > 0) return { ...result, result: 'Failed', message: failures.join('; ') };
  if (stableProblem) return { ...result, result: 'Inconclusive', message: stableProblem };
  // Neither bound in force: maxDropFromStable alone, under full traffic (checkTarget). Said, so
  // that a passed check is not read as a success rate that was judged.
  const unbounded = bounds.min === undefined && bounds.maxDropFromStable === undefined ? ' (held to nothing: maxDropFromStable is not applied under full traffic, where stable serves nothing to compare with, and there is no min)' : '';
  const message = held.length > 0 ? `${name} ${fmt(value)} ${held.join(' and ')}` : `${name} ${fmt(value)}${unbounded}`;
  return { ...result, result: 'Passed', message };
}

/** A metric held to an optional min and max. */
function bounded(name: string, o: QueryOutcome, b: { min?: number; max?: number }, window: string, unit = ''): MetricResult {
  const limits = { ...(b.min !== undefined && { min: b.min }), ...(b.max !== undefined && { max: b.max }) };
  if (!usable(o)) return { ...noNumber(name, o, window), ...limits };
  const shown = `${name} ${fmt(o.value)}${unit}`;
  const result = { name, value: stored(o.value), ...limits };
  // Out of bounds: the value with the digits that keep it apart from the bound, here and in status.
  const beyond = (bound: number, op: '<' | '>', word: string): MetricResult =>
    ({ ...result, value: storedApart(o.value, bound)[0], result: 'Failed', message: `${name} ${fmtApart(o.value, bound)[0]}${unit} ${op} ${word} ${bound}${unit}` });
  if (b.min !== undefined && below(o.value, b.min)) return beyond(b.min, '<', 'min');
  if (b.max !== undefined && above(o.value, b.max)) return beyond(b.max, '>', 'max');
  const held = [b.min !== undefined && `≥ min ${b.min}${unit}`, b.max !== undefined && `≤ max ${b.max}${unit}`].filter(Boolean);
  return { ...result, result: 'Passed', message: held.length > 0 ? `${shown} ${held.join(' and ')}` : shown };
}
