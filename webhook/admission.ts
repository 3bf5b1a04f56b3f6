// AdmissionReview v1 in and out: the HTTP server only parses JSON and sends what these return.
// Every input gets an answer: a malformed review is a 400 with a reason, a well-formed review
// that cannot be admitted is a denial (HTTP 200, allowed: false), and nothing here throws. The
// one effect: /mutate fills the defaults into the request's object it was given, which is the
// server's own parse of the body and used for nothing else.
import { API_VERSION, GROUP, KIND, VERSION } from '../shared/app-types.js';
import { fillDefaults, withDefaults, type JsonPatchOp } from '../shared/defaults.js';
import { emptyShardLabel, formatErrors, validateApp, type ValidationOptions } from '../shared/validation.js';
import { isObject, jsonEqual } from '../shared/objects.js';
import { boundedText, printable } from '../shared/text.js';

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';

export interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  operation: string;
  name?: string;
  namespace?: string;
  object?: unknown;
  oldObject?: unknown;
  dryRun?: boolean;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; reason?: string; message: string; status?: 'Failure' };
  patchType?: 'JSONPatch';
  patch?: string;
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion: typeof ADMISSION_API_VERSION;
  kind: 'AdmissionReview';
  response: AdmissionResponse;
}

/** What to send back: a review (HTTP 200) or a plain-text client error. */
export type Answer =
  | { httpStatus: 200; review: AdmissionReview; request: AdmissionRequest }
  | { httpStatus: 400; error: string };

export type Endpoint = 'mutate' | 'validate';

export interface AdmissionOptions {
  /** Also deny what the restricted Pod Security profile forbids (--restricted-tenants). */
  restrictedTenants?: boolean;
  /** The request body's size: an upper bound of the App's, which spares measuring small Apps' templates. */
  bodyBytes?: number;
}


/**
 * A value of the review quoted in a message. The webhook's Service answers any pod, not only the
 * API server, so the review's fields are text from outside: a string or number is shown as JSON,
 * cut (boundedText); anything else by its type alone, never serialized, since an array nested
 * 200,000 deep overflows JSON.stringify's stack and a 7 MiB string made a 7 MiB log line.
 */
function quoted(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'string') return boundedText(JSON.stringify(value));
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return Array.isArray(value) ? 'a list' : 'an object';
}

/** The request inside an AdmissionReview v1, or why the body is not one. */
export function parseReview(body: unknown): { request: AdmissionRequest } | { error: string } {
  if (!isObject(body)) return { error: 'the body must be a JSON object: an AdmissionReview' };
  if (body.kind !== 'AdmissionReview') return { error: `expected kind AdmissionReview, got ${quoted(body.kind)}` };
  if (body.apiVersion !== ADMISSION_API_VERSION) {
    return { error: `expected apiVersion ${ADMISSION_API_VERSION}, got ${quoted(body.apiVersion)} (admissionReviewVersions must be [v1])` };
  }
  const request = body.request;
  if (!isObject(request)) return { error: 'the AdmissionReview has no request' };
  if (typeof request.uid !== 'string' || request.uid === '') return { error: 'request.uid must be a non-empty string' };
  if (typeof request.operation !== 'string') return { error: 'request.operation must be a string' };
  const kind = request.kind;
  if (!isObject(kind) || typeof kind.kind !== 'string' || typeof kind.version !== 'string' || typeof kind.group !== 'string') {
    return { error: 'request.kind must be {group, version, kind}' };
  }
  return { request: request as unknown as AdmissionRequest };
}

const review = (response: AdmissionResponse): AdmissionReview => ({ apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response });

export const allow = (uid: string, extra: Partial<AdmissionResponse> = {}): AdmissionReview => review({ uid, allowed: true, ...extra });

// No reason: kubectl then prints the API server's "admission webhook ... denied the request: <message>"
// as is, instead of a generic text for the reason.
export const deny = (uid: string, code: number, message: string): AdmissionReview =>
  review({ uid, allowed: false, status: { code, message, status: 'Failure' } });

/** The answer of one endpoint to one request body. */
export function admit(endpoint: Endpoint, body: unknown, options: AdmissionOptions = {}): Answer {
  const parsed = parseReview(body);
  if ('error' in parsed) return { httpStatus: 400, error: parsed.error };
  const { request } = parsed;
  const answer = (r: AdmissionReview): Answer => ({ httpStatus: 200, review: r, request });
  const { uid } = request;

  switch (request.operation) {
    case 'DELETE':
    case 'CONNECT':
      return answer(allow(uid));
    case 'CREATE':
    case 'UPDATE':
      break;
    default:
      return answer(deny(uid, 400, `unknown operation ${quoted(request.operation)}; expected CREATE, UPDATE, DELETE or CONNECT`));
  }
  const { group, version, kind } = request.kind;
  if (group !== GROUP || version !== VERSION || kind !== KIND) {
    const sent = boundedText(`${group ? `${group}/` : ''}${version} ${kind}`);
    return answer(deny(uid, 400, `this webhook admits ${API_VERSION} ${KIND} only, not ${sent}; check the rules of the webhook configuration`));
  }
  if (!isObject(request.object)) return answer(deny(uid, 400, `request.object must be the ${KIND} being ${request.operation === 'CREATE' ? 'created' : 'updated'}`));
  const unchanged = request.operation === 'UPDATE' ? asItWas(request.object, request.oldObject) : undefined;
  if (unchanged) {
    // Labels are not the spec, but one that hands the App to no controller is refused here too.
    const shard = emptyShardLabel(request.object);
    if (shard && !emptyShardLabel(request.oldObject) && !deleting(request.oldObject)) return answer(deny(uid, 422, formatErrors([shard])));
    // The spec as sent lacks defaults the stored one has: they go back in, as on any update.
    if (unchanged === 'once defaulted' && endpoint === 'mutate') return answer(patched(uid, fillDefaults(request.object)));
    return answer(allow(uid));
  }

  const judged = inRequestNamespace(withoutStatus(request.object), request.namespace);
  // The defaults mutate adds are a few hundred bytes: within the bound's constant.
  const validation: ValidationOptions = { restrictedPodSecurity: options.restrictedTenants === true, appBytes: options.bodyBytes };
  return answer(endpoint === 'mutate' ? mutate(uid, judged, validation) : validate(uid, judged, validation));
}

