// Leader election on a coordination.k8s.io/v1 Lease, after client-go's leaderelection package:
// a candidate takes the Lease when it is free (no holder) or when its record has not changed
// for leaseDurationSeconds by our own clock (so clock skew between machines does not matter);
// the leader renews it every retryPeriodMs and gives up leadership when it could not renew for
// renewDeadlineMs. The Lease's resourceVersion makes every write a compare-and-swap: a 409 means
// another candidate wrote first.
import { microTime, type Lease, type LeaseClient, type LeaseSpec } from './leases.js';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../shared/logger.js';
import { describeError, isConflict, isNotFound } from './api-errors.js';
import { timerDelayMs } from './timer-delay.js';

// Intervals are measured on the monotonic clock: a wall clock stepped back would stretch the
// leader's renew deadline, and one stepped forward would shorten a candidate's wait.
const monotonicMs = () => performance.now();

export interface LeaderElectionOptions {
  coordination: LeaseClient;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  log: Logger;
  onStartedLeading: () => void;
  /** Leadership was lost (not called after release()). */
  onStoppedLeading: () => void;
}

const MAX_INT32 = 2 ** 31 - 1;

/**
 * Why these periods cannot elect safely, or undefined. The leader must give up before its Lease
 * can expire for the others (retry period < renew deadline < lease duration, as client-go
 * demands), and a retry period of 0 would read and write the Lease in a loop without pause.
 */
export function leaderElectionTimingProblem(leaseDurationMs: number, renewDeadlineMs: number, retryPeriodMs: number): string | undefined {
  if (!(retryPeriodMs > 0)) return 'leader election needs a retry period above 0';
  // The Lease's leaseDurationSeconds is an int32: the API server refuses a longer one at every write.
  if (leaseDurationMs > MAX_INT32 * 1000) return `leader election needs a lease duration of at most ${MAX_INT32}s`;
  if (!(retryPeriodMs < renewDeadlineMs && renewDeadlineMs < leaseDurationMs)) {
    return `leader election needs retry period < renew deadline < lease duration (got ${retryPeriodMs / 1000}s, ${renewDeadlineMs / 1000}s, ${leaseDurationMs / 1000}s)`;
  }
  return undefined;
}

/** May `identity` take or keep the Lease? `observedAtMs` is when we first saw its current record. */
export function canAcquire(spec: LeaseSpec | undefined, identity: string, observedAtMs: number, nowMs: number): boolean {
  if (!spec?.holderIdentity || spec.holderIdentity === identity) return true;
  return observedAtMs + (spec.leaseDurationSeconds ?? 15) * 1000 < nowMs;
}

/** The Lease record after `identity` acquires or renews it. */
export function heldRecord(spec: LeaseSpec | undefined, identity: string, leaseDurationSeconds: number, now: Date): LeaseSpec {
  const renewing = spec?.holderIdentity === identity;
  return {
    holderIdentity: identity,
    leaseDurationSeconds,
    acquireTime: renewing && spec?.acquireTime ? spec.acquireTime : microTime(now),
    renewTime: microTime(now),
    leaseTransitions: renewing ? (spec?.leaseTransitions ?? 0) : (spec?.leaseTransitions ?? -1) + 1,
  };
}

