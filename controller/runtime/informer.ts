// An informer: a cache of one kind filled by list + watch, whose events go to a handler.
//
// ListWatch (list-watch.ts) re-lists by itself after 410 Gone and reconnects after a clean close
// or an idle timeout, but on any other error (connection refused while the API server restarts,
// 403, 500) it emits `error` and stops for good. ResilientInformer restarts it with backoff
// (from the last resourceVersion, so no change is missed) and keeps track of since when its
// watch has been down, for /readyz.
import type { KubernetesObject } from '@kubernetes/client-node';
import { ListWatch, SHORT_WATCH_MS, type IndexFunc, type ListPromise } from './list-watch.js';
import type { Watch } from './watch.js';
import type { Logger } from '../../shared/logger.js';
import { describeError } from './api-errors.js';
import { timerDelayMs } from './timer-delay.js';

export interface InformerOptions<T extends KubernetesObject> {
  resource: string;
  path: string;
  /** The full list; it must apply the `each` it is given (the transform) to every item. */
  list: ListPromise<T>;
  labelSelector?: string;
  watch: Watch;
  log: Logger;
  /** Called for every added, updated or deleted object. Must not throw (it is guarded anyway). */
  onChange: (obj: T) => void;
  onRestart?: (resource: string) => void;
  restartBackoffMs?: { initial: number; max: number };
  /**
   * Applied to every object from a list or a watch event before it is cached, as
   * controller-runtime's cache transforms are: what the cache keeps is what it returns.
   */
  transform?: (obj: T) => T;
  /** An index to find objects by (byIndex), as client-go's indexers. */
  index?: IndexFunc<T>;
  /**
   * Delays every watch event (and the watch's end) by this long before the cache sees it, in
   * order. Tests only: it makes an informer that lags the API server, as one under load does.
   */
  eventDelayMs?: number;
}

export class ResilientInformer<T extends KubernetesObject> {
  private readonly informer: ListWatch<T>;
  private stopped = true;
  private restartTimer?: NodeJS.Timeout;
  private restartDelayMs: number;
  private syncedOnce = false;
  /** The last watch ended with an ERROR event (not 410), and none has delivered an event since. */
  private refused = false;
  /** Since when no watch has been established (undefined while one is). */
  // Monotonic, as every duration the controller measures: a wall clock set forward while a watch
  // is briefly down failed /readyz, one set back hid a broken watch for as long.
  private downSinceMs?: number = performance.now();

  constructor(private readonly opts: InformerOptions<T>) {
    this.restartDelayMs = opts.restartBackoffMs?.initial ?? 500;
    // The list applies the transform page by page: a list of large objects (Secrets) is never
    // held whole before it is cut down to what the cache keeps.
    const transform = opts.transform;
    const list: ListPromise<T> = () => opts.list(transform);
    this.informer = new ListWatch<T>(opts.path, this.trackingWatch(opts.watch), list, opts.labelSelector, opts.index);
    const onChange = (obj: T) => {
      try {
        opts.onChange(obj);
      } catch (err) {
        opts.log.error({ resource: opts.resource, err: describeError(err) }, 'informer handler failed');
      }
    };
    this.informer.on('add', onChange);
    this.informer.on('update', onChange);
    this.informer.on('delete', onChange);
    this.informer.on('error', (err) => this.onError(err));
  }

  get resource(): string {
    return this.opts.resource;
  }

  /** The initial list has completed: the cache holds every object there was. */
  get synced(): boolean {
    return this.syncedOnce;
  }

  /** How long the watch has been down, 0 while it is up. */
  brokenForMs(nowMs = performance.now()): number {
    return this.downSinceMs === undefined ? 0 : nowMs - this.downSinceMs;
  }

  get(name: string, namespace: string): T | undefined {
    return this.informer.get(name, namespace);
  }

  list(namespace?: string): readonly T[] {
    return this.informer.list(namespace);
  }

  /** The objects whose index value is `value`. */
  byIndex(value: string): readonly T[] {
    return this.informer.byIndex(value);
  }

  /** start() was called and stop() was not. */
  get started(): boolean {
    return !this.stopped;
  }

  start(): void {
    this.stopped = false;
    this.restart();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    await this.informer.stop();
  }

  private restart(): void {
    this.informer.start().catch((err: unknown) => this.onError(err));
  }

