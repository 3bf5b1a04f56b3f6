// API paths of what the plugin reads and writes, and reading an App with clear 404s.
import { LABEL_APP } from '../shared/labels.js';
import { ApiError, AppNotFoundError, NotFoundError } from './errors.js';
import type { Api } from './api.js';
import type { CliApp } from './model.js';

const enc = encodeURIComponent;

export const appsPath = (ns?: string) => (ns ? `/apis/skiff.dev/v1alpha1/namespaces/${enc(ns)}/apps` : '/apis/skiff.dev/v1alpha1/apps');
export const appPath = (ns: string, name: string) => `${appsPath(ns)}/${enc(name)}`;
/** Every object of the App in a collection: `?labelSelector=skiff.dev/app=NAME`. */
export const ownedQuery = (name: string) => `?labelSelector=${enc(`${LABEL_APP}=${name}`)}`;
export const OWNED_COLLECTIONS = {
  revisions: (ns: string) => `/apis/apps/v1/namespaces/${enc(ns)}/controllerrevisions`,
  deployments: (ns: string) => `/apis/apps/v1/namespaces/${enc(ns)}/deployments`,
  services: (ns: string) => `/api/v1/namespaces/${enc(ns)}/services`,
  ingresses: (ns: string) => `/apis/networking.k8s.io/v1/namespaces/${enc(ns)}/ingresses`,
} as const;
/** HTTPRoute versions, newest first: a cluster serves v1 (Gateway API 1.0+) or only v1beta1. */
export const ROUTE_VERSIONS = ['v1', 'v1beta1'];
export const routesPath = (ns: string, version: string) => `/apis/gateway.networking.k8s.io/${version}/namespaces/${enc(ns)}/httproutes`;

/** A 404 on a collection of Apps: the CRD is not installed. */
export const APP_API_MISSING = 'the App API (apps.skiff.dev/v1alpha1) is not installed in this cluster: install Skiff first (kubectl apply -k config/default)';

export function appApiMissing(err: unknown): never {
  if (err instanceof ApiError && err.code === 404) throw new NotFoundError(APP_API_MISSING);
  throw err;
}

/** A Kubernetes object name (DNS-1123 subdomain, at most 253 characters): what an App can be called. */
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Refuses an APP that no object can be called before any request: the API server takes an encoded
 * "/" for a path separator, so that kubectl's `app/web` form asked for the App "app" and a
 * subresource (a 404 taken for the App API missing), and `web/status` for web's status.
 */
function checkName(ns: string, name: string): void {
  if (name.length <= 253 && OBJECT_NAME.test(name)) return;
  const alone = name.includes('/') ? `; give the name alone: ${name.slice(name.lastIndexOf('/') + 1)}` : '';
  throw new NotFoundError(`app "${name}" not found in namespace "${ns}": not a name an App can have (lower-case letters, digits, "-" and ".", at most 253${alone})`);
}

/**
 * What a request for the App `name` failed with, as the user is told it: its 404 is the App
 * missing (kubectl's NotFound line) or, without the App's name in it, the App API itself. Reading
 * and writing the App say the same, so that an App deleted between a command's read and its write
 * is told as one the command could not read.
 */
export const appMissing = (ns: string, name: string) => (err: unknown): never => {
  if (err instanceof ApiError && err.code === 404 && err.message.includes(`"${name}" not found`)) {
    throw new AppNotFoundError(ns, name, err);
  }
  return appApiMissing(err);
};

export async function readApp(api: Api, ns: string, name: string): Promise<CliApp> {
  checkName(ns, name);
  return api.get<CliApp>(appPath(ns, name)).catch(appMissing(ns, name));
}

/** The first HTTPRoute version the cluster serves, or undefined when it serves none. */
export async function routeVersion(api: Api, ns: string): Promise<string | undefined> {
  for (const version of ROUTE_VERSIONS) {
    try {
      await api.get(`${routesPath(ns, version)}?limit=1`);
      return version;
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }
  return undefined;
}
