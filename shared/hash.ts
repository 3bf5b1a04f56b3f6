// Content hashes of JSON values, independent of key order. The hashes are stored (pod-template
// revisions, the applied-content annotation), so the text they are taken of must never change:
// test/unit/hash.test.ts holds stableJson to its first, declarative form on random values.
import { hash } from 'node:crypto';

// Keys that JSON.stringify would quote as they are: no quotes, backslashes or control characters.
const PLAIN_KEY = /^[A-Za-z0-9_.\-/]*$/;

/**
 * JSON with object keys sorted and undefined members left out. Written as loops over one string
 * rather than map/filter/join: it runs on every owned object in every reconcile, and this form
 * is about twice as fast.
 */
export function stableJson(v: unknown): string {
  if (typeof v !== 'object' || v === null || v instanceof Date) return JSON.stringify(v);
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) s += ',';
      // An element JSON has no text for (undefined, a function) is left empty, as join leaves it.
      const e = stableJson(v[i]);
      if (e !== undefined) s += e;
    }
    return `${s}]`;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  let s = '{';
  let first = true;
  for (const k of keys) {
    const x = o[k];
    if (x === undefined) continue;
    if (!first) s += ',';
    first = false;
    s += `${PLAIN_KEY.test(k) ? `"${k}"` : JSON.stringify(k)}:${stableJson(x)}`;
  }
  return `${s}}`;
}

/** The first `length` hex digits of the SHA-256 of the value's stable JSON (one-shot crypto.hash: no Hash object per call). */
export function contentHash(v: unknown, length = 16): string {
  return hash('sha256', stableJson(v), 'hex').slice(0, length);
}
