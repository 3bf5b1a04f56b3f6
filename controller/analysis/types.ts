// The shapes metric analysis of a canary works with: the App's analysis spec (as the webhook
// defaulted it), what one PromQL query came back with, and the verdict of one check. No code.

/** `spec.rollout.analysis` with its defaults filled in (see api.md, "Health-gated canary"). */
export interface AnalysisSpec {
  /** How often checks run, and the rate window of the built-in queries: `<N>s`, `<N>m` or `<N>h`. */
  interval: string;
  /** Failed checks tolerated; the next failed one aborts the rollout. */
  failureLimit: number;
  /** A check where the canary served fewer requests than this in the window is inconclusive. 0 turns the count off. */
  minRequests: number;
  /** What an inconclusive check counts as (see `countsAs` in evaluate.ts). */
  noData: NoDataPolicy;
  /** Built-in: percent of the canary's requests that were not 5xx. */
  successRate?: { min?: number; maxDropFromStable?: number };
  /** Built-in: mean response time of the canary's requests, in milliseconds. */
  latency?: { maxMs: number };
  /** Custom PromQL, each evaluated to one number; placeholders as in queries.ts. */
  metrics?: CustomMetric[];
}

export type NoDataPolicy = 'Wait' | 'Fail' | 'Pass';

export interface CustomMetric {
  name: string;
  query: string;
  min?: number;
  max?: number;
}

/** What the queries of an App's analysis are about (names as they are in the cluster). */
export interface AnalysisTarget {
  namespace: string;
  /** The App's name. */
  app: string;
  /** The main Ingress's name: ingress-nginx labels canary requests with it too. */
  ingress: string;
  canaryService: string;
  stableService: string;
}

/** The answer to one instant query: one number, or why there is none. */
export type QueryOutcome =
  | { ok: true; value: number }
  /** `no-data`: nothing to judge (no series, or NaN = 0/0: no traffic). `error`: anything else. */
  | { ok: false; reason: 'no-data' | 'error'; message: string };

export type MetricVerdict = 'Passed' | 'Failed' | 'Inconclusive';

/** One line of `status.canary.analysis.metrics`. */
export interface MetricResult {
  name: string;
  /** The measured value (rounded to 6 significant digits); absent when there was none. */
  value?: number;
  /** The bounds the value was held to (for successRate with maxDropFromStable: the effective one). */
  min?: number;
  max?: number;
  result: MetricVerdict;
  message: string;
}

/** The verdict of one check: every metric's, and the check's as a whole. */
export interface CheckResult {
  /** Failed when any metric failed; else Inconclusive when any was; else Passed. */
  result: MetricVerdict;
  /** One line for conditions and Events: what failed, or why it was inconclusive, or that all passed. */
  message: string;
  metrics: MetricResult[];
}
