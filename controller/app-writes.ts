// The reconciler's writes to the App itself: its status and the annotations it consumed.
import { GROUP, PLURAL, VERSION, type App, type AppStatus } from '../shared/app-types.js';
import type { Clients } from './runtime/clients.js';
import { isNotFound } from './runtime/api-errors.js';
import { MERGE_PATCH } from './runtime/lean-api.js';
import { sameStatus, statusMergePatch } from './status.js';

type AppClients = Pick<Clients, 'custom'>;

const target = (app: App) => ({ group: GROUP, version: VERSION, plural: PLURAL, namespace: app.metadata.namespace!, name: app.metadata.name! });

/**
 * Writes the status only when it changed, guarded by the App's resourceVersion (409 when the
 * cached App is stale). Resolves with the App as stored after the write, or undefined when there
 * was nothing to write.
 */
export async function writeStatus(clients: AppClients, app: App, status: AppStatus): Promise<App | undefined> {
  if (sameStatus(app.status, status)) return undefined;
  return (await clients.custom.patchNamespacedCustomObjectStatus(
    { ...target(app), body: { metadata: { resourceVersion: app.metadata.resourceVersion }, status: statusMergePatch(app.status, status) } },
    MERGE_PATCH,
  )) as App;
}

/** The App as the API server has it now, or undefined when it is gone. */
export async function readApp(clients: AppClients, namespace: string, name: string): Promise<App | undefined> {
  try {
    return (await clients.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace, name })) as App;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Removes annotations the controller acted on (skiff.dev/promote, skiff.dev/abort); resolves with the App as stored after. */
export async function removeAnnotations(clients: AppClients, app: App, names: string[]): Promise<App | undefined> {
  if (names.length === 0) return undefined;
  return (await clients.custom.patchNamespacedCustomObject(
    { ...target(app), body: { metadata: { annotations: Object.fromEntries(names.map((n) => [n, null])) } } },
    MERGE_PATCH,
  )) as App;
}
