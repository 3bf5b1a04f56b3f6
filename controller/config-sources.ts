// The watches of spec.rollout.trackConfig (docs/api.md, "Config changes"): the owned copies, and
// the sources tracked Apps reference. Their events only enqueue App keys.
//
// What is cached, and why. A cluster has many ConfigMaps (every namespace has kube-root-ca.crt,
// Helm keeps releases in Secrets) and most are none of Skiff's business, so nothing here caches
// every ConfigMap of the cluster:
// - Owned copies: one informer per kind, selected by Skiff's labels and the shard (as the
//   Deployments are). It keeps no data: a copy's name is the hash of its data, so its existence
//   is all the reconcile needs.
// - Sources: a watch per namespace (and kind) only while some tracked App of that namespace
//   references a source of that kind, started and stopped as such references come and go. A
//   namespace watch is one connection however many sources it serves, and it sees a source
//   being created, which a watch by name (fieldSelector) of an absent object would also need.
//   Its cache keeps the data only of the sources some tracked App references; every other
//   object of the namespace is reduced to its name and resourceVersion by a transform. A source
//   that becomes referenced after it was cached in that reduced form is read with a GET (kept
//   while its resourceVersion is the cached one); its next event brings the data into the cache.
// - Secrets are watched, read and copied only with --track-secrets: without it this module never
//   asks the API server for a Secret, and the default RBAC grants none.
import type { KubernetesObject } from '@kubernetes/client-node';
import { LABEL_APP, LABEL_MANAGED_BY, MANAGED_BY, shardSelector } from '../shared/labels.js';
import type { Logger } from '../shared/logger.js';
import { leanObject } from './apply/cache-transform.js';
import { sourceKey, type ResolvedSources, type SourceContent, type SourceKind, type SourceRef } from '../shared/render/config-copies.js';
import { isNotFound } from './runtime/api-errors.js';
import { LARGE_ITEMS_PAGE_SIZE, type Clients } from './runtime/clients.js';
import { ResilientInformer } from './runtime/informer.js';
import { controllingAppKey, isControlledBy } from './state/ownership.js';

const KINDS: Record<SourceKind, { kind: string; plural: string }> = {
  configMap: { kind: 'ConfigMap', plural: 'configmaps' },
  secret: { kind: 'Secret', plural: 'secrets' },
};

export interface ConfigSourcesOptions {
  clients: Clients;
  log: Logger;
  /** "" for all namespaces. */
  namespace: string;
  shard?: string;
  /** Secrets are tracked too (--track-secrets). */
  trackSecrets: boolean;
  enqueue: (key: string) => void;
  onRestart?: (resource: string) => void;
  eventDelayMs?: number;
}

/** Only what tells a copy exists and whose it is. */
const metadataOnly = (obj: KubernetesObject): KubernetesObject => {
  const { name, namespace, uid, resourceVersion, labels, ownerReferences, deletionTimestamp } = obj.metadata ?? {};
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { name, namespace, uid, resourceVersion, labels, ownerReferences, deletionTimestamp } };
};

const contentOf = (kind: SourceKind, obj: KubernetesObject): SourceContent => {
  const o = obj as KubernetesObject & SourceContent;
  return kind === 'configMap' ? { data: o.data, binaryData: o.binaryData } : { data: o.data, type: o.type, uid: obj.metadata?.uid };
};


export class ConfigSources {
  /** The owned copies of each tracked kind. */
  readonly copies: Partial<Record<SourceKind, ResilientInformer<KubernetesObject>>> = {};
  /** Source watches by `namespace|kind`. */
  private readonly watches = new Map<string, ResilientInformer<KubernetesObject>>();
  /** What each tracked App (by key) references, as sourceKeys; and who references each `namespace|sourceKey`. */
  private readonly refsByApp = new Map<string, Set<string>>();
  private readonly appsBySource = new Map<string, Set<string>>();
  /** Cached objects reduced by the transform (no data). */
  private readonly reduced = new WeakSet<object>();
  /**
   * The content of each cached source object, made once: the same object for as long as the
   * cache holds the same source object (a change replaces it), so that the copy names computed
   * from it are remembered rather than hashed over its whole data again on every pass (copyName).
   */
  private readonly contents = new WeakMap<KubernetesObject, SourceContent>();
  /** GETs of sources cached in reduced form, by `namespace|sourceKey`. */
  private readonly reads = new Map<string, { resourceVersion?: string; content: SourceContent }>();

