// Names and labels of the objects an App owns (api.md, "What the controller owns").

export const LABEL_NAME = 'app.kubernetes.io/name';
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const LABEL_APP = 'skiff.dev/app';
export const LABEL_TRACK = 'skiff.dev/track';
/** On an App: which controller shard reconciles it; copied to the objects it owns. */
export const LABEL_SHARD = 'skiff.dev/shard';
export const MANAGED_BY = 'skiff';
/** The name of the App container's one port (spec.port), which its Service and probes name. */
export const PORT_NAME = 'http';
/** The name of the App's one container, which env resourceFieldRefs and AppArmor annotations name. */
export const CONTAINER_NAME = 'app';
export const FIELD_MANAGER = 'skiff';

export const ANNOTATION_PROMOTE = 'skiff.dev/promote';
export const ANNOTATION_ABORT = 'skiff.dev/abort';
/** On an App: run the canary of the aborted revision again ("true"); removed once acted upon. */
export const ANNOTATION_RETRY = 'skiff.dev/retry';
/**
 * On an App, written with an undo: the pod-template revision (hash) that may go to stable at once,
 * without canary steps or analysis, when the history shows it was promoted before. Removed once
 * acted upon.
 */
export const ANNOTATION_SKIP_CANARY = 'skiff.dev/skip-canary';

/** On a ControllerRevision: the pod-template revision (hash) it records. */
export const LABEL_REVISION = 'skiff.dev/revision';
/** Annotations of a ControllerRevision (the App's history). */
export const ANNOTATION_HISTORY_IMAGES = 'skiff.dev/images';
export const ANNOTATION_HISTORY_CHANGES = 'skiff.dev/changes';
export const ANNOTATION_HISTORY_STARTED_AT = 'skiff.dev/started-at';
export const ANNOTATION_HISTORY_OUTCOME = 'skiff.dev/outcome';
export type RevisionOutcome = 'Running' | 'Promoted' | 'Aborted' | 'Cancelled';

/**
 * On the pod template: which copy stands for which source ("configMap/web-cfg=web-cfg-1a2b3c4d5e",
 * comma-separated). Pods show what they run; status.canary.changes names sources from it, and
 * the dashboard which ConfigMap a copy is of.
 */
export const ANNOTATION_CONFIG_COPIES = 'skiff.dev/config-copies';

/**
 * On the Service `<app>` of a blue-green App, written with its selector: the revision Skiff's own
 * write selected. A selector someone edited since says otherwise, and is no switch (it is drift).
 */
export const ANNOTATION_SELECTED_REVISION = 'skiff.dev/selected-revision';

/**
 * On the Service `<app>` of a blue-green App, written with the selector of an abort's switch back:
 * the revision switched back from. The status records the abort after the Service's write; a pass
 * that finds the status still switched (its write lost: the controller stopped in between) reads
 * this, and does not take the selector for a switch whose write failed and switch forward again.
 */
export const ANNOTATION_SWITCHED_BACK_FROM = 'skiff.dev/switched-back-from';

export type Track = 'stable' | 'canary' | 'preview';

export const CANARY_SUFFIX = '-canary';
export const PREVIEW_SUFFIX = '-preview';

export function ownedName(appName: string, track: Track): string {
  return track === 'stable' ? appName : `${appName}${track === 'canary' ? CANARY_SUFFIX : PREVIEW_SUFFIX}`;
}

export function ownedLabels(appName: string, track: Track): Record<string, string> {
  return {
    [LABEL_NAME]: appName,
    [LABEL_MANAGED_BY]: MANAGED_BY,
    [LABEL_APP]: appName,
    [LABEL_TRACK]: track,
  };
}

/**
 * The labels of an owned object's metadata: ownedLabels, and the App's shard, so that the
 * shard's controller watches only its own objects. Never on pods: a move to another shard is
 * no rollout.
 */
export function objectLabels(app: { metadata: { name?: string; labels?: Record<string, string> } }, track: Track): Record<string, string> {
  const shard = app.metadata.labels?.[LABEL_SHARD];
  return { ...ownedLabels(app.metadata.name!, track), ...(shard !== undefined ? { [LABEL_SHARD]: shard } : {}) };
}

/** The label selector of what the controller for `shard` (undefined: no shard) watches. */
export function shardSelector(shard: string | undefined): string {
  return shard === undefined ? `!${LABEL_SHARD}` : `${LABEL_SHARD}=${shard}`;
}

export function podSelector(appName: string, track: Track): Record<string, string> {
  return { [LABEL_APP]: appName, [LABEL_TRACK]: track };
}
