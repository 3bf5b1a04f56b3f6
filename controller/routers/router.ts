// The traffic split of a canary rollout behind one small interface, so that the step engine
// does not know how traffic is divided. NGINX Ingress canary annotations are the one
// implementation today; a Gateway API HTTPRoute with weighted backends would be another.
import type { V1Ingress } from '@kubernetes/client-node';
import type { App } from '../../shared/app-types.js';

export interface RouteContext {
  app: App;
  /** The App's rendered main Ingress, which the canary route mirrors (host, path, class). */
  stableIngress: V1Ingress;
  /** Requests with this header set to "always" go to the canary. */
  canaryHeader?: string;
}

export interface TrafficRouter {
  /** The share of traffic (0..100) the canary receives now; undefined when no split exists. */
  currentWeight(app: App): number | undefined;
  /** Whether any object of the split exists (it must be removed before the canary goes). */
  exists(app: App): boolean;
  /** Creates the split or changes its weight. Resolves with whether it wrote. */
  setWeight(ctx: RouteContext, weight: number): Promise<boolean>;
  /** Removes the split. Resolves with whether it deleted something. */
  remove(app: App): Promise<boolean>;
}
