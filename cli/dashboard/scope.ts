// The collections the dashboard watches, one watch per kind for the whole dashboard: every App in
// its scope (a namespace, or all with -A), and of the other kinds only the objects an App owns
// (labelled skiff.dev/app) and the Events about Apps, so that the caches hold nothing else.
import { LABEL_APP } from '../../shared/labels.js';
import type { Api } from '../api.js';
import { ApiError } from '../errors.js';
import { ROUTE_VERSIONS } from '../paths.js';

export type Kind = 'apps' | 'deployments' | 'services' | 'ingresses' | 'routes' | 'revisions' | 'events';
export const OWNED_KINDS = ['deployments', 'services', 'ingresses', 'routes', 'revisions'] as const;
export type OwnedKind = (typeof OWNED_KINDS)[number];

const enc = encodeURIComponent;
const OWNED = `?labelSelector=${enc(LABEL_APP)}`;
const APP_EVENTS = `?fieldSelector=${enc('involvedObject.kind=App')}`;

/** `/apis/GROUP/VERSION[/namespaces/NS]/PLURAL`: the collection in a namespace, or in all of them. */
function collection(groupVersion: string, plural: string, ns: string | undefined): string {
  const base = groupVersion === 'v1' ? '/api/v1' : `/apis/${groupVersion}`;
  return `${base}${ns ? `/namespaces/${enc(ns)}` : ''}/${plural}`;
}

/** The path (with its query) each kind is watched at; HTTPRoutes only when `routeVersion` is served. */
export function watchPaths(ns: string | undefined, routeVersion: string | undefined): Partial<Record<Kind, string>> {
  return {
    apps: collection('skiff.dev/v1alpha1', 'apps', ns),
    deployments: `${collection('apps/v1', 'deployments', ns)}${OWNED}`,
    services: `${collection('v1', 'services', ns)}${OWNED}`,
    ingresses: `${collection('networking.k8s.io/v1', 'ingresses', ns)}${OWNED}`,
    revisions: `${collection('apps/v1', 'controllerrevisions', ns)}${OWNED}`,
    events: `${collection('v1', 'events', ns)}${APP_EVENTS}`,
    ...(routeVersion ? { routes: `${collection(`gateway.networking.k8s.io/${routeVersion}`, 'httproutes', ns)}${OWNED}` } : {}),
  };
}

/** The newest HTTPRoute version the cluster serves (discovery), or undefined when it serves none. */
export async function servedRouteVersion(api: Api): Promise<string | undefined> {
  for (const version of ROUTE_VERSIONS) {
    try {
      const list = await api.get<{ resources?: { name: string }[] }>(`/apis/gateway.networking.k8s.io/${version}`);
      if (list.resources?.some((r) => r.name === 'httproutes')) return version;
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }
  return undefined;
}