  private onError(err: unknown): void {
    if (this.stopped) return;
    this.downSinceMs ??= performance.now();
    const delayMs = this.restartDelayMs;
    this.restartDelayMs = Math.min(delayMs * 2, this.opts.restartBackoffMs?.max ?? 10_000);
    this.opts.log.warn({ resource: this.opts.resource, err: describeError(err), retryInMs: delayMs }, 'watch failed; restarting');
    this.opts.onRestart?.(this.opts.resource);
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      if (!this.stopped) this.restart();
    }, timerDelayMs(delayMs));
  }

  /** A Watch that records when the cache is filled, when the API server accepted a watch and when it ended. */
  private trackingWatch(watch: Watch): Watch {
    const tracking = {
      watch: async (path: string, query: Record<string, string | number | boolean | undefined>, callback: (phase: string, obj: unknown, raw: unknown) => void, done: (err: unknown) => void) => {
        // ListWatch watches only once the list is in its cache.
        this.syncedOnce = true;
        let ended = false;
        const transform = this.opts.transform;
        const delayMs = this.opts.eventDelayMs ?? 0;
        // Timers of equal delay fire in the order they were set: events stay in order.
        const later = <A extends unknown[]>(f: (...a: A) => void) => (delayMs > 0 ? (...a: A) => void setTimeout(() => f(...a), delayMs) : f);
        const up = () => {
          this.downSinceMs = undefined;
          this.refused = false;
        };
        // The backoff starts over once the watch has delivered an event or stayed open
        // SHORT_WATCH_MS, not as soon as it is accepted: a server that accepts every watch and ends
        // it at once would otherwise reset it on each attempt (a retry every initial delay, for ever).
        const lasting = () => {
          this.restartDelayMs = this.opts.restartBackoffMs?.initial ?? 500;
        };
        const cached = later(transform
          ? (phase: string, obj: unknown, raw: unknown) => callback(phase, obj && typeof obj === 'object' && phase !== 'ERROR' && phase !== 'BOOKMARK' ? transform(obj as T) : obj, raw)
          : callback);
        const transformed = (phase: string, obj: unknown, raw: unknown) => {
          // An ERROR other than 410 (expired: listed again at once) is the watch failing: it stays
          // down, and backs off, until a watch delivers something again.
          if (phase !== 'ERROR') {
            if (this.refused) up();
            lasting();
          } else if ((obj as { code?: number } | null)?.code !== 410) {
            this.refused = true;
            this.downSinceMs ??= performance.now();
          }
          cached(phase, obj, raw);
        };
        let upTimer: NodeJS.Timeout | undefined;
        const request = await watch.watch(path, query, transformed, later((err: unknown) => {
          ended = true;
          clearTimeout(upTimer);
          this.downSinceMs ??= performance.now();
          done(err);
        }));
        if (!ended && !this.refused) {
          up();
          upTimer = setTimeout(() => {
            if (!ended && !this.refused) lasting();
          }, SHORT_WATCH_MS);
          upTimer.unref();
        }
        return request;
      },
    };
    return tracking as unknown as Watch;
  }
}

/** Why the informers are not ready (what /readyz reports), or undefined when they are. */
export function informersReadiness(informers: readonly ResilientInformer<KubernetesObject>[], watchBrokenLimitMs: number): string | undefined {
  const unsynced = informers.filter((i) => !i.synced).map((i) => i.resource);
  if (unsynced.length) return `caches not synced yet: ${unsynced.join(', ')}`;
  const broken = informers.filter((i) => i.brokenForMs() > watchBrokenLimitMs).map((i) => i.resource);
  if (broken.length) return `watch down for more than ${watchBrokenLimitMs / 1000}s: ${broken.join(', ')}`;
  return undefined;
}

/** Resolves with true once every informer has synced, or with false when `cancelled` says so first. */
export async function waitForCacheSync(informers: () => readonly Pick<ResilientInformer<KubernetesObject>, 'synced'>[], cancelled: () => boolean): Promise<boolean> {
  // Read again on each look: rediscovery may drop a cache that will never sync (its API no
  // longer served) or add one while this waits.
  while (!cancelled() && informers().some((i) => !i.synced)) await new Promise((r) => setTimeout(r, 50));
  return !cancelled();
}
