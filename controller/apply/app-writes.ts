// The reconciler's writes to the App itself: its status and the annotations it consumed.
import { API_VERSION, KIND, type App, type AppStatus } from '../../shared/app-types.js';
import type { ApiClient, ObjectRef, PatchOptions } from '../runtime/api-client.js';
import { isNotFound } from '../runtime/api-errors.js';
import { sameStatus, statusMergePatch } from '../state/status-compare.js';

/** The client that reads and writes Apps. */
export type AppClients = { api: Pick<ApiClient, 'read' | 'patch'> };

const appObjectRef = (namespace: string, name: string): ObjectRef => ({ apiVersion: API_VERSION, kind: KIND, namespace, name });
const STATUS_MERGE_PATCH: PatchOptions = { type: 'merge', subresource: 'status' };
const MERGE_PATCH: PatchOptions = { type: 'merge' };

/**
 * Writes the status only when it changed, guarded by the App's resourceVersion (409 when the
 * cached App is stale). Resolves with the App as stored after the write, or undefined when there
 * was nothing to write.
 */
export async function writeStatus(clients: AppClients, app: App, status: AppStatus): Promise<App | undefined> {
  if (sameStatus(app.status, status)) return undefined;
  return (await clients.api.patch(
    appObjectRef(app.metadata.namespace!, app.metadata.name!),
    { metadata: { resourceVersion: app.metadata.resourceVersion }, status: statusMergePatch(app.status, status) },
    STATUS_MERGE_PATCH,
  )) as App;
}

/** The App as the API server has it now, or undefined when it is gone. */
export async function readApp(clients: AppClients, namespace: string, name: string): Promise<App | undefined> {
  try {
    return (await clients.api.read(appObjectRef(namespace, name))) as App;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Removes annotations the controller acted on (skiff.dev/promote, skiff.dev/abort); resolves with the App as stored after. */
export async function removeAnnotations(clients: AppClients, app: App, names: string[]): Promise<App | undefined> {
  if (names.length === 0) return undefined;
  return (await clients.api.patch(
    appObjectRef(app.metadata.namespace!, app.metadata.name!),
    { metadata: { annotations: Object.fromEntries(names.map((n) => [n, null])) } },
    MERGE_PATCH,
  )) as App;
}
