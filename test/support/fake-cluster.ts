// An in-memory stand-in for the API server, for unit tests of the reconciler's orchestration:
// objects by kind/namespace/name, caches that read them (like synced informers), clients that
// write them, and a log of every write in order. Integration tests use the real API server.
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import type { App } from '../../shared/app-types.js';
import type { IndexedCache, ListableCache } from '../../controller/runtime/cache.js';
import type { ApiClient, ObjectRef } from '../../controller/runtime/api-client.js';
import type { EventRecorder } from '../../controller/runtime/events.js';

export interface Write {
  verb: 'apply' | 'patch' | 'create' | 'delete' | 'status' | 'annotations';
  kind: string;
  name: string;
}

/** An error shaped like client-node's ApiException. */
export const apiError = (code: number, message = `error ${code}`) => Object.assign(new Error(message), { code, body: JSON.stringify({ message }) });

export class FakeCluster {
  readonly objects = new Map<string, KubernetesObject>();
  readonly writes: Write[] = [];
  readonly events: { reason: string; type: string; message: string }[] = [];
  /**
   * Kinds whose CRD is being deleted: creates are refused (405), as the API server refuses them;
   * a server-side apply still creates, as 1.20's does.
   */
  readonly terminating = new Set<string>();
  /** Called before each write; throw to make it fail. */
  beforeWrite: (w: Write) => void = () => {};
  /** Kinds whose caches lag: they serve the objects as they were when lag() was called. */
  private readonly lagging = new Map<string, Map<string, KubernetesObject>>();
  private version = 1;
  private uids = 0;

  static key = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;

  get(kind: string, namespace: string, name: string): KubernetesObject | undefined {
    return this.objects.get(FakeCluster.key(kind, namespace, name));
  }

  /**
   * Stores an object as the API server would: uid, a new resourceVersion, generation moved by spec
   * changes only, and for a Deployment by an annotation change too (as the API server's Deployment
   * strategy does, for the rollback annotation of old).
   */
  put<T extends KubernetesObject>(obj: T): T {
    const stored = structuredClone(obj);
    const previous = this.get(obj.kind!, obj.metadata!.namespace!, obj.metadata!.name!);
    const specOf = (o: KubernetesObject | undefined) =>
      JSON.stringify([(o as { spec?: unknown } | undefined)?.spec, obj.kind === 'Deployment' ? o?.metadata?.annotations : undefined]);
    const generation = previous?.metadata?.generation ?? 0;
    stored.metadata = {
      ...stored.metadata,
      uid: previous?.metadata?.uid ?? stored.metadata?.uid ?? `uid-${++this.uids}`,
      resourceVersion: String(++this.version),
      generation: previous && specOf(previous) === specOf(stored) ? generation : generation + 1,
    };
    this.objects.set(FakeCluster.key(obj.kind!, obj.metadata!.namespace!, obj.metadata!.name!), stored);
    return stored;
  }

  /** A cache of `kind`; byIndex finds by `index`, as the informer's index does. */
  cache<T extends KubernetesObject = KubernetesObject>(kind: string, index?: (obj: T) => string | undefined): ListableCache<T> & IndexedCache<T> {
    const held = () => this.lagging.get(kind) ?? this.objects;
    const list = (namespace?: string) => [...held()].filter(([k]) => k.startsWith(`${kind}/${namespace === undefined ? '' : `${namespace}/`}`)).map(([, o]) => o as T);
    return {
      get: (name, namespace) => held().get(FakeCluster.key(kind, namespace, name)) as T | undefined,
      list,
      byIndex: (value) => (index ? list().filter((o) => index(o) === value) : []),
    };
  }

  /**
   * From now on the caches of these kinds serve the objects as they are now, as an informer
   * whose watch events have not arrived yet does, until catchUp().
   */
  lag(...kinds: string[]): void {
    for (const kind of kinds) this.lagging.set(kind, new Map([...this.objects].filter(([k]) => k.startsWith(`${kind}/`)).map(([k, o]) => [k, structuredClone(o)])));
  }

  /** The lagging caches receive every change since lag(). */
  catchUp(): void {
    this.lagging.clear();
  }

  private write(w: Write): void {
    this.beforeWrite(w);
    this.writes.push(w);
  }

