// Defaults of api.md, as an RFC 6902 JSON Patch that adds only what is absent (a null counting as
// absent, and taken out where no default goes in). Pure: the same App always gives the same
// patch, and a defaulted App gives an empty one.
import type { App, CanaryStep, DefaultedAppSpec } from './app-types.js';
import { cloneJson, isObject, pointerKeys, pointerToken } from './objects.js';

export type JsonPatchOp = { op: 'add'; path: string; value: unknown } | { op: 'remove'; path: string };

export const DEFAULT_CANARY_STEPS: readonly CanaryStep[] = Object.freeze([
  { setWeight: 20 },
  { pause: { duration: '60s' } },
  { setWeight: 50 },
  { pause: {} },
]);

export const DEFAULTS = Object.freeze({
  replicas: 1,
  revisionHistoryLimit: 10,
  port: 8080,
  serviceType: 'ClusterIP',
  servicePort: 80,
  ingressPath: '/',
  ingressPathType: 'Prefix',
  ingressClassName: 'nginx',
  routePath: '/',
  routeTLS: false,
  analysisInterval: '1m',
  analysisFailureLimit: 1,
  analysisMinRequests: 10,
  analysisNoData: 'Wait',
  strategy: 'RollingUpdate',
  progressDeadlineSeconds: 600,
  scaleDownDelaySeconds: 30,
  paused: false,
  blueGreenAutoPromote: true,
  trackConfig: false,
});


/**
 * One absent default (the object of the App it belongs in, and the patch operation that adds it),
 * or a null to take out.
 */
interface MissingDefault { parent: Record<string, unknown>; key: string; op: JsonPatchOp }

/**
 * Patch operations that take out every null of `app.spec` and fill every absent default. Objects
 * that are present but not objects (a type error) are left for validation to report.
 */
export function defaultsPatch(app: unknown): JsonPatchOp[] {
  return missingDefaults(app).map((m) => m.op);
}

/**
 * Fills every absent default into `app` itself and returns the patch that does the same. For the
 * mutating webhook, which owns the object it parsed from the request: validating it in place
 * spares copying the objects on the patch's paths (applyPatch), which was a tenth of /mutate.
 * Every default goes into an object of the input as it was (never into one another default
 * adds), so filling after finding gives what applying the patch gives.
 */
export function fillDefaults(app: unknown): JsonPatchOp[] {
  const missing = missingDefaults(app);
  for (const m of missing) {
    if (m.op.op === 'remove') delete m.parent[m.key];
    else m.parent[m.key] = cloneJson(m.op.value);
  }
  return missing.map((m) => m.op);
}

/** Absent, or null: a field set to null is a field left out (below). */
const absent = (obj: Record<string, unknown>, key: string) => obj[key] === undefined || obj[key] === null;

function missingDefaults(app: unknown): MissingDefault[] {
  if (!isObject(app) || !isObject(app.spec)) return [];
  const spec = app.spec;
  const ops: MissingDefault[] = nullMembers(spec);
  const fill = (obj: Record<string, unknown>, base: string, key: string, value: unknown) => {
    if (absent(obj, key)) ops.push({ parent: obj, key, op: { op: 'add', path: `${base}/${key}`, value } });
  };

  fill(spec, '/spec', 'replicas', DEFAULTS.replicas);
  fill(spec, '/spec', 'revisionHistoryLimit', DEFAULTS.revisionHistoryLimit);
  fill(spec, '/spec', 'port', DEFAULTS.port);

  if (absent(spec, 'service')) {
    fill(spec, '/spec', 'service', { type: DEFAULTS.serviceType, port: DEFAULTS.servicePort });
  } else if (isObject(spec.service)) {
    fill(spec.service, '/spec/service', 'type', DEFAULTS.serviceType);
    fill(spec.service, '/spec/service', 'port', DEFAULTS.servicePort);
  }

  if (isObject(spec.route)) {
    fill(spec.route, '/spec/route', 'path', DEFAULTS.routePath);
    fill(spec.route, '/spec/route', 'tls', DEFAULTS.routeTLS);
  }

  if (isObject(spec.ingress)) {
    fill(spec.ingress, '/spec/ingress', 'path', DEFAULTS.ingressPath);
    fill(spec.ingress, '/spec/ingress', 'pathType', DEFAULTS.ingressPathType);
    fill(spec.ingress, '/spec/ingress', 'className', DEFAULTS.ingressClassName);
  }

  if (absent(spec, 'rollout')) {
    fill(spec, '/spec', 'rollout', {
      strategy: DEFAULTS.strategy,
      progressDeadlineSeconds: DEFAULTS.progressDeadlineSeconds,
      scaleDownDelaySeconds: DEFAULTS.scaleDownDelaySeconds,
      paused: DEFAULTS.paused,
      trackConfig: DEFAULTS.trackConfig,
    });
  } else if (isObject(spec.rollout)) {
    const rollout = spec.rollout;
    fill(rollout, '/spec/rollout', 'strategy', DEFAULTS.strategy);
    fill(rollout, '/spec/rollout', 'progressDeadlineSeconds', DEFAULTS.progressDeadlineSeconds);
    fill(rollout, '/spec/rollout', 'scaleDownDelaySeconds', DEFAULTS.scaleDownDelaySeconds);
    fill(rollout, '/spec/rollout', 'paused', DEFAULTS.paused);
    fill(rollout, '/spec/rollout', 'trackConfig', DEFAULTS.trackConfig);
    if (rollout.strategy === 'Canary') {
      fill(rollout, '/spec/rollout', 'steps', cloneJson(DEFAULT_CANARY_STEPS));
    }
    if (rollout.strategy === 'BlueGreen') {
      if (absent(rollout, 'blueGreen')) fill(rollout, '/spec/rollout', 'blueGreen', { autoPromote: DEFAULTS.blueGreenAutoPromote });
      else if (isObject(rollout.blueGreen)) fill(rollout.blueGreen, '/spec/rollout/blueGreen', 'autoPromote', DEFAULTS.blueGreenAutoPromote);
    }
    if (isObject(rollout.analysis)) {
      fill(rollout.analysis, '/spec/rollout/analysis', 'interval', DEFAULTS.analysisInterval);
      fill(rollout.analysis, '/spec/rollout/analysis', 'failureLimit', DEFAULTS.analysisFailureLimit);
      fill(rollout.analysis, '/spec/rollout/analysis', 'minRequests', DEFAULTS.analysisMinRequests);
      fill(rollout.analysis, '/spec/rollout/analysis', 'noData', DEFAULTS.analysisNoData);
    }
  }
  return ops;
}

