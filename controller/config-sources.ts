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
//   Its cache keeps no data at all: every object is reduced to its name, uid and resourceVersion
//   by a transform. A tenant's ConfigMaps (up to 1 MiB each, 64 of them per volume list) are theirs
//   to fill, and the controller that serves every tenant holds none of it: a source's data is
//   read (GET) when a pass needs it, that is when the names of its copy for the App are not known
//   for its current resourceVersion, or that copy does not exist (to make it). Once read, the
//   version read, a digest of its data and the names are remembered, not the data: a pass over
//   unchanged sources whose copies exist reads nothing, and a new version of the same data (a
//   label edited) is read once, its names kept. What is remembered goes with the references.
// - Secrets are watched, read and copied only with --track-secrets: without it this module never
//   asks the API server for a Secret, and the default RBAC grants none.
import type { KubernetesObject } from '@kubernetes/client-node';
import { contentHash } from '../shared/hash.js';
import { LABEL_APP, LABEL_MANAGED_BY, MANAGED_BY, shardSelector } from '../shared/labels.js';
import type { Logger } from '../shared/logger.js';
import { copyName, olderCopyNames, sourceKey, type KnownNames, type OwnsCopy, type ResolvedSources, type SourceContent, type SourceKind, type SourceRef } from '../shared/render/config-copies.js';
import { isNotFound } from './runtime/api-errors.js';
import { splitKey } from './runtime/keys.js';
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

/**
 * What is known of a source some tracked App references, from its last read: the version read, a
 * digest of its data, and its copy names for each App that asked. A new version of the same data
 * (a label edited) keeps the names: the next read finds the digest unchanged.
 */
interface KnownSource {
  uid: string;
  resourceVersion: string;
  digest: string;
  names: Map<string, KnownNames>;
}

/** A source as read: the object, its content, and a digest of that content (one for every pass the read serves). */
interface SourceRead {
  obj: KubernetesObject;
  content: SourceContent;
  digest: string;
}

const digestOf = (content: SourceContent) => contentHash({ data: content.data ?? {}, binaryData: content.binaryData ?? {}, type: content.type }, 32);

/** The App a pass resolves sources for: its name, and whether it owns a copy (of a kind, by name). */
export interface ResolvingApp {
  name: string;
  owns: OwnsCopy;
}


