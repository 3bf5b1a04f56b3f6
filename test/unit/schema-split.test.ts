// The App schema as ajv compiles it (cut into definitions, shared/schema-split.ts) must judge every
// App as the schema as written does: the same errors, at the same paths, in the same order, with
// the same messages, including the x-skiff-message of the schema that failed.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { appSchema } from '../../shared/app-schema.js';
import { appSchemaAjv, appSchemaForAjv } from '../../shared/app-schema-ajv.js';
import { MAX_INLINE_SCHEMA_CHARS, splitSchema } from '../../shared/schema-split.js';
import { validateSchema } from '../../shared/app-schema-validator.js';
import { specNearBounds } from '../support/app-arbitraries.js';
import { repoRoot } from '../support/bundle.js';

const judged = (validate: ValidateFunction, app: unknown) => {
  const ok = validate(app);
  const errors = (validate.errors ?? []).map(({ instancePath, keyword, params, message, parentSchema, data }: ErrorObject) =>
    ({ instancePath, keyword, params, message, custom: parentSchema?.['x-skiff-message'], data }));
  return { ok, errors };
};

/** Every value inside `v` replaced, one at a time, by `by`. */
function withOneValueReplaced(v: unknown, pick: number, by: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(v)) as unknown;
  const slots: [Record<string, unknown>, string][] = [];
  const walk = (o: unknown) => {
    if (typeof o !== 'object' || o === null) return;
    for (const key of Object.keys(o)) {
      slots.push([o as Record<string, unknown>, key]);
      walk((o as Record<string, unknown>)[key]);
    }
  };
  walk(copy);
  if (slots.length > 0) {
    const [o, key] = slots[pick % slots.length]!;
    o[key] = by;
  }
  return copy;
}

describe('the App schema cut into definitions for ajv', () => {
  const asWritten = appSchemaAjv().compile(appSchema);
  const app = (spec: unknown) => ({ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: 'shop' }, spec });

  it('moves the large subschemas to definitions and leaves none of them larger than the bound', () => {
    const definitions = appSchemaForAjv.definitions as Record<string, unknown>;
    assert.ok(Object.keys(definitions).includes('spec'), Object.keys(definitions).join(', '));
    for (const [name, s] of Object.entries(definitions)) assert.ok(JSON.stringify(s).length > MAX_INLINE_SCHEMA_CHARS, name);
    const { definitions: _, ...root } = appSchemaForAjv;
    assert.ok(JSON.stringify(root).length <= MAX_INLINE_SCHEMA_CHARS);
    assert.equal(splitSchema({ type: 'object', properties: { a: { type: 'string' } } }).definitions, undefined);
  });

  it('judges the samples as the schema as written does', () => {
    const dir = join(repoRoot, 'config', 'samples');
    const apps = readdirSync(dir).flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS()));
    for (const a of apps) assert.deepEqual(judged(validateSchema, a), judged(asWritten, a), a.metadata?.name);
  });

  it('judges Apps near the bounds, with any one value inside replaced by anything, alike (fast-check, seeded)', () => {
    let invalid = 0;
    fc.assert(fc.property(specNearBounds, fc.nat(), fc.anything(), (spec, pick, by) => {
      assert.deepEqual(judged(validateSchema, app(spec)), judged(asWritten, app(spec)));
      const changed = withOneValueReplaced(app(spec), pick, by);
      const split = judged(validateSchema, changed);
      if (!split.ok) invalid++;
      assert.deepEqual(split, judged(asWritten, changed));
    }), { seed: 2026, numRuns: 500 });
    assert.ok(invalid > 200, `invalid Apps among the cases: ${invalid}`);
  });
});