  /** The API client of the reconciler, over the stored objects. */
  clients(): { api: ApiClient } {
    const key = (ref: ObjectRef) => FakeCluster.key(ref.kind, ref.namespace, ref.name);
    const found = (ref: ObjectRef) => {
      const obj = this.objects.get(key(ref));
      if (!obj) throw apiError(404, 'not found');
      return obj;
    };
    const api: ApiClient = {
      read: async (ref) => structuredClone(found(ref)),
      create: async (o, opts = {}) => {
        if (this.terminating.has(o.kind!)) throw apiError(405, 'create not allowed while custom resource definition is terminating');
        if (opts.dryRun) {
          if (this.get(o.kind!, o.metadata!.namespace!, o.metadata!.name!)) throw apiError(409, 'already exists');
          return structuredClone(o);
        }
        this.write({ verb: 'create', kind: o.kind!, name: o.metadata!.name! });
        if (this.get(o.kind!, o.metadata!.namespace!, o.metadata!.name!)) throw apiError(409, 'already exists');
        return structuredClone(this.put(o));
      },
      apply: async (o) => {
        this.write({ verb: 'apply', kind: o.kind!, name: o.metadata!.name! });
        const current = this.get(o.kind!, o.metadata!.namespace!, o.metadata!.name!);
        // A Deployment's count left out of an apply keeps its value: another manager holds it (the
        // handover's, an autoscaler's), as Skiff's applies leave it to them.
        const replicas = o.kind === 'Deployment' && current ? (current as V1Deployment).spec?.replicas : undefined;
        const spec = replicas !== undefined && (o as V1Deployment).spec?.replicas === undefined ? { spec: { ...(o as V1Deployment).spec, replicas } } : {};
        return structuredClone(this.put({ ...current, ...o, ...spec, metadata: { ...current?.metadata, ...o.metadata }, status: (current as { status?: unknown })?.status } as unknown as KubernetesObject));
      },
      patch: async (ref, body: Record<string, any>, opts) => {
        if (ref.kind !== 'App' && opts.type === 'merge') {
          this.write({ verb: 'patch', kind: ref.kind, name: ref.name });
          const current = found(ref);
          return structuredClone(this.put({ ...current, metadata: mergePatch(current.metadata ?? {}, (body as { metadata?: unknown }).metadata ?? {}) }));
        }
        if (ref.kind !== 'App') {
          // A strategic merge patch (removals.ts) is recorded, not carried out.
          this.write({ verb: 'patch', kind: ref.kind, name: ref.name });
          return structuredClone(this.objects.get(key(ref)) ?? {});
        }
        const verb = opts.subresource === 'status' ? 'status' : 'annotations';
        this.write({ verb, kind: 'App', name: ref.name });
        const app = found(ref) as App & KubernetesObject;
        if (verb === 'status') {
          if (body.metadata?.resourceVersion !== app.metadata.resourceVersion) throw apiError(409, 'the object has been modified');
          return this.put({ ...app, status: mergePatch(app.status ?? {}, body.status) });
        }
        const annotations = opts.type === 'json'
          ? annotationsJsonPatch(app.metadata.annotations ?? {}, body as unknown as JsonPatchOperation[])
          : mergePatch(app.metadata.annotations ?? {}, body.metadata.annotations);
        return this.put({ ...app, metadata: { ...app.metadata, annotations } });
      },
      delete: async (ref) => {
        this.write({ verb: 'delete', kind: ref.kind, name: ref.name });
        if (!this.objects.delete(key(ref))) throw apiError(404, 'not found');
        return {};
      },
    };
    return { api };
  }

  recorder(): EventRecorder {
    return {
      event: (_app, type, reason, message) => void this.events.push({ type, reason, message }),
      flush: async () => {},
    };
  }
}

type JsonPatchOperation = { op: string; path: string; value?: unknown };

/** RFC 6902 `test` and `remove` of /metadata/annotations/<name>, as the reconciler sends them; a failed test refuses all (422). */
function annotationsJsonPatch(annotations: Record<string, string>, operations: JsonPatchOperation[]): Record<string, string> {
  const out = { ...annotations };
  for (const { op, path, value } of operations) {
    const prefix = '/metadata/annotations/';
    if (!path.startsWith(prefix)) throw apiError(422, `unsupported path ${path}`);
    const name = path.slice(prefix.length).replace(/~1/g, '/').replace(/~0/g, '~');
    if (op === 'test' && out[name] !== value) throw apiError(422, `testing value ${path} failed`);
    else if (op === 'remove') {
      if (!(name in out)) throw apiError(422, `missing value ${path}`);
      delete out[name];
    } else if (op !== 'test') throw apiError(422, `unsupported op ${op}`);
  }
  return out;
}

/** RFC 7386 merge patch. */
function mergePatch<T>(target: T, patch: unknown): T {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch as T;
  const out: Record<string, unknown> = { ...(target as Record<string, unknown>) };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k] ?? {}, v);
  }
  return out as T;
}
