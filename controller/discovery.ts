// Which API versions the cluster serves for the kinds Skiff writes in more than one version
// (PodDisruptionBudget, HorizontalPodAutoscaler) or that it may not serve (HTTPRoute): found by
// discovery when the controller starts (retried until the API server answers), and again later.
import type { Logger } from '../shared/logger.js';
import { pickVersions, type ServedVersions } from './render/served-versions.js';
import { describeError } from './runtime/api-errors.js';
import type { Clients } from './runtime/clients.js';
import { servedGroupVersions, servedResources } from './runtime/discovery.js';
import { timerDelayMs } from './runtime/timer-delay.js';

/**
 * The versions to use, from the served group/versions; the Gateway API's only when its group
 * serves HTTPRoutes: a partial install (the Gateway CRD without the HTTPRoute one) would leave a
 * watch of httproutes that never syncs, and with it every App waiting.
 */
export async function served(clients: Pick<Clients, 'apiGroups' | 'apiResources'>): Promise<ServedVersions> {
  const versions = pickVersions(await servedGroupVersions(clients));
  if (versions.httpRoute && !(await servedResources(clients, versions.httpRoute)).has('httproutes')) return { ...versions, httpRoute: undefined };
  return versions;
}

export async function discoverVersions(clients: Pick<Clients, 'apiGroups' | 'apiResources'>, log: Logger, cancelled: () => boolean): Promise<ServedVersions> {
  for (let delayMs = 500; ; delayMs = Math.min(delayMs * 2, 10_000)) {
    try {
      const versions = await served(clients);
      log.info(versions, 'API versions found by discovery');
      return versions;
    } catch (err) {
      if (cancelled()) return {};
      log.warn({ err: describeError(err), retryInMs: delayMs }, 'API discovery failed; retrying');
      await new Promise((r) => setTimeout(r, delayMs));
    }
  }
}

/**
 * The versions to take from a rediscovery's `next`, given those in use (`current`) and what the
 * discovery before this one found (`previous`). A kind newly served is taken at once; a kind in
 * use that is gone or moved is so only once two discoveries in a row agree: an API server that is
 * starting lists only some of its groups in /apis for a few seconds (until its aggregator has
 * caught up), and one such answer took HTTPRoutes, PodDisruptionBudgets and autoscalers for gone
 * (every App with a route RouteAPIUnavailable, their watches stopped until the next look). Pure.
 */
export function settledVersions(current: ServedVersions, next: ServedVersions, previous: ServedVersions | undefined): ServedVersions {
  const settled: ServedVersions = { ...next };
  for (const kind of Object.keys(current) as (keyof ServedVersions)[]) {
    if (current[kind] === undefined || next[kind] === current[kind] || (previous !== undefined && previous[kind] === next[kind])) continue;
    (settled as Record<string, string | undefined>)[kind] = current[kind];
  }
  return settled;
}

/**
 * Looks again every `intervalMs`: a CRD installed (or removed) later, such as the Gateway API's,
 * is then watched without a restart. `onVersions` gets the versions found each time, settled
 * against `current()`, the versions in use (settledVersions); its failures and discovery's are
 * logged and tried again at the next tick.
 */
export function rediscoverEvery(intervalMs: number, clients: Pick<Clients, 'apiGroups' | 'apiResources'>, log: Logger, current: () => ServedVersions, onVersions: (versions: ServedVersions) => Promise<void>): { stop(): void } {
  let previous: ServedVersions | undefined;
  const timer = setInterval(() => {
    served(clients)
      .then((next) => {
        const settled = settledVersions(current(), next, previous);
        previous = next;
        return onVersions(settled);
      })
      .catch((err: unknown) => log.debug({ err: describeError(err) }, 'API discovery failed; trying again later'));
  }, timerDelayMs(intervalMs));
  return { stop: () => clearInterval(timer) };
}
