// The informer caches of the kinds an App owns, as the reconciler reads them.
import type { IndexedCache, ObjectCache } from '../runtime/cache.js';

export interface OwnedCaches {
  deployments: ObjectCache;
  services: ObjectCache;
  ingresses: ObjectCache;
  /** Absent when the cluster serves no PodDisruptionBudget API Skiff knows. */
  podDisruptionBudgets?: ObjectCache;
  /** Absent when the cluster serves no HorizontalPodAutoscaler API Skiff knows. */
  horizontalPodAutoscalers?: ObjectCache;
  /** The Apps' histories (ControllerRevisions), indexed by historyIndex; absent: the controller keeps no history. */
  controllerRevisions?: IndexedCache;
}
