// Bringing one owned object to its desired state with server-side apply (field manager skiff).
//
// An object that exists and that the App does not control is never written: it is reported as
// a conflict. An owned object is written only when the fields we manage differ from what the
// API server holds (see diff.ts); an identical apply would still be a write.
//
// The desired object carries a hash of itself in an annotation. When the App changes so that a
// field is no longer rendered (readinessPath removed, an env entry dropped), the subset
// comparison alone would see nothing to do; the changed hash makes the apply happen, and server-
// side apply then removes the fields skiff owned and no longer sets (removals.ts covers the one
// kind of field it cannot remove).
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ApiClient, ApplyOptions, PatchOptions } from '../runtime/api-client.js';
import { objectRef, type Expectations } from '../runtime/expectations.js';
import { contentHash } from '../../shared/hash.js';
import { FIELD_MANAGER, LABEL_SHARD, LABEL_TRACK } from '../../shared/labels.js';
import { ANNOTATION_POD_TEMPLATE } from '../render/pod-template-record.js';
import { differences } from './diff.js';
import { isConflict, isNotFound } from '../runtime/api-errors.js';
import { isControlledBy } from '../state/ownership.js';
import { handOverReplicas, needsReplicasHandover } from './handover.js';
import { removalFor } from './removals.js';
import type { Residuals } from './residuals.js';

export const ANNOTATION_CONFIG_HASH = 'skiff.dev/config-hash';

export type EnsureResult =
  | { outcome: 'created' | 'unchanged'; object: KubernetesObject }
  /** `residual`: fields the API server stored otherwise than applied (see residuals.ts). */
  | { outcome: 'updated'; object: KubernetesObject; changed: string[]; residual?: string[] }
  | { outcome: 'deleting'; object: KubernetesObject }
  | { outcome: 'conflict'; message: string };

export const describeObject = (obj: KubernetesObject) => `${obj.kind} ${obj.metadata?.namespace}/${obj.metadata?.name}`;

/**
 * The desired object with the hash of its own content in ANNOTATION_CONFIG_HASH. Two things are left
 * out of the hash, because a Deployment's annotation change is a new generation, reported as a
 * rollout until its controller has seen it:
 * - the shard label: an App moved to another shard has its objects relabelled (see
 *   shard-takeover.ts), and a hash that changed with the label would rewrite every one of them;
 * - a Deployment's spec.replicas: handing the count over to an autoscaler (handover.ts) leaves it
 *   out of the apply, and changes no pod; a count applied is still compared field by field.
 * `held` is the hash the stored object carries: objects written while the hash still took these
 * in keep theirs when it says the same content (no write on upgrade).
 */
export function withConfigHash<T extends KubernetesObject>(desired: T, held?: string): T {
  let hash = contentHash(hashed(desired));
  let body = desired;
  if (held !== undefined && held !== hash) {
    const unrecorded = withoutPreviewRecord(desired);
    if (olderHashes(desired).includes(held)) hash = held;
    // A preview written before previews recorded their template keeps going without the record
    // (see withoutPreviewRecord) until its content changes.
    else if (unrecorded && contentHash(hashed(unrecorded)) === held) [hash, body] = [held, unrecorded as T];
  }
  return { ...body, metadata: { ...body.metadata, annotations: { ...body.metadata?.annotations, [ANNOTATION_CONFIG_HASH]: hash } } };
}

/** What the hash is taken of: the object without its shard label, a Deployment without its count. */
function hashed(desired: KubernetesObject): KubernetesObject {
  return withoutReplicas(withoutShardLabel(desired));
}

/** The hashes earlier versions gave the same content: with the shard label, with the count. */
function olderHashes(desired: KubernetesObject): string[] {
  return [contentHash(desired), contentHash(withoutShardLabel(desired))];
}

