// TrafficRouter through ingress-nginx canary annotations: a second Ingress `<app>-canary` with
// the same host and path as the main one, `canary: "true"` and `canary-weight: "<n>"`.
import type { KubernetesObject, V1Ingress } from '@kubernetes/client-node';
import type { App } from '../../../shared/app-types.js';
import { ownedName } from '../../../shared/labels.js';
import { deleteIfOwned, ensureObject, type ApplyClients } from '../../apply.js';
import type { ObjectCache } from '../../reconcile.js';
import { isControlledBy } from '../../ownership.js';
import { canaryIngress, ingressWeight } from './render.js';
import type { RouteContext, TrafficRouter } from '../router.js';

const INGRESS = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' } as const;

export class ResourceConflictError extends Error {}

export function nginxRouter(clients: ApplyClients, ingresses: ObjectCache<KubernetesObject>): TrafficRouter {
  const owned = (app: App): V1Ingress | undefined => {
    const ingress = ingresses.get(ownedName(app.metadata.name!, 'canary'), app.metadata.namespace!);
    return ingress && isControlledBy(ingress, app.metadata.uid!) ? (ingress as V1Ingress) : undefined;
  };
  return {
    currentWeight: (app) => ingressWeight(owned(app)),
    exists: (app) => owned(app) !== undefined,
    async setWeight({ app, stableIngress, canaryHeader }: RouteContext, weight: number) {
      const want = canaryIngress(stableIngress, app.metadata.name!, weight, canaryHeader);
      const cached = ingresses.get(want.metadata!.name!, app.metadata.namespace!);
      const result = await ensureObject(clients, app.metadata.uid!, { ...INGRESS, ...want }, cached);
      if (result.outcome === 'conflict') throw new ResourceConflictError(result.message);
      return result.outcome === 'created' || result.outcome === 'updated';
    },
    remove: (app) => deleteIfOwned(clients.objects, app.metadata.uid!, INGRESS, owned(app)),
  };
}
