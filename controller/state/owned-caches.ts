// The informer caches of the kinds an App owns, as the reconciler reads them.
import type { ListableCache, ObjectCache } from '../runtime/cache.js';

export interface OwnedCaches {
  deployments: ObjectCache;
  services: ObjectCache;
  ingresses: ObjectCache;
  /** Absent when the cluster serves no PodDisruptionBudget API Skiff knows. */
  podDisruptionBudgets?: ObjectCache;
  /** Absent when the cluster serves no HorizontalPodAutoscaler API Skiff knows. */
  horizontalPodAutoscalers?: ObjectCache;
  /** The App's history (ControllerRevisions); absent: the controller keeps no history. */
  controllerRevisions?: ListableCache;
}