/** The record a leader writes when it steps down: no holder, so a candidate can take it at once. */
export function releasedRecord(spec: LeaseSpec | undefined, now: Date): LeaseSpec {
  return {
    leaseDurationSeconds: 1,
    acquireTime: microTime(now),
    renewTime: microTime(now),
    leaseTransitions: spec?.leaseTransitions ?? 0,
  };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out after ${ms}ms`)), timerDelayMs(ms)); }),
  ]);
}

export class LeaderElector {
  private leading = false;
  private stopped = false;
  private observedRecord = '';
  private observedAtMs = 0;
  /** When the last attempt to take or renew the Lease began (monotonic ms). */
  private lastAttemptAt = 0;
  /** When the attempt that last took or renewed the Lease began (monotonic ms): the renew deadline counts from it. */
  private renewedFrom = 0;
  /** The holder seen in the last read. */
  private holder: string | undefined;
  private loop?: Promise<void>;
  private readonly stopping = new AbortController();
  private readonly leaseDurationSeconds: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;

  constructor(private readonly opts: LeaderElectionOptions) {
    this.leaseDurationSeconds = opts.leaseDurationSeconds ?? 15;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = opts.retryPeriodMs ?? 2_000;
    const problem = leaderElectionTimingProblem(this.leaseDurationSeconds * 1000, this.renewDeadlineMs, this.retryPeriodMs);
    if (problem) throw new Error(problem);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * Whether this replica may write as the leader now: it leads, and its renew deadline has not
   * passed. The renew loop notices a passed deadline only when its timer fires; a process stopped
   * for longer (SIGSTOP, a VM paused, a long GC) handles the answers its reconciles were waiting
   * for before that timer, and would write from what it knew before another replica took over.
   */
  holdsLease(): boolean {
    return this.leading && monotonicMs() < this.renewedFrom + this.renewDeadlineMs;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops campaigning and renewing, and releases the Lease when we hold it. */
  async release(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    await this.loop;
    if (!this.leading) return;
    this.leading = false;
    const { coordination, namespace, name } = this.opts;
    try {
      const lease = await coordination.readNamespacedLease({ name, namespace });
      if (lease.spec?.holderIdentity !== this.opts.identity) return;
      await coordination.replaceNamespacedLease({ name, namespace, body: { ...lease, spec: releasedRecord(lease.spec, new Date()) } });
      this.opts.log.info({ lease: `${namespace}/${name}` }, 'released the leader lease');
    } catch (err) {
      this.opts.log.warn({ lease: `${namespace}/${name}`, err: describeError(err) }, 'could not release the leader lease');
    }
  }

  private async run(): Promise<void> {
    const { log, namespace, name, identity } = this.opts;
    while (!this.stopped && !this.leading) {
      if (await this.tryAcquireOrRenew()) {
        this.leading = true;
        log.info({ lease: `${namespace}/${name}`, identity }, 'became the leader');
        this.opts.onStartedLeading();
        break;
      }
      await this.sleep(this.retryPeriodMs);
    }
    // The renew deadline counts from the start of the last attempt that renewed: its write landed
    // after that, and a candidate counts the lease duration from after it read that write. No
    // attempt outlives the deadline (its requests time out by then), so the leader steps down
    // renewDeadline after that start at the latest, leaseDuration - renewDeadline before any
    // candidate may take the Lease.
    this.renewedFrom = this.lastAttemptAt;
    while (!this.stopped && this.leading) {
      const deadline = this.renewedFrom + this.renewDeadlineMs;
      await this.sleep(Math.min(this.retryPeriodMs, deadline - monotonicMs()));
      if (this.stopped) break;
      if (monotonicMs() < deadline && (await this.tryAcquireOrRenew(deadline))) {
        this.renewedFrom = this.lastAttemptAt;
        continue;
      }
      // Another holder took over (a renewal can only fail that way while the Lease is valid),
      // or the API server has not accepted a renewal in time: step down before the Lease expires.
      if (this.holder !== identity || monotonicMs() >= deadline) {
        this.leading = false;
        // The holder last read is this replica's own when no renewal came back in time (a stop,
        // the API server out of reach): who holds the Lease now is unknown.
        if (this.holder !== identity) log.error({ lease: `${namespace}/${name}`, identity, holder: this.holder }, 'lost the leader lease: another replica holds it');
        else log.error({ lease: `${namespace}/${name}`, identity }, `lost the leader lease: not renewed within the renew deadline (${this.renewDeadlineMs / 1000} s); another replica may hold it by now`);
        this.opts.onStoppedLeading();
      }
    }
  }

  /** Waits ms (at most what a timer holds: the periods come from flags), or less when release() is called. */
  private sleep(ms: number): Promise<void> {
    return delay(timerDelayMs(Math.max(0, ms)), undefined, { signal: this.stopping.signal }).catch(() => undefined);
  }

  /**
   * One attempt to take or keep the Lease; each of its requests gives up by `deadline` (monotonic
   * ms) at the latest. `lastAttemptAt` is when it began.
   */
  private async tryAcquireOrRenew(deadline = Infinity): Promise<boolean> {
    const { coordination, namespace, name, identity, log } = this.opts;
    this.lastAttemptAt = monotonicMs();
    // A candidate's request gives up after a retry period (at least a second), and it tries again;
    // a leader's may take until its deadline, as client-go's renewal does: one given up sooner, on
    // a busy API server, was often stored all the same, and the leader stepped down (and exited)
    // with its Lease renewed, leaving no one to lead until that renewal expired.
    const timeoutMs = () => Math.max(0, deadline === Infinity ? Math.max(1000, this.retryPeriodMs) : deadline - monotonicMs());
    // With no time left before the deadline a request is not sent: it would be given up at once,
    // yet a renewal could still be stored, keeping a Lease its holder no longer acts on.
    const late = () => timeoutMs() <= 0;
    const now = new Date();
    let lease: Lease;
    try {
      lease = await withTimeout(coordination.readNamespacedLease({ name, namespace }), timeoutMs());
    } catch (err) {
      if (!isNotFound(err)) {
        log.warn({ lease: `${namespace}/${name}`, err: describeError(err) }, 'could not read the leader lease');
        return false;
      }
      if (late()) return false;
      try {
        await withTimeout(coordination.createNamespacedLease({
          namespace,
          body: { metadata: { name, namespace }, spec: heldRecord(undefined, identity, this.leaseDurationSeconds, now) },
        }), timeoutMs());
        this.holder = identity;
        return true;
      } catch (createErr) {
        if (!isConflict(createErr)) log.warn({ lease: `${namespace}/${name}`, err: describeError(createErr) }, 'could not create the leader lease');
        return false;
      }
    }

    // A record is seen when the read answers (not when it was asked): its lease duration counts
    // from then, never from before the holder wrote it.
    const seenAt = monotonicMs();
    const record = JSON.stringify(lease.spec ?? {});
    if (record !== this.observedRecord) {
      this.observedRecord = record;
      this.observedAtMs = seenAt;
    }
    this.holder = lease.spec?.holderIdentity;
    if (!canAcquire(lease.spec, identity, this.observedAtMs, seenAt) || late()) return false;
    try {
      await withTimeout(coordination.replaceNamespacedLease({
        name,
        namespace,
        body: { ...lease, spec: heldRecord(lease.spec, identity, this.leaseDurationSeconds, now) },
      }), timeoutMs());
      this.holder = identity;
      return true;
    } catch (err) {
      if (!isConflict(err)) log.warn({ lease: `${namespace}/${name}`, err: describeError(err) }, 'could not update the leader lease');
      return false;
    }
  }
}
