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
import { goJson } from '../../shared/go-json.js';

/** A request body already written as JSON text, sent as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** Sends one request; `query` starts with "?" or is empty. Resolves with the parsed answer. */
export type SendJson = (method: string, path: string, query: string, body?: unknown, contentType?: string) => Promise<KubernetesObject>;

/** Times a request is sent again when the API server asks for it with Retry-After (client-go's default). */
export const RETRY_AFTER_MAX_RETRIES = 10;
/**
 * The most one call waits in all for Retry-After, in seconds; a call that would wait longer fails
 * and its App is retried by the work queue's backoff. A worker (and a graceful stop, which waits
 * for the reconciles in flight) is held no longer than this by a server asking to come back later.
 */
export const RETRY_AFTER_BUDGET_S = 10;

/**
 * How many seconds to wait before sending the request again, or undefined not to. As client-go
 * does: the server says when with Retry-After on a 429 (priority and fairness, max in-flight:
 * refused before anything was done, so any method may go again) and on some 5xx (an etcd
 * timeout, a server shutting down); those may come after a write was done, so only a read goes
 * again then. Retried at once by the work queue instead, every App's pass would add to the load
 * of a server that is shedding it.
 */
export function retryAfterSeconds(method: string, code: number, header: string | string[] | undefined): number | undefined {
  if (code !== 429 && !(code >= 500 && method === 'GET')) return undefined;
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}

const sleepMs = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A write not sent: `writeRefused` (jsonSender) gave the reason. */
export class WriteRefusedError extends Error {
  constructor(method: string, path: string, why: string) {
    super(`${method} ${path}: not sent: ${why}`);
  }
}

/**
 * Sends requests over `transport` and resolves with the API server's parsed JSON answers.
 * `writeRefused`: asked before every request other than a GET (a retry included), the reason it
 * may not be sent now, if any (a replica no longer sure it leads).
 */
export function jsonSender(transport: Transport, sleep: (ms: number) => Promise<void> = sleepMs, writeRefused?: () => string | undefined): SendJson {
  return async (method, path, query, body, contentType) => {
    let waitedS = 0;
    for (let retries = 0; ; retries++) {
      const why = method === 'GET' ? undefined : writeRefused?.();
      if (why !== undefined) throw new WriteRefusedError(method, path, why);
      const res = await transport.send(method, `${path}${query}`, body !== undefined ? { body: body instanceof JsonText ? body.text : JSON.stringify(body), contentType } : {});
      const text = await readText(res);
      const code = res.statusCode ?? 0;
      if (code >= 200 && code < 300) return text === '' ? {} : JSON.parse(text);
      const waitS = retries < RETRY_AFTER_MAX_RETRIES ? retryAfterSeconds(method, code, res.headers?.['retry-after']) : undefined;
      if (waitS === undefined || waitedS + waitS > RETRY_AFTER_BUDGET_S) throw new ApiStatusError(code, text, method, path);
      waitedS += waitS;
      await sleep(waitS * 1000);
    }
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
    // A ControllerRevision's data is kept as the bytes sent and compared byte for byte on every
    // update, each of which the API server encodes in Go's form first (shared/go-json.ts).
    create: async (obj, opts = {}) => send('POST', collectionPath(obj.apiVersion, obj.kind, obj.metadata?.namespace), opts.dryRun ? '?dryRun=All' : '', obj.kind === 'ControllerRevision' ? new JsonText(goJson(obj)!) : obj),
    apply: async (obj, { fieldManager, force }) =>
      send('PATCH', objectPath(obj), `?fieldManager=${encodeURIComponent(fieldManager)}&force=${force}`, obj, APPLY_CONTENT_TYPE),
    patch: async (ref, body, { type, fieldManager, subresource }) =>
      send('PATCH', subresource ? `${refPath(ref)}/${subresource}` : refPath(ref), fieldManagerQuery(fieldManager), body, PATCH_CONTENT_TYPES[type]),
    delete: async (ref, opts = {}) =>
      send('DELETE', refPath(ref), opts.propagationPolicy ? `?propagationPolicy=${opts.propagationPolicy}` : '', opts.preconditions ? { preconditions: opts.preconditions } : undefined),
  };
}
