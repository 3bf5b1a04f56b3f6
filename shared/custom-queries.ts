// The custom queries of an App's analysis as they reach Prometheus: placeholders filled, then
// confined to the App's namespace. The webhook judges them with this and the controller sends
// what it returns, so what is admitted is what runs.
import { durationMs } from './durations.js';
import { ownedName } from './labels.js';
import { confineToNamespace, type Confinement } from './promql.js';
import { fillPlaceholders, knownPlaceholders, templateSpan, type PlaceholderValues } from './placeholders.js';
import { MAX_QUERY_DEPTH, nestingDepth } from './promql-depth.js';

/** The placeholder values of the App `app` in `namespace` whose analysis runs every `interval`. */
export function placeholderValues(namespace: string, app: string, interval: string): PlaceholderValues {
  return { namespace, app, ingress: app, canaryService: ownedName(app, 'canary'), stableService: ownedName(app, 'stable'), interval };
}

/**
 * `template` filled with `values` and confined to `values.namespace` (every selector gets
 * `namespace="<ns>"`), or why it cannot run, quoting the template and pointing into it.
 */
export function customQuery(template: string, values: PlaceholderValues): Confinement {
  let key = template;
  for (const name of knownPlaceholders) key += `\u0000${values[name]}`;
  const known = recent.get(key);
  if (known) return known;
  const confined = confine(template, values);
  if (recent.size >= RECENT) recent.delete(recent.keys().next().value!);
  recent.set(key, confined);
  return confined;
}

/**
 * The last answers of customQuery. Each analysis check asks again for every custom query of its
 * App (and the webhook's two endpoints for the same App), where a parse of a long query costs
 * milliseconds of the one thread: kept in insertion order, the oldest dropped first. The answers
 * depend on the template and the values of the placeholders only.
 */
const recent = new Map<string, Confinement>();
const RECENT = 512;

function confine(template: string, values: PlaceholderValues): Confinement {
  const depth = nestingDepth(template);
  if (depth > MAX_QUERY_DEPTH) {
    return { ok: false, kind: 'syntax', error: `is nested ${depth} levels deep (parentheses, brackets and braces); at most ${MAX_QUERY_DEPTH} are allowed` };
  }
  const written = { text: template, span: (from: number, to: number) => templateSpan(template, values, from, to) };
  try {
    const confined = confineToNamespace(fillPlaceholders(template, values), values.namespace, { written });
    // A check holds one number to its bounds: a string or a range vector never gives one.
    if (confined.ok && (confined.type === 'string' || confined.type === 'range vector')) {
      return { ok: false, kind: 'syntax', error: `gives a ${confined.type}; an analysis query must give an instant vector or a scalar (one number to hold to its bounds)` };
    }
    return confined;
  } catch (err) {
    // The parser builds its tree recursively: a query nested thousands deep runs out of stack.
    if (err instanceof RangeError) return { ok: false, kind: 'syntax', error: 'is nested too deeply to be checked; write it with fewer levels of parentheses and operators' };
    throw err;
  }
}

/**
 * Why admission refuses a custom query of the App named `name` in `namespace` (it does not parse,
 * or it matches on another namespace), or undefined. Missing values get stand-ins: without a
 * namespace (an App judged outside admission and the controller) only the syntax is judged.
 */
export function customQueryProblem(template: string, app: { namespace?: unknown; name?: unknown; interval?: unknown }): string | undefined {
  const known = (v: unknown): v is string => typeof v === 'string' && v !== '';
  const interval = known(app.interval) && durationMs(app.interval) !== undefined ? app.interval : '1m';
  const values = placeholderValues(known(app.namespace) ? app.namespace : 'default', known(app.name) ? app.name : 'app', interval);
  const confined = customQuery(template, values);
  if (confined.ok || (confined.kind === 'namespace' && !known(app.namespace))) return undefined;
  return confined.error;
}