/**
 * Every member of the spec whose value is null, at any depth, to take out. A null stands for a
 * field left out, as Kubernetes reads it in its own types; the App's CRD preserves the spec's
 * unknown fields (the webhook validates them instead), so no pruning of the API server's takes
 * nulls out before they reach the webhook. A client-side `kubectl apply` drops nulls itself;
 * server-side apply (Flux, Argo CD's option, `--server-side`) sends them, as a Helm value left
 * empty renders them (`replicas:`): denied as "must be integer", such an App was admitted one way
 * and refused the other. Null items of a list stay, for validation to name.
 *
 * This runs before any bound is checked, on whatever a request holds: 3 MiB of one unknown list.
 * So the walk keeps only the containers from the spec down to where it is (no recursion: a field
 * the CRD preserves unknown can be nested thousands of levels deep), allocates nothing for a value
 * that is not a container, and makes a pointer for each container it enters (from its parent's)
 * and for each null it finds, for no other member. Queuing a
 * pointer for every value walked past took 600 MB and seconds for a list of 1.5 million zeros;
 * spelling each null's pointer out from the whole path took as much for a null at each of
 * 10,000 levels.
 */
function nullMembers(spec: Record<string, unknown>): MissingDefault[] {
  const found: MissingDefault[] = [];
  const path: Frame[] = [frame(spec, '/spec')];
  while (path.length > 0) {
    const here = path[path.length - 1];
    if (here.next >= here.size) {
      path.pop();
      continue;
    }
    const key = here.keys ? here.keys[here.next] : here.next;
    here.next++;
    const value = (here.container as Record<string | number, unknown>)[key];
    if (value === null) {
      if (here.keys) found.push({ parent: here.container as Record<string, unknown>, key: key as string, op: { op: 'remove', path: `${here.pointer}/${pointerToken(key as string)}` } });
    } else if (typeof value === 'object') {
      path.push(frame(value as object, `${here.pointer}/${here.keys ? pointerToken(key as string) : key}`));
    }
  }
  return found;
}

/**
 * A container on the walk's path: its pointer (made from its parent's, so that the pointers of a
 * deep path share their beginning rather than each spelling it out again), its keys (an
 * object's; none for a list's indexes) and the next to visit.
 */
interface Frame { container: object; pointer: string; keys: string[] | undefined; size: number; next: number }

function frame(container: object, pointer: string): Frame {
  const keys = Array.isArray(container) ? undefined : Object.keys(container);
  return { container, pointer, keys, size: keys ? keys.length : (container as unknown[]).length, next: 0 };
}

/**
 * Applies add and remove operations (as produced by defaultsPatch) to a copy of the document.
 * Only the objects on the operations' paths are copied, each once however many operations go
 * through it (it is on every mutating admission): the input is never modified, and a large
 * object (managedFields, long env lists) costs nothing to default.
 */
export function applyPatch<T>(doc: T, ops: JsonPatchOp[]): T {
  if (ops.length === 0) return doc;
  const copies = new Set<unknown>();
  const copy = (v: unknown): Record<string, unknown> => {
    const c = (Array.isArray(v) ? [...v] : { ...(v as Record<string, unknown>) }) as Record<string, unknown>;
    copies.add(c);
    return c;
  };
  const out = copy(doc);
  for (const op of ops) {
    const keys = pointerKeys(op.path);
    const last = keys.pop()!;
    let target = out;
    for (const k of keys) {
      const child = target[k];
      target = copies.has(child) ? (child as Record<string, unknown>) : (target[k] = copy(child));
    }
    if (op.op === 'remove') delete target[last];
    else target[last] = cloneJson(op.value);
  }
  return out as T;
}

/** The App with every default filled in. */
export function withDefaults<T>(app: T): T {
  return applyPatch(app, defaultsPatch(app));
}

export type DefaultedApp = App & { spec: DefaultedAppSpec };

/**
 * The App as the controller works with it: defaulted once per reconcile. The webhook normally
 * stored the defaults already; an App stored without it (webhook not installed yet) gets them here.
 */
export function defaulted(app: App): DefaultedApp {
  return withDefaults(app) as DefaultedApp;
}
