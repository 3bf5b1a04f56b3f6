// The reconciler's writes to the App itself: its status and the annotations it consumed.
import { GROUP, PLURAL, VERSION, type App, type AppStatus } from '../shared/app-types.js';
import type { Clients } from './runtime/clients.js';
import { MERGE_PATCH } from './runtime/lean-api.js';
import { sameStatus, statusMergePatch } from './status.js';

type AppClients = Pick<Clients, 'custom'>;

const target = (app: App) => ({ group: GROUP, version: VERSION, plural: PLURAL, namespace: app.metadata.namespace!, name: app.metadata.name! });

/**
 * Writes the status only when it changed, guarded by the App's resourceVersion (409 when the
 * cached App is stale). Resolves with whether it wrote.
 */
export async function writeStatus(clients: AppClients, app: App, status: AppStatus): Promise<boolean> {
  if (sameStatus(app.status, status)) return false;
  await clients.custom.patchNamespacedCustomObjectStatus(
    { ...target(app), body: { metadata: { resourceVersion: app.metadata.resourceVersion }, status: statusMergePatch(app.status, status) } },
    MERGE_PATCH,
  );
  return true;
}

/** Removes annotations the controller acted on (skiff.dev/promote, skiff.dev/abort). */
export async function removeAnnotations(clients: AppClients, app: App, names: string[]): Promise<void> {
  if (names.length === 0) return;
  await clients.custom.patchNamespacedCustomObject(
    { ...target(app), body: { metadata: { annotations: Object.fromEntries(names.map((n) => [n, null])) } } },
    MERGE_PATCH,
  );
}
