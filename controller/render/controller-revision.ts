// The ControllerRevision that records one pod-template revision of an App in its history
// (api.md, "Revision history"): named <app>-<number>, owned by the App, labelled like the App's
// other objects (so that its shard's controller watches it) and with the revision's hash, its
// data the App's pod-template fields (and the copies of tracked configuration they ran on), its annotations what a person reads in `kubectl skiff
// history`. Pure.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { DefaultedApp } from '../../shared/defaults.js';
import {
  ANNOTATION_HISTORY_CHANGES, ANNOTATION_HISTORY_IMAGES, ANNOTATION_HISTORY_OUTCOME, ANNOTATION_HISTORY_STARTED_AT,
  LABEL_APP, LABEL_MANAGED_BY, LABEL_NAME, LABEL_REVISION, LABEL_SHARD, MANAGED_BY, type RevisionOutcome,
} from '../../shared/labels.js';
import { podTemplateFields } from '../../shared/pod-template-fields.js';
import { ownerReference } from '../../shared/owner-reference.js';
import { CONTROLLER_REVISION } from '../state/revision-history.js';

export interface RevisionRecord {
  name: string;
  number: number;
  hash: string;
  outcome: RevisionOutcome;
  /** What it changes against what stable ran, in App field names (empty for the first revision). */
  changes: readonly string[];
  /**
   * The copies of tracked configuration the revision's pods run (sourceKey -> copy name): its
   * template cannot be rendered again from the fields alone, which name the sources.
   */
  copies?: Readonly<Record<string, string>>;
  startedAt: Date;
}

/** The labels of the App's history entries: the App's, its shard, and the revision's hash. */
export function revisionLabels(app: DefaultedApp, hash: string): Record<string, string> {
  const name = app.metadata.name!;
  const shard = app.metadata.labels?.[LABEL_SHARD];
  return { [LABEL_NAME]: name, [LABEL_MANAGED_BY]: MANAGED_BY, [LABEL_APP]: name, [LABEL_REVISION]: hash, ...(shard !== undefined ? { [LABEL_SHARD]: shard } : {}) };
}

export function desiredControllerRevision(app: DefaultedApp, record: RevisionRecord): KubernetesObject & { data: unknown; revision: number } {
  return {
    ...CONTROLLER_REVISION,
    metadata: {
      name: record.name,
      namespace: app.metadata.namespace,
      labels: revisionLabels(app, record.hash),
      annotations: {
        [ANNOTATION_HISTORY_IMAGES]: app.spec.image,
        [ANNOTATION_HISTORY_CHANGES]: record.changes.join(','),
        // Milliseconds kept, as status times are.
        [ANNOTATION_HISTORY_STARTED_AT]: record.startedAt.toISOString(),
        [ANNOTATION_HISTORY_OUTCOME]: record.outcome,
      },
      ownerReferences: [ownerReference(app)],
    },
    data: { spec: podTemplateFields(app.spec), ...(record.copies && Object.keys(record.copies).length > 0 ? { configCopies: record.copies } : {}) },
    revision: record.number,
  };
}
