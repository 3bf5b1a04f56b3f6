// API clients of the controller, all on one transport (transport.ts) and sending one User-Agent,
// so that its requests can be told apart in the API server's audit log: the reconciler's calls
// (api-client.ts), lists of every page, watches, discovery and leases.
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import type { Connection } from '../../shared/kube-connection.js';
import type { ApiClient } from './api-client.js';
import { httpApiClient, jsonSender, type ResourcePlurals, type SendJson } from './http-api-client.js';
import { leaseClient, type LeaseClient } from './leases.js';
import { makeTransport, type Transport } from '../../shared/kube-transport.js';
import { makeWatch, type Watch } from './watch.js';

export const USER_AGENT = 'skiff-controller/0.1.0';

/** The served API groups (GET /apis), as much of an APIGroupList as discovery reads. */
export interface ApiGroupList { groups: { name: string; versions: { groupVersion: string }[] }[] }
/** The resources of one served group/version (GET /apis/<group>/<version>), as much of an APIResourceList as discovery reads. */
export interface ApiResourceList { resources?: { name: string }[] }

export interface Clients {
  /** Every object of a collection (`/api/v1/namespaces/x/services`), page by page. */
  list<T extends KubernetesObject>(path: string, labelSelector?: string, opts?: ListOptions<T>): Promise<KubernetesListObject<T>>;
  /** API discovery: the groups and versions the server serves. */
  apiGroups(): Promise<ApiGroupList>;
  /** API discovery: the resources of one served group/version (`gateway.networking.k8s.io/v1`). */
  apiResources(groupVersion: string): Promise<ApiResourceList>;
  coordination: LeaseClient;
  watch: Watch;
  /** The controller's own client for the calls it makes per App (api-client.ts). */
  api: ApiClient;
  /** Closes idle connections (at the end of the process). */
  close(): void;
}

/** What the runtime itself writes (events.ts); callers add the kinds they write. */
const RUNTIME_RESOURCES: ResourcePlurals = { Event: 'events' };

/** Items per page of a list: big lists come in pieces, as client-go's pager takes them. */
export const LIST_PAGE_SIZE = 500;
/**
 * Items per page for kinds whose objects can be a MiB each and that anyone in a namespace can
 * create (ConfigMaps, Secrets): a page is whole in memory before each item is cut down.
 */
export const LARGE_ITEMS_PAGE_SIZE = 50;

export interface ListOptions<T> {
  /** Applied to each item as its page arrives, so that only what it keeps outlives the page (a cache transform). */
  each?: (item: T) => T;
  /** Items per page (LIST_PAGE_SIZE): smaller for kinds whose objects can be large, such as Secrets. */
  pageSize?: number;
}

/** Every page of a list, with the resourceVersion of the snapshot the pages were cut from. */
export async function listAll<T extends KubernetesObject>(send: SendJson, path: string, labelSelector?: string, opts: ListOptions<T> = {}): Promise<KubernetesListObject<T>> {
  const items: T[] = [];
  let next: string | undefined;
  for (;;) {
    const params = new URLSearchParams({ limit: String(opts.pageSize ?? LIST_PAGE_SIZE) });
    if (labelSelector) params.set('labelSelector', labelSelector);
    if (next) params.set('continue', next);
    const page = await send('GET', path, `?${params}`) as KubernetesListObject<T>;
    items.push(...(opts.each ? (page.items ?? []).map(opts.each) : (page.items ?? [])));
    next = page.metadata?._continue ?? (page.metadata as { continue?: string } | undefined)?.continue;
    if (!next) return { ...page, items };
  }
}

/**
 * Clients of the connection's cluster; `api` reaches the kinds in `resources` (and Events).
 * `writeRefused`: why `api` may not write now, if so (jsonSender); leases are written regardless.
 */
export function makeClients(conn: Connection, userAgent = USER_AGENT, resources: ResourcePlurals = {}, transport: Transport = makeTransport(conn, userAgent), writeRefused?: () => string | undefined): Clients {
  const send = jsonSender(transport);
  return {
    list: (path, labelSelector, opts) => listAll(send, path, labelSelector, opts),
    apiGroups: async () => (await send('GET', '/apis', '')) as unknown as ApiGroupList,
    apiResources: async (groupVersion) => (await send('GET', `/apis/${groupVersion}`, '')) as unknown as ApiResourceList,
    coordination: leaseClient(send),
    watch: makeWatch(transport),
    api: httpApiClient(writeRefused ? jsonSender(transport, undefined, writeRefused) : send, { ...RUNTIME_RESOURCES, ...resources }),
    close: () => transport.close(),
  };
}
