// The App's HTTPRoute (gateway.networking.k8s.io/v1), pure: one rule matching spec.route.path
// that sends everything to the stable Service, or during a canary splits it by backendRef
// weights; with a canary header, rules for `<header>: always` (canary only) and `<header>: never`
// (stable only) first, as ingress-nginx's canary-by-header does.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { DefaultedApp } from '../../../shared/defaults.js';
import { objectLabels, ownedName } from '../../../shared/labels.js';
import { ownerReference } from '../../../shared/owner-reference.js';
import { routeReadiness, type RouteWithStatus } from '../../../shared/route-readiness.js';

export const HTTP_ROUTE = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute' } as const;

export interface BackendRef {
  name: string;
  port?: number;
  weight?: number;
  group?: string;
  kind?: string;
}

export interface HTTPRoute extends KubernetesObject {
  status?: RouteWithStatus['status'];
  spec?: RouteWithStatus['spec'] & {
    hostnames?: string[];
    rules?: { matches?: Record<string, unknown>[]; backendRefs?: BackendRef[] }[];
  };
}

// What the route's status says (shared with the dashboard, which shows it).
export { routeReadiness };

/** The route; `canaryWeight` splits the main rule (undefined: stable only). Requires spec.route. */
export function desiredHTTPRoute(app: DefaultedApp, canaryWeight?: number): HTTPRoute {
  const route = app.spec.route!;
  const name = app.metadata.name!;
  const port = app.spec.service.port;
  const path = { path: { type: 'PathPrefix', value: route.path } };
  const stable: BackendRef = { name: ownedName(name, 'stable'), port, weight: 100 };
  const canary: BackendRef = { name: ownedName(name, 'canary'), port, weight: canaryWeight ?? 0 };
  const rules: NonNullable<HTTPRoute['spec']>['rules'] = [];
  const header = app.spec.rollout.canaryHeader;
  if (canaryWeight !== undefined && header) {
    rules.push({ matches: [{ ...path, headers: [{ type: 'Exact', name: header, value: 'always' }] }], backendRefs: [{ ...canary, weight: 100 }] });
    rules.push({ matches: [{ ...path, headers: [{ type: 'Exact', name: header, value: 'never' }] }], backendRefs: [{ ...stable }] });
  }
  rules.push({
    matches: [path],
    backendRefs: canaryWeight === undefined ? [stable] : [{ ...stable, weight: 100 - canaryWeight }, canary],
  });
  return {
    ...HTTP_ROUTE,
    metadata: { name, namespace: app.metadata.namespace, labels: objectLabels(app, 'stable'), ownerReferences: [ownerReference(app)] },
    spec: {
      parentRefs: route.parentRefs.map((p) => ({ ...p })),
      ...(route.hostnames?.length ? { hostnames: [...route.hostnames] } : {}),
      rules,
    },
  };
}

/**
 * The rule carrying the weights: one matching by path alone (the canaryHeader rules come before
 * it), the one sending to the canary if any does. Skiff writes it last, but a rule added or moved
 * by hand is drift, put back on the next write: read as the canary's share, it would make the
 * weight fall to 0 and rise again.
 */
function mainRule(route: HTTPRoute | undefined, canaryService: string) {
  const rules = route?.spec?.rules ?? [];
  const byPathAlone = rules.filter((r) => !(r.matches ?? []).some((m) => Array.isArray(m.headers) && m.headers.length > 0));
  return byPathAlone.find((r) => (r.backendRefs ?? []).some((b) => b.name === canaryService)) ?? byPathAlone.at(-1) ?? rules.at(-1);
}

/**
 * The canary's share of the route's main rule, in percent; undefined when the route sends nothing
 * to the canary. Backend weights are relative (the Gateway API's rule): Skiff writes the two to
 * add up to 100, so its own weights read as they were written; weights set otherwise (by hand,
 * canary 100 beside stable 80) read as the share they give, never as more than all the traffic.
 */
export function routeCanaryWeight(route: HTTPRoute | undefined, canaryService: string): number | undefined {
  const main = mainRule(route, canaryService);
  const ref = main?.backendRefs?.find((b) => b.name === canaryService);
  if (!ref) return undefined;
  const weightOf = (b: { weight?: number }) => Math.max(b.weight ?? 1, 0);
  const total = (main?.backendRefs ?? []).reduce((sum, b) => sum + weightOf(b), 0);
  return total > 0 ? Math.round((weightOf(ref) * 100) / total) : 0;
}

/** Whether any rule of the route sends to the canary. */
export const routesToCanary = (route: HTTPRoute | undefined, canaryService: string) =>
  (route?.spec?.rules ?? []).some((r) => (r.backendRefs ?? []).some((b) => b.name === canaryService));

/**
 * The stored route with its canary part taken out (the header rules and the canary's backendRef;
 * the main rule all to its other backends), everything else as stored: for an App that no longer
 * has spec.route (switched to spec.ingress) whose route still carries its traffic until the
 * Ingress does, and whose canary must carry none. Undefined when the route sends nothing to the canary.
 */
export function withoutCanary(route: HTTPRoute, canaryService: string): HTTPRoute | undefined {
  if (!routesToCanary(route, canaryService)) return undefined;
  const main = mainRule(route, canaryService);
  const backendRefs = (main?.backendRefs ?? []).filter((b) => b.name !== canaryService).map((b) => ({ ...b, weight: 100 }));
  const { name, namespace, labels, ownerReferences } = route.metadata ?? {};
  return {
    ...HTTP_ROUTE,
    metadata: { name, namespace, labels, ownerReferences },
    spec: {
      parentRefs: route.spec?.parentRefs,
      ...(route.spec?.hostnames ? { hostnames: route.spec.hostnames } : {}),
      rules: [{ ...main, backendRefs }],
    },
  };
}
