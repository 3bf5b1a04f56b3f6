// Validation of an App: the JSON schema (ajv) plus the semantic rules of api.md that a schema
// cannot express. Returns every problem at once, each named by its field path.
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { appSchema, DNS1035_LABEL, IMAGE_REFERENCE } from './app-schema.js';
import { parseQuantity } from './quantity.js';
import { isObject } from './objects.js';

export interface FieldError {
  /** Field path such as spec.env[1].name */
  path: string;
  message: string;
}

export interface ValidationResult {
  errors: FieldError[];
  warnings: string[];
}

// Keywords that only annotate the schema for Kubernetes or for messages.
const ANNOTATIONS = [
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-preserve-unknown-fields',
  'x-skiff-message',
];

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, strictTypes: false });
addFormats(ajv);
ajv.addVocabulary(ANNOTATIONS);
const validateSchema = ajv.compile(appSchema);

// A Service is named after the App and "<app>-canary"; both must be DNS-1035 labels (<= 63).
export const MAX_APP_NAME_LENGTH = 63 - '-canary'.length;


/** Turns a JSON pointer (/spec/env/0/name) into a field path (spec.env[0].name). */
export function fieldPath(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^[0-9]+$/.test(key)) out += `[${key}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}

const join = (base: string, key: string) => fieldPath(`${base}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);

function schemaErrors(errors: ErrorObject[]): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors) {
    // Branch failures inside anyOf are summarised by the anyOf error itself.
    if (e.schemaPath.includes('/anyOf/')) continue;
    const custom = (e.parentSchema as Record<string, unknown> | undefined)?.['x-skiff-message'];
    switch (e.keyword) {
      case 'required':
        out.push({ path: join(e.instancePath, String(e.params.missingProperty)), message: 'required' });
        break;
      case 'additionalProperties':
        out.push({ path: join(e.instancePath, String(e.params.additionalProperty)), message: 'unknown field' });
        break;
      case 'pattern':
      case 'anyOf':
        out.push({ path: fieldPath(e.instancePath), message: typeof custom === 'string' ? custom : String(e.message) });
        break;
      case 'enum':
        out.push({
          path: fieldPath(e.instancePath),
          message: `must be one of ${(e.params.allowedValues as unknown[]).map(String).join(', ')}`,
        });
        break;
      default:
        out.push({ path: fieldPath(e.instancePath), message: String(e.message) });
    }
  }
  return out;
}

function semanticErrors(app: Record<string, unknown>): FieldError[] {
  const out: FieldError[] = [];
  const meta = isObject(app.metadata) ? app.metadata : {};
  if (typeof meta.name === 'string' && meta.name !== '') {
    if (!new RegExp(DNS1035_LABEL).test(meta.name) || meta.name.length > MAX_APP_NAME_LENGTH) {
      out.push({
        path: 'metadata.name',
        message: `must be a DNS-1035 label of at most ${MAX_APP_NAME_LENGTH} characters (it names the Service and "<name>-canary")`,
      });
    }
  }
  const spec = app.spec;
  if (!isObject(spec)) return out;

  if (Array.isArray(spec.env)) {
    const seen = new Set<string>();
    spec.env.forEach((e, i) => {
      if (isObject(e) && typeof e.name === 'string') {
        if (seen.has(e.name)) out.push({ path: `spec.env[${i}].name`, message: `duplicate name "${e.name}"` });
        seen.add(e.name);
      }
    });
  }

  if (isObject(spec.resources)) {
    const parsed: Record<'requests' | 'limits', Record<string, number>> = { requests: {}, limits: {} };
    for (const kind of ['requests', 'limits'] as const) {
      const list = spec.resources[kind];
      if (!isObject(list)) continue;
      for (const [name, q] of Object.entries(list)) {
        if (typeof q !== 'string' && typeof q !== 'number') continue; // a type error, reported by the schema
        const v = parseQuantity(q);
        if (v === undefined || v < 0) {
          out.push({ path: join(`/spec/resources/${kind}`, name), message: 'must be a quantity such as 100m, 0.5 or 128Mi' });
        } else parsed[kind][name] = v;
      }
    }
    const limits = isObject(spec.resources.limits) ? spec.resources.limits : {};
    for (const [name, request] of Object.entries(parsed.requests)) {
      const limit = parsed.limits[name];
      if (limit !== undefined && request > limit) {
        out.push({
          path: join('/spec/resources/requests', name),
          message: `must be no greater than the limit (${String(limits[name])})`,
        });
      }
    }
  }

  const rollout = isObject(spec.rollout) ? spec.rollout : undefined;
  if (rollout?.strategy === 'Canary' && spec.ingress === undefined) {
    out.push({ path: 'spec.ingress', message: 'required when spec.rollout.strategy is Canary (traffic is split at the ingress)' });
  }
  if (rollout && Array.isArray(rollout.steps)) {
    rollout.steps.forEach((step, i) => {
      if (!isObject(step)) return;
      const set = ['setWeight', 'pause'].filter((k) => step[k] !== undefined).length;
      if (set !== 1) out.push({ path: `spec.rollout.steps[${i}]`, message: 'must set exactly one of setWeight or pause' });
    });
  }
  return out;
}

/** Tag and digest of an image reference, when it parses. */
export function imageTag(image: string): { tag?: string; digest?: string } | undefined {
  const m = new RegExp(IMAGE_REFERENCE).exec(image);
  if (!m) return undefined;
  return { tag: m[2], digest: m[3] };
}

function warnings(app: Record<string, unknown>): string[] {
  const spec = isObject(app.spec) ? app.spec : {};
  if (typeof spec.image !== 'string') return [];
  const ref = imageTag(spec.image);
  if (!ref || ref.digest) return [];
  if (ref.tag === undefined) {
    return [`spec.image: "${spec.image}" has no tag, so it runs whatever "latest" is at pull time; pin a version or digest`];
  }
  if (ref.tag === 'latest') {
    return [`spec.image: the "latest" tag changes under you; pin a version or digest`];
  }
  return [];
}

/** Every schema and semantic problem of an App, and the warnings to show. */
export function validateApp(app: unknown): ValidationResult {
  if (!isObject(app)) return { errors: [{ path: '', message: 'must be an object' }], warnings: [] };
  const errors: FieldError[] = [];
  if (!validateSchema(app)) errors.push(...schemaErrors(validateSchema.errors ?? []));
  errors.push(...semanticErrors(app));
  // One message per field and problem, in a stable order.
  const unique = new Map(errors.map((e) => [`${e.path}\u0000${e.message}`, e]));
  return { errors: [...unique.values()], warnings: warnings(app) };
}

/** The single denial message: "spec.replicas: must be <= 1000; spec.ingress.host: ..." */
export function formatErrors(errors: FieldError[]): string {
  return errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
}