export class ConfigSources {
  /** The owned copies of each tracked kind. */
  readonly copies: Partial<Record<SourceKind, ResilientInformer<KubernetesObject>>> = {};
  /** Source watches by `namespace|kind`. */
  private readonly watches = new Map<string, ResilientInformer<KubernetesObject>>();
  /** What each tracked App (by key) references, as sourceKeys; and who references each `namespace|sourceKey`. */
  private readonly refsByApp = new Map<string, Set<string>>();
  private readonly appsBySource = new Map<string, Set<string>>();
  /**
   * Copy names worked out from a source's data when it was read, by `namespace|sourceKey`: a later
   * pass over the same version of it reads nothing while the App's copy exists. One entry per
   * referenced source, holding the names of the Apps that reference it: it goes with the last
   * reference (and an App's names with its reference), so it grows with neither edits nor time.
   */
  private readonly known = new Map<string, KnownSource>();
  /**
   * Reads of sources under way, by `namespace|sourceKey`: the Apps that share a source look at it
   * in the same moment after its change (the workers run in parallel), and one read serves them.
   */
  private readonly reading = new Map<string, Promise<SourceRead>>();

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
        // Also by its App label: a copy whose ownerReference was taken off (before it is deleted,
        // and something else made under its name) is no longer the App's, and the App must hear of it.
        onChange: (obj) => {
          const key = controllingAppKey(obj);
          if (key) opts.enqueue(key);
          const labelled = obj.metadata?.labels?.[LABEL_APP];
          if (labelled && obj.metadata?.namespace && `${obj.metadata.namespace}/${labelled}` !== key) opts.enqueue(`${obj.metadata.namespace}/${labelled}`);
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
    this.known.get(key)?.names.delete(splitKey(appKey).name);
    if (apps?.size === 0) {
      this.appsBySource.delete(key);
      this.known.delete(key);
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
      // No data: a name, a uid and a resourceVersion (see the top of this file).
      transform: (obj) => {
        const { name, namespace: ns, resourceVersion, uid } = obj.metadata ?? {};
        return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { name, namespace: ns, resourceVersion, uid } };
      },
      onChange: (obj) => {
        for (const app of referenced(obj) ?? []) this.opts.enqueue(app);
      },
    });
  }

  /**
   * The content of each source (null: it does not exist). For `app`, a source whose copy names
   * are known for its cached resourceVersion and whose copy the App has is not read: its content
   * carries those names instead of its data. Any other is read with a GET (without `app`: every
   * one, for copies to make again).
   */
  async resolve(namespace: string, refs: readonly SourceRef[], app?: ResolvingApp): Promise<ResolvedSources> {
    const out = new Map<string, SourceContent | null>();
    await Promise.all(refs.filter((r) => this.kinds.includes(r.kind)).map(async (ref) => {
      out.set(sourceKey(ref.kind, ref.name), await this.content(namespace, ref, app));
    }));
    return out;
  }

  private async content(namespace: string, ref: SourceRef, app: ResolvingApp | undefined): Promise<SourceContent | null> {
    const informer = this.watches.get(`${namespace}|${ref.kind}`);
    // Not in a synced cache is not yet missing: the watch may not have delivered a source created
    // just before its App (one `kubectl apply` of both). A GET tells.
    const cached = informer?.synced ? informer.get(ref.name, namespace) : undefined;
    const known = cached && app ? this.knownNames(namespace, ref, cached, app.name) : undefined;
    if (known && app && [known.copy, ...known.older].some((n) => app.owns(ref.kind, n))) return { known };
    let read: SourceRead;
    try {
      read = await this.read(namespace, ref);
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
    if (app) this.remember(namespace, ref, read, app.name);
    return read.content;
  }

  /** A GET of the source, shared with the passes that ask while it is under way. */
  private read(namespace: string, ref: SourceRef): Promise<SourceRead> {
    const key = `${namespace}|${sourceKey(ref.kind, ref.name)}`;
    let read = this.reading.get(key);
    if (!read) {
      read = this.opts.clients.api.read({ apiVersion: 'v1', kind: KINDS[ref.kind].kind, namespace, name: ref.name })
        .then((obj) => {
          const content = contentOf(ref.kind, obj);
          return { obj, content, digest: digestOf(content) };
        })
        .finally(() => this.reading.delete(key));
      this.reading.set(key, read);
    }
    return read;
  }

  /** The App's copy names of the source, when they were worked out for the version `obj` (the cache's) is. */
  private knownNames(namespace: string, ref: SourceRef, obj: KubernetesObject, app: string): KnownNames | undefined {
    const entry = this.known.get(`${namespace}|${sourceKey(ref.kind, ref.name)}`);
    if (!entry || entry.uid !== (obj.metadata?.uid ?? '') || entry.resourceVersion !== (obj.metadata?.resourceVersion ?? '')) return undefined;
    return entry.names.get(app);
  }

  /** Records the version read and the App's copy names; the names of the same data (same uid) stay. */
  private remember(namespace: string, ref: SourceRef, { obj, content, digest }: SourceRead, app: string): void {
    const key = `${namespace}|${sourceKey(ref.kind, ref.name)}`;
    // Only for a source still referenced: unindex takes the entry away with the last reference.
    if (!this.appsBySource.get(key)?.has(`${namespace}/${app}`)) return;
    const uid = obj.metadata?.uid ?? '';
    const before = this.known.get(key);
    const names = before && before.uid === uid && before.digest === digest ? before.names : new Map<string, KnownNames>();
    this.known.set(key, { uid, resourceVersion: obj.metadata?.resourceVersion ?? '', digest, names });
    if (!names.has(app)) names.set(app, { app, name: ref.name, copy: copyName(app, ref.name, content), older: olderCopyNames(app, ref.name, content) });
  }
}
