// Waiting for a state by polling, for the local tooling, the tests and the benchmarks alike: one
// loop, so that every wait tries at least once, times out the same way and can say what it saw
// last. It lives in dev/ because dev/ may not import test/ or bench/, and both of those import dev/.

/** What a check resolves with to say "done". */
export type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/** The time as a wait sees it; tests of waiting itself pass one that needs no real time. */
export interface WaitClock {
  nowMs(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: WaitClock = {
  nowMs: () => Date.now(),
  sleep: (ms) => new Promise((done) => setTimeout(done, ms)),
};

export interface PollOptions {
  timeoutMs: number;
  /** The pause between two tries (default 200 ms). */
  intervalMs?: number;
  /**
   * Asked before every try: an Error ends the wait at once with it, for a state that can no
   * longer come (the process that would reach it has exited).
   */
  giveUp?: () => Error | undefined;
  clock?: WaitClock;
}

/** What the last try of a wait that ran out of time saw: a value that was not truthy, or a throw. */
export type LastTry = { threw: false; value: unknown } | { threw: true; error: unknown };

export type Polled<T> = { done: true; value: Truthy<T> } | { done: false; last: LastTry };

/**
 * Calls `check` until it resolves with a truthy value or `timeoutMs` has passed, and says which as
 * data, so that each caller words its own failure. A throw counts as "not yet". The check runs
 * once more at the deadline, so a wait never ends without a try it could have passed.
 */
export async function poll<T>(check: () => Promise<T> | T, opts: PollOptions): Promise<Polled<T>> {
  const clock = opts.clock ?? realClock;
  const deadline = clock.nowMs() + opts.timeoutMs;
  let last: LastTry;
  for (;;) {
    const stop = opts.giveUp?.();
    if (stop) throw stop;
    try {
      const value = await check();
      if (value) return { done: true, value: value as Truthy<T> };
      last = { threw: false, value };
    } catch (error) {
      last = { threw: true, error };
    }
    if (clock.nowMs() >= deadline) return { done: false, last };
    await clock.sleep(opts.intervalMs ?? 200);
  }
}

/** The last try in words: the error's message, or the value it returned. */
export function describeLastTry(last: LastTry): string {
  if (last.threw) return last.error instanceof Error ? last.error.message : String(last.error);
  return `returned ${JSON.stringify(last.value)}`;
}

export interface WaitOptions extends PollOptions {
  /** What is awaited, for the timeout message; a function to word it as things stand at the end. */
  message: string | (() => string);
}

/**
 * Resolves with the first truthy value of `check`; rejects at `timeoutMs` saying what was awaited
 * and what the last try saw. A throw counts as "not yet".
 */
export async function eventually<T>(check: () => Promise<T> | T, opts: WaitOptions): Promise<Truthy<T>> {
  const polled = await poll(check, opts);
  if (polled.done) return polled.value;
  const what = typeof opts.message === 'function' ? opts.message() : opts.message;
  throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${what}: ${describeLastTry(polled.last)}`);
}

/** Resolves once `check` stops throwing (an assertion that holds); its last throw is in the timeout message. */
export const until = (check: () => unknown, opts: WaitOptions): Promise<void> =>
  eventually(async () => {
    await check();
    return true;
  }, opts).then(() => undefined);
