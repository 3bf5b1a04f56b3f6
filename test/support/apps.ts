// Helpers the integration tests share: namespaces, Apps, conditions, and waiting for a state.
import type { KubernetesObject } from '@kubernetes/client-node';
import { API_VERSION, GROUP, KIND, PLURAL, VERSION, type App, type AppSpec, type Condition } from '../../shared/app-types.js';
import { createLogger, type Logger } from '../../shared/logger.js';
import type { KubeClients } from '../../dev/kube-clients.js';

let namespaces = 0;

/** A fresh namespace, so that each test sees only its own objects. */
export async function newNamespace(api: KubeClients, prefix = 't'): Promise<string> {
  const name = `${prefix}${++namespaces}-${Date.now().toString(36)}`;
  await api.core.createNamespace({ body: { metadata: { name } } });
  return name;
}

export async function createApp(api: KubeClients, namespace: string, name: string, spec: AppSpec, metadata: Partial<App['metadata']> = {}): Promise<App> {
  return (await api.custom.createNamespacedCustomObject({
    group: GROUP, version: VERSION, plural: PLURAL, namespace,
    body: { apiVersion: API_VERSION, kind: KIND, metadata: { ...metadata, name, namespace }, spec },
  })) as App;
}

export const getApp = async (api: KubeClients, namespace: string, name: string): Promise<App & KubernetesObject> =>
  (await api.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace, name })) as App & KubernetesObject;

export const condition = (app: App, type: string): Condition | undefined => app.status?.conditions?.find((c) => c.type === type);

/** Plain JSON (the typed clients return class instances, which deepEqual tells apart from literals). */
export const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/**
 * Waits out a window in which the test expects something NOT to happen (no write, no reconcile
 * by a standby, no end to an indefinite pause). An absence has no event to poll for, so this is
 * a timed wait on purpose, and `why` says what the window covers (it is logged at debug level
 * with SKIFF_LOG_LEVEL=debug). Wherever the window's end can be confirmed by something that does
 * happen (a resync reconciled every App, the audit log caught up), poll for that afterwards.
 */
export async function observeFor(ms: number, why: string): Promise<void> {
  (windowLog ??= testLogger('test')).debug({ ms }, `observing: ${why}`);
  await new Promise<void>((done) => setTimeout(done, ms));
}

let windowLog: Logger | undefined;

/** How many Apps exist in every namespace (what a controller watching all of them resyncs). */
export async function appCount(api: KubeClients): Promise<number> {
  const list = (await api.custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL })) as { items: unknown[] };
  return list.items.length;
}

/** A logger for a component under test: silent unless SKIFF_LOG_LEVEL asks for output. */
export function testLogger(component: string): Logger {
  const log = createLogger(component);
  log.level = process.env.SKIFF_LOG_LEVEL ?? 'silent';
  return log;
}

/** Resolves with whether `read` finds the object (false on 404). */
export async function exists(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return true;
  } catch (err) {
    if ((err as { code?: number }).code === 404) return false;
    throw err;
  }
}
