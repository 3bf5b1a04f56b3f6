// The bundles validate Apps with the schema compiled at build time (hack/schema-validator.mjs),
// the TypeScript output with the schema compiled at start-up (shared/app-schema-validator.ts).
// Both must judge every App alike: the same errors, at the same paths, in the same order.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { validateSchema as atStartUp } from '../../shared/app-schema-validator.js';
import { specNearBounds } from '../support/app-arbitraries.js';
import { repoRoot } from '../support/bundle.js';

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

const judged = (validate: Validate | ValidateFunction, app: unknown) => {
  const ok = validate(app);
  // verbose errors carry the schema and data objects themselves; the judgement is the rest.
  return { ok, errors: (validate.errors ?? []).map(({ instancePath, schemaPath, keyword, params, message }) => ({ instancePath, schemaPath, keyword, params, message })) };
};

describe('the schema validator compiled at build time', () => {
  let atBuild: Validate;
  before(async () => {
    ({ validateSchema: atBuild } = await import(pathToFileURL(join(repoRoot, 'dist', 'generated', 'app-schema-validator.mjs')).href) as { validateSchema: Validate });
  });

  it('judges the samples as the one compiled at start-up does, the invalid one included', () => {
    const dir = join(repoRoot, 'config', 'samples');
    const apps = readdirSync(dir).flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS()));
    assert.ok(apps.length >= 9);
    for (const app of apps) assert.deepEqual(judged(atBuild, app), judged(atStartUp, app), app.metadata?.name);
    assert.ok(apps.some((a) => !judged(atBuild, a).ok), 'an invalid sample among them');
  });

  it('judges Apps near the bounds, and the same with a field replaced by anything, alike (fast-check, seeded)', () => {
    const app = (spec: object) => ({ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: 'shop' }, spec });
    let invalid = 0;
    fc.assert(fc.property(specNearBounds, fc.constantFrom('image', 'replicas', 'port', 'env', 'probes', 'rollout', 'volumes', 'ingress', 'route', 'nope'), fc.anything(), (spec, field, value) => {
      assert.deepEqual(judged(atBuild, app(spec)), judged(atStartUp, app(spec)));
      const changed = app({ ...spec, [field]: value });
      const b = judged(atBuild, changed);
      if (!b.ok) invalid++;
      assert.deepEqual(b, judged(atStartUp, changed));
    }), { seed: 2025, numRuns: 300 });
    assert.ok(invalid > 100, `invalid Apps among the cases: ${invalid}`);
  });

  // V8 leaves a function of more than 60 KiB of bytecode unoptimized, and the schema check then
  // costs four times as much (shared/schema-split.ts). Source length stands in for bytecode: the
  // App's spec stopped being optimized between 100 and 120 KB of generated source.
  it('is made of functions small enough for V8 to optimize', () => {
    const code = readFileSync(join(repoRoot, 'dist', 'generated', 'app-schema-validator.mjs'), 'utf8');
    const starts = [...code.matchAll(/function validate\d+\(/g)].map((m) => m.index);
    assert.ok(starts.length > 10, `${starts.length} functions`);
    const largest = Math.max(...starts.map((at, i) => (starts[i + 1] ?? code.length) - at));
    assert.ok(largest < 80_000, `the largest function has ${largest} characters`);
  });
});
