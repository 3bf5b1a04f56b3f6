// The App schema's validator, compiled when first imported. The bundles replace this module with
// the same validator compiled at build time (app-schema-ajv.ts says why; hack/bundle.mjs).
import { appSchemaAjv, appSchemaForAjv } from './app-schema-ajv.js';

export const validateSchema = appSchemaAjv().compile(appSchemaForAjv);
