// Delays handed to Node's timers. A timer holds at most 2^31-1 ms (about 24.8 days); Node turns
// anything longer, and NaN, into 1 ms. A requeue asked for in 1000 hours (a long canary pause, a
// progress deadline of 30 days) then came back every few milliseconds, forever. Every delay that
// reaches a timer goes through timerDelayMs first: a long one is cut to what a timer holds and is
// simply looked at again when it fires (the reconcile then asks for what is left).

/** The longest delay a Node timer holds. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * `ms` as a timer can take it: whole milliseconds from 0 to `maxMs`. Below 0 (and -Infinity) is
 * 0: now. Above `maxMs` (and +Infinity) is `maxMs`. NaN is `maxMs` too: a delay nobody could
 * compute is no reason to come back at once, and coming back at once again and again is what
 * this guards against (the controller's resync looks at every App in any case).
 */
export function timerDelayMs(ms: number, maxMs = MAX_TIMER_DELAY_MS): number {
  const max = Number.isNaN(maxMs) ? MAX_TIMER_DELAY_MS : Math.min(Math.max(Math.floor(maxMs), 0), MAX_TIMER_DELAY_MS);
  if (Number.isNaN(ms)) return max;
  if (ms <= 0) return 0;
  // Rounded up: a timer that fires a fraction early would only find that it is not yet time.
  return Math.min(Math.ceil(ms), max);
}
