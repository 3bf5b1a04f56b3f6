// Analysis checks run outside the reconcile workers. A reconcile that finds a check due starts
// it here and goes on; a bounded number of checks run at a time, each sending two queries at a
// time (the others wait for a slot, the namespaces taking turns for it), each App has at most one
// check running or waiting to be recorded, and when a check completes
// the App is reconciled again to count it. So an App whose queries take 10 s, or a Prometheus
// that hangs, delays no other App's reconcile, and no App asks Prometheus more often than its
// interval however often it is reconciled.
//
// A completed check is held until a status write has recorded it (settle): a pass whose status
// write fails (a 409 from a stale App, the API server restarting) counts the same check again
// in the next pass instead of losing it, and nothing runs a check twice for one due time.
import type { DefaultedApp } from '../../shared/defaults.js';
import type { Logger } from '../../shared/logger.js';
import { runCheck, type PrometheusClient } from './check.js';
import type { CheckResult } from './types.js';

/** A check that ran for an App's canary, as the step engine counts it. */
export interface CompletedCheck {
  /** When it was started at `weight`, before any wait for a slot (its window ends there); recorded in status as lastCheckAt. */
  at: string;
  /** The router's weight it measured. */
  weight: number;
  /** The canary revision it measured; a result for another revision is dropped. */
  revision: string | undefined;
  /** The App it measured: a result for an App deleted and created again under its name is dropped. */
  uid: string | undefined;
  result: CheckResult;
}

export interface CheckRunnerOptions {
  prometheus: PrometheusClient;
  /** Checks running at once, over all Apps (default 8). */
  concurrency?: number;
  /** A check of the App with this key completed: reconcile it. */
  onDone: (key: string) => void;
  /** Every completed check (metrics). */
  onCheck?: (result: CheckResult) => void;
  log: Logger;
  now?: () => Date;
}

// Each start has a state of its own: a run compares it by identity, so that a run of an App
// forgotten meanwhile (deleted, and perhaps created again under its name) neither asks Prometheus
// nor records its result in the state of a later start.
// A forgotten run is cancelled too: its queries in flight, and those it has not sent, would hold
// a slot (up to a timeout each) that another App's check waits for.
type Run = { phase: 'waiting' | 'running'; cancel: AbortController };
type State = Run | { phase: 'done'; check: CompletedCheck };

export class CheckRunner {
  private readonly states = new Map<string, State>();
  /** Checks waiting for a slot, by namespace; slots go round the namespaces in turn. */
  private readonly waiting = new Map<string, (() => void)[]>();
  private running = 0;
  private readonly concurrency: number;

  constructor(private readonly opts: CheckRunnerOptions) {
    this.concurrency = Math.max(1, opts.concurrency ?? 8);
  }

  /** The completed check of the App not yet recorded in its status. */
  completed(key: string): CompletedCheck | undefined {
    const s = this.states.get(key);
    return s?.phase === 'done' ? s.check : undefined;
  }

  /** Whether the App has a check waiting, running, or completed and not yet recorded. */
  busy(key: string): boolean {
    return this.states.has(key);
  }

  /** Checks running now and waiting for a slot. */
  get inFlight(): number {
    return [...this.states.values()].filter((s) => s.phase !== 'done').length;
  }

  /**
   * Starts a check of the App's canary at the router's weight `weight`, unless it has one already.
   * The check's time is now, while `weight` is in force, however long it then waits for a slot:
   * its queries are evaluated at this time, so that the window it measures (ending here) is the
   * traffic of `weight`, not that of a weight set meanwhile (the end of a timed pause, a
   * promotion taking it to 0), which it would otherwise be recorded and counted as.
   */
  start(key: string, app: DefaultedApp, weight: number): void {
    if (this.states.has(key)) return;
    const state: Run = { phase: 'waiting', cancel: new AbortController() };
    this.states.set(key, state);
    // Milliseconds kept, as weightChangedAt's are: the next check is due an interval after this
    // time, and one cut to the second would run up to a second early.
    const started = (this.opts.now ?? (() => new Date()))();
    void this.run(key, app, weight, started, state);
  }

  /** The App's completed check is recorded in its status, or no longer counts: forget it. */
  settle(key: string, check: CompletedCheck): void {
    if (this.completed(key) === check) this.states.delete(key);
  }

  /** The App is gone, or its rollout starts again (a retry). A check still running is cancelled, and dropped. */
  forget(key: string): void {
    const state = this.states.get(key);
    if (state && state.phase !== 'done') state.cancel.abort();
    this.states.delete(key);
  }

  private async run(key: string, app: DefaultedApp, weight: number, started: Date, state: Run): Promise<void> {
    if (this.running >= this.concurrency) await this.slot(key.slice(0, key.indexOf('/')));
    else this.running++;
    try {
      // Forgotten while it waited for a slot: nothing to ask.
      if (this.states.get(key) !== state) return;
      state.phase = 'running';
      const at = started.toISOString();
      // runCheck never rejects on what Prometheus answers; anything else is inconclusive too.
      const result = await runCheck(this.opts.prometheus, app, weight, started, state.cancel.signal).catch((err: unknown): CheckResult => ({
        result: 'Inconclusive',
        message: `the check could not run: ${err instanceof Error ? err.message : String(err)}`,
        metrics: [],
      }));
      // Forgotten meanwhile (the App was deleted): cancelled, nothing to count or record.
      if (this.states.get(key) !== state) return;
      this.opts.onCheck?.(result);
      this.opts.log.info({ app: key, weight, result: result.result, message: result.message }, 'analysis check');
      const revision = app.status?.canary?.revision ?? app.status?.blueGreen?.previewRevision;
      this.states.set(key, { phase: 'done', check: { at, weight, revision, uid: app.metadata.uid, result } });
      this.opts.onDone(key);
    } finally {
      this.release();
    }
  }

  /**
   * Waits for a slot behind the checks of the same namespace. A freed slot goes to the namespace
   * that has waited longest for its turn (a Map keeps insertion order: served namespaces go to the
   * back), so the checks of one namespace with many Apps never keep another's waiting for all of them.
   */
  private slot(namespace: string): Promise<void> {
    return new Promise<void>((resolve) => {
      const queue = this.waiting.get(namespace);
      if (queue) queue.push(resolve);
      else this.waiting.set(namespace, [resolve]);
    });
  }

  /** A check ended: its slot passes to the next namespace's first waiting check, or is free. */
  private release(): void {
    const first = this.waiting.entries().next();
    if (first.done) {
      this.running--;
      return;
    }
    const [namespace, queue] = first.value;
    const wake = queue.shift()!;
    this.waiting.delete(namespace);
    if (queue.length > 0) this.waiting.set(namespace, queue);
    wake();
  }
}