/**
 * A blue-green preview's Deployment without the record of its template (ANNOTATION_POD_TEMPLATE),
 * when it has one: earlier versions wrote none. Written with it on upgrade, every preview would get
 * a new generation, and a ready one would read as not ready, losing its readiness and its passed
 * check; the record only serves a scale-down whose first write failed (keptTemplate).
 */
function withoutPreviewRecord(desired: KubernetesObject): KubernetesObject | undefined {
  const annotations = desired.metadata?.annotations;
  if (desired.kind !== 'Deployment' || desired.metadata?.labels?.[LABEL_TRACK] !== 'preview' || annotations?.[ANNOTATION_POD_TEMPLATE] === undefined) return undefined;
  const { [ANNOTATION_POD_TEMPLATE]: _record, ...rest } = annotations;
  const { annotations: _all, ...metadata } = desired.metadata!;
  return { ...desired, metadata: Object.keys(rest).length > 0 ? { ...metadata, annotations: rest } : metadata };
}

function withoutShardLabel<T extends KubernetesObject>(desired: T): T {
  const labels = desired.metadata?.labels;
  if (labels?.[LABEL_SHARD] === undefined) return desired;
  const { [LABEL_SHARD]: _shard, ...unsharded } = labels;
  return { ...desired, metadata: { ...desired.metadata, labels: unsharded } };
}

function withoutReplicas<T extends KubernetesObject>(desired: T): T {
  const spec = (desired as { spec?: { replicas?: number } }).spec;
  if (desired.kind !== 'Deployment' || spec?.replicas === undefined) return desired;
  const { replicas: _replicas, ...rest } = spec;
  return { ...desired, spec: rest } as T;
}

