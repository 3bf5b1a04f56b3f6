// The App's HTTPRoute (gateway.networking.k8s.io/v1), pure: one rule matching spec.route.path
// that sends everything to the stable Service, or during a canary splits it by backendRef
// weights; with a canary header, rules for `<header>: always` (canary only) and `<header>: never`
// (stable only) first, as ingress-nginx's canary-by-header does.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { DefaultedApp } from '../../../shared/defaults.js';
import { objectLabels, ownedName } from '../../../shared/labels.js';
import { ownerReference } from '../../state/ownership.js';

export const HTTP_ROUTE = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute' } as const;

export interface BackendRef {
  name: string;
  port?: number;
  weight?: number;
  group?: string;
  kind?: string;
}

const GATEWAY_GROUP = 'gateway.networking.k8s.io';

type ParentRef = { name: string; namespace?: string; sectionName?: string; group?: string; kind?: string; port?: number };

export interface HTTPRoute extends KubernetesObject {
  spec?: {
    parentRefs?: ParentRef[];
    hostnames?: string[];
    rules?: { matches?: Record<string, unknown>[]; backendRefs?: BackendRef[] }[];
  };
  status?: {
    parents?: {
      parentRef: ParentRef;
      controllerName?: string;
      conditions?: { type: string; status: string; observedGeneration?: number; reason?: string; message?: string }[];
    }[];
  };
}

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

/** The canary's weight in a route's main rule; undefined when the route sends nothing to the canary. */
export function routeCanaryWeight(route: HTTPRoute | undefined, canaryService: string): number | undefined {
  const main = route?.spec?.rules?.at(-1);
  const ref = main?.backendRefs?.find((b) => b.name === canaryService);
  return ref ? (ref.weight ?? 1) : undefined;
}

/** Whether any rule of the route sends to the canary. */
export const routesToCanary = (route: HTTPRoute | undefined, canaryService: string) =>
  (route?.spec?.rules ?? []).some((r) => (r.backendRefs ?? []).some((b) => b.name === canaryService));

/**
 * Whether every parent of the route reports it Accepted and ResolvedRefs for its current
 * generation: only then does the data plane carry what the route says.
 */
export function routeReadiness(route: HTTPRoute | undefined): { ready: boolean; message?: string } {
  if (!route) return { ready: false, message: 'the HTTPRoute does not exist yet' };
  const generation = route.metadata?.generation;
  const namespace = route.metadata?.namespace;
  // A status entry is for the parentRef it repeats, group and kind included (with the Gateway
  // API's defaults): a Gateway and a Service (a mesh parent) may share a name.
  const group = (r: ParentRef) => r.group ?? GATEWAY_GROUP;
  const kind = (r: ParentRef) => r.kind ?? 'Gateway';
  for (const ref of route.spec?.parentRefs ?? []) {
    const entries = (route.status?.parents ?? []).filter((p) => p.parentRef.name === ref.name
      && (p.parentRef.namespace ?? namespace) === (ref.namespace ?? namespace)
      && (p.parentRef.sectionName ?? '') === (ref.sectionName ?? '')
      && group(p.parentRef) === group(ref) && kind(p.parentRef) === kind(ref));
    // Entries are per controller: one that no longer serves the parent (the Gateway's class moved
    // to another implementation) may leave its entry behind at an older generation. The entries
    // that report on the current generation decide, every one of them; without any, the first.
    const current = entries.filter((p) => p.conditions?.some((c) => c.observedGeneration === generation));
    const what = `parent ${kind(ref) === 'Gateway' ? '' : `${kind(ref)} `}${ref.namespace ?? namespace}/${ref.name}${ref.sectionName ? `/${ref.sectionName}` : ''}`;
    for (const parent of current.length ? current : [entries[0]]) {
      for (const type of ['Accepted', 'ResolvedRefs']) {
        const c = parent?.conditions?.find((x) => x.type === type);
        if (c?.status !== 'True' || c.observedGeneration !== generation) {
          return { ready: false, message: `${what} has not reported ${type}=True for generation ${generation}${c ? ` (${c.status}${c.reason ? `, ${c.reason}` : ''})` : ''}` };
        }
      }
    }
  }
  return { ready: true };
}
