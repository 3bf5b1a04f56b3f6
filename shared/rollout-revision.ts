// The revision an App's rollout under way runs, as its status records it: a canary's, or a
// blue-green preview's. The controller and the plugin read it alike. Pure.

export interface RollingStatus {
  canary?: { revision?: string };
  blueGreen?: { previewRevision?: string };
}

export const revisionRolling = (status: RollingStatus | undefined): string | undefined => status?.canary?.revision ?? status?.blueGreen?.previewRevision;
