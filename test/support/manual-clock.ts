// A clock for the work queue that moves only when a test says so: timers fire in time order as
// the test advances it, and each remembers the delay it was set with.
import type { QueueClock } from '../../controller/runtime/workqueue.js';

interface Timer {
  id: number;
  atMs: number;
  delayMs: number;
  fn: () => void;
}

export class ManualClock implements QueueClock {
  private now = 0;
  private ids = 0;
  readonly timers = new Map<number, Timer>();

  nowMs(): number {
    return this.now;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.ids;
    this.timers.set(id, { id, atMs: this.now + ms, delayMs: ms, fn });
    return id;
  }

  clearTimeout(timer: unknown): void {
    this.timers.delete(timer as number);
  }

  /** The delays of the timers still pending, in the order they were set. */
  pendingDelays(): number[] {
    return [...this.timers.values()].map((t) => t.delayMs);
  }

  /** Moves the time on by ms, firing every timer due by then in time order. */
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      const next = [...this.timers.values()].filter((t) => t.atMs <= end).sort((a, b) => a.atMs - b.atMs || a.id - b.id)[0];
      if (!next) break;
      this.timers.delete(next.id);
      this.now = next.atMs;
      next.fn();
    }
    this.now = end;
  }
}
