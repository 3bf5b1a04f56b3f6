// Writing an App's revision history as a history plan says (state/history-plan.ts): create the
// new entry, patch changed outcomes, delete entries beyond the limit. Each write is recorded in
// the expectations, so that a pass never plans from a cache that has not seen it (a duplicate
// entry, a number skipped or reused). A create answered 409 AlreadyExists means the cache is
// behind all the same (the entry was made by an earlier pass or another replica): the pass comes
// back once it has caught up. A result says what was done, for the log and the App's Events.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { DefaultedApp } from '../../shared/defaults.js';
import { ANNOTATION_HISTORY_OUTCOME, LABEL_REVISION, LABEL_SHARD } from '../../shared/labels.js';
import { labelFixes } from '../../shared/objects.js';
import { desiredControllerRevision, revisionLabels, type RevisionRecord } from '../render/controller-revision.js';
import { describeError, isConflict, isNotFound } from '../runtime/api-errors.js';
import { objectRef } from '../runtime/expectations.js';
import type { HistoryPlan } from '../state/history-plan.js';
import { isControlledBy } from '../state/ownership.js';
import { CONTROLLER_REVISION, type RevisionEntry } from '../state/revision-history.js';
import type { ApplyClients } from './apply.js';

/** A stale cache's entry is waited for this long before the pass plans again. */
export const HISTORY_RECHECK_MS = 1_000;
/** A name taken by an object this App does not control: looked at again after this long. */
export const HISTORY_CONFLICT_RECHECK_MS = 30_000;

export interface HistoryResult {
  created?: RevisionRecord;
  outcomes: { entry: RevisionEntry; outcome: string }[];
  pruned: RevisionEntry[];
  /** Why the pass comes back early, and when. */
  requeue?: { afterMs: number; why: string; conflict?: string };
  errors: string[];
}

export const revisionRef = (namespace: string, name: string) => objectRef(CONTROLLER_REVISION.kind, namespace, name);
const refTo = (namespace: string, name: string) => ({ ...CONTROLLER_REVISION, namespace, name });

export async function writeHistory(clients: ApplyClients, app: DefaultedApp, plan: HistoryPlan, record?: Omit<RevisionRecord, 'name' | 'number' | 'hash' | 'outcome'>): Promise<HistoryResult> {
  const namespace = app.metadata.namespace!;
  const result: HistoryResult = { outcomes: [], pruned: [], errors: [] };
  if (plan.create && record) {
    const full = { ...record, ...plan.create };
    try {
      const stored = await clients.api.create(desiredControllerRevision(app, full));
      clients.expectations?.written(revisionRef(namespace, full.name), stored);
      result.created = full;
    } catch (err) {
      if (!isConflict(err)) result.errors.push(`creating ControllerRevision ${namespace}/${full.name}: ${describeError(err)}`);
      else result.requeue = await alreadyExists(clients, app, full.name, full.startedAt).catch((e: unknown) => ({ afterMs: HISTORY_RECHECK_MS, why: `relabelling ControllerRevision ${namespace}/${full.name}: ${describeError(e)}` }));
    }
  }
  for (const { entry, outcome } of plan.outcomes) {
    try {
      const stored = await clients.api.patch(refTo(namespace, entry.name), { metadata: { annotations: { [ANNOTATION_HISTORY_OUTCOME]: outcome } } }, { type: 'merge' });
      clients.expectations?.written(revisionRef(namespace, entry.name), stored);
      result.outcomes.push({ entry, outcome });
    } catch (err) {
      if (!isNotFound(err)) result.errors.push(`recording outcome ${outcome} in ControllerRevision ${namespace}/${entry.name}: ${describeError(err)}`);
    }
  }
  // The prune counts the entry to create as the newest of its revision (stable's, or the one
  // rolling out): while it is not created (a name taken, a refused write), the entries it would
  // replace are the only ones of that revision, and the one before it the newest of all (deleting
  // that would free its number for the next pass). The next pass prunes, from what is there.
  const prune = plan.create && !result.created ? [] : plan.prune;
  for (const entry of prune) {
    try {
      await clients.api.delete(refTo(namespace, entry.name), { preconditions: { uid: entry.uid } });
      result.pruned.push(entry);
    } catch (err) {
      // A refused delete (forbidden, the server failing) left the entry there: a cache that shows
      // it is right, and expecting it gone would hold every later pass of the App for the bounded wait.
      if (!isNotFound(err)) {
        result.errors.push(`deleting ControllerRevision ${namespace}/${entry.name}: ${describeError(err)}`);
        continue;
      }
    }
    // Gone (deleted now, or already): a cache that still shows it is behind.
    clients.expectations?.deleted(revisionRef(namespace, entry.name), entry.uid, app.metadata.uid);
  }
  return result;
}

