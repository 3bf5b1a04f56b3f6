// Winding down canary objects that should not exist (a promoted, aborted or cancelled canary):
// the weight to 0 first; once no traffic reaches the canary, its pods keep running for
// scaleDownDelaySeconds, so that requests already routed to them finish and routers that apply
// changes late never send to a pod that is gone; then its Service and Deployment go. The time is
// in status, so a restarted controller neither shortens nor repeats the delay. Pure.
import type { ScaleDownStatus } from '../../shared/app-types.js';
import type { CanaryDecision, CanaryInput, CanaryObserved } from './types.js';
import { statusTimeMs } from '../../shared/time.js';

export type WindDown = Pick<CanaryDecision, 'canary' | 'removeCanary' | 'requeueAfterMs'> & { scaleDown?: ScaleDownStatus };

export function windDown(input: Pick<CanaryInput, 'scaleDownDelaySeconds' | 'status' | 'canaryHeader'>, observed: CanaryObserved, now: Date): WindDown {
  if (!observed.canaryObjectsExist) return { removeCanary: false };
  const recorded = input.status.scaleDown;
  if ((observed.routerWeight ?? 0) > 0 && observed.canaryDeployment) {
    const { revision, replicas } = observed.canaryDeployment;
    return { canary: { revision: revision ?? '', replicas, weight: 0 }, removeCanary: false, scaleDown: recorded };
  }
  // No delay: nothing to wait for or to remember.
  if (input.scaleDownDelaySeconds <= 0) return { removeCanary: true };
  const revision = observed.canaryDeployment?.revision ?? recorded?.revision ?? '';
  // The delay begins once the router has taken the traffic back (a Gateway that has not accepted
  // the route as it is still splits as before): counted from the write, it would have run out
  // for a Gateway slower than it, and the pods would go the moment their traffic left them. The
  // route's status change, by its watch, brings the pass that starts it.
  // With a canary header, weight 0 still sends the requests that carry it to the canary (the
  // canary Ingress's canary-by-header, the HTTPRoute's header rule): the traffic is back on stable
  // only once the canary's part of the routing is gone (this pass removes it), and taken.
  // Switching routers, the one switched from counts as well: the delay begins once the last router
  // sending the canary requests has given them up (act removes its canary part meanwhile).
  const headerRouted = input.canaryHeader !== undefined && observed.routerWeight !== undefined;
  if (recorded?.revision !== revision && (headerRouted || observed.routerReadiness?.ready === false || observed.previousRouterSplit)) return { removeCanary: false };
  const scaleDown = recorded?.revision === revision
    ? recorded
    // Milliseconds kept: a time cut to the second would let the pods go up to a second early.
    : { revision, deleteAt: new Date(now.getTime() + input.scaleDownDelaySeconds * 1000).toISOString() };
  const leftMs = statusTimeMs(scaleDown.deleteAt, now.getTime()) - now.getTime();
  // Kept in status until the objects are gone: a failed delete must not start a new delay.
  if (leftMs <= 0) return { removeCanary: true, scaleDown };
  return { removeCanary: false, scaleDown, requeueAfterMs: leftMs };
}

/** Whether canary objects are still there (being wound down, kept until scaleDown.deleteAt, or until the router has taken their traffic back). */
export const windingDown = (observed: Pick<CanaryObserved, 'canaryObjectsExist'>) => observed.canaryObjectsExist;

/** A status field that is there only when it has a value (status is compared as JSON). */
export const scaleDownField = (scaleDown: ScaleDownStatus | undefined) => (scaleDown ? { scaleDown } : {});
