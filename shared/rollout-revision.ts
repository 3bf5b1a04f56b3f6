// The revision an App's rollout under way runs, as its status records it: a canary's, or a
// blue-green preview's; and whether a blue-green rollout was switched back. The controller and
// the plugin read them alike. Pure.

export interface RollingStatus {
  canary?: { revision?: string };
  blueGreen?: { previewRevision?: string };
}

export const revisionRolling = (status: RollingStatus | undefined): string | undefined => status?.canary?.revision ?? status?.blueGreen?.previewRevision;

/**
 * Whether a blue-green status is the preview's pods going after a switch back (the Service went
 * back to stable), not the forward scale-down after a switch.
 */
export const switchedBack = (b: { phase?: string; activeRevision?: string; previewRevision?: string } | undefined): boolean =>
  b !== undefined && b.phase === 'ScalingDown' && b.activeRevision !== b.previewRevision;
