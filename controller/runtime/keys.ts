// Work-queue keys: `namespace/name`, as client-go's cache.MetaNamespaceKeyFunc makes them.
import type { KubernetesObject } from '@kubernetes/client-node';

export function objectKey(obj: KubernetesObject): string {
  return `${obj.metadata?.namespace}/${obj.metadata?.name}`;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
