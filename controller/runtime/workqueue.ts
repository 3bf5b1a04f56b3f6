// A work queue of keys with client-go's guarantees (k8s.io/client-go/util/workqueue):
// - a key waiting in the queue is there once, however often it is added (dedup);
// - a key is handed to one worker at a time: added while being processed, it is queued again
//   only when that worker calls done(), so two workers never reconcile the same App at once;
// - addAfter delays a key (the earliest pending time wins), addRateLimited delays it by the
//   rate limiter's backoff, forget resets that backoff.
// A delay longer than a timer holds is cut to what it holds (see timer-delay.ts).
// Unlike client-go's, keys wait in turns by namespace (fair-queue.ts): one tenant's burst does not
// hold up the others'.
import { FairQueue } from './fair-queue.js';
import { defaultRateLimiter, type RateLimiter } from './rate-limiter.js';
import { timerDelayMs } from './timer-delay.js';

/** The time and the timers the queue uses; tests give one they move by hand. */
export interface QueueClock {
  nowMs(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

// Monotonic: nowMs only orders pending delays, and a wall clock set back between two addAfter
// calls made the later-firing one look earlier and replace the pending timer.
const systemClock: QueueClock = {
  nowMs: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

export interface WorkQueueOptions {
  rateLimiter?: RateLimiter;
  /** Called when a key is retried through addRateLimited (metrics). */
  onRetry?: (key: string) => void;
  clock?: QueueClock;
}

export class WorkQueue {
  private readonly queue = new FairQueue();
  /** Keys that need processing: queued, or re-added while being processed. */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly waiting = new Map<string, { atMs: number; timer: unknown }>();
  private readonly getters: ((key: string | undefined) => void)[] = [];
  private readonly idleWaiters: (() => void)[] = [];
  private readonly rateLimiter: RateLimiter;
  private readonly clock: QueueClock;
  private shuttingDown = false;

  constructor(private readonly opts: WorkQueueOptions = {}) {
    this.rateLimiter = opts.rateLimiter ?? defaultRateLimiter();
    this.clock = opts.clock ?? systemClock;
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const getter = this.getters.shift();
    if (getter) this.hand(key, getter);
    else this.queue.push(key);
  }

  /**
   * Adds key after delayMs; an earlier pending addAfter of the same key wins. A delay past what a
   * timer holds adds the key when that much has passed (its reconcile asks again for the rest);
   * NaN counts as such a delay, below 0 as none.
   */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    const ms = timerDelayMs(delayMs);
    if (ms === 0) return this.add(key);
    const atMs = this.clock.nowMs() + ms;
    const pending = this.waiting.get(key);
    if (pending && pending.atMs <= atMs) return;
    if (pending) this.clock.clearTimeout(pending.timer);
    const timer = this.clock.setTimeout(() => {
      this.waiting.delete(key);
      this.add(key);
    }, ms);
    this.waiting.set(key, { atMs, timer });
  }

  addRateLimited(key: string): void {
    this.opts.onRetry?.(key);
    this.addAfter(key, this.rateLimiter.whenMs(key));
  }

  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  /**
   * Drops a pending delayed add of key and its backoff: its object is gone. A delay may run for
   * up to a day (a pause, autoPromoteAfter), and a fleet whose Apps come and go under new names
   * would otherwise keep a timer per App it ever had. A key added meanwhile stays queued.
   */
  cancel(key: string): void {
    const pending = this.waiting.get(key);
    if (pending) this.clock.clearTimeout(pending.timer);
    this.waiting.delete(key);
    this.rateLimiter.forget(key);
  }

  /** Keys with a delayed add pending. */
  get delayed(): number {
    return this.waiting.size;
  }

  numRequeues(key: string): number {
    return this.rateLimiter.retries(key);
  }

  /** The next key, marked as processing; undefined once the queue shuts down. */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    const key = this.queue.shift();
    if (key !== undefined) return Promise.resolve(this.take(key));
    return new Promise((resolve) => this.getters.push(resolve));
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.shuttingDown) {
      const getter = this.getters.shift();
      if (getter) this.hand(key, getter);
      else this.queue.push(key);
    }
    if (this.processing.size === 0) this.idleWaiters.splice(0).forEach((w) => w());
  }

  /** Keys waiting to be processed (not counting delayed ones). */
  get length(): number {
    return this.queue.length;
  }

  /**
   * Stops handing out keys (waiting get() calls return undefined) and resolves once every key
   * being processed is done.
   */
  shutDown(): Promise<void> {
    this.shuttingDown = true;
    for (const w of this.waiting.values()) this.clock.clearTimeout(w.timer);
    this.waiting.clear();
    this.getters.splice(0).forEach((g) => g(undefined));
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private take(key: string): string {
    this.dirty.delete(key);
    this.processing.add(key);
    return key;
  }

  private hand(key: string, getter: (key: string) => void): void {
    getter(this.take(key));
  }
}
