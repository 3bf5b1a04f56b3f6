// TrafficRouter through a Gateway API HTTPRoute: the App's route is this router's whole
// business (its main rule, and during a canary the weights of its two backends), unlike NGINX
// where the main Ingress is a stable object and only the canary Ingress is the router's.
import type { DefaultedApp } from '../../../shared/defaults.js';
import { ownedName } from '../../../shared/labels.js';
import { deleteIfOwned, describeObject, ensureObject, type ApplyClients } from '../../apply/apply.js';
import { ownedFromCache } from '../../state/ownership.js';
import type { ObjectCache } from '../../runtime/cache.js';
import { resourceNotServed } from '../../runtime/api-errors.js';
import { RouterError, routerWrite, type RouterWrite, type TrafficRouter } from '../router.js';
import { desiredHTTPRoute, HTTP_ROUTE, routeCanaryWeight, routeReadiness, routesToCanary, withoutCanary, type HTTPRoute } from './render.js';

/** `routes` is undefined while the cluster serves no gateway.networking.k8s.io/v1 HTTPRoutes. */
export function gatewayRouter(clients: ApplyClients, routes: () => ObjectCache | undefined): TrafficRouter {
  const owned = (app: DefaultedApp) => {
    const cache = routes();
    return cache && (ownedFromCache(cache, app, app.metadata.name!) as HTTPRoute | undefined);
  };
  const canaryService = (app: DefaultedApp) => ownedName(app.metadata.name!, 'canary');
  async function apply(app: DefaultedApp, weight?: number): Promise<RouterWrite | undefined> {
    const cache = routes();
    if (!cache) {
      // Releases before 1.0 serve HTTPRoutes in v1beta1 only: installed, yet not served in v1.
      throw new RouterError('RouteAPIUnavailable', `the cluster does not serve ${HTTP_ROUTE.apiVersion} HTTPRoutes (install the Gateway API CRDs of release v1.0 or later), so spec.route cannot be served`);
    }
    const want = desiredHTTPRoute(app, weight);
    const result = await ensureObject(clients, app.metadata.uid!, want, cache.get(app.metadata.name!, app.metadata.namespace!)).catch((err: unknown) => {
      // The CRD removed since discovery last looked (it drops a kind only once two looks agree, a
      // minute or two): said as what it is, not as a raw 404 of a write that failed.
      const why = resourceNotServed(err);
      if (why !== undefined) throw new RouterError('RouteAPIUnavailable', `the API server no longer serves ${HTTP_ROUTE.apiVersion} HTTPRoutes (${why}): the Gateway API CRDs are not installed (removed, or not yet served), so spec.route cannot be served until they are`);
      throw err;
    });
    if (result.outcome === 'conflict') throw new RouterError('ResourceConflict', result.message);
    return routerWrite(want, result);
  }
  // An App switched to spec.ingress has no route to render: its stored route (which carries the
  // traffic until the Ingress does) loses only its canary part. No route, nothing to write.
  async function dropCanary(app: DefaultedApp): Promise<RouterWrite | undefined> {
    const route = owned(app);
    const want = route && withoutCanary(route, canaryService(app));
    if (!want) return undefined;
    const result = await ensureObject(clients, app.metadata.uid!, want, route);
    return result.outcome === 'updated' ? routerWrite(want, result) : undefined;
  }
  return {
    currentWeight: (app) => routeCanaryWeight(owned(app), canaryService(app)),
    exists: (app) => routesToCanary(owned(app), canaryService(app)),
    // Judged by every parent the App asks for, including those not yet on the stored route. An App
    // switched to spec.ingress: its stored route by the parents it has, while it is there.
    readiness: (app) => {
      if (!app.spec.route) return owned(app) ? routeReadiness(owned(app)) : { ready: true };
      const cache = routes();
      if (!cache) return { ready: false, served: false, message: `${HTTP_ROUTE.apiVersion} HTTPRoutes are not served` };
      const route = owned(app);
      // A route of that name that is not the App's (its Degraded says ResourceConflict) is not one "not created yet".
      if (!route && cache.get(app.metadata.name!, app.metadata.namespace!)) return { ready: false, served: false, message: `the HTTPRoute ${app.metadata.namespace}/${app.metadata.name} is not the App's` };
      return routeReadiness(route, app.spec.route.parentRefs);
    },
    setWeight: (app, weight) => apply(app, weight),
    stableOnly: (app) => (app.spec.route ? apply(app) : dropCanary(app)),
    retire: async (app) => {
      const route = owned(app);
      return (await deleteIfOwned(clients, app.metadata.uid!, HTTP_ROUTE, route)) ? { outcome: 'deleted', object: describeObject({ ...HTTP_ROUTE, metadata: route?.metadata }) } : undefined;
    },
    field: 'spec.route',
  };
}
