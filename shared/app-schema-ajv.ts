// The one ajv set-up of the App schema. Run from the TypeScript output (tests, `npm run dev`)
// the schema is compiled when first imported (app-schema-validator.ts); the bundles carry the
// same validator compiled at build time instead (hack/bundle.mjs, ajv's standalone code), because
// compiling it at start-up costs a process about 30 MiB of RSS that it never gives back.
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { appSchema } from './app-schema.js';
import { splitSchema } from './schema-split.js';

// Keywords that only annotate the schema for Kubernetes or for messages.
const ANNOTATIONS = [
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-preserve-unknown-fields',
  'x-skiff-message',
];

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** An ajv holding the App schema; `code` as ajv takes it (the build asks for source code). */
export function appSchemaAjv(code?: Options['code']): Ajv {
  // inlineRefs off: each definition of appSchemaForAjv stays a function of its own (schema-split.ts).
  const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, strictTypes: false, inlineRefs: false, ...(code ? { code } : {}) });
  addFormats(ajv);
  ajv.addVocabulary(ANNOTATIONS);
  return ajv;
}

/** The App schema as ajv compiles it: its large subschemas as definitions (schema-split.ts says why). */
export const appSchemaForAjv = splitSchema(appSchema);
