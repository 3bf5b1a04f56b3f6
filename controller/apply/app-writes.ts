// The reconciler's writes to the App itself: its status and the annotations it consumed.
import { API_VERSION, KIND, type App, type AppStatus } from '../../shared/app-types.js';
import type { ApiClient, ObjectRef, PatchOptions } from '../runtime/api-client.js';
import { pointerToken } from '../../shared/objects.js';
import { isNotFound, statusCode } from '../runtime/api-errors.js';
import { sameStatus, statusMergePatch } from '../state/status-compare.js';

/** The client that reads and writes Apps. */
export type AppClients = { api: Pick<ApiClient, 'read' | 'patch'> };

const appObjectRef = (namespace: string, name: string): ObjectRef => ({ apiVersion: API_VERSION, kind: KIND, namespace, name });
const STATUS_MERGE_PATCH: PatchOptions = { type: 'merge', subresource: 'status' };
const JSON_PATCH: PatchOptions = { type: 'json' };

/** The App whose status was written is gone: deleted since the cache showed it (404). */
export class AppGone extends Error {}

/**
 * Writes the status only when it changed, guarded by the App's resourceVersion (409 when the
 * cached App is stale). Resolves with the App as stored after the write, or undefined when there
 * was nothing to write; rejects with AppGone when the App no longer exists.
 */
export async function writeStatus(clients: AppClients, app: App, status: AppStatus): Promise<App | undefined> {
  if (sameStatus(app.status, status)) return undefined;
  const ref = appObjectRef(app.metadata.namespace!, app.metadata.name!);
  try {
    return (await clients.api.patch(ref, { metadata: { resourceVersion: app.metadata.resourceVersion }, status: statusMergePatch(app.status, status) }, STATUS_MERGE_PATCH)) as App;
  } catch (err) {
    if (isNotFound(err)) throw new AppGone(`App ${ref.namespace}/${ref.name} is gone`);
    throw err;
  }
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

/**
 * Removes annotations the controller acted on (skiff.dev/promote, skiff.dev/skip-canary, ...);
 * resolves with the App as stored after, or undefined when nothing was removed.
 *
 * Each removal holds only while the annotation still has the value this pass acted on (a JSON
 * patch `test` before each `remove`): a command given again while the pass ran (a second
 * `undo --skip-canary` to another revision) changed it, and removing it by name would drop that
 * command unseen. The API server then refuses the whole patch (422) and the App's watch brings
 * the new value to the next pass.
 */
export async function removeAnnotations(clients: AppClients, app: App, names: string[]): Promise<App | undefined> {
  if (names.length === 0) return undefined;
  const seen = app.metadata.annotations ?? {};
  const operations = names.flatMap((name) => {
    const path = `/metadata/annotations/${pointerToken(name)}`;
    return [{ op: 'test', path, value: seen[name] }, { op: 'remove', path }];
  });
  try {
    return (await clients.api.patch(appObjectRef(app.metadata.namespace!, app.metadata.name!), operations, JSON_PATCH)) as App;
  } catch (err) {
    if (statusCode(err) === 422) return undefined;
    throw err;
  }
}
