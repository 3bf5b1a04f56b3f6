// Collections kept up to date by watches: list, then watch from the list's resourceVersion; a
// closed watch resumes from the last version seen, and 410 Gone (that version is too old) lists
// again. `watchCollection` hands every list and event to its caller and keeps nothing itself
// (the dashboard keeps slim, bounded copies); `liveList` keeps the objects, for `get --watch`.
import { ApiError, type Api, type WatchEvent } from './api.js';

export interface Meta { metadata?: { name?: string; namespace?: string; resourceVersion?: string } }

export interface LiveList<T> {
  items(): T[];
  stop(): void;
}

export const objectKey = (o: Meta) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

export interface CollectionHandler<T> {
  /** A full list: everything known before is replaced by `items`. */
  reset(items: T[]): void;
  /** One change after the list (never BOOKMARK or ERROR). */
  event(e: WatchEvent<T>): void;
  /** A failure it retries after; `absent` when the kind is not served (404 at the start): it stops, unless told to wait for the kind. */
  error?(err: Error, absent: boolean): void;
}

export interface WatchOptions {
  /** First wait after a failure; doubled up to `maxRetryMs` while failures go on. */
  retryMs?: number;
  maxRetryMs?: number;
  /** A kind not served (404 at the start) is tried again as any failure is, until it is: for a kind the caller cannot do without. */
  awaitAbsent?: boolean;
  /** The Accept headers of the list and of the watch, for a representation other than the full objects. */
  accept?: { list: string; watch: string };
}

/** A watch that ends cleanly sooner than this, having delivered nothing, failed. */
export const SHORT_WATCH_MS = 1_000;

/** Lists and watches `path` (a collection path with its query) until `stop()`. */
export function watchCollection<T extends Meta>(api: Api, path: string, handler: CollectionHandler<T>, opts: WatchOptions = {}): { stop(): void } {
  const abort = new AbortController();
  const first = opts.retryMs ?? 1_000;
  let rv = '';
  const apply = (e: WatchEvent<T>) => {
    rv = e.object.metadata?.resourceVersion ?? rv;
    if (e.type !== 'BOOKMARK') handler.event(e);
  };
  const relist = async () => {
    const list = await api.get<{ metadata: { resourceVersion: string }; items: T[] | null }>(path, { accept: opts.accept?.list });
    rv = list.metadata.resourceVersion;
    // An empty list may say `items: null`: the API server's PartialObjectMetadataList does (1.20
    // and later), where typed lists say [].
    handler.reset(list.items ?? []);
  };
  const run = async () => {
    let listed = false;
    let wait = first;
    while (!abort.signal.aborted) {
      try {
        if (!listed) {
          await relist();
          listed = true;
        }
        // A watch the server ends at once without an event (a proxy, an API server shutting
        // down) is a failure, retried after the wait: opened again at once, it loops.
        const openedAtMs = performance.now();
        let delivered = false;
        await api.watchOnce<T>(path, rv, (e) => {
          if (!delivered) wait = first;
          delivered = true;
          apply(e);
        }, abort.signal, { accept: opts.accept?.watch });
        if (!delivered && performance.now() - openedAtMs < SHORT_WATCH_MS) throw new Error(`the watch of ${path} ended at once, without an event`);
        wait = first;
      } catch (err) {
        if (abort.signal.aborted) return;
        if (err instanceof ApiError && err.code === 410) { listed = false; continue; }
        const absent = err instanceof ApiError && err.code === 404 && !listed;
        handler.error?.(err as Error, absent);
        if (absent && !opts.awaitAbsent) return;
        // After a failure (the API server down, a broken connection) list afresh: the list tells
        // the handler the watch works again, and resynchronises whatever was missed.
        listed = false;
        await new Promise((r) => setTimeout(r, wait));
        wait = Math.min(wait * 2, opts.maxRetryMs ?? first);
      }
    }
  };
  void run();
  return { stop: () => abort.abort() };
}

/**
 * Keeps the objects at `path` and calls `onChange` after each change; `onError` hears failures it
 * retries after (a 404 at the start means the kind is absent: the list stays empty and it stops,
 * and `onAbsent` hears it, for a caller that cannot do without the kind).
 */
export function liveList<T extends Meta>(api: Api, path: string, onChange: () => void, onError: (err: Error) => void = () => {}, onAbsent: (err: Error) => void = () => {}): LiveList<T> {
  const objects = new Map<string, T>();
  const watch = watchCollection<T>(api, path, {
    reset(items) {
      objects.clear();
      for (const item of items) objects.set(objectKey(item), item);
      onChange();
    },
    event(e) {
      if (e.type === 'DELETED') objects.delete(objectKey(e.object));
      else objects.set(objectKey(e.object), e.object);
      onChange();
    },
    error: (err, absent) => (absent ? onAbsent(err) : onError(err)),
  });
  return { items: () => [...objects.values()], stop: () => watch.stop() };
}
