// The controller's most frequent requests, sent as plain JSON over the pooled connection.
//
// Per App converged, the controller reads and applies each owned object, patches the App's
// status and writes an Event. Through client-node each of these goes through undici's fetch
// (WHATWG streams, Request and Response objects) and its ObjectSerializer, which turns every
// answer into typed models: together most of the controller's CPU per App (npm run bench).
// Here the same calls keep their client-node signatures, so callers and test fakes do not
// change, but the common forms are sent with undici's request() and answered with JSON.parse.
// Anything else (other kinds, other options) still goes through client-node.
import {
  PatchStrategy,
  setHeaderOptions,
  type CoreV1Api,
  type CoreV1ApiCreateNamespacedEventRequest,
  type CoreV1ApiPatchNamespacedEventRequest,
  type CustomObjectsApi,
  type CustomObjectsApiPatchNamespacedCustomObjectRequest,
  type CustomObjectsApiPatchNamespacedCustomObjectStatusRequest,
  type KubernetesObject,
  type KubernetesObjectApi,
} from '@kubernetes/client-node';
import { request, type Dispatcher } from 'undici';

/** The options of a JSON merge patch. Lean calls recognise this very object, so pass it as is. */
export const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** A non-2xx answer, shaped like client-node's ApiException (`code`, and the Status as `body`). */
export class ApiStatusError extends Error {
  constructor(
    readonly code: number,
    readonly body: string,
    method: string,
    path: string,
  ) {
    let reason = body.slice(0, 200);
    try {
      const status = JSON.parse(body) as { message?: unknown };
      if (typeof status.message === 'string') reason = status.message;
    } catch {
      // not a Status: keep the text
    }
    super(`${method} ${path}: HTTP ${code}: ${reason}`);
  }
}

/** Headers (tokens, impersonation) and the connection pool for one request. */
export type Authenticate = () => Promise<{ headers: Record<string, string>; dispatcher?: Dispatcher }>;

export type SendJson = (method: Dispatcher.HttpMethod, path: string, opts?: { query?: Record<string, string | boolean>; body?: unknown; contentType?: string }) => Promise<unknown>;

