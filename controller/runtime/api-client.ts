// The API calls the reconciler makes, as a small typed client of the controller's own. Each
// answers with the object the API server returned, as plain JSON (its resourceVersion is what
// read-your-writes waits for); each failure is an ApiStatusError. Lists, watches, discovery and
// leases have clients of their own on the same transport (clients.ts). Objects are namespaced and named by
// apiVersion, kind, namespace and name; the kinds a client can reach are those of the table it
// was made with (http-api-client.ts).
import type { KubernetesObject } from '@kubernetes/client-node';

/** One namespaced object. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

export interface ApplyOptions {
  fieldManager: string;
  /** Take over fields another manager owns instead of failing with 409 Conflict. */
  force: boolean;
}

export interface PatchOptions {
  /**
   * `strategic-merge` honours $patch directives (built-in kinds only); `merge` is RFC 7386; `json`
   * is RFC 6902 (a list of operations; a failed `test` refuses the whole patch with 422).
   */
  type: 'strategic-merge' | 'merge' | 'json';
  fieldManager?: string;
  /** Patch the status subresource instead of the object. */
  subresource?: 'status';
}

export interface DeleteOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  /** The delete fails with 409 Conflict unless the object still has this uid (or resourceVersion). */
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface ApiClient {
  read(ref: ObjectRef): Promise<KubernetesObject>;
  /** Creates `obj` in its namespace; with `dryRun`, only asks whether the API server would. */
  create(obj: KubernetesObject, opts?: { dryRun?: boolean }): Promise<KubernetesObject>;
  /** Server-side apply of `obj` (apiVersion, kind, metadata.namespace and name set). */
  apply(obj: KubernetesObject, opts: ApplyOptions): Promise<KubernetesObject>;
  patch(ref: ObjectRef, body: object, opts: PatchOptions): Promise<KubernetesObject>;
  /** Resolves with what the API server answered: the object being deleted, or a Status. */
  delete(ref: ObjectRef, opts?: DeleteOptions): Promise<KubernetesObject>;
}

/**
 * A non-2xx answer: the HTTP code, and the Kubernetes Status the API server sent, raw as `body`
 * (as client-node's ApiException has it, so that api-errors.ts reads both alike) and its reason.
 */
export class ApiStatusError extends Error {
  /** The Status's reason (NotFound, Conflict, Invalid, ...), when the answer is a Status. */
  readonly reason?: string;

  constructor(
    readonly code: number,
    readonly body: string,
    method: string,
    path: string,
  ) {
    let status: { reason?: unknown; message?: unknown } | undefined;
    try {
      status = JSON.parse(body) as typeof status;
    } catch {
      // not a Status: the text describes it
    }
    super(`${method} ${path}: HTTP ${code}: ${typeof status?.message === 'string' ? status.message : body.slice(0, 200)}`);
    if (typeof status?.reason === 'string') this.reason = status.reason;
  }
}
