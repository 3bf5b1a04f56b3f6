// The controller's API client (api-client.ts) as plain JSON over HTTP.
//
// Per App converged, the controller reads and applies each owned object, patches the App's
// status and writes an Event. Through client-node each of these goes through undici's fetch
// (WHATWG streams, Request and Response objects) and its ObjectSerializer, which turns every
// answer into typed models: together most of the controller's CPU per App (npm run bench).
// Here they are sent with undici's request() over the pooled connection (clients.ts) and
// answered with JSON.parse. Paths come from a table of kinds given by the caller, so that no
// call needs discovery.
import type { KubernetesObject } from '@kubernetes/client-node';
import { request, type Dispatcher } from 'undici';
import { ApiStatusError, type ApiClient, type ObjectRef } from './api-client.js';

/** Headers (tokens, impersonation) and the connection pool for one request. */
export type Authenticate = () => Promise<{ headers: Record<string, string>; dispatcher?: Dispatcher }>;

/** Sends one request; `query` starts with "?" or is empty. Resolves with the parsed answer. */
export type SendJson = (method: Dispatcher.HttpMethod, path: string, query: string, body?: unknown, contentType?: string) => Promise<KubernetesObject>;

/** Sends requests to the API server at `server` and resolves with its parsed JSON answers. */
export function jsonSender(server: string, authenticate: Authenticate, userAgent: string): SendJson {
  const base = server.replace(/\/+$/, '');
  return async (method, path, query, body, contentType) => {
    const { headers, dispatcher } = await authenticate();
    const res = await request(`${base}${path}${query}`, {
      method,
      dispatcher,
      headers: {
        ...headers,
        'user-agent': userAgent,
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': contentType ?? 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode >= 300) throw new ApiStatusError(res.statusCode, text, method, path);
    return text === '' ? {} : JSON.parse(text);
  };
}

/** The resource (plural name in URL paths) of each kind a client reaches; every one is namespaced. */
export type ResourcePlurals = Readonly<Record<string, string>>;

const PATCH_CONTENT_TYPES = {
  'strategic-merge': 'application/strategic-merge-patch+json',
  merge: 'application/merge-patch+json',
} as const;
// JSON is YAML: an apply body needs no conversion.
const APPLY_CONTENT_TYPE = 'application/apply-patch+yaml';

const fieldManagerQuery = (fieldManager: string | undefined) => (fieldManager ? `?fieldManager=${encodeURIComponent(fieldManager)}` : '');

/** An ApiClient over `send` that reaches the kinds in `plurals`; any other kind fails the call. */
export function httpApiClient(send: SendJson, plurals: ResourcePlurals): ApiClient {
  function collectionPath(apiVersion: string | undefined, kind: string | undefined, namespace: string | undefined): string {
    const plural = kind !== undefined && Object.hasOwn(plurals, kind) ? plurals[kind] : undefined;
    if (!plural) throw new Error(`the API client has no resource for kind ${kind}`);
    if (!apiVersion || !namespace) throw new Error(`a ${kind} needs an apiVersion and a namespace`);
    return `${apiVersion.includes('/') ? '/apis/' : '/api/'}${apiVersion}/namespaces/${encodeURIComponent(namespace)}/${plural}`;
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
