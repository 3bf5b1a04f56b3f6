// Validation of an App: the JSON schema (ajv) plus the semantic rules of api.md that a schema
// cannot express. Returns every problem at once, each named by its field path.
import type { ErrorObject } from 'ajv';
import { validateSchema } from './app-schema-validator.js';
import { appSchema, DNS1035_LABEL, QUANTITY_MESSAGE } from './app-schema.js';
import { IMAGE_REFERENCE_RE, imageReferenceProblems } from './image-reference.js';
import { cutToBounds, oversized } from './oversized.js';
import { POD_TEMPLATE_FIELDS } from './pod-template-fields.js';
import { CONTAINER_NAME, LABEL_MANAGED_BY, LABEL_NAME, LABEL_SHARD, PORT_NAME } from './labels.js';
import { cappedByApiServer, parseQuantity, quantityNanos } from './quantity.js';
import { isObject, pointerKeys } from './objects.js';
import { isDeepStrictEqual } from 'node:util';
import { DEFAULT_CANARY_STEPS, DEFAULTS } from './defaults.js';
import { isIPv4, isLabelValue, isQualifiedName, itemsOf } from './field-checks.js';
import type { App } from './app-types.js';
import { knownPlaceholders, unknownPlaceholders } from './placeholders.js';
import { customQueryProblem } from './custom-queries.js';
import { apiServerProblems } from './api-server-rules.js';
import { cutText } from './bounded-text.js';
import { checkDurations } from './duration-bounds.js';
import { durationMs } from './durations.js';
import { podTemplateSizeProblems } from './pod-template-size.js';
import { restrictedProfileProblems } from './restricted-pod-security.js';

export interface FieldError {
  /** Field path such as spec.env[1].name */
  path: string;
  message: string;
}

export interface ValidationResult {
  errors: FieldError[];
  warnings: string[];
}

// A Service is named after the App and "<app>-canary"; both must be DNS-1035 labels (<= 63).
export const MAX_APP_NAME_LENGTH = 63 - '-canary'.length;
/** A blue-green App also names the Service "<app>-preview". */
export const MAX_BLUE_GREEN_APP_NAME_LENGTH = 63 - '-preview'.length;


/**
 * Turns a JSON pointer (/spec/env/0/name) into a field path (spec.env[0].name): a list's index as
 * [0], a map's key as .key or ["key"]. With the App the pointer is into, a key made of digits is
 * told from an index by what it is in (podLabels["123"], not podLabels[123]); without it, by
 * its digits.
 */
export function fieldPath(pointer: string, root?: unknown): string {
  let out = '';
  let at = root;
  for (const key of pointerKeys(pointer)) {
    const index = Array.isArray(at) || (!isObject(at) && /^[0-9]+$/.test(key));
    out = index ? `${out}[${key}]` : mapKeyPath(out, key);
    at = Array.isArray(at) ? at[Number(key)] : isObject(at) ? at[key] : undefined;
  }
  return out;
}

const mapKeyPath = (base: string, key: string) => (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? (base ? `${base}.${key}` : key) : `${base}[${JSON.stringify(key)}]`);

/** The path of map key `key` of the object at pointer `base`. */
const join = (base: string, key: string, root?: unknown) => mapKeyPath(fieldPath(base, root), key);

function schemaErrors(errors: ErrorObject[], app: unknown): FieldError[] {
  const out: FieldError[] = [];
  const integerFormats: FieldError[] = [];
  for (const e of errors) {
    // Branch failures inside anyOf are summarised by the anyOf error itself.
    if (e.schemaPath.includes('/anyOf/')) continue;
    const custom = (e.parentSchema as Record<string, unknown> | undefined)?.['x-skiff-message'];
    switch (e.keyword) {
      case 'required':
        out.push({ path: join(e.instancePath, String(e.params.missingProperty), app), message: 'required' });
        break;
      case 'additionalProperties':
        out.push({ path: join(e.instancePath, String(e.params.additionalProperty), app), message: 'unknown field' });
        break;
      case 'pattern':
      case 'anyOf':
      // A bound the schema can only write inclusively (latency.maxMs: above 0) says its own.
      case 'minimum':
        out.push({ path: fieldPath(e.instancePath, app), message: typeof custom === 'string' ? custom : String(e.message) });
        break;
      case 'enum':
        out.push({
          path: fieldPath(e.instancePath, app),
          // The empty string, where Kubernetes takes it, shown as "" (not as a stray comma).
          message: `must be one of ${(e.params.allowedValues as unknown[]).map((v) => (v === '' ? '""' : String(v))).join(', ')}`,
        });
        break;
      case 'format':
        // int32 and int64 (the CRD's own words) fail with "must be integer" or a bound of the same
        // field: one problem, said once, in those words (below).
        if (e.params.format === 'int32' || e.params.format === 'int64') {
          integerFormats.push({ path: fieldPath(e.instancePath, app), message: `must be an integer that fits in ${String(e.params.format)}` });
          break;
        }
        out.push({ path: fieldPath(e.instancePath, app), message: String(e.message) });
        break;
      default:
        out.push({ path: fieldPath(e.instancePath, app), message: String(e.message) });
    }
  }
  const said = new Set(out.map((x) => x.path));
  return [...out, ...integerFormats.filter((x) => !said.has(x.path))];
}

/**
 * An empty skiff.dev/shard label: no controller reconciles the App (one without --shard takes
 * only Apps without the label, and --shard="" is no shard), so it would silently stop rolling
 * out. `kubectl label app web skiff.dev/shard-` removes the label.
 */
export function emptyShardLabel(app: unknown): FieldError | undefined {
  const labels = isObject(app) && isObject(app.metadata) && isObject(app.metadata.labels) ? app.metadata.labels : undefined;
  if (labels?.[LABEL_SHARD] !== '') return undefined;
  return { path: `metadata.labels["${LABEL_SHARD}"]`, message: `must not be empty: no controller would reconcile the App (the label names the shard whose controller runs with --shard=<shard>; remove it for the controller without --shard)` };
}

