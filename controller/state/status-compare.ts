// Comparing and patching App statuses: the reconciler writes a status only when it changed,
// as a merge patch that removes the fields the new status no longer has. Pure.
import { isDeepStrictEqual } from 'node:util';
import type { AppStatus } from '../../shared/app-types.js';

/** Equal as JSON, regardless of key order. */
export function sameStatus(a: AppStatus | undefined, b: AppStatus | undefined): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? {})), JSON.parse(JSON.stringify(b ?? {})));
}

/**
 * A JSON merge patch body turning status `from` into `to`: removed fields become null, at every
 * depth (a merge patch merges objects, so a field dropped inside status.canary, such as
 * pausedAt, must be removed by name). Lists are replaced whole.
 */
export function statusMergePatch(from: AppStatus | undefined, to: AppStatus): Record<string, unknown> {
  return withRemovals(from ?? {}, to as Record<string, unknown>);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function withRemovals(from: object, to: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...to };
  for (const [key, was] of Object.entries(from)) {
    if (!(key in to) || to[key] === undefined) patch[key] = null;
    else if (isPlainObject(was) && isPlainObject(to[key])) patch[key] = withRemovals(was, to[key] as Record<string, unknown>);
  }
  return patch;
}
