// Content hashes of JSON values, independent of key order.
import { createHash } from 'node:crypto';

/** JSON with object keys sorted and undefined members left out. */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    return `{${Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined).sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The first `length` hex digits of the SHA-256 of the value's stable JSON. */
export function contentHash(v: unknown, length = 16): string {
  return createHash('sha256').update(stableJson(v)).digest('hex').slice(0, length);
}