/** The App's name (it names its Services) and the shard label. */
function metadataErrors(app: Record<string, unknown>, out: FieldError[]): void {
  const meta = isObject(app.metadata) ? app.metadata : {};
  const shard = emptyShardLabel(app);
  if (shard) out.push(shard);
  const strategy = isObject(app.spec) && isObject(app.spec.rollout) ? app.spec.rollout.strategy : undefined;
  if (typeof meta.name !== 'string' || meta.name === '') {
    generateNameErrors(meta.generateName, strategy, out);
    return;
  }
  if (!DNS1035_LABEL_RE.test(meta.name) || meta.name.length > MAX_APP_NAME_LENGTH) {
    out.push({
      path: 'metadata.name',
      message: `must be a DNS-1035 label of at most ${MAX_APP_NAME_LENGTH} characters (it names the Service and "<name>-canary")`,
    });
  }
  if (strategy === 'BlueGreen' && meta.name.length > MAX_BLUE_GREEN_APP_NAME_LENGTH) {
    out.push({ path: 'metadata.name', message: `must be at most ${MAX_BLUE_GREEN_APP_NAME_LENGTH} characters with strategy BlueGreen (it names the Service "<name>-preview")` });
  }
}

/** The characters the API server adds to a generateName prefix to make the name. */
const GENERATED_SUFFIX_LENGTH = 5;

/**
 * An App created with metadata.generateName has no name yet when /mutate sees it (the API server
 * makes it after the mutating webhooks): its prefix is checked instead, so that a prefix that can
 * only give a refused name is said with the other problems, in the author's own words, not later
 * of a name the author never wrote.
 */
function generateNameErrors(prefix: unknown, strategy: unknown, out: FieldError[]): void {
  if (typeof prefix !== 'string' || prefix === '') return;
  const longest = (strategy === 'BlueGreen' ? MAX_BLUE_GREEN_APP_NAME_LENGTH : MAX_APP_NAME_LENGTH) - GENERATED_SUFFIX_LENGTH;
  // The suffix is letters and digits, so the prefix may end with "-".
  if (!/^[a-z][-a-z0-9]*$/.test(prefix) || prefix.length > longest) {
    const names = strategy === 'BlueGreen' ? 'the Service and "<name>-preview"' : 'the Service and "<name>-canary"';
    out.push({
      path: 'metadata.generateName',
      message: `${strategy === 'BlueGreen' ? 'with strategy BlueGreen, ' : ''}must be at most ${longest} characters of lower-case letters, digits and "-", starting with a letter (the API server adds ${GENERATED_SUFFIX_LENGTH} to make the name, which names ${names})`,
    });
  }
}

