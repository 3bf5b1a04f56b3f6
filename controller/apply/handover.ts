// Handing a field over to another controller under server-side apply. A field the `skiff`
// manager applied and then leaves out of its next apply is removed (and re-defaulted: replicas
// would fall to 1). Before Skiff stops setting a Deployment's replicas for an autoscaler, a
// second manager applies the current value, so that the field has another owner and keeps its
// value; the autoscaler takes it from there (the way the Kubernetes documentation hands
// replicas over to a HorizontalPodAutoscaler).
import type { KubernetesObject } from '@kubernetes/client-node';
import { FIELD_MANAGER } from '../../shared/labels.js';
import type { ApiClient } from '../runtime/api-client.js';
import { statusCode } from '../runtime/api-errors.js';

export const HANDOVER_FIELD_MANAGER = 'skiff-handover';

type ManagedFields = { manager?: string; operation?: string; fieldsV1?: Record<string, unknown> }[];

/** Whether `manager` applied spec.replicas of the object, by its managedFields. */
export function appliesReplicas(obj: KubernetesObject, manager = FIELD_MANAGER): boolean {
  const entries = (obj.metadata?.managedFields ?? []) as ManagedFields;
  return entries.some((e) => e.manager === manager && e.operation === 'Apply' && (e.fieldsV1?.['f:spec'] as Record<string, unknown> | undefined)?.['f:replicas'] !== undefined);
}

/** Needed before applying `desired` over `current`: desired leaves replicas out, Skiff still owns them. */
export function needsReplicasHandover(desired: KubernetesObject, current: KubernetesObject): boolean {
  return desired.kind === 'Deployment' && (desired as { spec?: { replicas?: number } }).spec?.replicas === undefined && appliesReplicas(current);
}

export async function handOverReplicas(api: Pick<ApiClient, 'apply' | 'read'>, current: KubernetesObject): Promise<void> {
  const body = (from: KubernetesObject) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: from.metadata!.name!, namespace: from.metadata!.namespace, resourceVersion: from.metadata!.resourceVersion },
    spec: { replicas: (from as { spec?: { replicas?: number } }).spec?.replicas },
  });
  try {
    await api.apply(body(current), { fieldManager: HANDOVER_FIELD_MANAGER, force: true });
  } catch (err) {
    // The version is a precondition (the count handed over is the one read): a cached copy older
    // than a write since (the Deployment controller's, a scale) is refused with 409. Once more,
    // from the object as it is now; a second refusal is the pass's error.
    if (statusCode(err) !== 409) throw err;
    const live = await api.read({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: current.metadata!.namespace!, name: current.metadata!.name! });
    if (!appliesReplicas(live)) return;
    await api.apply(body(live), { fieldManager: HANDOVER_FIELD_MANAGER, force: true });
  }
}
