// An owned object that has been deleted but stays, held by finalizers nobody removes (their
// controller gone, or a finalizer added by hand): what waits for it to go (a canary's wind-down, the
// object made again) waits for ever. Past a grace period it is a problem the App's status names,
// with the finalizers, instead of a pass coming back every second to find it still there. Pure.
import type { KubernetesObject } from '@kubernetes/client-node';

/** How long an object may take to go once deleted before its finalizers are reported. */
export const STUCK_DELETION_MS = 60_000;
/** How soon a pass looks again at an object reported as stuck (its watch brings its going sooner). */
export const STUCK_RECHECK_MS = 30_000;

export type Deletion =
  | { stuck: false; leftMs: number }
  | { stuck: true; message: string };

/** Undefined for an object not being deleted. */
export function deletionState(obj: KubernetesObject, nowMs: number): Deletion | undefined {
  const since = obj.metadata?.deletionTimestamp;
  if (!since) return undefined;
  const sinceMs = Date.parse(since as unknown as string);
  const finalizers = obj.metadata?.finalizers ?? [];
  const leftMs = Number.isFinite(sinceMs) ? sinceMs + STUCK_DELETION_MS - nowMs : STUCK_DELETION_MS;
  if (finalizers.length === 0 || leftMs > 0) return { stuck: false, leftMs: Math.max(leftMs, 0) };
  return { stuck: true, message: `${obj.kind} ${obj.metadata?.namespace}/${obj.metadata?.name} was deleted at ${new Date(sinceMs).toISOString()} and is still there, held by its finalizers (${finalizers.join(', ')}): the App waits for it to go` };
}
