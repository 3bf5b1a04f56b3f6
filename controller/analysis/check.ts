// One analysis check of an App's canary: whether one is due (pure), and running it against
// Prometheus (I/O, two queries at a time, each bounded by the client's 10 s timeout).
import type { DefaultedApp } from '../../shared/defaults.js';
import { placeholderValues } from '../../shared/custom-queries.js';
import { intervalMs, nextCheckAt } from './schedule.js';
import { checkQueries, evaluateCheck, refusedQueries } from './evaluate.js';
import { queryInstant } from './prometheus.js';
import type { AnalysisSpec, AnalysisTarget, CheckResult, QueryOutcome } from './types.js';
import { ownedName } from '../../shared/labels.js';

export interface PrometheusClient {
  url: string;
  /** `time`: the instant to evaluate at (Prometheus's now without it); `signal` cancels it. */
  query: (url: string, query: string, time?: Date, signal?: AbortSignal) => Promise<QueryOutcome>;
}

/**
 * The client of `url`; `onQuery` hears every outcome but a cancelled query's (the
 * skiff_controller_analysis_queries_total counter); `bearerToken` gives the token every query
 * sends (bearerTokenFile), if any.
 */
export const prometheusClient = (url: string, onQuery?: (outcome: QueryOutcome) => void, bearerToken?: () => Promise<string | undefined>): PrometheusClient => ({
  url,
  query: async (u, q, time, signal) => {
    const outcome = await queryInstant(u, q, { time, bearerToken, signal });
    // A cancelled query says nothing of Prometheus: not counted as an error (an alert watches those).
    if (!signal?.aborted) onQuery?.(outcome);
    return outcome;
  },
});

/**
 * Whether the App's canary is due a check now: it has analysis, a canary of the current
 * template gets traffic (checks run only while the weight is above 0), and the interval has
 * passed since the last check and since the weight last changed, both as recorded in status
 * for the weight the router carries
 * (so a restarted controller neither repeats nor skips one).
 */
export function checkDue(app: DefaultedApp, routerWeight: number | undefined, now: Date): boolean {
  const analysis = app.spec.rollout.analysis;
  const canary = app.status?.canary;
  if (!analysis || !canary || (routerWeight ?? 0) <= 0) return false;
  // A weight the status has not recorded yet has no weightChangedAt to measure the interval from.
  if (canary.weight !== routerWeight) return false;
  return now.getTime() >= nextCheckAt(canary, intervalMs(analysis));
}

/**
 * The weight a blue-green check of the App is due at now, or undefined: 0 checks the preview (the
 * traffic of previewHost) once it has been ready a whole interval, 100 checks the new revision under
 * full traffic once it has had it a whole interval, until the old pods go.
 */
export function blueGreenCheckDue(app: DefaultedApp, now: Date): number | undefined {
  const analysis = app.spec.rollout.analysis;
  const b = app.status?.blueGreen;
  if (!analysis || !b) return undefined;
  const preview = b.phase === 'Preview' && b.previewReadyAt !== undefined;
  const switched = b.phase === 'Switched' && b.switchedAt !== undefined && b.scaleDownAt !== undefined && now.getTime() < Date.parse(b.scaleDownAt);
  if (!preview && !switched) return undefined;
  const since = preview ? b.previewReadyAt : b.switchedAt;
  return now.getTime() >= nextCheckAt({ weightChangedAt: since, analysis: b.analysis }, intervalMs(analysis)) ? (preview ? 0 : 100) : undefined;
}

/**
 * What a check of the App reads. A canary: its requests on the main Ingress, compared with
 * stable's, except at weight 100 where stable serves nothing to compare with (its rate is 0/0, so
 * every check would be inconclusive and the step could never pass). Blue-green: the preview's
 * Ingress (weight 0), or the App's own under full traffic (weight 100), likewise with nothing to
 * compare with; custom queries get the preview's or the App's names.
 */
export function checkTarget(app: DefaultedApp, spec: AnalysisSpec, weight: number): { spec: AnalysisSpec; target: AnalysisTarget } {
  const name = app.metadata.name!;
  const values = placeholderValues(app.metadata.namespace!, name, spec.interval);
  const { maxDropFromStable: _none, ...successRate } = spec.successRate ?? {};
  const withoutBaseline = spec.successRate ? { ...spec, successRate } : spec;
  if (app.spec.rollout.strategy !== 'BlueGreen') {
    return weight >= 100 ? { spec: withoutBaseline, target: { ...values, baseline: null } } : { spec, target: values };
  }
  if (weight === 0) {
    const preview = ownedName(name, 'preview');
    return { spec, target: { ...values, ingress: preview, canaryService: preview, measured: { ingress: preview, track: 'stable' }, subject: 'the preview', baseline: { ingress: name, track: 'stable' } } };
  }
  return {
    spec: withoutBaseline,
    target: { ...values, canaryService: name, measured: { ingress: name, track: 'stable' }, subject: 'the new revision under full traffic', baseline: null },
  };
}

/**
 * Queries of one check sent at a time. A check has up to 14 (the built-in ones and 10 custom
 * metrics); with every running check sending all of them at once, a few Apps with many slow
 * queries would fill Prometheus's own query slots (20 by default) and time out everyone's.
 */
export const QUERIES_PER_CHECK = 2;

/**
 * One check of the App at the router's weight `weight`. Every query is evaluated at `at` (the
 * check's time, recorded as lastCheckAt): queries wait for their turn, and without one instant
 * each would measure a window of its own (the request count of one, the success rate of another,
 * canary and stable apart, where maxDropFromStable compares the same window).
 */
export async function runCheck(prometheus: PrometheusClient, app: DefaultedApp, weight = 0, at?: Date, signal?: AbortSignal): Promise<CheckResult> {
  const { spec, target } = checkTarget(app, app.spec.rollout.analysis as AnalysisSpec, weight);
  const queries = checkQueries(spec, target);
  const outcomes: Record<string, QueryOutcome> = {};
  let next = 0;
  const sender = async () => {
    // A cancelled check sends nothing more: its result counts for nothing.
    while (next < queries.length && !signal?.aborted) {
      const q = queries[next++]!;
      outcomes[q.name] = await prometheus.query(prometheus.url, q.query, at, signal);
    }
  };
  await Promise.all(Array.from({ length: Math.min(QUERIES_PER_CHECK, queries.length) }, sender));
  return evaluateCheck(spec, { ...refusedQueries(spec, target), ...outcomes }, target.subject);
}
