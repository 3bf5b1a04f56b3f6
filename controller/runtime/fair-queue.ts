// The keys waiting in a work queue, handed out in turns by namespace: first in, first out within a
// namespace, and one namespace after another across them. A tenant whose one ConfigMap edit
// queues its hundreds of Apps (or who creates them at once) waits behind its own Apps, not in
// front of every other tenant's: another namespace's key waits for at most one key of each
// namespace with work queued, instead of for all of them.

/** The namespace of a key `namespace/name`; a key without one is of its own group, "". */
export const namespaceOf = (key: string): string => {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
};

export class FairQueue {
  /** Each group's keys in the order they came. */
  private readonly byGroup = new Map<string, string[]>();
  /** The groups with keys, in the order of their turns. */
  private readonly turns: string[] = [];
  private size = 0;

  constructor(private readonly groupOf: (key: string) => string = namespaceOf) {}

  push(key: string): void {
    const group = this.groupOf(key);
    const keys = this.byGroup.get(group);
    if (keys) keys.push(key);
    else {
      this.byGroup.set(group, [key]);
      this.turns.push(group);
    }
    this.size++;
  }

  /** The first key of the group whose turn it is; that group goes to the back while it has more. */
  shift(): string | undefined {
    const group = this.turns.shift();
    if (group === undefined) return undefined;
    const keys = this.byGroup.get(group)!;
    const key = keys.shift()!;
    if (keys.length > 0) this.turns.push(group);
    else this.byGroup.delete(group);
    this.size--;
    return key;
  }

  get length(): number {
    return this.size;
  }
}
