// TrafficRouter through ingress-nginx canary annotations: a second Ingress `<app>-canary` with
// the same host and path as the main one, `canary: "true"` and `canary-weight: "<n>"`. The main
// Ingress is one of the App's stable objects; this router only adds and removes the canary one.
import type { V1Ingress } from '@kubernetes/client-node';
import type { DefaultedApp } from '../../../shared/defaults.js';
import { ownedName } from '../../../shared/labels.js';
import { deleteIfOwned, describeObject, ensureObject, type ApplyClients } from '../../apply/apply.js';
import { ownedFromCache } from '../../state/ownership.js';
import { desiredIngress } from '../../render/render.js';
import type { ObjectCache } from '../../runtime/cache.js';
import { RouterError, routerWrite, type RouterWrite, type TrafficRouter } from '../router.js';
import { canaryIngress, ingressWeight } from './render.js';
import { deletionState } from '../../state/stuck-deletion.js';

const INGRESS = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' } as const;

/** `nowMs`: the clock a deletion held by finalizers is timed by (injected by tests). */
export function nginxRouter(clients: ApplyClients, ingresses: ObjectCache, nowMs: () => number = Date.now): TrafficRouter {
  const owned = (app: DefaultedApp) => ownedFromCache(ingresses, app, ownedName(app.metadata.name!, 'canary')) as V1Ingress | undefined;
  const remove = async (app: DefaultedApp) => {
    const ingress = owned(app);
    // Deleted, yet held by finalizers for long: the canary's wind-down waits for it, and says so.
    const deletion = ingress && deletionState({ ...INGRESS, metadata: ingress.metadata }, nowMs());
    if (deletion?.stuck) throw new Error(deletion.message);
    return deleteIfOwned(clients, app.metadata.uid!, INGRESS, ingress);
  };
  const removed = async (app: DefaultedApp): Promise<RouterWrite | undefined> => {
    const ingress = owned(app);
    return (await remove(app)) ? { outcome: 'deleted', object: describeObject({ ...INGRESS, metadata: ingress?.metadata }) } : undefined;
  };
  return {
    currentWeight: (app) => ingressWeight(owned(app)),
    exists: (app) => owned(app) !== undefined,
    // ingress-nginx reports nothing back; the canary Ingress takes effect as it is written.
    readiness: () => ({ ready: true }),
    async setWeight(app, weight) {
      const want = canaryIngress(desiredIngress(app), app.metadata.name!, weight, app.spec.rollout.canaryHeader);
      const cached = ingresses.get(want.metadata!.name!, app.metadata.namespace!);
      const ingress = { ...INGRESS, ...want };
      const result = await ensureObject(clients, app.metadata.uid!, ingress, cached);
      if (result.outcome === 'conflict') throw new RouterError('ResourceConflict', result.message);
      return routerWrite(ingress, result);
    },
    stableOnly: removed,
    retire: removed,
    field: 'spec.ingress',
  };
}
