// The shapes metric analysis of a canary works with: the App's analysis spec (as the webhook
// defaulted it), what one PromQL query came back with, and the verdict of one check. No code.

import type { AnalysisSpec as AppAnalysisSpec, CustomMetric, MetricStatus, MetricVerdict, NoDataPolicy } from '../../shared/app-types.js';

export type { CustomMetric, MetricVerdict, NoDataPolicy };

/** `spec.rollout.analysis` with its defaults filled in (see docs/api.md, "Health-gated canary"). */
export type AnalysisSpec = AppAnalysisSpec & Required<Pick<AppAnalysisSpec, 'interval' | 'failureLimit' | 'minRequests' | 'noData'>>;

/** What the queries of an App's analysis are about (names as they are in the cluster). */
export interface AnalysisTarget {
  namespace: string;
  /** The App's name. */
  app: string;
  /** The main Ingress's name: ingress-nginx labels canary requests with it too. */
  ingress: string;
  canaryService: string;
  stableService: string;
  /** Whose requests the built-ins measure: default the canary's (`canary!=""` on `ingress`). */
  measured?: { ingress: string; track: 'canary' | 'stable' };
  /** Whose requests `measured` are, in messages: "the canary" unless said otherwise (a blue-green preview, full traffic). */
  subject?: string;
  /** What maxDropFromStable compares with: default stable's on `ingress`; null: nothing to compare with (full traffic). */
  baseline?: { ingress: string; track: 'canary' | 'stable' } | null;
}

/** The answer to one instant query: one number, or why there is none. */
export type QueryOutcome =
  | { ok: true; value: number }
  /**
   * `no-data`: nothing to judge (no series, or NaN = 0/0: no traffic). `invalid`: Prometheus
   * answered, but the query gives no one number (several series, a matrix, ±Inf) or Prometheus
   * refused the query itself (HTTP 400 bad_data, 422 execution): the query's doing, which says
   * nothing of Prometheus's health. `error`: anything else (no answer, an HTTP or server error,
   * an answer that is no Prometheus answer).
   */
  | { ok: false; reason: 'no-data' | 'invalid' | 'error'; message: string };

/** One line of `status.canary.analysis.metrics`. */
export type MetricResult = MetricStatus;

/** The verdict of one check: every metric's, and the check's as a whole. */
export interface CheckResult {
  /** Failed when any metric failed; else Inconclusive when any was; else Passed. */
  result: MetricVerdict;
  /** One line for conditions and Events: what failed, or why it was inconclusive, or that all passed. */
  message: string;
  metrics: MetricResult[];
}
