// Read your own writes: what the controller itself last wrote or deleted, so that a reconcile
// can tell an informer cache that has not caught up with it yet (client-go's controllers keep
// "expectations" for the same reason).
//
// A write returns the object's new resourceVersion; until the cache holds that version (or a
// later one), the cached copy is older than what this controller already acted upon, and a pass
// that decides from it would repeat a step that was already taken. A delete is expected until
// the cache no longer holds the deleted object (by uid) as a live one.
import type { KubernetesObject } from '@kubernetes/client-node';

// `owner`: the uid of the App that controls the object, when it has one. An App deleted and
// created again under its name is another App (another uid): the expectations of the objects
// written for the one before are nothing the new one waits for (its objects are collected with it).
type Expectation =
  | { kind: 'written'; resourceVersion: string; atMs: number; owner?: string }
  | { kind: 'deleted'; uid: string; atMs: number; owner?: string };

/** The uid of the object's controller (its ownerReference with controller: true). */
const controllerUid = (obj: KubernetesObject | undefined) => obj?.metadata?.ownerReferences?.find((r) => r.controller === true)?.uid;

/** The key of an object in the expectations: its kind, namespace and name. */
export const objectRef = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;

/**
 * Whether resourceVersion `cached` is older than `written`. Kubernetes calls resourceVersions
 * opaque, but every etcd-backed API server hands out etcd's revision, an increasing integer, and
 * that is the only case in which two versions are ordered here; any other pair counts as older
 * until the cache holds exactly the written version (the bounded wait covers the rest).
 */
export function olderVersion(cached: string | undefined, written: string): boolean {
  if (cached === undefined) return true;
  if (/^[0-9]{1,30}$/.test(cached) && /^[0-9]{1,30}$/.test(written)) return BigInt(cached) < BigInt(written);
  return cached !== written;
}

/** A ref without the number it ends in: `ControllerRevision/shop/web-3` -> `ControllerRevision/shop/web-`. */
const stemOf = (ref: string) => ref.replace(/[0-9]+$/, '');

export class Expectations {
  private readonly pending = new Map<string, Expectation>();
  /**
   * The refs pending, by stem: an App's history entries are found without going through the
   * expectations of every other App (thousands while a fleet converges).
   */
  private readonly byStem = new Map<string, Set<string>>();

  // Monotonic: the clock only measures how long a write has waited for its cache. On the wall
  // clock, one set back by an hour kept every stale pass waiting for that hour more.
  constructor(private readonly clock: () => number = () => performance.now()) {}

  private set(ref: string, e: Expectation): void {
    this.pending.set(ref, e);
    const stem = stemOf(ref);
    let refs = this.byStem.get(stem);
    if (!refs) this.byStem.set(stem, (refs = new Set()));
    refs.add(ref);
  }

  private remove(ref: string): void {
    if (!this.pending.delete(ref)) return;
    const stem = stemOf(ref);
    const refs = this.byStem.get(stem);
    refs?.delete(ref);
    if (refs?.size === 0) this.byStem.delete(stem);
  }

  /** The API server answered a write of `ref` with `stored` (whose resourceVersion the cache must reach). */
  written(ref: string, stored: KubernetesObject | undefined): void {
    const resourceVersion = stored?.metadata?.resourceVersion;
    if (resourceVersion) this.set(ref, { kind: 'written', resourceVersion, atMs: this.clock(), owner: controllerUid(stored) });
  }

  /** The object `ref` with this uid (controlled by the App of uid `owner`) was deleted. */
  deleted(ref: string, uid: string | undefined, owner?: string): void {
    if (uid) this.set(ref, { kind: 'deleted', uid, atMs: this.clock(), owner });
  }

  /**
   * Whether the cache's copy of `ref` is older than this controller's own last write or delete
   * of it; a copy that has caught up ends the expectation. Resolves with how long the write has
   * waited for the cache (ms), or undefined when the copy is fresh. `owner`: the uid of the App
   * asking; an expectation recorded for another App of that name is dropped.
   */
  staleFor(ref: string, cached: KubernetesObject | undefined, owner?: string): number | undefined {
    const e = this.pending.get(ref);
    if (!e) return undefined;
    const stale = owner !== undefined && e.owner !== undefined && e.owner !== owner
      ? false
      : e.kind === 'written'
        ? olderVersion(cached?.metadata?.resourceVersion, e.resourceVersion)
        : cached?.metadata?.uid === e.uid && !cached.metadata?.deletionTimestamp;
    if (!stale) {
      this.remove(ref);
      return undefined;
    }
    return Math.max(0, this.clock() - e.atMs);
  }

  /** Stops expecting anything of `ref` (waited long enough; the object is gone from the controller's view). */
  forget(ref: string): void {
    this.remove(ref);
  }

  /** Forgets the expectations of every one of `refs` (the App is gone). */
  forgetAll(refs: readonly string[]): void {
    for (const r of refs) this.remove(r);
  }

  /** The refs expected now that are `stem` and a number (objects named by number, such as a history's). */
  numberedRefs(stem: string): string[] {
    return [...(this.byStem.get(stem) ?? [])].filter((ref) => ref !== stem);
  }

  get size(): number {
    return this.pending.size;
  }
}
