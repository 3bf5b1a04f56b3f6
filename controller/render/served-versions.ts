// Which API version the cluster serves for each kind whose version changed across Kubernetes
// releases (PodDisruptionBudget, HorizontalPodAutoscaler) or that a cluster may not serve at all
// (HTTPRoute): found by discovery, so that Skiff renders what the server accepts. Pure.

/** API versions the cluster serves for the kinds whose version changed across releases. */
export interface ServedVersions {
  /** policy/v1 (1.21+) or policy/v1beta1; undefined when neither is served. */
  podDisruptionBudget?: 'policy/v1' | 'policy/v1beta1';
  /** autoscaling/v2 (1.23+) or autoscaling/v2beta2; undefined when neither is served. */
  horizontalPodAutoscaler?: 'autoscaling/v2' | 'autoscaling/v2beta2';
  /** gateway.networking.k8s.io/v1 where the Gateway API CRDs are installed. */
  httpRoute?: 'gateway.networking.k8s.io/v1';
}

/** The newest version of each kind that the server serves, from discovery's group/versions. */
export function pickVersions(served: ReadonlySet<string>): ServedVersions {
  const first = <T extends string>(candidates: T[]) => candidates.find((v) => served.has(v));
  return {
    podDisruptionBudget: first(['policy/v1', 'policy/v1beta1']),
    horizontalPodAutoscaler: first(['autoscaling/v2', 'autoscaling/v2beta2']),
    httpRoute: first(['gateway.networking.k8s.io/v1']),
  };
}
