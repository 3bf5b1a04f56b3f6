// Does the observed object already contain every field we would apply? A server-side apply is a
// write even when nothing changes (it moves resourceVersion on the 1.20 API server), so the
// reconciler asks this first and applies only when something differs.
//
// The comparison is "desired is a subset of observed", with the merge rules server-side apply
// itself uses, so that what apply would leave alone never counts as a difference (otherwise every
// reconcile would apply, the write would trigger a watch event, and the loop would never rest):
// - fields we do not set are ignored: API-server defaults (protocol, imagePullPolicy,
//   terminationMessagePath, clusterIP, sessionAffinity, revisionHistoryLimit, ...) and fields of
//   other managers;
// - maps (labels, annotations, selectors) may hold extra keys;
// - lists of named entries (containers, ports, env) and of ownerReferences are list-maps: their
//   entries are matched by key and others' extra entries are allowed;
// - every other list is atomic: same length, entries compared in order; so are the lists of named
//   entries the API server keeps atomic: an HTTPRoute's parentRefs and backendRefs (the Gateway
//   API CRDs give them no list-map keys), where an entry added by hand (another Gateway, another
//   backend taking a share of the traffic) is replaced by the apply and so must count as drift;
// - an empty value we set ("" or [] or {}) equals an absent one (the API server omits empties),
//   and so does a 0 in a field the API server omits at 0 (a probe's initialDelaySeconds);
// - quantities compare by value ("1000m" equals "1", "0.5" equals "500m", 1 equals "1"): the API
//   server stores each in canonical form (1024Mi as 1Gi), in resources, an emptyDir's sizeLimit
//   and an env var's resourceFieldRef.divisor alike, and requests and limits rounded up to
//   thousandths (100u as 1m).
import { quantityNanos } from '../../shared/quantity.js';
import { isObject } from '../../shared/objects.js';


const isAbsent = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

/** Lists of named entries that the API server keeps atomic (see the header). */
const isAtomicNamedList = (path: string) => /(^|\.)(parentRefs|backendRefs)$/.test(path);

/** The key of a list-map entry, or undefined when the list is atomic. */
function listMapKey(items: unknown[]): ((item: Record<string, unknown>) => string) | undefined {
  if (items.length === 0 || !items.every(isObject)) return undefined;
  // A key must tell the entries apart (parentRefs may name one Gateway twice, by listener).
  const unique = (key: (i: Record<string, unknown>) => string) => (new Set(items.map(key)).size === items.length ? key : undefined);
  if (items.every((i) => typeof i.uid === 'string' && typeof i.kind === 'string')) return unique((i) => String(i.uid));
  if (items.every((i) => typeof i.name === 'string')) return unique((i) => String(i.name));
  return undefined;
}

/** The quantity fields of what Skiff renders (resource.Quantity in the API server's types). */
const isQuantityPath = (path: string) => path.includes('.resources.') || path.endsWith('.emptyDir.sizeLimit') || path.endsWith('.resourceFieldRef.divisor');

const MILLI_IN_NANOS = 1_000_000n;

/**
 * Whether two quantities are one value, exactly. Requests and limits are stored rounded up to
 * thousandths (the API server's SetDefaults_ResourceList: 0.0001 or 100u is stored as 1m), so a
 * request or limit is compared as that rounding leaves it.
 */
function sameQuantity(desired: string | number, observed: string | number, path: string): boolean {
  const a = quantityNanos(desired);
  const b = quantityNanos(observed);
  if (a === undefined || b === undefined) return false;
  const stored = path.includes('.resources.') && a > 0n ? ((a + MILLI_IN_NANOS - 1n) / MILLI_IN_NANOS) * MILLI_IN_NANOS : a;
  return stored === b;
}

/** Integer fields the API server stores without their 0 (not pointers, `omitempty` in its types). */
const omitsZero = (path: string) => path.endsWith('Probe.initialDelaySeconds');

function sameScalar(desired: unknown, observed: unknown, path: string): boolean {
  if (desired === observed) return true;
  if (desired === 0 && observed === undefined && omitsZero(path)) return true;
  if (isQuantityPath(path) && (typeof desired === 'string' || typeof desired === 'number') && (typeof observed === 'string' || typeof observed === 'number')) {
    return sameQuantity(desired, observed, path);
  }
  return false;
}

/**
 * The paths (such as `spec.replicas` or `spec.template.spec.containers[app].image`) where `observed`
 * does not hold what `desired` sets. Empty when applying `desired` would change nothing.
 */
export function differences(desired: unknown, observed: unknown, path = ''): string[] {
  if (desired === undefined) return [];
  if (isAbsent(desired)) return isAbsent(observed) ? [] : [path];
  if (isObject(desired)) {
    if (Object.keys(desired).length === 0) return [];
    if (!isObject(observed)) return [path || '.'];
    return Object.keys(desired).flatMap((k) => differences(desired[k], observed[k], path ? `${path}.${k}` : k));
  }
  if (Array.isArray(desired)) {
    if (!Array.isArray(observed)) return [path];
    const key = listMapKey(desired);
    const atomic = isAtomicNamedList(path);
    if (key && !atomic) {
      const byKey = new Map(observed.filter(isObject).map((o) => [key(o), o]));
      return (desired as Record<string, unknown>[]).flatMap((d) => {
        const o = byKey.get(key(d));
        return o === undefined ? [`${path}[${key(d)}]`] : differences(d, o, `${path}[${key(d)}]`);
      });
    }
    if (desired.length !== observed.length) return [path];
    // Entries of an atomic list of named entries are still named in the paths (for Events).
    return desired.flatMap((d, i) => differences(d, observed[i], `${path}[${key ? key(d as Record<string, unknown>) : i}]`));
  }
  return sameScalar(desired, observed, path) ? [] : [path];
}
