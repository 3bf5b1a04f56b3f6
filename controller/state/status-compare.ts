// Comparing and patching App statuses: the reconciler writes a status only when it changed,
// as a merge patch that removes the fields the new status no longer has. Pure.
import { isDeepStrictEqual } from 'node:util';
import type { AppStatus } from '../../shared/app-types.js';

/** Equal as JSON, regardless of key order. */
export function sameStatus(a: AppStatus | undefined, b: AppStatus | undefined): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? {})), JSON.parse(JSON.stringify(b ?? {})));
}

/** A JSON merge patch body turning status `from` into `to`: removed fields become null. */
export function statusMergePatch(from: AppStatus | undefined, to: AppStatus): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...to };
  for (const key of Object.keys(from ?? {})) if (!(key in to)) patch[key] = null;
  return patch;
}
