// Working through a list a few items at a time: `limit` calls of `fn` in flight, each starting
// as one finishes, in list order. Stops taking new items once `cancelled()` says so.
export async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<unknown>, cancelled: () => boolean = () => false): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length && !cancelled()) await fn(items[next++]);
  }));
}
