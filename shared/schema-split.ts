// The App schema cut into definitions for ajv. ajv generates one function per schema and inlines
// every subschema into it: for the whole App schema, a single function of about 400 KB of code.
// V8 does not optimize a function with more than 60 KiB of bytecode (--max-optimized-bytecode-size),
// so every admission ran the schema check in the interpreter: 5 µs of the webhook's 11 µs per
// review in-process, and more under load. With its large subschemas as definitions behind $ref
// (and ajv's inlineRefs off), each becomes a function of its own that V8 optimizes: 1.3 µs.
// The errors are the same (instancePath, keyword, params, message, and a parentSchema with the same
// keywords, x-skiff-message among them); only their schemaPath names the definition.
import type { JSONSchema } from './app-schema.js';

/**
 * Subschemas longer than this (as JSON) get a function of their own. 1,000 keeps the largest
 * generated function (the App's spec) near 60 KB of source, about half of where V8 stopped
 * optimizing it (test/bundle/schema-validator.test.ts holds it below 80 KB).
 */
export const MAX_INLINE_SCHEMA_CHARS = 1_000;

/** The keywords whose values are subschemas that the App schema nests, and the names their definitions get. */
const NESTING: Record<string, (parent: string, key: string) => string> = {
  properties: (parent, key) => (parent ? `${parent}.${key}` : key),
  // ":" is a character of URI fragments that no field name holds: these names never collide.
  items: (parent) => `${parent}:items`,
  additionalProperties: (parent) => `${parent}:values`,
};

/**
 * `schema` with every nested subschema of more than `maxChars` (as JSON, after its own large
 * subschemas were moved) moved to `definitions` and replaced by a $ref to it. A subschema is
 * copied only when one of its own was moved; the schema as written is left as it is.
 */
export function splitSchema(schema: JSONSchema, maxChars = MAX_INLINE_SCHEMA_CHARS): JSONSchema {
  const definitions: Record<string, JSONSchema> = {};
  const split = (s: JSONSchema, name: string): JSONSchema => {
    let copy: JSONSchema | undefined;
    for (const [keyword, nameOf] of Object.entries(NESTING)) {
      const value = s[keyword];
      if (!isSchema(value) || (keyword === 'properties' && Object.values(value).some((v) => !isSchema(v)))) continue;
      const replaced = keyword === 'properties'
        ? mapValues(value, (sub, key) => split(sub as JSONSchema, nameOf(name, key)))
        : split(value, nameOf(name, ''));
      if (replaced !== value) (copy ??= { ...s })[keyword] = replaced;
    }
    const out = copy ?? s;
    if (name === '' || JSON.stringify(out).length <= maxChars) return out;
    definitions[name] = out;
    return { $ref: `#/definitions/${name}` };
  };
  const root = split(schema, '');
  return Object.keys(definitions).length === 0 ? root : { ...root, definitions };
}

const isSchema = (v: unknown): v is JSONSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object with each value replaced; the same object when no value changed. */
function mapValues(o: JSONSchema, f: (v: unknown, key: string) => unknown): JSONSchema {
  let copy: JSONSchema | undefined;
  for (const [key, v] of Object.entries(o)) {
    const w = f(v, key);
    if (w !== v) (copy ??= { ...o })[key] = w;
  }
  return copy ?? o;
}
