// An App's revision history as the controller reads it: the apps/v1 ControllerRevisions it
// controls, named <app>-<number>, each the record of one pod-template revision the App ran (its
// hash in the label skiff.dev/revision, its outcome in the annotation skiff.dev/outcome). Pure.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { App } from '../../shared/app-types.js';
import { ANNOTATION_HISTORY_OUTCOME, LABEL_APP, LABEL_REVISION, type RevisionOutcome } from '../../shared/labels.js';
import { isControlledBy } from './ownership.js';
import type { IndexedCache } from '../runtime/cache.js';

export const CONTROLLER_REVISION = { apiVersion: 'apps/v1', kind: 'ControllerRevision' } as const;

/** One entry of the history. */
export interface RevisionEntry {
  name: string;
  /** The ControllerRevision's `revision`: increasing per App, from 1. */
  number: number;
  /** The pod-template revision (hash) it records. */
  hash: string;
  outcome?: RevisionOutcome;
  uid?: string;
}

const OUTCOMES: readonly string[] = ['Running', 'Promoted', 'Aborted', 'Cancelled'] satisfies RevisionOutcome[];

/** The index value that finds an App's history in the ControllerRevisions' cache. */
export const historyIndex = (namespace: string, app: string) => `${namespace}/${app}`;

/** The history index value of a cached ControllerRevision: its namespace and its App label. */
export function historyIndexOf(obj: KubernetesObject): string | undefined {
  const app = obj.metadata?.labels?.[LABEL_APP];
  return app === undefined ? undefined : historyIndex(obj.metadata?.namespace ?? '', app);
}

/** The name of the App's history entry number `n`. */
export const revisionName = (app: string, n: number) => `${app}-${n}`;

/**
 * The App's entries among cached ControllerRevisions (those its history index finds), oldest first: those
 * it controls, with its label, its name and a number. Anything else is not the App's history.
 */
export function revisionEntries(objects: readonly KubernetesObject[], app: Pick<App, 'metadata'>): RevisionEntry[] {
  const name = app.metadata.name!;
  const uid = app.metadata.uid!;
  const entries: RevisionEntry[] = [];
  for (const o of objects) {
    const meta = o.metadata;
    const number = (o as { revision?: unknown }).revision;
    const hash = meta?.labels?.[LABEL_REVISION];
    if (meta?.labels?.[LABEL_APP] !== name || !isControlledBy(o, uid) || typeof number !== 'number' || !hash) continue;
    if (meta.name !== revisionName(name, number) || meta.deletionTimestamp) continue;
    const outcome = meta.annotations?.[ANNOTATION_HISTORY_OUTCOME];
    entries.push({ name: meta.name, number, hash, uid: meta.uid, outcome: outcome && OUTCOMES.includes(outcome) ? (outcome as RevisionOutcome) : undefined });
  }
  return entries.sort((a, b) => a.number - b.number);
}

/** The hashes the history records as once promoted to stable: what skip-canary may go back to. */
export function promotedRevisions(entries: readonly RevisionEntry[] | undefined): ReadonlySet<string> {
  return new Set((entries ?? []).filter((e) => e.outcome === 'Promoted').map((e) => e.hash));
}

/** The App's history as the ControllerRevision cache holds it (revisionEntries of its index). */
export const historyOf = (cache: Pick<IndexedCache, 'byIndex'>, app: Pick<App, 'metadata'>): RevisionEntry[] =>
  revisionEntries(cache.byIndex(historyIndex(app.metadata.namespace!, app.metadata.name!)), app);
