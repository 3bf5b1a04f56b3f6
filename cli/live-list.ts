// A list kept up to date by a watch, for `kubectl skiff get --watch`: list, then watch from the
// list's resourceVersion; a closed watch resumes from the last version seen, and 410 Gone (that
// version is too old) lists again.
import { ApiError, type Api, type WatchEvent } from './api.js';

export interface Meta { metadata?: { name?: string; namespace?: string; resourceVersion?: string } }

export interface LiveList<T> {
  items(): T[];
  stop(): void;
}

const key = (o: Meta) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

/**
 * Keeps the objects at `path` (a collection path with its query) and calls `onChange` after each
 * change; `onError` hears failures it retries after (a 404 at the start means the kind is absent:
 * the list stays empty and it stops).
 */
export function liveList<T extends Meta>(api: Api, path: string, onChange: () => void, onError: (err: Error) => void = () => {}): LiveList<T> {
  const objects = new Map<string, T>();
  const abort = new AbortController();
  let rv = '';
  const apply = (e: WatchEvent<T>) => {
    rv = e.object.metadata?.resourceVersion ?? rv;
    if (e.type === 'BOOKMARK') return;
    if (e.type === 'DELETED') objects.delete(key(e.object));
    else objects.set(key(e.object), e.object);
    onChange();
  };
  const relist = async () => {
    const list = await api.get<{ metadata: { resourceVersion: string }; items: T[] }>(path);
    objects.clear();
    for (const item of list.items) objects.set(key(item), item);
    rv = list.metadata.resourceVersion;
    onChange();
  };
  const run = async () => {
    let listed = false;
    while (!abort.signal.aborted) {
      try {
        if (!listed) {
          await relist();
          listed = true;
        }
        await api.watchOnce<T>(path, rv, apply, abort.signal);
      } catch (err) {
        if (abort.signal.aborted) return;
        if (err instanceof ApiError && err.code === 410) { listed = false; continue; }
        if (err instanceof ApiError && err.code === 404 && !listed) return;
        onError(err as Error);
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  };
  void run();
  return { items: () => [...objects.values()], stop: () => abort.abort() };
}