/**
 * The name of the entry to create is taken. When the App controls that entry but this controller
 * does not see it, it carries another shard's label (the App moved between shards): it is
 * relabelled for this shard, and the history reappears in this controller's cache. Otherwise the
 * cache is behind, or the name is someone else's. `now`: the pass's time.
 */
async function alreadyExists(clients: ApplyClients, app: DefaultedApp, name: string, now: Date): Promise<HistoryResult['requeue']> {
  const namespace = app.metadata.namespace!;
  let existing: KubernetesObject;
  try {
    existing = await clients.api.read(refTo(namespace, name));
  } catch (err) {
    return { afterMs: HISTORY_RECHECK_MS, why: `ControllerRevision ${namespace}/${name} already exists; reading it failed: ${describeError(err)}` };
  }
  if (!isControlledBy(existing, app.metadata.uid!)) {
    const conflict = `ControllerRevision ${namespace}/${name} exists and is not owned by this App`;
    return { afterMs: HISTORY_CONFLICT_RECHECK_MS, why: `${conflict}: the history cannot record the revision`, conflict };
  }
  // The labels the cache finds entries by: another shard's (the App moved), or one removed by hand.
  const has = existing.metadata?.labels ?? {};
  const shard = app.metadata.labels?.[LABEL_SHARD] ?? null;
  const wanted: Record<string, string | null> = { ...revisionLabels(app, has[LABEL_REVISION] ?? ''), [LABEL_SHARD]: shard };
  if (has[LABEL_REVISION] === undefined) delete wanted[LABEL_REVISION];
  const fixes = labelFixes(wanted, has);
  if (Object.keys(fixes).length > 0) {
    const stored = await clients.api.patch(refTo(namespace, name), { metadata: { labels: fixes } }, { type: 'merge' });
    clients.expectations?.written(revisionRef(namespace, name), stored);
    const why = Object.keys(fixes).length === 1 && LABEL_SHARD in fixes ? 'carried another shard\'s label; relabelled for this shard' : `had lost its labels ${Object.keys(fixes).join(', ')}; labelled again`;
    return { afterMs: HISTORY_RECHECK_MS, why: `ControllerRevision ${namespace}/${name} ${why}` };
  }
  // Labelled as an entry, yet not one the cache shows as such long after it was made (its revision
  // label or number edited by hand): no lag explains that, and coming back every second would
  // create, be refused and read it for ever. Reported as the name being taken.
  const createdMs = Date.parse(existing.metadata?.creationTimestamp as unknown as string);
  if (Number.isFinite(createdMs) && now.getTime() - createdMs > UNSEEN_ENTRY_MS) {
    const conflict = `ControllerRevision ${namespace}/${name} is the App's but not an entry of its history as it stands (its skiff.dev/revision label or revision number changed by hand?); delete it or put them back`;
    return { afterMs: HISTORY_CONFLICT_RECHECK_MS, why: conflict, conflict };
  }
  return { afterMs: HISTORY_RECHECK_MS, why: `ControllerRevision ${namespace}/${name} already exists: the cache is behind` };
}

/** How long after its creation an entry the cache does not show is no longer the cache being behind. */
export const UNSEEN_ENTRY_MS = 60_000;
