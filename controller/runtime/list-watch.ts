// A cache of one kind kept by list + watch, with add, update, delete and error callbacks: the
// semantics of client-node's ListWatch, which informer.ts was built on. start() lists when it has
// no resourceVersion (the first time, after 410 Gone) and then watches from the last one; a
// watch that ends cleanly is opened again from where it was; any other failure goes to the
// error callbacks, and the owner decides when to start() again.
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { ApiStatusError } from './api-client.js';
import type { Watch } from './watch.js';

/** A full list; `each`, when given, is applied to every item as its page arrives. */
export type ListPromise<T extends KubernetesObject> = (each?: (item: T) => T) => Promise<KubernetesListObject<T>>;
type Verb = 'add' | 'update' | 'delete' | 'error';

/** A watch that ends cleanly sooner than this, having delivered nothing, failed. */
export const SHORT_WATCH_MS = 1_000;

const isGone = (err: unknown) => (err as { statusCode?: number } | null)?.statusCode === 410 || (err as { code?: number } | null)?.code === 410;

/** The value an object is found by in an index (client-go's indexers), or undefined for none. */
export type IndexFunc<T> = (obj: T) => string | undefined;

export class ListWatch<T extends KubernetesObject> {
  private objects = new Map<string, Map<string, T>>();
  /** Objects by the value of `index`, each map keyed by namespace/name. */
  private readonly indexed = new Map<string, Map<string, T>>();
  private resourceVersion = '';
  private request?: { abort(): void };
  private stopped = false;
  /** What an ERROR event said, reported as the watch's failure once its stream has ended. */
  private failure?: Error;
  private readonly callbacks: Record<Verb, ((x: never) => void)[]> = { add: [], update: [], delete: [], error: [] };

  constructor(
    private readonly path: string,
    private readonly watcher: Watch,
    private readonly listFn: ListPromise<T>,
    private readonly labelSelector?: string,
    private readonly index?: IndexFunc<T>,
  ) {}

  on(verb: 'add' | 'update' | 'delete', cb: (obj: T) => void): void;
  on(verb: 'error', cb: (err: unknown) => void): void;
  on(verb: Verb, cb: (x: never) => void): void {
    this.callbacks[verb].push(cb);
  }

  get(name: string, namespace?: string): T | undefined {
    return this.objects.get(namespace ?? '')?.get(name);
  }

  list(namespace?: string): T[] {
    if (namespace) return [...(this.objects.get(namespace)?.values() ?? [])];
    return [...this.objects.values()].flatMap((m) => [...m.values()]);
  }

  /** The objects whose index value is `value` (none without an index). */
  byIndex(value: string): T[] {
    return [...(this.indexed.get(value)?.values() ?? [])];
  }

  private unindex(obj: T): void {
    const value = this.index?.(obj);
    if (value === undefined) return;
    const at = this.indexed.get(value);
    at?.delete(`${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`);
    if (at?.size === 0) this.indexed.delete(value);
  }

  private reindex(obj: T): void {
    const value = this.index?.(obj);
    if (value === undefined) return;
    let at = this.indexed.get(value);
    if (!at) this.indexed.set(value, (at = new Map()));
    at.set(`${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`, obj);
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.next(null);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.request?.abort();
    this.request = undefined;
  }

  private emit(verb: Verb, x: unknown): void {
    for (const cb of [...this.callbacks[verb]]) (cb as (x: unknown) => void)(x);
  }

  /** After a watch ended (or at the start): list if need be, then watch again. */
  private async next(ended: unknown): Promise<void> {
    this.request?.abort();
    this.request = undefined;
    const err = ended ?? this.failure;
    this.failure = undefined;
    if (err && isGone(err)) this.resourceVersion = '';
    else if (err) return this.emit('error', err);
    if (this.stopped) return;
    if (!this.resourceVersion) {
      let list: KubernetesListObject<T>;
      try {
        list = await this.listFn();
      } catch (e) {
        if (this.stopped) return;
        return this.emit('error', e);
      }
      // Stopped while the list was under way: its objects are no longer wanted, nor their events.
      if (this.stopped) return;
      this.replace(list.items ?? []);
      this.resourceVersion = list.metadata?.resourceVersion ?? '';
    }
    if (this.stopped) return;
    const query = { resourceVersion: this.resourceVersion, labelSelector: this.labelSelector };
    // A watch the server ends at once without an event (a proxy, an API server shutting down)
    // would be opened again at once, in a loop: as client-go's reflector, it counts as a failure,
    // which the owner retries with backoff.
    const openedAtMs = performance.now();
    let delivered = false;
    const onEvent = (phase: string, obj: unknown) => {
      delivered = true;
      this.onEvent(phase, obj as T);
    };
    const end = (e: unknown) => {
      const short = e === null && !delivered && performance.now() - openedAtMs < SHORT_WATCH_MS;
      void this.next(short ? new Error(`watch ${this.path} ended within ${SHORT_WATCH_MS / 1000}s without an event`) : e);
    };
    this.request = await this.watcher.watch(this.path, query, onEvent, end);
    if (this.stopped) this.request.abort();
  }

  /** The cache becomes the list: what is gone is deleted, what is new added, what changed updated. */
  private replace(items: T[]): void {
    const listed = new Set(items.map((o) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`));
    for (const [ns, byName] of this.objects) {
      for (const [name, obj] of byName) {
        if (listed.has(`${ns}/${name}`)) continue;
        byName.delete(name);
        this.unindex(obj);
        this.emit('delete', obj);
      }
      if (byName.size === 0) this.objects.delete(ns);
    }
    for (const obj of items) this.addOrUpdate(obj);
  }

  private addOrUpdate(obj: T): void {
    const ns = obj.metadata?.namespace ?? '';
    let byName = this.objects.get(ns);
    if (!byName) this.objects.set(ns, (byName = new Map()));
    const name = obj.metadata?.name ?? '';
    const found = byName.get(name);
    if (found && found.metadata?.resourceVersion !== undefined && found.metadata.resourceVersion === obj.metadata?.resourceVersion) return;
    byName.set(name, obj);
    if (found) this.unindex(found);
    this.reindex(obj);
    this.emit(found ? 'update' : 'add', obj);
  }

  private onEvent(phase: string, obj: T): void {
    if (phase === 'ERROR') {
      // The stream ends after it, and the watch starts again from a new list: at once after 410
      // (the resourceVersion is too old), and as a failure, after the informer's backoff, after
      // any other Status (a resourceVersion the server does not have, as after an etcd restore;
      // an internal error), as client-go's reflector does. Watching again from the same version
      // would only get the same answer, at once and for ever.
      this.resourceVersion = '';
      const status = obj as { code?: number };
      if (status.code !== 410) this.failure = new ApiStatusError(status.code ?? 500, JSON.stringify(obj), 'WATCH', this.path);
      return;
    }
    if (phase === 'ADDED' || phase === 'MODIFIED') this.addOrUpdate(obj);
    else if (phase === 'DELETED') {
      const ns = obj.metadata?.namespace ?? '';
      const byName = this.objects.get(ns);
      const found = byName?.get(obj.metadata?.name ?? '');
      if (found && byName?.delete(obj.metadata?.name ?? '')) {
        this.unindex(found);
        if (byName.size === 0) this.objects.delete(ns);
        this.emit('delete', obj);
      }
    }
    this.resourceVersion = obj.metadata?.resourceVersion ?? this.resourceVersion;
  }
}
