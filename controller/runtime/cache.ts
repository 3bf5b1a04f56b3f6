// What the reconciler reads objects from: an informer's cache, or an in-memory map in tests.
import type { KubernetesObject } from '@kubernetes/client-node';

export interface ObjectCache<T extends KubernetesObject = KubernetesObject> {
  get(name: string, namespace: string): T | undefined;
}
