// The traffic split of a canary rollout behind one small interface, so that the step engine and
// the reconciler do not know how traffic is divided. Implementations live beside this file
// (nginx/: Ingress canary annotations; gateway/: HTTPRoute backend weights); the controller's
// wiring picks one for each App and hands it to the reconciler.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { DefaultedApp } from '../../shared/defaults.js';
import { describeObject, type EnsureResult } from '../apply/apply.js';

export interface RouterReadiness {
  /** Whether the data plane has taken the current split: only then may the weight rise. */
  ready: boolean;
  /** Why not, for conditions. */
  message?: string;
  /** When not ready, whether a data plane may carry an earlier state of it (false: none ever took any). */
  served?: boolean;
  /** A data plane said it does not take the current routing (an HTTPRoute's parent: Accepted=False). */
  refused?: boolean;
}

export interface TrafficRouter {
  /** The share of traffic (0..100) the canary receives now; undefined when no split exists. */
  currentWeight(app: DefaultedApp): number | undefined;
  /** Whether any canary part of the routing exists (it must be gone before the canary's objects go). */
  exists(app: DefaultedApp): boolean;
  /**
   * Whether the routing as it is now has been taken up by the data plane. For a router the App
   * does not use (any more): whether what it still has of the App's (its canary part just
   * removed, say) has been; with nothing of it left, nothing is waited for.
   */
  readiness(app: DefaultedApp): RouterReadiness;
  /** Creates the split or changes its weight. Resolves with what it wrote, undefined when nothing. */
  setWeight(app: DefaultedApp, weight: number): Promise<RouterWrite | undefined>;
  /** Routing with no canary: everything to stable. Resolves with what it wrote, undefined when nothing. */
  stableOnly(app: DefaultedApp): Promise<RouterWrite | undefined>;
  /** The App no longer routes through this router: removes what it made. Resolves with what it deleted, undefined when nothing. */
  retire(app: DefaultedApp): Promise<RouterWrite | undefined>;
  /** The field of the App's spec that routes through this router. */
  readonly field: 'spec.ingress' | 'spec.route';
}

/**
 * The one object a router's write changed, for the App's Events (as any owned object's writes):
 * `object` as `Kind namespace/name`, `changed` the field paths an update changed.
 */
export interface RouterWrite {
  outcome: 'created' | 'updated' | 'deleted';
  object: string;
  changed?: readonly string[];
}

/** What an ensure of a router's object `want` wrote, for the App's Events; undefined when nothing. */
export function routerWrite(want: KubernetesObject, result: EnsureResult): RouterWrite | undefined {
  if (result.outcome === 'created') return { outcome: 'created', object: describeObject(want) };
  if (result.outcome === 'updated') return { outcome: 'updated', object: describeObject(want), changed: result.changed };
  return undefined;
}

/** A routing problem that needs a person; `reason` becomes the Degraded condition's reason. */
export class RouterError extends Error {
  constructor(readonly reason: 'ResourceConflict' | 'RouteAPIUnavailable', message: string) {
    super(message);
  }
}
