// Names and labels of the objects an App owns (api.md, "What the controller owns").

export const LABEL_NAME = 'app.kubernetes.io/name';
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const LABEL_APP = 'skiff.dev/app';
export const LABEL_TRACK = 'skiff.dev/track';
export const MANAGED_BY = 'skiff';
export const FIELD_MANAGER = 'skiff';

export const ANNOTATION_PROMOTE = 'skiff.dev/promote';
export const ANNOTATION_ABORT = 'skiff.dev/abort';

export type Track = 'stable' | 'canary';

export const CANARY_SUFFIX = '-canary';

export function ownedName(appName: string, track: Track): string {
  return track === 'stable' ? appName : `${appName}${CANARY_SUFFIX}`;
}

export function ownedLabels(appName: string, track: Track): Record<string, string> {
  return {
    [LABEL_NAME]: appName,
    [LABEL_MANAGED_BY]: MANAGED_BY,
    [LABEL_APP]: appName,
    [LABEL_TRACK]: track,
  };
}

export function podSelector(appName: string, track: Track): Record<string, string> {
  return { [LABEL_APP]: appName, [LABEL_TRACK]: track };
}
