// Which writes keep an App's revision history true to a rollout decision: the entry to create
// for a revision that starts rolling out (or goes to stable at once, or is aborted as it starts),
// the outcomes that changed, and the entries beyond spec.revisionHistoryLimit to delete. The
// outcome of each entry follows from the decision alone (which revision is stable, which aborted,
// which rolling out), whatever strategy made it. A history that already says all this gives an
// empty plan: no write. Pure.
import type { RevisionOutcome } from '../../shared/labels.js';
import { revisionName, type RevisionEntry } from './revision-history.js';

/** What a pass decided, in the terms of the history. */
export interface HistoryDecision {
  /** spec's pod-template revision. */
  spec: string;
  /** The revision stable runs after the pass (status.stableRevision). */
  stable?: string;
  /** The aborted revision on record (status.abortedRevision). */
  aborted?: string;
  /** The revision rolling out now (a canary's), if any. */
  rolling?: string;
  /** The stable Deployment has not rolled out `stable` yet (not every pod updated and available). */
  stablePending?: boolean;
  /**
   * The stable Deployment has been seen running `stable`'s revision alone since it took it (its
   * controller had seen it, no pod of another template was left), whether or not all its pods are
   * up now: pods of another ReplicaSet since (a restart) are of the same revision.
   */
  stableOneTemplate?: boolean;
}

export interface HistoryPlan {
  /** The entry to create, numbered after the highest one. */
  create?: { name: string; number: number; hash: string; outcome: RevisionOutcome };
  /** Entries whose outcome changed. */
  outcomes: { entry: RevisionEntry; outcome: RevisionOutcome }[];
  /** Entries beyond the limit, oldest first. */
  prune: RevisionEntry[];
}

/** The outcome a revision has under the decision, when the decision says one. */
function settled(hash: string, d: HistoryDecision): RevisionOutcome | undefined {
  if (hash === d.rolling) return 'Running';
  if (hash === d.stable) return 'Promoted';
  if (hash === d.aborted) return 'Aborted';
  return undefined;
}

/**
 * The entry's outcome now. Only the newest entry and those still Running change: a Running one
 * that is neither stable, aborted nor rolling out any more was replaced (Cancelled); the newest
 * one may also be rolled out again (a retry of an aborted revision).
 */
function outcomeNow(entry: RevisionEntry, newest: boolean, d: HistoryDecision): RevisionOutcome | undefined {
  if (!newest && entry.outcome !== 'Running' && entry.outcome !== undefined) return entry.outcome;
  const now = settled(entry.hash, d);
  // Stable's revision whose pods have not come up (an App's first, beside a canary that started
  // meanwhile) is no revision to go back to yet: Running until its Deployment has rolled it out.
  if (now === 'Promoted' && entry.outcome === 'Running' && d.stablePending) return entry.outcome;
  if (now === 'Running' && !newest) return 'Cancelled';
  return now ?? (entry.outcome === 'Running' || entry.outcome === undefined ? 'Cancelled' : entry.outcome);
}

/**
 * Stable's Deployment not available on stable's revision is a rollout of it under way only until
 * it has rolled it out once: the newest Promoted entry is stable's then (`sincePromoted`), and
 * pods lost, added or replaced since (an eviction, a node drained, a scale, a restart: no pod of
 * another revision) are no rollout. Else such a pass would put that entry back to Running (then
 * Cancelled by the next change, and no longer a revision to undo to), or record stable again as a
 * new entry after an aborted one. A stable revision that comes back (set back by hand, `undo --skip-canary`)
 * after another was promoted is a rollout again.
 */
function settledStable(d: HistoryDecision, sincePromoted: boolean): HistoryDecision {
  if (d.stable === undefined || (d.rolling !== d.stable && !d.stablePending)) return d;
  // Pods of another revision still there (a RollingUpdate App set back from a revision that was
  // rolling): stable's template is rolling out again, as a rollout of it.
  if (!sincePromoted || !d.stableOneTemplate) return d;
  return { ...d, rolling: d.rolling === d.stable ? undefined : d.rolling, stablePending: false };
}

/**
 * The history plan for `entries` (the App's, oldest first) under decision `d`, keeping `limit`
 * entries, the newest first, besides the newest of the stable revision and the newest of the
 * revision rolling out (those are never deleted). The newest entry of all is kept even at limit
 * 0: the next number follows the highest one there is, and no number is ever used twice.
 */
export function planHistory(appName: string, entries: readonly RevisionEntry[], decision: HistoryDecision, limit: number): HistoryPlan {
  // Stable has run its revision since it was promoted: the newest Promoted entry is stable's, and
  // no newer entry of it is rolling it out again (a RollingUpdate App set back to it while another
  // was rolling: that entry is Promoted only once the Deployment has rolled it out anew).
  const sincePromoted = decision.stable !== undefined && entries.findLast((e) => e.outcome === 'Promoted')?.hash === decision.stable
    && entries.findLast((e) => e.hash === decision.stable)?.outcome === 'Promoted';
  const d = settledStable(decision, sincePromoted);
  const newest = entries.at(-1);
  // What spec runs now, as a rollout under way or as stable, or spec's rollout aborted: recorded
  // when it is not the newest entry. An abort in the pass a rollout starts (with the template
  // change, or while an earlier preview's pods drain) leaves no pass where it was rolling, yet the
  // status records it as aborted (and a retry starts it again): it has an entry, Aborted.
  const current = d.rolling ?? (d.stable === d.spec ? d.stable : d.aborted === d.spec ? d.aborted : undefined);
  const number = (newest?.number ?? 0) + 1;
  // A cancelled entry is never reused: rolling that template out again is a new number (only an
  // aborted newest entry comes back, Running, by a retry).
  const reused = newest !== undefined && newest.hash === current && newest.outcome !== 'Cancelled';
  // spec back on stable's template with nothing rolled out since stable's entry (a canary
  // cancelled, an aborted revision or a held change dropped): that entry is still the current one,
  // and a second entry of it would take the place of a revision to go back to.
  const backToStable = current !== undefined && current === d.stable && current !== d.rolling && sincePromoted;
  const create = current !== undefined && !reused && !backToStable
    ? { name: revisionName(appName, number), number, hash: current, outcome: settled(current, d)! }
    : undefined;

  const newestOf = (hash: string | undefined) => (create && create.hash === hash ? undefined : [...entries].reverse().find((e) => e.hash === hash));
  const kept = new Set([newestOf(d.stable), newestOf(d.rolling)].filter((e): e is RevisionEntry => e !== undefined));
  const others = entries.filter((e) => !kept.has(e)).reverse();
  // The newest entry (an aborted or cancelled one) counts among the limit, and is kept even at 0.
  const prune = others.slice(Math.max(limit, !create && others[0] === newest ? 1 : 0)).reverse();
  const pruned = new Set(prune);

  const outcomes: HistoryPlan['outcomes'] = [];
  for (const entry of entries) {
    if (pruned.has(entry)) continue;
    const outcome = outcomeNow(entry, !create && entry === newest, d);
    if (outcome !== undefined && outcome !== entry.outcome) outcomes.push({ entry, outcome });
  }
  return { create, outcomes, prune };
}
