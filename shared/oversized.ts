// Lists, maps and strings of an App longer than its schema allows, found before any check looks
// inside them. A mutating webhook sees an App before the API server checks it against the CRD's
// schema, so an admission can carry 3 MiB of one list; every check after this one is linear in
// what it is given only once the lists are within their bounds, and the schema's own validator
// (allErrors) would still walk every entry. An App with such a field is refused for it alone, at
// the cost of one walk that never enters an oversized value. Pure.
import type { JSONSchema } from './app-schema.js';
import { isObject } from './objects.js';

/**
 * Entries of a list or map whose schema sets no bound: far above any App's real use (env,
 * volumes and the like have bounds of their own), far below what makes a check slow.
 */
export const UNBOUNDED_ENTRIES = 4096;

export interface Oversized {
  /** JSON pointer of the field, as ajv's instancePath. */
  pointer: string;
  message: string;
}

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Where the walk is, as a chain back to the root: a pointer is written out only for a field over
 * its bound (one in a million Apps), never for each field walked past.
 */
type Path = { up: Path; key: string | number } | undefined;

function pointerOf(base: string, path: Path): string {
  const keys: (string | number)[] = [];
  for (let p = path; p; p = p.up) keys.push(p.key);
  let out = base;
  for (let i = keys.length - 1; i >= 0; i--) out += `/${typeof keys[i] === 'number' ? keys[i] : escape(keys[i] as string)}`;
  return out;
}

/** The fields of `value` (at `pointer`, described by `schema`) over their bounds. */
export function oversized(value: unknown, schema: JSONSchema, pointer = ''): Oversized[] {
  const out: Oversized[] = [];
  walk(value, schema, undefined, (path, message) => out.push({ pointer: pointerOf(pointer, path), message }));
  return out;
}

type Report = (path: Path, message: string) => void;

function walk(value: unknown, schema: JSONSchema | undefined, path: Path, report: Report): void {
  if (!schema) return;
  // Each branch of a combination describes the value too: its bounds hold for the branch it matches.
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const b of branches as JSONSchema[]) walk(value, b, path, report);
  }
  if (typeof value === 'string') {
    const max = schema.maxLength as number | undefined;
    // Characters as JSON Schema counts them (code points); length in UTF-16 units is an upper bound.
    if (max !== undefined && value.length > max && [...value].length > max) report(path, `must NOT have more than ${max} characters`);
    return;
  }
  if (Array.isArray(value)) {
    const max = (schema.maxItems as number | undefined) ?? UNBOUNDED_ENTRIES;
    if (value.length > max) return report(path, `must NOT have more than ${max} items`);
    const items = schema.items as JSONSchema | undefined;
    if (items) for (let i = 0; i < value.length; i++) walk(value[i], items, { up: path, key: i }, report);
    return;
  }
  if (!isObject(value)) return;
  const keys = Object.keys(value);
  const max = (schema.maxProperties as number | undefined) ?? UNBOUNDED_ENTRIES;
  if (keys.length > max) return report(path, `must NOT have more than ${max} properties`);
  const properties = (schema.properties ?? {}) as Record<string, JSONSchema>;
  const rest = isObject(schema.additionalProperties) ? (schema.additionalProperties as JSONSchema) : undefined;
  for (const key of keys) {
    const child = properties[key] ?? rest;
    if (child) walk(value[key], child, { up: path, key }, report);
  }
}
