// Workers: take keys from the work queue and hand each to a reconcile function, one key per
// worker at a time (the queue guarantees that no two workers hold the same key). Success
// forgets the key's backoff and honours a requested requeue; failure retries with backoff.
import type { Logger } from '../../shared/logger.js';
import { describeError, isConflict } from './api-errors.js';
import type { ControllerMetrics } from './metrics.js';
import type { WorkQueue } from './workqueue.js';

/** The soonest a failed pass comes back for a time of its own (see runWorker); its backoff may be sooner. */
export const FAILED_PASS_MIN_REQUEUE_MS = 10_000;

export interface ReconcileOutcome {
  /** Process the key again after this long although nothing failed. */
  requeueAfterMs?: number;
  /** The key's object is gone: a delayed add of it still pending is dropped. */
  gone?: true;
}

export interface WorkerOptions {
  queue: WorkQueue;
  reconcile: (key: string) => Promise<ReconcileOutcome>;
  metrics: Pick<ControllerMetrics, 'reconcileTotal' | 'reconcileErrors' | 'reconcileDuration'>;
  log: Logger;
}

/** Resolves once the queue shuts down and the key in hand is done. */
export async function runWorker({ queue, reconcile, metrics, log }: WorkerOptions): Promise<void> {
  for (;;) {
    const key = await queue.get();
    if (key === undefined) return;
    const endTimer = metrics.reconcileDuration.startTimer();
    try {
      const result = await reconcile(key);
      queue.forget(key);
      metrics.reconcileTotal.inc({ result: 'success' });
      if (result.gone) queue.cancel(key);
      else if (result.requeueAfterMs !== undefined) queue.addAfter(key, result.requeueAfterMs);
    } catch (err) {
      // Never recorded as done: retried with backoff (quickly at first, which is what a 409
      // from a stale cache needs).
      const conflict = isConflict(err);
      metrics.reconcileTotal.inc({ result: conflict ? 'conflict' : 'error' });
      if (!conflict) metrics.reconcileErrors.inc();
      log[conflict ? 'debug' : 'warn']({ key, err: describeError(err), retries: queue.numRequeues(key) }, 'reconcile failed; requeued');
      queue.addRateLimited(key);
      // A pass that wanted to come back at a time of its own (a deadline) comes back then at the
      // latest: the earlier of the two wins. Not sooner than FAILED_PASS_MIN_REQUEUE_MS: a pass that
      // asked to come back at once, failing each time, would otherwise never back off.
      const wanted = (err as { requeueAfterMs?: unknown }).requeueAfterMs;
      if (typeof wanted === 'number') queue.addAfter(key, Math.max(wanted, FAILED_PASS_MIN_REQUEUE_MS));
    } finally {
      endTimer();
      queue.done(key);
    }
  }
}
