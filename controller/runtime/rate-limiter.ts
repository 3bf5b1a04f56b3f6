// How long a failed key waits before it is retried, after client-go's default controller rate
// limiter: the larger of a per-key exponential backoff and an overall token bucket, so one
// failing App backs off on its own while a storm of failures cannot flood the API server.

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
  // and held every failed key's retry for T.
  constructor(private readonly qps = 10, private readonly burst = 100, private readonly nowMs: () => number = () => performance.now()) {
    this.tokens = burst;
    this.lastMs = nowMs();
  }

  whenMs(): number {
    const now = this.nowMs();
    // A clock that went back counts as no time passing, never as tokens owed.
    this.tokens = Math.min(this.burst, this.tokens + (Math.max(0, now - this.lastMs) / 1000) * this.qps);
    this.lastMs = now;
    this.tokens -= 1;
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

export function defaultRateLimiter(): RateLimiter {
  return new MaxOf(new ExponentialBackoff(5, 300_000), new TokenBucket(10, 100));
}
