// The traffic split of a canary rollout behind one small interface, so that the step engine and
// the reconciler do not know how traffic is divided. Implementations live beside this file
// (nginx/: Ingress canary annotations); the controller's wiring picks one for each App and
// hands it to the reconciler.
import type { V1Ingress } from '@kubernetes/client-node';
import type { DefaultedApp } from '../../shared/defaults.js';

export interface RouteContext {
  app: DefaultedApp;
  /** The App's rendered main Ingress, which the canary route mirrors (host, path, class). */
  stableIngress: V1Ingress;
}

export interface TrafficRouter {
  /** The share of traffic (0..100) the canary receives now; undefined when no split exists. */
  currentWeight(app: DefaultedApp): number | undefined;
  /** Whether any object of the split exists (it must be removed before the canary goes). */
  exists(app: DefaultedApp): boolean;
  /** Creates the split or changes its weight. Resolves with whether it wrote. */
  setWeight(ctx: RouteContext, weight: number): Promise<boolean>;
  /** Removes the split. Resolves with whether it deleted something. */
  remove(app: DefaultedApp): Promise<boolean>;
}

/** An object the split needs exists under its name and is not the App's: reported, never taken over. */
export class RouterConflictError extends Error {}
