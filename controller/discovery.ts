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
 * Looks again every `intervalMs`: a CRD installed (or removed) later, such as the Gateway API's,
 * is then watched without a restart. `onVersions` gets the versions found each time; its
 * failures and discovery's are logged and tried again at the next tick.
 */
export function rediscoverEvery(intervalMs: number, clients: Pick<Clients, 'apiGroups' | 'apiResources'>, log: Logger, onVersions: (versions: ServedVersions) => Promise<void>): { stop(): void } {
  const timer = setInterval(() => {
    served(clients)
      .then(onVersions)
      .catch((err: unknown) => log.debug({ err: describeError(err) }, 'API discovery failed; trying again later'));
  }, timerDelayMs(intervalMs));
  return { stop: () => clearInterval(timer) };
}
