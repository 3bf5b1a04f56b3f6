// What the controller's caches keep of each object. managedFields is most of an object's size
// and nothing reads it, except one fact the replicas handover needs: whether Skiff's own apply
// set a Deployment's spec.replicas. That fact is kept as a one-entry summary; the rest goes.
import type { KubernetesObject } from '@kubernetes/client-node';
import { FIELD_MANAGER } from '../../shared/labels.js';
import { appliesReplicas } from './handover.js';

const REPLICAS_SUMMARY = [{ manager: FIELD_MANAGER, operation: 'Apply', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }];

export function leanObject<T extends KubernetesObject>(obj: T): T {
  const meta = obj.metadata;
  if (!meta?.managedFields) return obj;
  if (appliesReplicas(obj)) meta.managedFields = REPLICAS_SUMMARY as typeof meta.managedFields;
  else delete meta.managedFields;
  return obj;
}

/**
 * A history entry (ControllerRevision) as the cache keeps it: without managedFields and without
 * its data, the pod-template fields it records, which only `kubectl skiff undo` reads. The
 * controller plans the history from names, labels, annotations and numbers.
 */
export function leanRevision<T extends KubernetesObject>(obj: T): T {
  delete (obj as { data?: unknown }).data;
  return leanObject(obj);
}
