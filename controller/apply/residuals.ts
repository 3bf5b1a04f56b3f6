// Fields the API server stores otherwise than Skiff applies them. A mutating admission webhook (a
// policy that rewrites images to a mirror registry, a mesh that sets its own pod settings) changes
// them on every write, so applying again changes nothing but the resourceVersion, whose watch
// event brings the next pass, which finds the same difference and applies again: a write and an
// Event on every pass, for ever. So what an apply leaves different is remembered beside the
// object as it was stored; a later pass that finds those same differences in an object unchanged
// since (its spec, labels and annotations) does not apply. A change of the App (another desired
// object) or any edit of the object (by hand, by someone else) applies as before.
import type { KubernetesObject } from '@kubernetes/client-node';
import { contentHash } from '../../shared/hash.js';

/** Objects remembered at most: beyond it the oldest are forgotten (and applied once more). */
export const MAX_RESIDUALS = 10_000;

interface Residual {
  /** The hash of the desired object that was applied. */
  desired: string;
  /** The differences left, and the object's content as stored with them. */
  signature: string;
}

const signatureOf = (paths: readonly string[], obj: KubernetesObject) =>
  contentHash({ paths: [...paths].sort(), spec: (obj as { spec?: unknown }).spec ?? null, labels: obj.metadata?.labels ?? null, annotations: obj.metadata?.annotations ?? null });

export class Residuals {
  private readonly byRef = new Map<string, Residual>();

  constructor(private readonly max = MAX_RESIDUALS) {}

  /** After an apply of `desired` (by its hash): what the stored object still differs in (none: nothing to remember). */
  record(ref: string, desired: string, differences: readonly string[], stored: KubernetesObject): void {
    this.byRef.delete(ref);
    if (differences.length === 0) return;
    this.byRef.set(ref, { desired, signature: signatureOf(differences, stored) });
    if (this.byRef.size > this.max) this.byRef.delete(this.byRef.keys().next().value!);
  }

  /** Whether `current` is as the last apply of the same `desired` left it, with the same differences. */
  leftAsApplied(ref: string, desired: string, differences: readonly string[], current: KubernetesObject): boolean {
    const known = this.byRef.get(ref);
    return known !== undefined && known.desired === desired && known.signature === signatureOf(differences, current);
  }

  forget(ref: string): void {
    this.byRef.delete(ref);
  }

  get size(): number {
    return this.byRef.size;
  }
}
