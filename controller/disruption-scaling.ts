// The App's PodDisruptionBudget and HorizontalPodAutoscaler (docs/api.md, "Real workloads"), in
// the API version the cluster serves (found by discovery). Pure.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { DefaultedApp } from '../shared/defaults.js';
import { LABEL_APP, objectLabels } from '../shared/labels.js';
import { ownerReference } from './ownership.js';
import { runsSeveralPods } from './pod-template.js';

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

const meta = (app: DefaultedApp) => ({
  name: app.metadata.name!,
  namespace: app.metadata.namespace,
  labels: objectLabels(app, 'stable'),
  ownerReferences: [ownerReference(app)],
});

/**
 * The PodDisruptionBudget when the App runs two or more pods: at most one unavailable unless
 * spec.disruption says otherwise. It selects every pod of the App, stable and canary.
 */
export function desiredPodDisruptionBudget(app: DefaultedApp, apiVersion: NonNullable<ServedVersions['podDisruptionBudget']>): KubernetesObject | undefined {
  if (!runsSeveralPods(app)) return undefined;
  const { maxUnavailable, minAvailable } = app.spec.disruption ?? {};
  const budget = minAvailable !== undefined ? { minAvailable } : { maxUnavailable: maxUnavailable ?? 1 };
  return {
    apiVersion,
    kind: 'PodDisruptionBudget',
    metadata: meta(app),
    spec: { ...budget, selector: { matchLabels: { [LABEL_APP]: app.metadata.name! } } },
  } as KubernetesObject;
}

/** The HorizontalPodAutoscaler of the stable Deployment, with spec.autoscaling. */
export function desiredHorizontalPodAutoscaler(app: DefaultedApp, apiVersion: NonNullable<ServedVersions['horizontalPodAutoscaler']>): KubernetesObject | undefined {
  const autoscaling = app.spec.autoscaling;
  if (!autoscaling) return undefined;
  const target = (name: 'cpu' | 'memory', averageUtilization: number | undefined) =>
    averageUtilization === undefined ? [] : [{ type: 'Resource', resource: { name, target: { type: 'Utilization', averageUtilization } } }];
  return {
    apiVersion,
    kind: 'HorizontalPodAutoscaler',
    metadata: meta(app),
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: app.metadata.name! },
      minReplicas: autoscaling.minReplicas ?? 1,
      maxReplicas: autoscaling.maxReplicas,
      metrics: [...target('cpu', autoscaling.targetCPUUtilizationPercentage), ...target('memory', autoscaling.targetMemoryUtilizationPercentage)],
    },
  } as KubernetesObject;
}
