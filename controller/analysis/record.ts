// A check counted into the analysis status of a rollout (canary or blue-green): the counts, the
// last check in full, and the last HISTORY_CHECKS checks without their messages, which
// `kubectl skiff dashboard` charts. Pure.
import type { AnalysisStatus, CheckRecord } from '../../shared/app-types.js';
import type { CheckResult } from './types.js';
import { checksCount } from './evaluate.js';

/** Checks kept in status for the chart: bounded, so that status stays small at any interval. */
export const HISTORY_CHECKS = 30;

export interface CountedCheck {
  at: string;
  weight: number;
  result: CheckResult;
  /** What the check counts as under the App's noData policy. */
  counted: 'Passed' | 'Failed' | 'Wait';
}

export function recordCheck(before: AnalysisStatus | undefined, check: CountedCheck): AnalysisStatus {
  const prior = before ?? { checks: 0, failures: 0 };
  const record: CheckRecord = {
    at: check.at,
    weight: check.weight,
    result: check.result.result,
    metrics: check.result.metrics.map(({ name, value, min, max, result }) => ({ name, result, ...(value !== undefined ? { value } : {}), ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) })),
  };
  return {
    checks: prior.checks + 1,
    failures: prior.failures + (check.counted === 'Failed' ? 1 : 0),
    inconclusive: (prior.inconclusive ?? 0) + (check.result.result === 'Inconclusive' ? 1 : 0),
    lastCheckAt: check.at,
    lastResult: check.result.result,
    lastWeight: check.weight,
    message: check.result.message,
    metrics: check.result.metrics,
    history: [...(prior.history ?? []), record].slice(-HISTORY_CHECKS),
  };
}

/**
 * The abort the failures already counted bring once failureLimit is lowered below them: now,
 * rather than at the next check (which might pass). `what`: the rollout measured, in words.
 */
export function failuresOverLimit(analysis: AnalysisStatus | undefined, failureLimit: number, what: string): { reason: 'AnalysisFailed'; message: string } | undefined {
  const failures = analysis?.failures ?? 0;
  if (failures <= failureLimit) return undefined;
  return { reason: 'AnalysisFailed', message: `analysis of ${what} failed ${checksCount(failures)}, more than spec.rollout.analysis.failureLimit (${failureLimit}) now allows` };
}