  constructor(private readonly opts: ConfigSourcesOptions) {
    const nsPath = opts.namespace ? `/namespaces/${opts.namespace}` : '';
    const labelSelector = `${LABEL_MANAGED_BY}=${MANAGED_BY},${LABEL_APP},${shardSelector(opts.shard)}`;
    for (const kind of this.kinds) {
      const { plural } = KINDS[kind];
      this.copies[kind] = new ResilientInformer<KubernetesObject>({
        resource: `${plural} (copies)`,
        path: `/api/v1${nsPath}/${plural}`,
        labelSelector,
        // Small pages: the labels are ones anyone who can create a ConfigMap can set.
        list: (each) => opts.clients.list(`/api/v1${nsPath}/${plural}`, labelSelector, { each, pageSize: LARGE_ITEMS_PAGE_SIZE }),
        watch: opts.clients.watch,
        log: opts.log,
        onRestart: opts.onRestart,
        eventDelayMs: opts.eventDelayMs,
        transform: metadataOnly,
        onChange: (obj) => {
          const key = controllingAppKey(obj);
          if (key) opts.enqueue(key);
        },
      });
    }
  }

  get trackSecrets(): boolean {
    return this.opts.trackSecrets;
  }

  private get kinds(): SourceKind[] {
    return this.opts.trackSecrets ? ['configMap', 'secret'] : ['configMap'];
  }

  /** Every informer there is now (the owned copies, and the source watches). */
  get all(): ResilientInformer<KubernetesObject>[] {
    return [...Object.values(this.copies), ...this.watches.values()];
  }