/** Sends one request to the API server at `server` and resolves with its parsed JSON answer. */
export function jsonSender(server: string, authenticate: Authenticate, userAgent: string): SendJson {
  const base = server.replace(/\/+$/, '');
  return async (method, path, opts = {}) => {
    const { headers, dispatcher } = await authenticate();
    const query = opts.query ? `?${new URLSearchParams(Object.entries(opts.query).map(([k, v]): [string, string] => [k, String(v)]))}` : '';
    const res = await request(`${base}${path}${query}`, {
      method,
      dispatcher,
      headers: {
        ...headers,
        'user-agent': userAgent,
        accept: 'application/json',
        ...(opts.body !== undefined ? { 'content-type': opts.contentType ?? 'application/json' } : {}),
      },
      body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode >= 300) throw new ApiStatusError(res.statusCode, text, method, path);
    return text === '' ? {} : JSON.parse(text);
  };
}

// The kinds the controller writes, by kind: every one is namespaced. Others go through client-node,
// which finds their resource by discovery.
const PLURALS: Record<string, string> = {
  Deployment: 'deployments',
  Service: 'services',
  Ingress: 'ingresses',
  PodDisruptionBudget: 'poddisruptionbudgets',
  HorizontalPodAutoscaler: 'horizontalpodautoscalers',
  HTTPRoute: 'httproutes',
};

/** The URL path of a namespaced object of a kind the controller writes, or undefined for any other. */
export function objectPath(obj: KubernetesObject): string | undefined {
  const { apiVersion, kind, metadata } = obj;
  const plural = kind ? PLURALS[kind] : undefined;
  if (!plural || !apiVersion || !metadata?.name || !metadata.namespace) return undefined;
  const group = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return `${group}/namespaces/${encodeURIComponent(metadata.namespace)}/${plural}/${encodeURIComponent(metadata.name)}`;
}

/** KubernetesObjectApi whose read and server-side apply of the controller's kinds are lean. */
export function leanObjects(api: KubernetesObjectApi, send: SendJson): KubernetesObjectApi {
  const lean = Object.create(api) as KubernetesObjectApi;
  lean.read = (async (spec: KubernetesObject, ...rest: unknown[]) => {
    const path = objectPath(spec);
    if (!path || rest.some((a) => a !== undefined)) return (api.read as (...a: unknown[]) => unknown).call(api, spec, ...rest);
    return send('GET', path);
  }) as KubernetesObjectApi['read'];
  lean.patch = (async (spec: KubernetesObject, pretty?: string, dryRun?: string, fieldManager?: string, force?: boolean, strategy?: string, ...rest: unknown[]) => {
    const path = objectPath(spec);
    if (!path || strategy !== PatchStrategy.ServerSideApply || !fieldManager || pretty !== undefined || dryRun !== undefined || rest.some((a) => a !== undefined)) {
      return (api.patch as (...a: unknown[]) => unknown).call(api, spec, pretty, dryRun, fieldManager, force, strategy, ...rest);
    }
    // JSON is YAML: the apply body needs no conversion.
    return send('PATCH', path, { query: { fieldManager, force: force ?? false }, body: spec, contentType: PatchStrategy.ServerSideApply });
  }) as KubernetesObjectApi['patch'];
  return lean;
}

/** A merge patch the lean path sends: MERGE_PATCH's options, and no dry run or force. */
const leanMergePatch = (param: { dryRun?: string; force?: boolean }, options: unknown) => options === MERGE_PATCH && param.dryRun === undefined && param.force === undefined;

/** Sends a JSON merge patch of the object at `path`. */
const sendMergePatch = (send: SendJson, path: string, param: { body: unknown; fieldManager?: string }) =>
  send('PATCH', path, { body: param.body, contentType: PatchStrategy.MergePatch, query: param.fieldManager ? { fieldManager: param.fieldManager } : undefined });

const customPath = (p: { group: string; version: string; namespace: string; plural: string; name: string }) =>
  `/apis/${p.group}/${p.version}/namespaces/${encodeURIComponent(p.namespace)}/${p.plural}/${encodeURIComponent(p.name)}`;

/** CustomObjectsApi whose JSON merge patches of an object and of its status are lean. */
export function leanCustomObjects(api: CustomObjectsApi, send: SendJson): CustomObjectsApi {
  const lean = Object.create(api) as CustomObjectsApi;
  lean.patchNamespacedCustomObjectStatus = ((param: CustomObjectsApiPatchNamespacedCustomObjectStatusRequest, options?: unknown) => {
    if (!leanMergePatch(param, options)) return api.patchNamespacedCustomObjectStatus(param, options as never);
    return sendMergePatch(send, `${customPath(param)}/status`, param);
  }) as CustomObjectsApi['patchNamespacedCustomObjectStatus'];
  lean.patchNamespacedCustomObject = ((param: CustomObjectsApiPatchNamespacedCustomObjectRequest, options?: unknown) => {
    if (!leanMergePatch(param, options)) return api.patchNamespacedCustomObject(param, options as never);
    return sendMergePatch(send, customPath(param), param);
  }) as CustomObjectsApi['patchNamespacedCustomObject'];
  return lean;
}

/** CoreV1Api whose Event create and merge patch are lean. */
export function leanEvents(api: CoreV1Api, send: SendJson): CoreV1Api {
  const lean = Object.create(api) as CoreV1Api;
  const events = (namespace: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`;
  lean.createNamespacedEvent = ((param: CoreV1ApiCreateNamespacedEventRequest, options?: unknown) => {
    if (options !== undefined || param.dryRun !== undefined || param.pretty !== undefined || param.fieldManager !== undefined) return api.createNamespacedEvent(param, options as never);
    return send('POST', events(param.namespace), { body: param.body });
  }) as CoreV1Api['createNamespacedEvent'];
  lean.patchNamespacedEvent = ((param: CoreV1ApiPatchNamespacedEventRequest, options?: unknown) => {
    if (!leanMergePatch(param, options)) return api.patchNamespacedEvent(param, options as never);
    return sendMergePatch(send, `${events(param.namespace)}/${encodeURIComponent(param.name)}`, param);
  }) as CoreV1Api['patchNamespacedEvent'];
  return lean;
}