async function readIfExists(api: ApiClient, desired: KubernetesObject): Promise<KubernetesObject | undefined> {
  try {
    return await api.read({ apiVersion: desired.apiVersion!, kind: desired.kind!, namespace: desired.metadata!.namespace!, name: desired.metadata!.name! });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * The client that writes owned objects, and (in the controller) the expectations every write and
 * delete is recorded in, so that the next pass can tell a cache that has not caught up with it.
 */
export interface ApplyClients {
  api: ApiClient;
  expectations?: Expectations;
  /** What applies left different (a mutating admission webhook's changes): not applied again for nothing. */
  residuals?: Residuals;
}

const refOf = (type: { kind?: string }, obj: KubernetesObject) => objectRef(type.kind ?? '', obj.metadata?.namespace ?? '', obj.metadata?.name ?? '');

/** Server-side apply, recording what the API server answered. */
async function applyRecorded(clients: ApplyClients, obj: KubernetesObject, force: boolean): Promise<KubernetesObject> {
  const stored = await clients.api.apply(obj, force ? APPLY_FORCED : APPLY);
  clients.expectations?.written(refOf(obj, obj), stored);
  return stored;
}

const APPLY: ApplyOptions = { fieldManager: FIELD_MANAGER, force: false };
const APPLY_FORCED: ApplyOptions = { fieldManager: FIELD_MANAGER, force: true };
const STRATEGIC_MERGE: PatchOptions = { type: 'strategic-merge', fieldManager: FIELD_MANAGER };

/** A strategic merge patch ($patch directives included), of the built-in kinds that take one. */
async function patchStrategic(clients: ApplyClients, target: KubernetesObject, body: Record<string, unknown>): Promise<void> {
  if (target.kind !== 'Deployment' && target.kind !== 'Service' && target.kind !== 'Ingress') throw new Error(`no strategic merge patch for ${target.kind}`);
  await clients.api.patch({ apiVersion: target.apiVersion!, kind: target.kind, namespace: target.metadata!.namespace!, name: target.metadata!.name! }, body, STRATEGIC_MERGE);
}

/**
 * Makes the object `desired` describes match it, if the App (uid `ownerUid`) controls it or it does
 * not exist. `cached` is the informer's copy; the informers only see objects labelled as ours, so
 * a miss is checked with a GET before creating (the name may be taken by someone else's object).
 */
export async function ensureObject(clients: ApplyClients, ownerUid: string, desired: KubernetesObject, cached: KubernetesObject | undefined): Promise<EnsureResult> {
  const { api } = clients;
  let current = cached ?? (await readIfExists(api, desired));
  if (!current) {
    // An HTTPRoute (a custom resource) whose CRD is being deleted: the API server refuses to create
    // one (405), but a server-side apply creates it all the same (1.20 does), and the CRD's deletion,
    // which deletes every route first, then waits for ever on the routes made again. Asked first.
    if (desired.kind === 'HTTPRoute') await api.create(withConfigHash(desired), { dryRun: true });
    try {
      // Not forced: should an object of this name appear in the meantime, a field conflict fails
      // the apply instead of silently taking it over.
      return { outcome: 'created', object: await applyRecorded(clients, withConfigHash(desired), false) };
    } catch (err) {
      if (!isConflict(err)) throw err;
      current = await readIfExists(api, desired);
      if (!current) throw err;
    }
  }
  if (!isControlledBy(current, ownerUid)) {
    return { outcome: 'conflict', message: `${describeObject(desired)} exists and is not owned by this App` };
  }
  if (current.metadata?.deletionTimestamp) return { outcome: 'deleting', object: current };
  const want = withConfigHash(desired, current.metadata?.annotations?.[ANNOTATION_CONFIG_HASH]);
  // Objects from a list carry no apiVersion and kind; everything else we set is compared.
  const { apiVersion: _apiVersion, kind: _kind, ...fields } = want;
  const removal = removalFor(want, current, want.metadata?.annotations?.[ANNOTATION_CONFIG_HASH] !== current.metadata?.annotations?.[ANNOTATION_CONFIG_HASH]);
  const changed = [...differences(fields, current), ...(removal?.paths ?? [])];
  const ref = refOf(want, want);
  const wantHash = want.metadata!.annotations![ANNOTATION_CONFIG_HASH]!;
  // Leaving replicas out is no difference to the subset comparison (nor to the hash); the write
  // is about them all the same.
  const handover = needsReplicasHandover(want, current);
  if (changed.length === 0 && !handover) {
    clients.residuals?.forget(ref);
    return { outcome: 'unchanged', object: current };
  }
  if (!removal && !handover && clients.residuals?.leftAsApplied(ref, wantHash, changed, current)) return { outcome: 'unchanged', object: current };
  if (removal) await patchStrategic(clients, desired, removal.patch);
  if (handover) {
    await handOverReplicas(api, current);
    changed.push('spec.replicas');
  }
  // Forced: fields a person changed by hand (kubectl scale, edit) belong to another manager now.
  const stored = await applyRecorded(clients, want, true);
  if (!clients.residuals) return { outcome: 'updated', object: stored, changed };
  const residual = differences(fields, stored);
  clients.residuals.record(ref, wantHash, residual, stored);
  return { outcome: 'updated', object: stored, changed, ...(residual.length > 0 ? { residual } : {}) };
}

/** Deletes `cached` (of type `type`) if the App controls it. Returns whether a delete was issued. */
export async function deleteIfOwned(
  { api, expectations }: ApplyClients,
  ownerUid: string,
  type: { apiVersion: string; kind: string },
  cached: KubernetesObject | undefined,
): Promise<boolean> {
  if (!cached || !isControlledBy(cached, ownerUid) || cached.metadata?.deletionTimestamp) return false;
  const target = { ...type, namespace: cached.metadata!.namespace!, name: cached.metadata!.name! };
  try {
    await api.delete(target, { propagationPolicy: 'Background', preconditions: { uid: cached.metadata!.uid } });
    expectations?.deleted(refOf(type, cached), cached.metadata!.uid, ownerUid);
    return true;
  } catch (err) {
    if (!isNotFound(err)) throw err;
    // Gone already: the cache that still shows it is behind as well.
    expectations?.deleted(refOf(type, cached), cached.metadata!.uid, ownerUid);
    return false;
  }
}
