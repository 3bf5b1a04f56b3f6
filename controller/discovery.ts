// Which API versions to write PodDisruptionBudgets and HorizontalPodAutoscalers in, found by
// discovery when the controller starts (retried until the API server answers).
import type { Logger } from '../shared/logger.js';
import { pickVersions, type ServedVersions } from './render/served-versions.js';
import { describeError } from './runtime/api-errors.js';
import type { Clients } from './runtime/clients.js';
import { servedGroupVersions } from './runtime/discovery.js';

export async function discoverVersions(clients: Pick<Clients, 'apis'>, log: Logger, cancelled: () => boolean): Promise<ServedVersions> {
  for (let delayMs = 500; ; delayMs = Math.min(delayMs * 2, 10_000)) {
    try {
      const versions = pickVersions(await servedGroupVersions(clients));
      log.info(versions, 'API versions found by discovery');
      return versions;
    } catch (err) {
      if (cancelled()) return {};
      log.warn({ err: describeError(err), retryInMs: delayMs }, 'API discovery failed; retrying');
      await new Promise((r) => setTimeout(r, delayMs));
    }
  }
}
