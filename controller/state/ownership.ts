// Which App controls an object: the ownerReference with controller: true (there is at most one;
// the reference itself is shared/owner-reference.ts).
import type { KubernetesObject, V1OwnerReference } from '@kubernetes/client-node';
import { GROUP, KIND, type App } from '../../shared/app-types.js';
import type { ObjectCache } from '../runtime/cache.js';

export function controllerOf(obj: KubernetesObject): V1OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

const isAppReference = (ref: V1OwnerReference) => ref.kind === KIND && ref.apiVersion.split('/')[0] === GROUP;

/** The `namespace/name` key of the App controlling obj, if an App does. */
export function controllingAppKey(obj: KubernetesObject): string | undefined {
  const ref = controllerOf(obj);
  return ref && isAppReference(ref) ? `${obj.metadata?.namespace}/${ref.name}` : undefined;
}

export function isControlledBy(obj: KubernetesObject, appUid: string): boolean {
  const ref = controllerOf(obj);
  return ref !== undefined && isAppReference(ref) && ref.uid === appUid;
}

/** The cached object of that name in the App's namespace, when the App controls it. */
export function ownedFromCache<T extends KubernetesObject>(cache: ObjectCache<T>, app: App, name: string): T | undefined {
  const obj = cache.get(name, app.metadata.namespace!);
  return obj && isControlledBy(obj, app.metadata.uid!) ? obj : undefined;
}
