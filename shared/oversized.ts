// Lists, maps and strings of an App longer than its schema allows, found before any check looks
// inside them. A mutating webhook sees an App before the API server checks it against the CRD's
// schema, so an admission can carry 3 MiB of one list; every check after this one is linear in
// what it is given only once the lists are within their bounds, and the schema's own validator
// (allErrors) would still walk every entry. Such a field is named for its size alone, at the cost
// of one walk that never enters an oversized value; the rest of the App is checked on a copy with
// those fields cut to their bounds (cutToBounds). Pure.
import type { JSONSchema } from './app-schema.js';
import { isObject, pointerKeys, pointerToken } from './objects.js';

/**
 * Entries of a list or map whose schema sets no bound: far above any App's real use (env,
 * volumes and the like have bounds of their own), far below what makes a check slow.
 */
export const UNBOUNDED_ENTRIES = 4096;

export interface Oversized {
  /** JSON pointer of the field, as ajv's instancePath. */
  pointer: string;
  message: string;
  /** The field's bound: items of a list, properties of a map, characters of a string. */
  bound: number;
}


/**
 * Where the walk is, as a chain back to the root: a pointer is written out only for a field over
 * its bound (one in a million Apps), never for each field walked past.
 */
type Path = { up: Path; key: string | number } | undefined;

function pointerOf(base: string, path: Path): string {
  const keys: (string | number)[] = [];
  for (let p = path; p; p = p.up) keys.push(p.key);
  let out = base;
  for (let i = keys.length - 1; i >= 0; i--) out += `/${typeof keys[i] === 'number' ? keys[i] : pointerToken(keys[i] as string)}`;
  return out;
}

/** The fields of `value` (at `pointer`, described by `schema`) over their bounds. */
export function oversized(value: unknown, schema: JSONSchema, pointer = ''): Oversized[] {
  const out: Oversized[] = [];
  walk(value, schema, undefined, (path, message, bound) => out.push({ pointer: pointerOf(pointer, path), message, bound }));
  return out;
}

/** A value cut to `bound`: a list's first items, a map's first properties, a string's first characters. */
function cut(value: unknown, bound: number): unknown {
  if (typeof value === 'string') return [...value].slice(0, bound).join('');
  if (Array.isArray(value)) return value.slice(0, bound);
  return isObject(value) ? Object.fromEntries(Object.entries(value).slice(0, bound)) : value;
}

/**
 * `value` with each oversized field cut to its bound, so that the rest of it can be checked in
 * time linear in the bounds: the containers on the way to a cut field are copied, nothing else
 * (`value` itself is left as it is).
 */
export function cutToBounds(value: unknown, fields: readonly Oversized[]): unknown {
  const copied = new Set<unknown>();
  const copy = (v: unknown) => {
    const c = Array.isArray(v) ? [...v] : { ...(v as Record<string, unknown>) };
    copied.add(c);
    return c;
  };
  if (fields.some((f) => f.pointer === '')) return cut(value, Math.min(...fields.map((f) => f.bound)));
  const root = copy(value) as Record<string | number, unknown>;
  for (const { pointer, bound } of fields) {
    const tokens = pointerKeys(pointer);
    let at = root;
    for (const token of tokens.slice(0, -1)) {
      const next = at[token];
      if (!copied.has(next)) at[token] = copy(next);
      at = at[token] as Record<string | number, unknown>;
    }
    const last = tokens.at(-1)!;
    // Two branches of a schema may bound one field differently: the smaller bound wins.
    at[last] = cut(at[last], bound);
  }
  return root;
}

type Report = (path: Path, message: string, bound: number) => void;

/** What the walk reads of one schema node, taken from it once (a review walks the same schema every time). */
interface Bounds {
  branches: JSONSchema[];
  maxLength?: number;
  maxItems: number;
  items?: JSONSchema;
  maxProperties: number;
  properties: Record<string, JSONSchema>;
  rest?: JSONSchema;
}

const boundsOf = new WeakMap<JSONSchema, Bounds>();

function bounds(schema: JSONSchema): Bounds {
  let b = boundsOf.get(schema);
  if (b) return b;
  // Each branch of a combination describes the value too: its bounds hold for the branch it matches.
  const branches = (['anyOf', 'oneOf', 'allOf'] as const).flatMap((key) => (Array.isArray(schema[key]) ? (schema[key] as JSONSchema[]) : []));
  b = {
    branches,
    maxLength: schema.maxLength as number | undefined,
    maxItems: (schema.maxItems as number | undefined) ?? UNBOUNDED_ENTRIES,
    items: schema.items as JSONSchema | undefined,
    maxProperties: (schema.maxProperties as number | undefined) ?? UNBOUNDED_ENTRIES,
    properties: (schema.properties ?? {}) as Record<string, JSONSchema>,
    rest: isObject(schema.additionalProperties) ? (schema.additionalProperties as JSONSchema) : undefined,
  };
  boundsOf.set(schema, b);
  return b;
}

function walk(value: unknown, schema: JSONSchema | undefined, path: Path, report: Report): void {
  if (!schema || value === null || (typeof value !== 'string' && typeof value !== 'object')) return;
  const b = bounds(schema);
  for (const branch of b.branches) walk(value, branch, path, report);
  if (typeof value === 'string') {
    // Characters as JSON Schema counts them (code points); length in UTF-16 units is an upper bound.
    if (b.maxLength !== undefined && value.length > b.maxLength && [...value].length > b.maxLength) report(path, `must NOT have more than ${b.maxLength} characters`, b.maxLength);
    return;
  }
  if (Array.isArray(value)) {
    if (value.length > b.maxItems) return report(path, `must NOT have more than ${b.maxItems} items`, b.maxItems);
    if (b.items) for (let i = 0; i < value.length; i++) walk(value[i], b.items, { up: path, key: i }, report);
    return;
  }
  const keys = Object.keys(value);
  if (keys.length > b.maxProperties) return report(path, `must NOT have more than ${b.maxProperties} properties`, b.maxProperties);
  for (const key of keys) {
    // Own properties only: a map key such as "constructor" is no schema's name.
    const child = Object.hasOwn(b.properties, key) ? b.properties[key] : b.rest;
    if (child) walk((value as Record<string, unknown>)[key], child, { up: path, key }, report);
  }
}
