// TrafficRouter through ingress-nginx canary annotations: a second Ingress `<app>-canary` with
// the same host and path as the main one, `canary: "true"` and `canary-weight: "<n>"`.
import type { V1Ingress } from '@kubernetes/client-node';
import type { DefaultedApp } from '../../../shared/defaults.js';
import { ownedName } from '../../../shared/labels.js';
import { deleteIfOwned, ensureObject, type ApplyClients } from '../../apply.js';
import { ownedFromCache } from '../../ownership.js';
import type { ObjectCache } from '../../runtime/cache.js';
import { RouterConflictError, type RouteContext, type TrafficRouter } from '../router.js';
import { canaryIngress, ingressWeight } from './render.js';

const INGRESS = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' } as const;

export function nginxRouter(clients: ApplyClients, ingresses: ObjectCache): TrafficRouter {
  const owned = (app: DefaultedApp) => ownedFromCache(ingresses, app, ownedName(app.metadata.name!, 'canary')) as V1Ingress | undefined;
  return {
    currentWeight: (app) => ingressWeight(owned(app)),
    exists: (app) => owned(app) !== undefined,
    async setWeight({ app, stableIngress }: RouteContext, weight: number) {
      const want = canaryIngress(stableIngress, app.metadata.name!, weight, app.spec.rollout.canaryHeader);
      const cached = ingresses.get(want.metadata!.name!, app.metadata.namespace!);
      const result = await ensureObject(clients, app.metadata.uid!, { ...INGRESS, ...want }, cached);
      if (result.outcome === 'conflict') throw new RouterConflictError(result.message);
      return result.outcome === 'created' || result.outcome === 'updated';
    },
    remove: (app) => deleteIfOwned(clients.objects, app.metadata.uid!, INGRESS, owned(app)),
  };
}
