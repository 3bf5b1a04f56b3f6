// How long a failed key waits before it is retried, after client-go's default controller rate
// limiter: the larger of a per-key exponential backoff and an overall token bucket, so one
// failing App backs off on its own while a storm of failures cannot flood the API server. Unlike
// client-go's, the overall bucket is shared fairly between namespaces (NamespaceBuckets).
import { namespaceOf } from './fair-queue.js';

export interface RateLimiter {
  /** Delay for the next retry of key (and count the attempt). */
  whenMs(key: string): number;
  /** The key succeeded: reset its backoff. */
  forget(key: string): void;
  /** Failures counted since the last forget. */
  retries(key: string): number;
}

export class ExponentialBackoff implements RateLimiter {
  private readonly failures = new Map<string, number>();
  constructor(private readonly baseMs = 5, private readonly maxMs = 300_000) {}

  whenMs(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return Math.min(this.baseMs * 2 ** n, this.maxMs);
  }
  forget(key: string): void {
    this.failures.delete(key);
  }
  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/** Tokens refill at qps up to burst; a caller without a token waits for the next one (a reservation). */
export class TokenBucket implements RateLimiter {
  private tokens: number;
  private lastMs: number;
  // The monotonic clock by default: on the wall clock, one set back by T took T x qps tokens away
  // and held every failed key's retry for T. `maxDebtMs`: no reservation waits longer (the debt
  // stops growing there), as no key's own backoff does.
  constructor(private readonly qps = 10, private readonly burst = 100, private readonly nowMs: () => number = () => performance.now(), private readonly maxDebtMs = Infinity) {
    this.tokens = burst;
    this.lastMs = nowMs();
  }

  whenMs(): number {
    this.refill();
    this.tokens = Math.max(this.tokens - 1, (-this.maxDebtMs / 1000) * this.qps);
    return this.debtMs();
  }
  /** Whether the bucket has refilled to its burst: it is then no different from a new one. */
  full(): boolean {
    this.refill();
    return this.tokens >= this.burst;
  }
  private refill(): void {
    const now = this.nowMs();
    // A clock that went back counts as no time passing, never as tokens owed.
    this.tokens = Math.min(this.burst, this.tokens + (Math.max(0, now - this.lastMs) / 1000) * this.qps);
    this.lastMs = now;
  }
  private debtMs(): number {
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }
  forget(): void {}
  retries(): number {
    return 0;
  }
}

export class MaxOf implements RateLimiter {
  private readonly limiters: RateLimiter[];
  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }
  whenMs(key: string): number {
    return Math.max(...this.limiters.map((l) => l.whenMs(key)));
  }
  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }
  retries(key: string): number {
    return Math.max(...this.limiters.map((l) => l.retries(key)));
  }
}

/**
 * A token bucket per namespace, and two shared by all: one for the namespaces within their own
 * rate, one for those beyond it. A key's retry takes a token of its namespace's bucket and, while
 * its namespace keeps within that bucket's rate, one of the first shared bucket; a namespace whose
 * failures outrun its own rate (a tenant whose Apps fail on every pass while it keeps editing
 * them, or one of many Apps while the API server is down) takes one of the second instead, and
 * waits for the later of its own and that one. So such a namespace never takes the tokens of the
 * namespaces within their rate, its burst included (client-go's single bucket let one tenant
 * delay every other App's retry by seconds), and all retries together stay within the two shared
 * rates, a storm across namespaces too. A namespace's own debt grows no further than maxDebtMs,
 * the longest a key's own backoff waits: one that failed for an hour does not owe an hour of its
 * own (what the shared buckets owe is owed, as client-go's bucket owes it: it keeps their rates).
 */
export class NamespaceBuckets implements RateLimiter {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly shared: TokenBucket;
  private readonly overflow: TokenBucket;
  private lastSweepMs: number;

  constructor(
    private readonly own: { qps: number; burst: number },
    shared: { qps: number; burst: number },
    overflow: { qps: number; burst: number },
    private readonly nowMs: () => number = () => performance.now(),
    private readonly maxDebtMs = MAX_BACKOFF_MS,
  ) {
    this.shared = new TokenBucket(shared.qps, shared.burst, nowMs);
    this.overflow = new TokenBucket(overflow.qps, overflow.burst, nowMs);
    this.lastSweepMs = nowMs();
  }

  whenMs(key: string): number {
    this.sweep();
    const namespace = namespaceOf(key);
    let bucket = this.buckets.get(namespace);
    if (!bucket) this.buckets.set(namespace, (bucket = new TokenBucket(this.own.qps, this.own.burst, this.nowMs, this.maxDebtMs)));
    const ownMs = bucket.whenMs();
    return ownMs > 0 ? Math.max(ownMs, this.overflow.whenMs()) : this.shared.whenMs();
  }
  forget(): void {}
  retries(): number {
    return 0;
  }
  /** Namespaces with a bucket (tests). */
  get namespaces(): number {
    return this.buckets.size;
  }

  /** At most once a minute, drops the buckets that have refilled: a namespace that failed once is not remembered for good. */
  private sweep(): void {
    const now = this.nowMs();
    if (now - this.lastSweepMs < SWEEP_EVERY_MS && now >= this.lastSweepMs) return;
    this.lastSweepMs = now;
    for (const [namespace, bucket] of this.buckets) if (bucket.full()) this.buckets.delete(namespace);
  }
}

const SWEEP_EVERY_MS = 60_000;

/** The longest a failed key waits: its own backoff's cap, and every bucket's. */
const MAX_BACKOFF_MS = 300_000;

/**
 * client-go's 10 retries a second (a burst of 100) for the namespaces within their own 5 a second
 * (a burst of 50), of which one namespace takes at most half, and 5 a second more (a burst of 50)
 * for those beyond it: 15 a second in all.
 */
export function defaultRateLimiter(): RateLimiter {
  return new MaxOf(new ExponentialBackoff(5, MAX_BACKOFF_MS), new NamespaceBuckets({ qps: 5, burst: 50 }, { qps: 10, burst: 100 }, { qps: 5, burst: 50 }));
}
