// The controller's API client (api-client.ts) as plain JSON over HTTP.
//
// Per App converged, the controller reads and applies each owned object, patches the App's
// status and writes an Event. Each is one request on the pooled connection (transport.ts),
// answered with JSON.parse: no model classes to fill (client-node's ObjectSerializer once cost
// most of the controller's CPU per App, npm run bench). Paths come from a table of kinds given
// by the caller, so that no call needs discovery.
import type { KubernetesObject } from '@kubernetes/client-node';
import { ApiStatusError, type ApiClient, type ObjectRef } from './api-client.js';
import { readText, type Transport } from '../../shared/kube-transport.js';

/** Sends one request; `query` starts with "?" or is empty. Resolves with the parsed answer. */
export type SendJson = (method: string, path: string, query: string, body?: unknown, contentType?: string) => Promise<KubernetesObject>;

/** Sends requests over `transport` and resolves with the API server's parsed JSON answers. */
export function jsonSender(transport: Transport): SendJson {
  return async (method, path, query, body, contentType) => {
    const res = await transport.send(method, `${path}${query}`, body !== undefined ? { body: JSON.stringify(body), contentType } : {});
    const text = await readText(res);
    const code = res.statusCode ?? 0;
    if (code < 200 || code >= 300) throw new ApiStatusError(code, text, method, path);
    return text === '' ? {} : JSON.parse(text);
  };
}

/** The resource (plural name in URL paths) of each kind a client reaches; every one is namespaced. */
export type ResourcePlurals = Readonly<Record<string, string>>;

const PATCH_CONTENT_TYPES = {
  'strategic-merge': 'application/strategic-merge-patch+json',
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
} as const;
// JSON is YAML: an apply body needs no conversion.
const APPLY_CONTENT_TYPE = 'application/apply-patch+yaml';

const fieldManagerQuery = (fieldManager: string | undefined) => (fieldManager ? `?fieldManager=${encodeURIComponent(fieldManager)}` : '');

/** The path of a namespace's collection of a resource (`/apis/apps/v1/namespaces/shop/deployments`). */
export const namespacedCollectionPath = (apiVersion: string, namespace: string, plural: string): string =>
  `${apiVersion.includes('/') ? '/apis/' : '/api/'}${apiVersion}/namespaces/${encodeURIComponent(namespace)}/${plural}`;

/** An ApiClient over `send` that reaches the kinds in `plurals`; any other kind fails the call. */
export function httpApiClient(send: SendJson, plurals: ResourcePlurals): ApiClient {
  function collectionPath(apiVersion: string | undefined, kind: string | undefined, namespace: string | undefined): string {
    const plural = kind !== undefined && Object.hasOwn(plurals, kind) ? plurals[kind] : undefined;
    if (!plural) throw new Error(`the API client has no resource for kind ${kind}`);
    if (!apiVersion || !namespace) throw new Error(`a ${kind} needs an apiVersion and a namespace`);
    return namespacedCollectionPath(apiVersion, namespace, plural);
  }
  const refPath = (ref: ObjectRef) => `${collectionPath(ref.apiVersion, ref.kind, ref.namespace)}/${encodeURIComponent(ref.name)}`;
  function objectPath(obj: KubernetesObject): string {
    const name = obj.metadata?.name;
    if (!name) throw new Error(`a ${obj.kind} needs a name`);
    return `${collectionPath(obj.apiVersion, obj.kind, obj.metadata?.namespace)}/${encodeURIComponent(name)}`;
  }
  // async: a path that cannot be made rejects like any failed call.
  return {
    read: async (ref) => send('GET', refPath(ref), ''),
    create: async (obj) => send('POST', collectionPath(obj.apiVersion, obj.kind, obj.metadata?.namespace), '', obj),
    apply: async (obj, { fieldManager, force }) =>
      send('PATCH', objectPath(obj), `?fieldManager=${encodeURIComponent(fieldManager)}&force=${force}`, obj, APPLY_CONTENT_TYPE),
    patch: async (ref, body, { type, fieldManager, subresource }) =>
      send('PATCH', subresource ? `${refPath(ref)}/${subresource}` : refPath(ref), fieldManagerQuery(fieldManager), body, PATCH_CONTENT_TYPES[type]),
    delete: async (ref, opts = {}) =>
      send('DELETE', refPath(ref), opts.propagationPolicy ? `?propagationPolicy=${opts.propagationPolicy}` : '', opts.preconditions ? { preconditions: opts.preconditions } : undefined),
  };
}
