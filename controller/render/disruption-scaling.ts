// The App's PodDisruptionBudget and HorizontalPodAutoscaler (docs/api.md, "Real workloads"), in
// the API version the cluster serves (found by discovery). Pure.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { DefaultedApp } from '../../shared/defaults.js';
import { LABEL_APP, objectLabels } from '../../shared/labels.js';
import { ownerReference } from '../../shared/owner-reference.js';
import { runsSeveralPods } from '../../shared/render/pod-template.js';
import type { ServedVersions } from './served-versions.js';

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
      // Memory before CPU: API servers that store autoscalers as autoscaling/v1 (before 1.23) keep
      // the CPU target in its own field and give it back after the others, so the order they
      // return is this one; later ones keep the order sent. In the other order each apply would
      // be read back as changed (a write, an Updated Event and a warning for nothing).
      metrics: [...target('memory', autoscaling.targetMemoryUtilizationPercentage), ...target('cpu', autoscaling.targetCPUUtilizationPercentage)],
    },
  } as KubernetesObject;
}