function semanticErrors(app: Record<string, unknown>): FieldError[] {
  const out: FieldError[] = [];
  metadataErrors(app, out);
  const spec = app.spec;
  if (!isObject(spec)) return out;

  if (typeof spec.image === 'string') for (const message of imageReferenceProblems(spec.image)) out.push({ path: 'spec.image', message });

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
    const parsed: Record<'requests' | 'limits', Record<string, bigint>> = { requests: {}, limits: {} };
    for (const kind of ['requests', 'limits'] as const) {
      const list = spec.resources[kind];
      if (!isObject(list)) continue;
      for (const [name, q] of Object.entries(list)) {
        if (typeof q !== 'string' && typeof q !== 'number') continue; // a type error, reported by the schema
        if (refusedAsNotKept(out, join(`/spec/resources/${kind}`, name), q)) continue;
        const v = quantityNanos(q);
        if (v === undefined || v < 0n) {
          out.push({ path: join(`/spec/resources/${kind}`, name), message: badQuantity(q, (x) => (quantityNanos(x) ?? -1n) >= 0n, QUANTITY_MESSAGE) });
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
  if (rollout?.strategy === 'Canary' && spec.ingress === undefined && spec.route === undefined) {
    out.push({ path: 'spec.ingress', message: 'required when spec.rollout.strategy is Canary, unless spec.route is set (traffic is split at the ingress or the route)' });
  }
  // One by one: a spread of a list as long as a huge App's makes too many arguments for a call.
  if (rollout && isObject(rollout.analysis)) for (const e of analysisErrors(rollout.analysis, isObject(app.metadata) ? app.metadata : {})) out.push(e);
  if (spec.ingress !== undefined && spec.route !== undefined) {
    out.push({ path: 'spec.route', message: 'may not be set together with spec.ingress (an App is served by one or the other)' });
  }
  if (rollout) for (const e of strategyFieldErrors(rollout, spec)) out.push(e);
  if (rollout && Array.isArray(rollout.steps)) {
    rollout.steps.forEach((step, i) => {
      if (!isObject(step)) return;
      if ((step.setWeight === undefined) === (step.pause === undefined)) out.push({ path: `spec.rollout.steps[${i}]`, message: 'must set exactly one of setWeight or pause' });
    });
  }
  for (const check of WORKLOAD_CHECKS) check(spec, out);
  checkDurations(spec, out);
  for (const e of apiServerProblems(spec)) out.push(e);
  return out;
}

/**
 * What the mutating webhook fills for each strategy (defaults.ts). Left on an App whose strategy
 * changed, such a field was never the user's: a client that applies the new strategy cannot know
 * to remove it, so it stays, ignored, rather than refusing the change.
 */
const isStrategyDefault = (field: 'steps' | 'blueGreen', value: unknown) =>
  isDeepStrictEqual(value, field === 'steps' ? DEFAULT_CANARY_STEPS : { autoPromote: DEFAULTS.blueGreenAutoPromote });

/**
 * Fields of one strategy set with another: canary steps and header only with Canary, blueGreen only
 * with BlueGreen (a field that does nothing would mislead its reader), unless they are the defaults
 * of the strategy the App had before; previewHost needs a router.
 */
function strategyFieldErrors(rollout: Record<string, unknown>, spec: Record<string, unknown>): FieldError[] {
  const out: FieldError[] = [];
  const strategy = rollout.strategy ?? 'RollingUpdate';
  if (strategy === 'BlueGreen') {
    if (rollout.steps !== undefined && !isStrategyDefault('steps', rollout.steps)) {
      out.push({ path: 'spec.rollout.steps', message: 'may only be set with spec.rollout.strategy Canary, not BlueGreen' });
    }
    if (rollout.canaryHeader !== undefined) out.push({ path: 'spec.rollout.canaryHeader', message: 'may only be set with spec.rollout.strategy Canary, not BlueGreen' });
  } else if (rollout.blueGreen !== undefined && !isStrategyDefault('blueGreen', rollout.blueGreen)) {
    out.push({ path: 'spec.rollout.blueGreen', message: `may only be set with spec.rollout.strategy BlueGreen, not ${String(strategy)}` });
  }
  const blueGreen = isObject(rollout.blueGreen) ? rollout.blueGreen : undefined;
  if (blueGreen?.previewHost !== undefined && spec.ingress === undefined && spec.route === undefined) {
    out.push({ path: 'spec.rollout.blueGreen.previewHost', message: 'requires spec.ingress or spec.route (the preview is served by an Ingress or an HTTPRoute of its own)' });
  }
  if (typeof blueGreen?.previewHost === 'string' && isIPv4(blueGreen.previewHost)) {
    out.push({ path: 'spec.rollout.blueGreen.previewHost', message: 'must be a DNS name, not an IP address' });
  }
  // The preview Ingress (route) has the main one's path: on the main host it clashes with it.
  // ingress-nginx's admission refuses a second Ingress for a host and path, and otherwise, as
  // Gateways do for routes, gives the older one the traffic: the preview is never reachable.
  const previewHost = blueGreen?.previewHost;
  if (typeof previewHost === 'string') {
    if (isObject(spec.ingress) && spec.ingress.host === previewHost) {
      out.push({ path: 'spec.rollout.blueGreen.previewHost', message: 'must differ from spec.ingress.host (the preview gets an Ingress of its own for its host)' });
    }
    if (isObject(spec.route) && Array.isArray(spec.route.hostnames) && spec.route.hostnames.includes(previewHost)) {
      out.push({ path: 'spec.rollout.blueGreen.previewHost', message: 'must not be one of spec.route.hostnames (the preview gets an HTTPRoute of its own for its host)' });
    }
  }
  return out;
}

// --- The workload fields (api.md, "Real workloads"). Each check reads only what the schema
// could not judge; a value of the wrong type is left to the schema's message.

type Obj = Record<string, unknown>;
type Check = (spec: Obj, out: FieldError[]) => void;

const objectAt = (v: unknown): Obj | undefined => (isObject(v) ? v : undefined);
const orList = (keys: readonly string[]) => `${keys.slice(0, -1).join(', ')} or ${keys[keys.length - 1]}`;

function exactlyOne(out: FieldError[], o: Obj, path: string, keys: readonly string[]) {
  let set = 0;
  for (const k of keys) if (o[k] !== undefined) set++;
  if (set !== 1) out.push({ path, message: `must set exactly one of ${orList(keys)}` });
}

// Kubernetes' syntax of label keys and values (k8s.io/apimachinery/pkg/util/validation): field-checks.ts.
const DNS1035_LABEL_RE = new RegExp(DNS1035_LABEL);
const KEY_SYNTAX = '[prefix/]name: a name of at most 63 letters, digits, "-", "_" and ".", starting and ending with a letter or digit, after an optional DNS-1123 subdomain prefix';
const VALUE_SYNTAX = 'at most 63 letters, digits, "-", "_" and ".", starting and ending with a letter or digit, or empty';

/** A named port (IANA_SVC_NAME): at most 15 lower-case letters, digits and "-", with a letter, no "--". */
const isPortName = (s: string) =>
  s.length <= 15 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(s) && /[a-z]/.test(s) && !s.includes('--');

/** A path inside a volume: relative, never climbing out with "..". */
const isLocalPath = (p: string) => !p.startsWith('/') && !p.split('/').includes('..');

// JSON.parse rounds a number beyond 2^53 - 1: 123456789012345678 arrives as ...680, and 1e20,
// which the API server's schema refuses as a float, looks like a whole number. Only a string
// keeps such a quantity exact, so it has to be quoted.
const INEXACT_NUMBER_MESSAGE = `must be quoted when larger than ${Number.MAX_SAFE_INTEGER}: a bigger JSON number is not exact (and one written with an exponent is not an integer to the API server)`;
const CAPPED_MESSAGE = 'must be at most 9223372036854775807 (the largest int64, just under 8Ei): the API server stores a larger binary quantity as that, not as the App says';
/**
 * Whether `q` would not be kept as written: a number too big to be exact, or a binary quantity the
 * API server would store as another (capped); reported at `path` when so.
 */
function refusedAsNotKept(out: FieldError[], path: string, q: unknown): boolean {
  const inexact = typeof q === 'number' && Number.isInteger(q) && !Number.isSafeInteger(q);
  if (inexact) out.push({ path, message: INEXACT_NUMBER_MESSAGE });
  const capped = !inexact && (typeof q === 'string' || typeof q === 'number') && cappedByApiServer(q);
  if (capped) out.push({ path, message: CAPPED_MESSAGE });
  return inexact || capped;
}

/**
 * The message for a quantity that does not parse. Kubernetes trims spaces around a quantity it
 * reads; Skiff renders the App's value as written, which the API server would then store trimmed
 * and the next pass write again: so spaces are refused, and said to be the problem.
 */
const badQuantity = (q: string | number, acceptable: (value: string) => boolean, message: string) =>
  (typeof q === 'string' && q.trim() !== q && acceptable(q.trim()) ? `must be written without spaces around it: ${JSON.stringify(q.trim())}` : message);

function checkQuantity(out: FieldError[], path: string, q: unknown) {
  if (typeof q !== 'string' && typeof q !== 'number') return;
  if (refusedAsNotKept(out, path, q)) return;
  const acceptable = (x: string | number) => (parseQuantity(x) ?? -1) >= 0;
  if (!acceptable(q)) out.push({ path, message: badQuantity(q, acceptable, QUANTITY_MESSAGE) });
}

/** Label-like maps: podLabels, podAnnotations (keys only) and nodeSelector. */
function checkStringMap(out: FieldError[], field: string, map: unknown, what: 'label' | 'annotation') {
  for (const [key, value] of Object.entries(objectAt(map) ?? {})) {
    const path = join(`/spec/${field}`, key);
    // The API server checks annotation keys lower-cased (ValidateAnnotations): "Example.com/team" is one.
    if (!isQualifiedName(what === 'annotation' ? key.toLowerCase() : key)) out.push({ path, message: `key must be a valid ${what} key (${KEY_SYNTAX})` });
    if (what === 'label' && typeof value === 'string' && !isLabelValue(value)) out.push({ path, message: `value must be a valid label value (${VALUE_SYNTAX})` });
  }
}

const checkEnvSources: Check = (spec, out) => {
  for (const [i, e] of itemsOf(spec.env)) {
    // As the API server counts them: `value: ""` is no value (it validates len(value) != 0, and
    // stores none beside valueFrom, as the render sends none). Neither set stays allowed (the empty
    // string, as before valueFrom existed and as in Kubernetes).
    if (e.value !== undefined && e.value !== '' && e.valueFrom !== undefined) {
      out.push({ path: `spec.env[${i}]`, message: 'must set exactly one of value or valueFrom, not both' });
    }
    const from = objectAt(e.valueFrom);
    if (!from) continue;
    exactlyOne(out, from, `spec.env[${i}].valueFrom`, ['secretKeyRef', 'configMapKeyRef', 'fieldRef', 'resourceFieldRef']);
    // 0 is no divisor (1), as the API server and the kubelet take it.
    checkQuantity(out, `spec.env[${i}].valueFrom.resourceFieldRef.divisor`, objectAt(from.resourceFieldRef)?.divisor);
    // The kubelet looks the name up among the pod's containers, and the App's pod has one: with any
    // other name the container is never created (CreateContainerConfigError), which the API server
    // does not check.
    const containerName = objectAt(from.resourceFieldRef)?.containerName;
    if (typeof containerName === 'string' && containerName !== '' && containerName !== CONTAINER_NAME) {
      out.push({ path: `spec.env[${i}].valueFrom.resourceFieldRef.containerName`, message: `names no container of the pod: its one container is ${CONTAINER_NAME}; use ${CONTAINER_NAME} or leave it out` });
    }
  }
  for (const [i, e] of itemsOf(spec.envFrom)) exactlyOne(out, e, `spec.envFrom[${i}]`, ['secretRef', 'configMapRef']);
};

const checkVolumes: Check = (spec, out) => {
  const names = new Set<unknown>();
  const mountPaths = new Set<string>();
  for (const [i, v] of itemsOf(spec.volumes)) {
    const p = `spec.volumes[${i}]`;
    if (typeof v.name === 'string') {
      if (names.has(v.name)) out.push({ path: `${p}.name`, message: `duplicate name "${v.name}"` });
      names.add(v.name);
    }
    if (typeof v.mountPath === 'string') {
      const normal = v.mountPath.replace(/\/+$/, '') || '/'; // /etc/web and /etc/web/ are one mount point
      if (mountPaths.has(normal)) out.push({ path: `${p}.mountPath`, message: `duplicate mountPath "${v.mountPath}"` });
      mountPaths.add(normal);
    }
    exactlyOne(out, v, p, ['configMap', 'secret', 'emptyDir']);
    if (v.readOnly === false && (v.configMap !== undefined || v.secret !== undefined)) {
      out.push({ path: `${p}.readOnly`, message: 'may be false only for an emptyDir volume (configMap and secret volumes are always read-only)' });
    }
    if (typeof v.subPath === 'string' && !isLocalPath(v.subPath)) {
      out.push({ path: `${p}.subPath`, message: 'must be a relative path without ".."' });
    }
    for (const source of ['configMap', 'secret']) {
      for (const [j, item] of itemsOf(objectAt(v[source])?.items)) {
        // Kubernetes also reserves paths starting with ".." (the atomic writer's ..data link).
        if (typeof item.path === 'string' && (!isLocalPath(item.path) || item.path.startsWith('..'))) {
          out.push({ path: `${p}.${source}.items[${j}].path`, message: 'must be a relative path without ".." (such as app.yaml)' });
        }
      }
    }
    checkQuantity(out, `${p}.emptyDir.sizeLimit`, objectAt(v.emptyDir)?.sizeLimit);
  }
};

const checkProbes: Check = (spec, out) => {
  const probes = objectAt(spec.probes);
  if (spec.readinessPath !== undefined && probes?.readiness !== undefined) {
    out.push({ path: 'spec.readinessPath', message: 'may not be set together with spec.probes.readiness (use one of them)' });
  }
  for (const kind of ['readiness', 'liveness', 'startup'] as const) {
    const probe = objectAt(probes?.[kind]);
    if (!probe) continue;
    const p = `spec.probes.${kind}`;
    exactlyOne(out, probe, p, ['httpGet', 'tcpSocket', 'exec']);
    for (const handler of ['httpGet', 'tcpSocket']) {
      const port = objectAt(probe[handler])?.port;
      // A non-integer number is the schema's (int-or-string) to report.
      const bad = typeof port === 'number' ? Number.isInteger(port) && (port < 1 || port > 65535) : typeof port === 'string' && !isPortName(port);
      if (bad) out.push({ path: `${p}.${handler}.port`, message: 'must be a port number 1..65535 or a port name (IANA_SVC_NAME) such as http' });
      // The kubelet resolves a port name among the container's own ports, and the App's container
      // has one: any other name never resolves, so the probe never runs (never ready, or no liveness).
      else if (typeof port === 'string' && port !== PORT_NAME) {
        out.push({ path: `${p}.${handler}.port`, message: `names no port of the container: its one port (spec.port) is named ${PORT_NAME}; use ${PORT_NAME} or a port number` });
      }
    }
    // Kubernetes refuses successThreshold other than 1 for these (values below 1 are the schema's).
    if (kind !== 'readiness' && typeof probe.successThreshold === 'number' && probe.successThreshold > 1) {
      out.push({ path: `${p}.successThreshold`, message: `must be 1 for a ${kind} probe` });
    }
  }
};

const checkPodMetadata: Check = (spec, out) => {
  checkStringMap(out, 'podLabels', spec.podLabels, 'label');
  checkStringMap(out, 'podAnnotations', spec.podAnnotations, 'annotation');
  checkStringMap(out, 'nodeSelector', spec.nodeSelector, 'label');
  // Skiff's own labels select the App's pods; a pod label could move pods between tracks or Apps.
  for (const key of Object.keys(objectAt(spec.podLabels) ?? {})) {
    if (key.startsWith('skiff.dev/') || key === LABEL_NAME || key === LABEL_MANAGED_BY) {
      out.push({ path: join('/spec/podLabels', key), message: `is reserved: Skiff sets skiff.dev/*, ${LABEL_NAME} and ${LABEL_MANAGED_BY} itself` });
    }
  }
  // The pod template's skiff.dev/ annotations are Skiff's records (the config copies it runs on):
  // a user's value would be read as one, or silently replaced.
  for (const key of Object.keys(objectAt(spec.podAnnotations) ?? {})) {
    if (key.toLowerCase().startsWith('skiff.dev/')) {
      out.push({ path: join('/spec/podAnnotations', key), message: 'is reserved: Skiff sets skiff.dev/* pod annotations itself' });
    }
  }
};

const checkSecurity: Check = (spec, out) => {
  const pod = objectAt(spec.podSecurityContext);
  const container = objectAt(spec.securityContext);
  for (const [field, ctx] of [['podSecurityContext', pod], ['securityContext', container]] as const) {
    const seccomp = objectAt(ctx?.seccompProfile);
    if (!seccomp) continue;
    const path = `spec.${field}.seccompProfile.localhostProfile`;
    if (seccomp.type === 'Localhost' && seccomp.localhostProfile === undefined) out.push({ path, message: 'required when type is Localhost' });
    if (seccomp.type !== 'Localhost' && seccomp.localhostProfile !== undefined) out.push({ path, message: 'may be set only when type is Localhost' });
  }
  if (container?.privileged === true) {
    out.push({ path: 'spec.securityContext.privileged', message: 'must not be true (Skiff does not run privileged containers)' });
  }
  // The kubelet refuses to start such a container; say so at admission instead of in a crash loop.
  const nonRoot = container?.runAsNonRoot ?? pod?.runAsNonRoot;
  const userField = container?.runAsUser !== undefined ? 'securityContext' : 'podSecurityContext';
  if (nonRoot === true && (container?.runAsUser ?? pod?.runAsUser) === 0) {
    out.push({ path: `spec.${userField}.runAsUser`, message: 'must not be 0 when runAsNonRoot is true (the container would not start)' });
  }
};

// The pod's imagePullSecrets are a list keyed by name to server-side apply, which refuses an
// object that lists one twice: every apply of the Deployment would fail.
const checkImagePullSecrets: Check = (spec, out) => {
  const seen = new Set<unknown>();
  for (const [i, s] of itemsOf(spec.imagePullSecrets)) {
    if (typeof s.name !== 'string') continue;
    if (seen.has(s.name)) out.push({ path: `spec.imagePullSecrets[${i}].name`, message: `duplicate name "${s.name}"` });
    seen.add(s.name);
  }
};

const checkTolerations: Check = (spec, out) => {
  for (const [i, t] of itemsOf(spec.tolerations)) {
    const p = `spec.tolerations[${i}]`;
    // Kubernetes takes an empty operator as Equal (its default), as the pods' scheduler does.
    const operator = t.operator || 'Equal';
    if (typeof t.key === 'string' && t.key !== '' && !isQualifiedName(t.key)) out.push({ path: `${p}.key`, message: `must be a valid label key (${KEY_SYNTAX})` });
    if ((t.key === undefined || t.key === '') && operator !== 'Exists') out.push({ path: `${p}.operator`, message: 'must be Exists when key is empty' });
    if (operator === 'Exists' && t.value !== undefined && t.value !== '') out.push({ path: `${p}.value`, message: 'must be empty when operator is Exists' });
    if (operator === 'Equal' && typeof t.value === 'string' && !isLabelValue(t.value)) {
      out.push({ path: `${p}.value`, message: `must be a valid label value (${VALUE_SYNTAX})` });
    }
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') out.push({ path: `${p}.tolerationSeconds`, message: 'may be set only when effect is NoExecute' });
  }
};

const checkDisruption: Check = (spec, out) => {
  const d = objectAt(spec.disruption);
  if (!d) return;
  exactlyOne(out, d, 'spec.disruption', ['maxUnavailable', 'minAvailable']);
  for (const key of ['maxUnavailable', 'minAvailable']) {
    const v = d[key];
    const percent = typeof v === 'string' ? /^([0-9]+)%$/.exec(v) : null;
    // Non-integer numbers are the schema's (int-or-string) to report.
    const bad = typeof v === 'number' ? Number.isInteger(v) && v < 0 : typeof v === 'string' && (!percent || Number(percent[1]) > 100);
    if (bad) out.push({ path: `spec.disruption.${key}`, message: 'must be an integer >= 0 or a percentage from 0% to 100%' });
  }
};

const checkAutoscaling: Check = (spec, out) => {
  const a = objectAt(spec.autoscaling);
  if (!a) return;
  if (typeof a.minReplicas === 'number' && typeof a.maxReplicas === 'number' && a.minReplicas > a.maxReplicas) {
    out.push({ path: 'spec.autoscaling.minReplicas', message: `must be <= maxReplicas (${a.maxReplicas})` });
  }
  if (a.targetCPUUtilizationPercentage === undefined && a.targetMemoryUtilizationPercentage === undefined) {
    out.push({ path: 'spec.autoscaling', message: 'must set targetCPUUtilizationPercentage or targetMemoryUtilizationPercentage (or both)' });
  }
  // Utilization is a percentage of the request: without one the HPA has nothing to compare with,
  // and with a zero one it fails every time it looks ("no metrics returned matched known pods").
  const requests = objectAt(objectAt(spec.resources)?.requests);
  for (const [target, resource] of [['targetCPUUtilizationPercentage', 'cpu'], ['targetMemoryUtilizationPercentage', 'memory']]) {
    if (a[target] === undefined) continue;
    const request = requests?.[resource];
    if (request === undefined) out.push({ path: `spec.autoscaling.${target}`, message: `requires spec.resources.requests.${resource}` });
    else if ((typeof request === 'string' || typeof request === 'number') && quantityNanos(request) === 0n) {
      out.push({ path: `spec.autoscaling.${target}`, message: `requires spec.resources.requests.${resource} above 0 (the target is a percentage of it)` });
    }
  }
};

const WORKLOAD_CHECKS: readonly Check[] = [checkEnvSources, checkImagePullSecrets, checkVolumes, checkProbes, checkPodMetadata, checkSecurity, checkTolerations, checkDisruption, checkAutoscaling];

const BUILTIN_METRICS = ['successRate', 'latency', 'requests'];

function analysisErrors(analysis: Record<string, unknown>, meta: Record<string, unknown>): FieldError[] {
  const out: FieldError[] = [];
  const base = 'spec.rollout.analysis';
  const metrics = Array.isArray(analysis.metrics) ? analysis.metrics : [];
  if (analysis.successRate === undefined && analysis.latency === undefined && metrics.length === 0) {
    out.push({ path: base, message: 'must check something: set successRate, latency or metrics' });
  }
  if (isObject(analysis.successRate) && analysis.successRate.min === undefined && analysis.successRate.maxDropFromStable === undefined) {
    out.push({ path: `${base}.successRate`, message: 'must set min or maxDropFromStable (or both)' });
  }
  if (isObject(analysis.latency) && analysis.latency.maxMs === 0) out.push({ path: `${base}.latency.maxMs`, message: 'must be > 0' });
  const seen = new Set<string>();
  metrics.forEach((m, i) => {
    if (!isObject(m)) return;
    const path = `${base}.metrics[${i}]`;
    if (typeof m.name === 'string') {
      if (seen.has(m.name)) out.push({ path: `${path}.name`, message: `duplicate name "${m.name}"` });
      if (BUILTIN_METRICS.includes(m.name)) out.push({ path: `${path}.name`, message: `"${m.name}" is the name of a built-in check` });
      seen.add(m.name);
    }
    if (m.min === undefined && m.max === undefined) out.push({ path, message: 'must set min or max (or both)' });
    if (typeof m.min === 'number' && typeof m.max === 'number' && m.min > m.max) out.push({ path: `${path}.min`, message: `must be <= max (${m.max})` });
    if (typeof m.query === 'string') {
      const unknown = unknownPlaceholders(m.query);
      if (unknown.length) out.push({ path: `${path}.query`, message: `unknown placeholder ${unknown.join(', ')}; known: ${knownPlaceholders.map((p) => `{{${p}}}`).join(', ')}` });
      // Parsed as it will run: placeholders filled, confined to the App's namespace (api.md, "Tenant safety").
      const problem = unknown.length ? undefined : customQueryProblem(m.query, { namespace: meta.namespace, name: meta.name, interval: analysis.interval });
      if (problem) out.push({ path: `${path}.query`, message: problem });
    }
  });
  return out;
}


/** Tag and digest of an image reference, when it parses. */
export function imageTag(image: string): { tag?: string; digest?: string } | undefined {
  const m = IMAGE_REFERENCE_RE.exec(image);
  if (!m) return undefined;
  return { tag: m[2], digest: m[3] };
}

/**
 * A blue-green rollout checks full traffic from an analysis interval after the switch until the
 * old pods go, scaleDownDelaySeconds after it: with a delay not longer than the interval (the
 * defaults, 30 s and 1m, among them) no check ever runs after the switch, and nothing could switch back.
 */
function postSwitchAnalysisWarning(rollout: Record<string, unknown>, analysis: Record<string, unknown> | undefined): string | undefined {
  if (!analysis || rollout.strategy !== 'BlueGreen') return undefined;
  const delay = rollout.scaleDownDelaySeconds ?? DEFAULTS.scaleDownDelaySeconds;
  const interval = analysis.interval ?? DEFAULTS.analysisInterval;
  const intervalMs = typeof interval === 'string' ? durationMs(interval) : undefined;
  if (typeof delay !== 'number' || intervalMs === undefined || delay * 1000 > intervalMs) return undefined;
  return `spec.rollout.scaleDownDelaySeconds: ${delay}s is not longer than analysis.interval ${String(interval)}: the first analysis check after the switch is due an interval after it, when the old pods are gone, so no check runs under full traffic and none can switch back; set scaleDownDelaySeconds above the interval`;
}

/**
 * The first check at a canary's weight (or of a blue-green preview) is due an interval after the
 * weight is carried (the preview ready), and the step must have passed one within
 * progressDeadlineSeconds of its start (of the preview being ready): with an interval not shorter
 * than the deadline no check ever passes in time, and every rollout is aborted,
 * AnalysisInconclusive. Valid, and useless: said, not refused.
 */
function deadlineAnalysisWarning(rollout: Record<string, unknown>, analysis: Record<string, unknown> | undefined): string | undefined {
  if (!analysis || (rollout.strategy !== 'Canary' && rollout.strategy !== 'BlueGreen')) return undefined;
  const deadline = rollout.progressDeadlineSeconds ?? DEFAULTS.progressDeadlineSeconds;
  const interval = analysis.interval ?? DEFAULTS.analysisInterval;
  const intervalMs = typeof interval === 'string' ? durationMs(interval) : undefined;
  if (typeof deadline !== 'number' || intervalMs === undefined || intervalMs < deadline * 1000) return undefined;
  return `spec.rollout.analysis.interval: ${String(interval)} is not shorter than progressDeadlineSeconds ${deadline}: the first check is due an interval after the new weight (or the preview) is in place, after the deadline, so no check can pass in time and every rollout is aborted (AnalysisInconclusive); set the interval well below progressDeadlineSeconds`;
}

/** The weights of the setWeight steps among `steps` (as sent: anything that is no such step is left out). */
const stepWeights = (steps: readonly unknown[]): number[] => steps.flatMap((s) => (isObject(s) && typeof s.setWeight === 'number' ? [s.setWeight] : []));

/**
 * maxDropFromStable compares the canary with stable in the same window; under full traffic (a
 * setWeight: 100 step, a blue-green rollout after its switch) stable serves nothing to compare
 * with, and the check holds successRate to min alone: without a min, to nothing. Valid, and
 * the canary checked at 100 could answer every request with a 5xx: said, not refused.
 */
function baselineOnlyWarning(rollout: Record<string, unknown>, analysis: Record<string, unknown> | undefined): string | undefined {
  const successRate = analysis && isObject(analysis.successRate) ? analysis.successRate : undefined;
  if (!successRate || successRate.maxDropFromStable === undefined || successRate.min !== undefined) return undefined;
  const steps = Array.isArray(rollout.steps) ? rollout.steps : DEFAULT_CANARY_STEPS;
  const full = rollout.strategy === 'BlueGreen'
    ? 'after the blue-green switch'
    : rollout.strategy === 'Canary' && stepWeights(steps).some((w) => w >= 100) ? 'at a setWeight: 100 step' : undefined;
  if (!full) return undefined;
  return `spec.rollout.analysis.successRate: maxDropFromStable alone is not applied ${full}, where stable serves nothing to compare with, so there the success rate is held to nothing (a canary failing every request passes); set min as well`;
}

/**
 * Checks run while the canary has traffic: with steps none of which gives it some (pauses,
 * setWeight: 0), no check ever runs and the canary is promoted after its steps unchecked.
 */
function uncheckedStepsWarning(rollout: Record<string, unknown>, analysis: Record<string, unknown> | undefined): string | undefined {
  if (!analysis || rollout.strategy !== 'Canary' || !Array.isArray(rollout.steps)) return undefined;
  if (stepWeights(rollout.steps).some((w) => w > 0)) return undefined;
  return 'spec.rollout.steps: no step gives the canary traffic (a setWeight above 0), and analysis checks run only while it has some, so the canary is promoted after its steps without a check; add a setWeight step';
}

/** Whether the analysis uses a built-in check, which reads ingress-nginx's metrics (minRequests defaults to 10). */
const readsIngressNginx = (analysis: Record<string, unknown>) => analysis.successRate !== undefined || analysis.latency !== undefined || analysis.minRequests !== 0;

function warnings(app: Record<string, unknown>): string[] {
  const spec = isObject(app.spec) ? app.spec : {};
  const out: string[] = [];
  const rollout = isObject(spec.rollout) ? spec.rollout : {};
  const analysis = isObject(rollout.analysis) ? rollout.analysis : undefined;
  // Valid (kept across a change of strategy and back), but nothing checks a RollingUpdate: a
  // reader would take the App for health-gated.
  const strategy = rollout.strategy ?? 'RollingUpdate';
  if (analysis && strategy !== 'Canary' && strategy !== 'BlueGreen') {
    out.push(`spec.rollout.analysis: does nothing with spec.rollout.strategy ${String(strategy)}: the Deployment rolls a new pod template out by itself, without checks; set the strategy to Canary or BlueGreen for the analysis to gate it`);
  }
  // The same for the canary's own fields, as BlueGreen denies them; the default steps, which
  // the webhook filled while the App was a Canary, say nothing of the author's.
  if (strategy === 'RollingUpdate') {
    if (rollout.steps !== undefined && !isStrategyDefault('steps', rollout.steps)) out.push('spec.rollout.steps: do nothing with spec.rollout.strategy RollingUpdate: the Deployment replaces its pods by itself, without steps; set the strategy to Canary for them to apply');
    if (rollout.canaryHeader !== undefined) out.push('spec.rollout.canaryHeader: does nothing with spec.rollout.strategy RollingUpdate: there is no canary to route to; set the strategy to Canary for it to apply');
  }
  if (analysis && spec.route !== undefined && readsIngressNginx(analysis)) {
    out.push('spec.rollout.analysis: successRate, latency and minRequests read ingress-nginx\'s metrics, which an App served by spec.route does not have: its checks stay inconclusive; use custom metrics from your Gateway and minRequests: 0');
  }
  // The preview's own traffic is that of previewHost: without it the built-ins read an Ingress
  // that does not exist (with spec.route, the warning above says why they find nothing at all).
  const previewHost = isObject(rollout.blueGreen) ? rollout.blueGreen.previewHost : undefined;
  if (analysis && rollout.strategy === 'BlueGreen' && spec.route === undefined && previewHost === undefined && readsIngressNginx(analysis)) {
    out.push('spec.rollout.blueGreen.previewHost: without it the preview gets no traffic of its own, so successRate, latency and minRequests (ingress-nginx\'s metrics of the preview\'s Ingress) find no data and no check of the preview passes before the switch; set previewHost, or check the preview with custom metrics and minRequests: 0');
  }
  const delayProblem = postSwitchAnalysisWarning(rollout, analysis);
  if (delayProblem) out.push(delayProblem);
  for (const problem of [deadlineAnalysisWarning(rollout, analysis), baselineOnlyWarning(rollout, analysis), uncheckedStepsWarning(rollout, analysis)]) {
    if (problem) out.push(problem);
  }
  // nginx drops request headers with "_" unless told otherwise (ingress-nginx's
  // enable-underscores-in-headers, false by default): such a header would never reach the canary.
  const header = rollout.canaryHeader;
  if (spec.ingress !== undefined && typeof header === 'string' && header.includes('_')) {
    out.push(`spec.rollout.canaryHeader: ingress-nginx drops request headers with "_" unless its enable-underscores-in-headers is on, so "${header}" may never route to the canary; prefer "-"`);
  }
  // ingress-nginx (1.9 and later, annotation validation on by default) takes canary-by-header only
  // of letters, digits and -._~/: (its BasicCharsRegex) and otherwise drops the annotation with a
  // log line: no request would ever be routed by the header. HTTP allows more in a header name.
  if (spec.ingress !== undefined && typeof header === 'string' && /[^A-Za-z0-9._~-]/.test(header)) {
    out.push(`spec.rollout.canaryHeader: ingress-nginx's annotation validation takes canary-by-header only of letters, digits, "-", ".", "_" and "~", and drops it otherwise, so "${header}" would never route to the canary; use only those characters`);
  }
  const pathWarning = strictPathWarning(spec);
  if (pathWarning) out.push(pathWarning);
  return [...out, ...imageWarnings(spec), ...disruptionWarnings(spec)];
}

/**
 * ingress-nginx's admission webhook, with its strict-validate-path-type (on by default since
 * 1.12), refuses an Ingress whose Prefix or Exact path has other characters than letters,
 * digits, "/", "_" and "-": every write of the App's Ingress would be refused, and the App stay
 * ReconcileError. The API server itself takes such a path, as do other ingress controllers: said,
 * not refused.
 */
function strictPathWarning(spec: Record<string, unknown>): string | undefined {
  const ingress = objectAt(spec.ingress);
  const path = ingress?.path;
  if (typeof path !== 'string' || (ingress?.pathType ?? 'Prefix') === 'ImplementationSpecific') return undefined;
  if (/^\/[A-Za-z0-9_/-]*$/.test(path)) return undefined;
  return `spec.ingress.path: ingress-nginx with strict-validate-path-type (its default since 1.12) refuses a ${String(ingress?.pathType ?? 'Prefix')} path with other characters than letters, digits, "/", "_" and "-", such as "${cutText(path, 100)}", so the Ingress could not be written; use pathType ImplementationSpecific, or only those characters`;
}

/**
 * A PodDisruptionBudget that allows no voluntary disruption at the App's fewest pods (replicas,
 * or the autoscaler's minReplicas) is valid, and makes every node drain wait for ever: said, not refused.
 */
function disruptionWarnings(spec: Record<string, unknown>): string[] {
  const d = objectAt(spec.disruption);
  if (!d) return [];
  const autoscaling = objectAt(spec.autoscaling);
  const fewest = autoscaling ? (typeof autoscaling.minReplicas === 'number' ? autoscaling.minReplicas : 1) : (typeof spec.replicas === 'number' ? spec.replicas : 1);
  // Below two pods there is no budget (api.md): nothing to warn about.
  if (!Number.isInteger(fewest) || fewest < 2) return [];
  // As the disruption controller scales a percentage: maxUnavailable and minAvailable round up.
  const scaled = (v: unknown) => {
    const percent = typeof v === 'string' ? /^([0-9]+)%$/.exec(v) : null;
    if (percent) return Math.ceil((fewest * Number(percent[1])) / 100);
    return typeof v === 'number' && Number.isInteger(v) ? v : undefined;
  };
  const max = scaled(d.maxUnavailable);
  const min = scaled(d.minAvailable);
  const allowed = min !== undefined ? fewest - min : max;
  if (allowed === undefined || allowed > 0) return [];
  const field = min !== undefined ? 'minAvailable' : 'maxUnavailable';
  return [`spec.disruption.${field}: at ${fewest} pods the PodDisruptionBudget allows no pod to be evicted, so draining a node that runs one waits for ever; allow at least one (maxUnavailable: 1)`];
}

function imageWarnings(spec: Record<string, unknown>): string[] {
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

export interface ValidationOptions {
  /** Also the rules of the restricted Pod Security profile (the webhook's --restricted-tenants). */
  restrictedPodSecurity?: boolean;
  /** An upper bound of the App's size as JSON, in bytes, when the caller knows one (see podTemplateSizeProblems). */
  appBytes?: number;
}

/** Whether `path` is the field `base` or inside it. */
const within = (path: string, base: string) => path === base || path.startsWith(`${base}.`) || path.startsWith(`${base}[`);

/** Whether a problem is in what the pod template is rendered from: then the template is not measured. */
const inTemplate = (path: string) =>
  path === '' || path === 'spec' || within(path, 'metadata') || path === 'spec.rollout' || path === 'spec.rollout.trackConfig' || POD_TEMPLATE_FIELDS.some((f) => within(path, `spec.${f}`));

/**
 * The template's size problem. Beside other problems (outside the template's fields) rendering
 * sees fields no valid App has, such as a rollout of the wrong type: if it fails on one, the
 * problems already found are the answer, and the template is measured once they are mended.
 */
function templateSizeProblems(app: Record<string, unknown>, options: ValidationOptions, besideOthers: boolean): FieldError[] {
  try {
    return podTemplateSizeProblems(app as unknown as App, options.appBytes);
  } catch (err) {
    if (!besideOthers) throw err;
    return [];
  }
}

/** Every schema and semantic problem of an App, and the warnings to show. */
export function validateApp(app: unknown, options: ValidationOptions = {}): ValidationResult {
  if (!isObject(app)) return { errors: [{ path: '', message: 'must be an object' }], warnings: [] };
  const tooLong = oversized(app, appSchema);
  if (tooLong.length === 0) return validateBounded(app, options, true);
  // A list, map or string over its bound is named for that alone: no check walks into it. The rest
  // of the App is checked with those fields cut to their bounds, which costs what a valid App
  // costs; a problem inside a cut field is left out (the field is named already), and the
  // template, cut, is not measured.
  const unique = new Map(tooLong.map((o) => [o.pointer, { path: fieldPath(o.pointer, app), message: o.message }]));
  const named = [...unique.values()];
  const rest = validateBounded(cutToBounds(app, tooLong) as Record<string, unknown>, options, false).errors.filter((e) => !named.some((o) => within(e.path, o.path)));
  return { errors: [...named, ...rest], warnings: [] };
}

function validateBounded(app: Record<string, unknown>, options: ValidationOptions, measureTemplate: boolean): ValidationResult {
  const errors: FieldError[] = [];
  // One by one: a huge App has more problems than a call (push(...spread)) takes arguments.
  if (!validateSchema(app)) for (const e of schemaErrors(validateSchema.errors ?? [], app)) errors.push(e);
  for (const e of semanticErrors(app)) errors.push(e);
  if (options.restrictedPodSecurity && isObject(app.spec)) for (const e of restrictedProfileProblems(app.spec)) errors.push(e);
  // Rendering needs valid template fields: the template is measured when no problem is in them
  // (a bad replicas or ingress does not hide a template over the cap).
  if (measureTemplate && !errors.some((e) => inTemplate(e.path))) for (const e of templateSizeProblems(app, options, errors.length > 0)) errors.push(e);
  if (errors.length === 0) return { errors, warnings: warnings(app) };
  // One message per field and problem, in a stable order.
  const unique = new Map(errors.map((e) => [`${e.path}\u0000${e.message}`, e]));
  return { errors: [...unique.values()], warnings: warnings(app) };
}

/** A denial names at most this many problems, then says how many more there are. */
export const MAX_LISTED_ERRORS = 50;
/** Characters of one listed problem (a path can hold a user's map key, a message a user's value). */
export const MAX_ERROR_LENGTH = 512;

/**
 * The single denial message: "spec.replicas: must be <= 1000; spec.ingress.host: ...", with at
 * most MAX_LISTED_ERRORS problems of at most MAX_ERROR_LENGTH characters each, then "; and N more":
 * about 26 KB at most, whatever the App.
 */
export function formatErrors(errors: FieldError[]): string {
  const listed = errors.slice(0, MAX_LISTED_ERRORS).map((e) => cutText(e.path ? `${e.path}: ${e.message}` : e.message, MAX_ERROR_LENGTH));
  const more = errors.length - listed.length;
  return listed.join('; ') + (more > 0 ? `; and ${more} more` : '');
}
