// What the reconciler reads objects from: an informer's cache, or an in-memory map in tests.
import type { KubernetesObject } from '@kubernetes/client-node';

export interface ObjectCache<T extends KubernetesObject = KubernetesObject> {
  get(name: string, namespace: string): T | undefined;
}

/** A cache that finds objects by the value of its index, as client-go's indexers do. */
export interface IndexedCache<T extends KubernetesObject = KubernetesObject> extends ObjectCache<T> {
  byIndex(value: string): readonly T[];
}

/** A cache that also lists what it holds (of one namespace, or all). */
export interface ListableCache<T extends KubernetesObject = KubernetesObject> extends ObjectCache<T> {
  list(namespace?: string): readonly T[];
}
