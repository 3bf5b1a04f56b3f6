// The revision an App's rollout under way runs, as its status records it: a canary's, or a
// blue-green preview's; and whether a blue-green rollout was switched back. The controller and
// the plugin read them alike. Pure.

export interface RollingStatus {
  canary?: { revision?: string };
  blueGreen?: { previewRevision?: string };
}

export const revisionRolling = (status: RollingStatus | undefined): string | undefined => status?.canary?.revision ?? status?.blueGreen?.previewRevision;

/**
 * The revision `promote` and `abort` act on: a canary's; for a blue-green App, spec's (`updateRevision`,
 * passed only once the controller has seen the App's generation) when it is a newer pod template
 * whose preview has not started (held by spec.rollout.paused, or waiting for the pods switched back
 * from), else the preview's. The controller keeps a promotion for that revision only.
 */
export function commandRevision(status: (RollingStatus & { stableRevision?: string; abortedRevision?: string }) | undefined, updateRevision: string | undefined): string | undefined {
  if (status?.canary) return status.canary.revision;
  const preview = status?.blueGreen?.previewRevision;
  const newer = updateRevision !== undefined && updateRevision !== preview && updateRevision !== status?.stableRevision && updateRevision !== status?.abortedRevision;
  return newer ? updateRevision : preview;
}

/**
 * Whether a blue-green status is the preview's pods going after a switch back (the Service went
 * back to stable), not the forward scale-down after a switch.
 */
export const switchedBack = (b: { phase?: string; activeRevision?: string; previewRevision?: string } | undefined): boolean =>
  b !== undefined && b.phase === 'ScalingDown' && b.activeRevision !== b.previewRevision;
