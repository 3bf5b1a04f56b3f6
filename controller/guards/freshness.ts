// Read your own writes, for one App: which of its objects the informer caches still show older
// than this controller's own last write or delete of them (runtime/expectations.ts). A pass that
// finds any waits for the watch to bring them; the watch event reconciles the App again.
import type { KubernetesObject } from '@kubernetes/client-node';
import { ownedName } from '../../shared/labels.js';
import type { OwnedCaches } from '../state/owned-caches.js';
import type { ObjectCache } from '../runtime/cache.js';
import { objectRef, type Expectations } from '../runtime/expectations.js';

/**
 * How long a pass waits for the caches to catch up with a write before it goes on without them
 * (the App is then read from the API server). The watch brings a write within milliseconds; five
 * seconds means the watch is broken, and the informer's restart (a new list) will catch up.
 */
export const STALE_CACHE_WAIT_MS = 5_000;

/** The caches of the App's objects: the owned kinds, and HTTPRoutes while the cluster serves them. */
export type FreshnessCaches = OwnedCaches & { httpRoutes?: ObjectCache };

export const appRef = (namespace: string, name: string) => objectRef('App', namespace, name);

const KINDS = ['Deployment', 'Service', 'Ingress', 'PodDisruptionBudget', 'HorizontalPodAutoscaler', 'HTTPRoute'] as const;

const cacheOf = (caches: FreshnessCaches, kind: (typeof KINDS)[number]): ObjectCache | undefined => ({
  Deployment: caches.deployments,
  Service: caches.services,
  Ingress: caches.ingresses,
  PodDisruptionBudget: caches.podDisruptionBudgets,
  HorizontalPodAutoscaler: caches.horizontalPodAutoscalers,
  HTTPRoute: caches.httpRoutes,
})[kind];

/** Every object an App may own, by kind and owned name. */
const owned = (namespace: string, name: string) =>
  KINDS.flatMap((kind) => [ownedName(name, 'stable'), ownedName(name, 'canary'), ownedName(name, 'preview')].map((n) => ({ kind, ref: objectRef(kind, namespace, n), name: n })));

/** The prefix of the expectations of the App's history entries (<app>-<number>). */
const historyPrefix = (namespace: string, name: string) => objectRef('ControllerRevision', namespace, `${name}-`);

/** The App's history entries this controller wrote or deleted and still expects in its cache. */
function historyRefs(expectations: Expectations, namespace: string, name: string): { ref: string; name: string }[] {
  const prefix = historyPrefix(namespace, name);
  return expectations.numberedRefs(prefix)
    .map((ref) => ({ ref, name: ref.slice(prefix.length - name.length - 1) }));
}

export const ownedRefs = (namespace: string, name: string) => owned(namespace, name).map((o) => o.ref);

/** Every ref of the App's objects the expectations hold, its history entries included. */
export const allOwnedRefs = (expectations: Expectations, namespace: string, name: string) =>
  [...ownedRefs(namespace, name), ...historyRefs(expectations, namespace, name).map((h) => h.ref)];

/**
 * The App's objects whose cached copies are older than this controller's own writes for it (the
 * App of uid `appUid`), and the longest time one of those writes has waited for its cache
 * (undefined when all are fresh).
 */
export function staleOwned(expectations: Expectations, namespace: string, name: string, caches: FreshnessCaches, appUid?: string): { refs: string[]; waitMs?: number } {
  const refs: string[] = [];
  let waitMs: number | undefined;
  if (expectations.size === 0) return { refs };
  for (const o of owned(namespace, name)) {
    const cache = cacheOf(caches, o.kind);
    // A kind no longer served has no cache: nothing of it can be acted upon.
    const cached: KubernetesObject | undefined = cache?.get(o.name, namespace);
    const waited = cache ? expectations.staleFor(o.ref, cached, appUid) : (expectations.forget(o.ref), undefined);
    if (waited === undefined) continue;
    refs.push(o.ref);
    waitMs = Math.max(waitMs ?? 0, waited);
  }
  for (const h of historyRefs(expectations, namespace, name)) {
    const cache = caches.controllerRevisions;
    const waited = cache ? expectations.staleFor(h.ref, cache.get(h.name, namespace), appUid) : (expectations.forget(h.ref), undefined);
    if (waited === undefined) continue;
    refs.push(h.ref);
    waitMs = Math.max(waitMs ?? 0, waited);
  }
  return { refs, waitMs };
}
