// Prometheus metrics of the controller, on a registry of its own (not prom-client's global one,
// so that several controllers in one process, as in tests, do not collide).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface ControllerMetrics {
  registry: Registry;
  reconcileTotal: Counter<'result'>;
  reconcileErrors: Counter;
  reconcileDuration: Histogram;
  queueDepth: Gauge;
  retries: Counter;
  /** skiff_controller_leader of this process's shard. */
  leader: { set(value: number): void };
  watchRestarts: Counter<'resource'>;
  analysisChecks: Counter<'result'>;
  analysisQueries: Counter<'result'>;
}

export function createMetrics(opts: { queueDepth: () => number; defaultMetrics?: boolean; shard?: string }): ControllerMetrics {
  const registry = new Registry();
  if (opts.defaultMetrics) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    reconcileTotal: new Counter({
      name: 'skiff_controller_reconcile_total',
      help: 'Reconciles of an App, by result: success, error, or conflict (a stale read, retried with the work queue\'s backoff).',
      labelNames: ['result'],
      registers,
    }),
    reconcileErrors: new Counter({ name: 'skiff_controller_reconcile_errors_total', help: 'Reconciles that failed and were requeued with backoff.', registers }),
    reconcileDuration: new Histogram({
      name: 'skiff_controller_reconcile_duration_seconds',
      help: 'Time one reconcile of an App took.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    queueDepth: new Gauge({
      name: 'skiff_controller_workqueue_depth',
      help: 'App keys waiting to be reconciled.',
      registers,
      collect() {
        this.set(opts.queueDepth());
      },
    }),
    retries: new Counter({ name: 'skiff_controller_workqueue_retries_total', help: 'Keys requeued with backoff after a failure.', registers }),
    leader: leaderGauge(registers, opts.shard ?? ''),
    watchRestarts: new Counter({
      name: 'skiff_controller_watch_restarts_total',
      help: 'Watches restarted after an error (connection refused, API server restart, ...).',
      labelNames: ['resource'],
      registers,
    }),
    analysisChecks: countedByResult(registers, 'skiff_controller_analysis_checks_total', 'Analysis checks run (canary and blue-green), by result: Passed, Failed or Inconclusive, as measured (before noData).', ['Passed', 'Failed', 'Inconclusive']),
    analysisQueries: countedByResult(registers, 'skiff_controller_analysis_queries_total', 'Queries of analysis checks sent to Prometheus, by outcome: value, no-data, invalid (answered, but not with one number, or refused as a bad query: the query\'s doing) or error (no answer, an HTTP or server error, or an answer that is no Prometheus answer).', ['value', 'no-data', 'invalid', 'error']),
  };
}

/**
 * 1 while this process leads its shard ("" without --shard) and reconciles, else 0: set to 0 from
 * the start, so that a standby shows up too. Each shard elects its own leader, so the alert on a
 * shard without one needs to know the shard.
 */
function leaderGauge(registers: Registry[], shard: string): { set(value: number): void } {
  const gauge = new Gauge({ name: 'skiff_controller_leader', help: '1 while this process is the leader of its shard ("" without --shard) and reconciles, else 0.', labelNames: ['shard'], registers });
  const own = gauge.labels({ shard });
  own.set(0);
  return own;
}

/**
 * A counter by `result` with a series at 0 for each result from the start: rate() and increase()
 * see no increase when a series appears at its first count, so an alert on errors would wait a
 * scrape interval past the first one (SkiffAnalysisQueriesFailing).
 */
function countedByResult(registers: Registry[], name: string, help: string, results: string[]): Counter<'result'> {
  const counter = new Counter({ name, help, labelNames: ['result'], registers });
  for (const result of results) counter.inc({ result }, 0);
  return counter;
}
