// The App's revision history after a pass: planned from the cached history and the pass's
// decision (state/history-plan.ts), written (apply/history-writes.ts), and told in the log and
// the App's Events. A pass whose decision the history already records writes nothing.
import type { DefaultedApp } from '../shared/defaults.js';
import type { Logger } from '../shared/logger.js';
import type { ApplyClients } from './apply/apply.js';
import { writeHistory } from './apply/history-writes.js';
import type { ReconcilePlan } from './decide.js';
import type { Observed } from './observe.js';
import type { EventSink } from './runtime/events.js';
import { planHistory } from './state/history-plan.js';

export interface HistoryOutcome {
  requeueAfterMs?: number;
  errors: string[];
  /** The name of the entry to create is taken by an object the App does not control (ResourceConflict). */
  conflict?: string;
}

/** The App's first revision, recorded Running at its creation, now rolled out. */
const creationDone = (entry: { number: number; outcome?: string }, outcome: string) => entry.number === 1 && entry.outcome === 'Running' && outcome === 'Promoted';

export async function recordHistory(app: DefaultedApp, plan: ReconcilePlan, observed: Observed, deps: { clients: ApplyClients; events: EventSink; log: Logger }, now: Date): Promise<HistoryOutcome> {
  if (!observed.history) return { errors: [] };
  const name = app.metadata.name!;
  const todo = planHistory(name, observed.history, plan.history, app.spec.revisionHistoryLimit);
  if (!todo.create && todo.outcomes.length === 0 && todo.prune.length === 0) return { errors: [] };
  const { log, events } = deps;
  const done = await writeHistory(deps.clients, app, todo, { changes: plan.history.changes, copies: plan.history.copies, startedAt: now });
  if (done.created) {
    const { number, hash, outcome, changes } = done.created;
    log.info({ revision: number, hash, image: app.spec.image, outcome, changes }, 'revision recorded in the history');
    const what = changes.length ? `, changing ${changes.join(', ')}` : '';
    // The App's first revision is its creation, which has Events of its own: one write per App less.
    if (number > 1) events.event(app, 'Normal', 'RevisionRecorded', `Recorded revision ${number} (${app.spec.image}, pod template ${hash}${what}) as ControllerRevision ${done.created.name}: ${outcome}`);
  }
  for (const { entry, outcome } of done.outcomes) {
    log.info({ revision: entry.number, hash: entry.hash, from: entry.outcome, outcome }, 'revision outcome recorded in the history');
    // Nor does its first rollout finishing: the App's Ready condition says so, for one write per App less.
    if (!creationDone(entry, outcome)) events.event(app, 'Normal', 'RevisionOutcome', `Revision ${entry.number} (pod template ${entry.hash}): ${outcome}`);
  }
  if (done.pruned.length > 0) {
    log.info({ revisions: done.pruned.map((e) => e.number), limit: app.spec.revisionHistoryLimit }, 'older revisions removed from the history');
  }
  if (done.requeue) log.info({ requeueAfterMs: done.requeue.afterMs }, done.requeue.why);
  return { requeueAfterMs: done.requeue?.afterMs, errors: done.errors, conflict: done.requeue?.conflict };
}