/**
 * An update that leaves the spec as it was (labels, annotations, the commands of kubectl skiff,
 * finalizers), or of an App being deleted, is let through untouched. The spec was admitted when it
 * was written, or was stored before a rule existed or where the webhook is not called (the
 * controller reports such an App InvalidSpec): judging it again would make the App impossible to
 * label, annotate, or delete in the foreground, where the garbage collector must update it to
 * remove its finalizer. Nothing in it is rendered anew either way. 'once defaulted': the spec
 * differs only by defaults, which /mutate fills back in.
 */
function asItWas(app: Record<string, unknown>, old: unknown): 'as sent' | 'once defaulted' | undefined {
  if (!isObject(old)) return undefined;
  // jsonEqual, not isDeepStrictEqual: a field the CRD preserves unknown can be nested thousands of
  // levels deep in a spec stored before the webhook, and a recursive comparison overflowed the
  // stack on it (a 500 for any label or annotation of that App).
  // An App being deleted is held by finalizers only: their removal leaves the spec as it was. A
  // change of its spec is judged as any other (stored, it would be what the plugin, the dashboard
  // and an export read, though nothing is rendered from it).
  if (jsonEqual(app.spec, old.spec)) return 'as sent';
  // A spec sent without the defaults the webhook stored (`kubectl replace -f` of the manifest
  // with a new label, a client that drops them) is the same spec: judged, it refused such an
  // update of an App stored before a rule existed, which only changed its labels.
  return jsonEqual(withDefaults({ spec: app.spec }).spec, withDefaults({ spec: old.spec }).spec) ? 'once defaulted' : undefined;
}

const deleting = (app: unknown): boolean => isObject(app) && isObject(app.metadata) && app.metadata.deletionTimestamp !== undefined;

/**
 * The App without its status, which is the controller's (a subresource) and not the author's: the
 * API server drops the status a create sends and keeps the stored one on an update, but after the
 * mutating webhooks, so /mutate sees whatever the client sent (an App exported with its status and
 * created again, a status written by hand). Judged, it refused Apps the API server stores without
 * it; the controller judges Apps without their status too (spec-gate.ts), with the same message.
 * The spec stays the same object: /mutate fills the defaults into it.
 */
function withoutStatus(app: Record<string, unknown>): Record<string, unknown> {
  if (!('status' in app)) return app;
  const { status: _status, ...rest } = app;
  return rest;
}

/**
 * The App as validation must see it: in the namespace of the request, which custom analysis
 * queries are judged against. request.namespace always names it; the object's own
 * metadata.namespace need not (a client may leave it out of a create, and not every API server
 * version fills it in before calling admission webhooks).
 */
function inRequestNamespace(app: Record<string, unknown>, namespace: unknown): Record<string, unknown> {
  const metadata = app.metadata;
  if (!isObject(metadata) || typeof namespace !== 'string' || namespace === '' || metadata.namespace === namespace) return app;
  return { ...app, metadata: { ...metadata, namespace } };
}

/**
 * Fills the defaults of api.md as a JSON Patch. It also denies an App that would still be invalid:
 * the API server checks the CRD schema between the mutating and the validating webhooks, and
 * its messages name one problem at a time; denying here names every bad field in one message.
 * The App is the one parsed from this request's body, so the defaults go into it in place.
 */
function mutate(uid: string, app: Record<string, unknown>, validation: ValidationOptions): AdmissionReview {
  const ops = fillDefaults(app);
  const { errors } = validateApp(app, validation);
  if (errors.length > 0) return deny(uid, 422, formatErrors(errors));
  return patched(uid, ops);
}

const patched = (uid: string, ops: JsonPatchOp[]): AdmissionReview =>
  ops.length === 0 ? allow(uid) : allow(uid, { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') });

function validate(uid: string, app: Record<string, unknown>, validation: ValidationOptions): AdmissionReview {
  const { errors, warnings } = validateApp(app, validation);
  if (errors.length > 0) return deny(uid, 422, formatErrors(errors));
  return allow(uid, warnings.length > 0 ? { warnings: warnings.map(headerSafe) } : {});
}

/**
 * A warning as the API server passes it on: in a Warning header, which it does not build for a
 * text with a control character (apimachinery's NewWarningHeader), dropping the warning without a
 * word. Warnings quote the author's values (an Ingress path with a tab): such characters are
 * written as \uXXXX escapes instead.
 */
export const headerSafe = (warning: string): string => printable(warning);