  start(): void {
    for (const i of Object.values(this.copies)) i.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.all.map((i) => i.stop()));
    this.watches.clear();
  }

  /** The copies of `kind` the App controls. */
  ownedCopies(kind: SourceKind, namespace: string, appUid: string): KubernetesObject[] {
    // Objects from a list carry no apiVersion and kind.
    return (this.copies[kind]?.list(namespace) ?? []).filter((c) => isControlledBy(c, appUid)).map((c) => ({ ...c, apiVersion: 'v1', kind: KINDS[kind].kind }));
  }

  /** Whether the owned copies of every tracked kind are all in the caches (deleting unused ones needs it). */
  get copiesSynced(): boolean {
    return Object.values(this.copies).every((i) => i.synced);
  }

  /**
   * Records the sources a tracked App references (only those of tracked kinds count), so that
   * their events enqueue it and their data is kept; starts and stops namespace watches to match.
   */
  reference(appKey: string, refs: readonly SourceRef[]): void {
    const namespace = appKey.slice(0, appKey.indexOf('/'));
    const next = new Set(refs.filter((r) => this.kinds.includes(r.kind)).map((r) => sourceKey(r.kind, r.name)));
    const before = this.refsByApp.get(appKey) ?? new Set<string>();
    if (next.size === before.size && [...next].every((k) => before.has(k))) return;
    for (const k of before) if (!next.has(k)) this.unindex(`${namespace}|${k}`, appKey);
    for (const k of next) {
      const key = `${namespace}|${k}`;
      this.appsBySource.set(key, (this.appsBySource.get(key) ?? new Set()).add(appKey));
    }
    if (next.size) this.refsByApp.set(appKey, next);
    else this.refsByApp.delete(appKey);
    for (const kind of this.kinds) this.watchNamespace(namespace, kind);
  }

  /** The App is gone or no longer tracks its configuration. */
  forget(appKey: string): void {
    this.reference(appKey, []);
  }

  private unindex(key: string, appKey: string): void {
    const apps = this.appsBySource.get(key);
    apps?.delete(appKey);
    if (apps?.size === 0) {
      this.appsBySource.delete(key);
      this.reads.delete(key);
    }
  }

  /** Starts the namespace's watch of `kind` when some App there references such a source, stops it when none does. */
  private watchNamespace(namespace: string, kind: SourceKind): void {
    const key = `${namespace}|${kind}`;
    const needed = [...this.appsBySource.keys()].some((k) => k.startsWith(`${namespace}|${kind}/`));
    const running = this.watches.get(key);
    if (needed && !running) {
      const informer = this.sourceInformer(namespace, kind);
      this.watches.set(key, informer);
      informer.start();
      this.opts.log.info({ namespace, kind: KINDS[kind].kind }, 'watching the sources of tracked Apps');
    } else if (!needed && running) {
      this.watches.delete(key);
      void running.stop();
      this.opts.log.info({ namespace, kind: KINDS[kind].kind }, 'no tracked App references a source here any more; stopped watching');
    }
  }

  private sourceInformer(namespace: string, kind: SourceKind): ResilientInformer<KubernetesObject> {
    const { plural } = KINDS[kind];
    const referenced = (obj: KubernetesObject) => this.appsBySource.get(`${namespace}|${sourceKey(kind, obj.metadata?.name ?? '')}`);
    return new ResilientInformer<KubernetesObject>({
      resource: `${plural} (sources in ${namespace})`,
      path: `/api/v1/namespaces/${namespace}/${plural}`,
      // Every ConfigMap (or Secret) of the namespace, cut down page by page: pages are small, as a
      // Secret can hold up to 1 MiB (Helm keeps its releases in them).
      list: (each) => this.opts.clients.list(`/api/v1/namespaces/${namespace}/${plural}`, undefined, { each, pageSize: LARGE_ITEMS_PAGE_SIZE }),
      watch: this.opts.clients.watch,
      log: this.opts.log,
      // One series per kind, not per namespace: a namespace's watch goes with its last tracked
      // App, and a series named after it would stay for the life of the process. The log line
      // of each restart names the namespace.
      onRestart: () => this.opts.onRestart?.(`${plural} (sources)`),
      eventDelayMs: this.opts.eventDelayMs,
      // Data only of what some tracked App references; the rest is a name and a resourceVersion.
      transform: (obj) => {
        if (referenced(obj)) return leanObject(obj);
        const { name, namespace: ns, resourceVersion, uid } = obj.metadata ?? {};
        const stub = { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { name, namespace: ns, resourceVersion, uid } };
        this.reduced.add(stub);
        return stub;
      },
      onChange: (obj) => {
        for (const app of referenced(obj) ?? []) this.opts.enqueue(app);
      },
    });
  }

  /** The content of each source (null: it does not exist), from the caches or, where they do not hold it, a GET. */
  async resolve(namespace: string, refs: readonly SourceRef[]): Promise<ResolvedSources> {
    const out = new Map<string, SourceContent | null>();
    await Promise.all(refs.filter((r) => this.kinds.includes(r.kind)).map(async (ref) => {
      out.set(sourceKey(ref.kind, ref.name), await this.content(namespace, ref));
    }));
    return out;
  }

  private async content(namespace: string, ref: SourceRef): Promise<SourceContent | null> {
    const informer = this.watches.get(`${namespace}|${ref.kind}`);
    const cached = informer?.synced ? informer.get(ref.name, namespace) : undefined;
    // Not in a synced cache is not yet missing: the watch may not have delivered a source created
    // just before its App (one `kubectl apply` of both). A GET tells.
    if (cached && !this.reduced.has(cached)) return this.cachedContent(ref.kind, cached);
    const key = `${namespace}|${sourceKey(ref.kind, ref.name)}`;
    const read = this.reads.get(key);
    if (read && cached && read.resourceVersion === cached.metadata?.resourceVersion) return read.content;
    // The GET's content is kept (and so the same object) while the cache's resourceVersion is its own.
    try {
      const obj = await this.opts.clients.api.read({ apiVersion: 'v1', kind: KINDS[ref.kind].kind, namespace, name: ref.name });
      const content = contentOf(ref.kind, obj);
      this.reads.set(key, { resourceVersion: obj.metadata?.resourceVersion, content });
      return content;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  private cachedContent(kind: SourceKind, cached: KubernetesObject): SourceContent {
    let content = this.contents.get(cached);
    if (!content) this.contents.set(cached, (content = contentOf(kind, cached)));
    return content;
  }
}
