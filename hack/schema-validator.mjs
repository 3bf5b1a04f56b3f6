// The App schema's validator compiled at build time for the bundles: ajv's standalone code for the
// schema as shared/app-schema-ajv.ts sets it up (from the tsc output, so `npm run build` runs tsc
// first), put in place of shared/app-schema-validator.ts. A process that compiles the schema at
// start-up keeps about 30 MiB more RSS for good (npm run bench:footprint).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * ajv's ESM output still require()s its runtime helpers and the formats; as imports instead, the
 * module loads on its own (the tests compare it with the validator compiled at start-up) and
 * esbuild bundles them alike.
 */
function asModule(code) {
  const modules = [...new Set([...code.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]))];
  let body = code;
  const imports = modules.map((m, i) => {
    body = body.replaceAll(`require("${m}")`, `__required${i}`);
    // As require() would give it: module.exports, which Node offers as the default export.
    return `import * as __ns${i} from '${m}.js';\nconst __required${i} = __ns${i}.default?.__esModule ? __ns${i}.default : __ns${i};`;
  });
  return `${imports.join('\n')}\n${body}\nexport { validate as validateSchema };\n`;
}

/** Writes the standalone validator module into dist/generated/ and returns its path. */
async function writeValidator(root) {
  const { _ } = await import('ajv');
  const { default: standalone } = await import('ajv/dist/standalone/index.js');
  const { appSchemaForAjv, appSchemaAjv } = await import(pathToFileURL(join(root, 'dist', 'shared', 'app-schema-ajv.js')).href);
  // Formats are taken from ajv-formats at run time, by reference: the generated code names them.
  const ajv = appSchemaAjv({ source: true, esm: true, formats: _`require("ajv-formats/dist/formats").fullFormats` });
  const code = standalone.default ? standalone.default(ajv, ajv.compile(appSchemaForAjv)) : standalone(ajv, ajv.compile(appSchemaForAjv));
  const dir = join(root, 'dist', 'generated');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'app-schema-validator.mjs');
  writeFileSync(path, asModule(code));
  return path;
}

/** An esbuild plugin resolving shared/app-schema-validator.js to the validator compiled now. */
export function appSchemaValidatorPlugin(root) {
  let generated;
  return {
    name: 'app-schema-validator',
    setup(build) {
      build.onResolve({ filter: /\/app-schema-validator\.js$/ }, async () => {
        generated ??= writeValidator(root);
        return { path: await generated };
      });
    },
  };
}
