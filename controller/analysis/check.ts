// One analysis check of an App's canary: whether one is due (pure), and running it against
// Prometheus (I/O, every query in parallel, each bounded by the client's 10 s timeout).
import type { DefaultedApp } from '../../shared/defaults.js';
import { placeholderValues } from '../../shared/custom-queries.js';
import { intervalMs, nextCheckAt } from './schedule.js';
import { checkQueries, evaluateCheck, refusedQueries } from './evaluate.js';
import { queryInstant } from './prometheus.js';
import type { AnalysisSpec, CheckResult, QueryOutcome } from './types.js';

export interface PrometheusClient {
  url: string;
  query: (url: string, query: string) => Promise<QueryOutcome>;
}

export const prometheusClient = (url: string): PrometheusClient => ({ url, query: (u, q) => queryInstant(u, q) });

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

export async function runCheck(prometheus: PrometheusClient, app: DefaultedApp): Promise<CheckResult> {
  const spec = app.spec.rollout.analysis as AnalysisSpec;
  const target = placeholderValues(app.metadata.namespace!, app.metadata.name!, spec.interval);
  const queries = checkQueries(spec, target);
  const outcomes = await Promise.all(queries.map(async (q) => [q.name, await prometheus.query(prometheus.url, q.query)] as const));
  return evaluateCheck(spec, { ...refusedQueries(spec, target), ...Object.fromEntries(outcomes) });
}
