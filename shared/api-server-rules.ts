// What the API server requires of the objects Skiff renders from an App, beyond what the schema
// says: Kubernetes' own validation (k8s.io/kubernetes pkg/apis/{core,networking}/validation) and
// the Gateway API's CEL rules (which API servers before 1.25 drop, so only this file checks them
// there). An App the webhook admits must never render an object the API server then refuses:
// the App would be stored, and broken. Pure.
import { isWholeQuantity, quantityNanos, unitQuantityText, unitsRoundedUp } from './quantity.js';
import {
  isChDirName, isEnvVarName, isIPv4, isLocalDescendingPath, isQualifiedName, itemsOf, keyPath, objectAt, stringAt,
  type Obj, type Problem, type SpecCheck,
} from './field-checks.js';

export const INT32_MAX = 2147483647;

// --- Ingress (networking/validation: validateIngressRules, validateHTTPIngressPath)

const INGRESS_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INGRESS_PATH_SUFFIXES = ['/..', '/.'];

const checkIngress: SpecCheck = (spec, out) => {
  const ingress = objectAt(spec.ingress);
  const host = stringAt(ingress?.host);
  if (host !== undefined && isIPv4(host)) out.push({ path: 'spec.ingress.host', message: 'must be a DNS name, not an IP address' });
  const path = stringAt(ingress?.path);
  // ImplementationSpecific paths are the ingress controller's to interpret: only "absolute" applies.
  if (path !== undefined && (ingress?.pathType ?? 'Prefix') !== 'ImplementationSpecific') {
    for (const seq of INGRESS_PATH_SEQUENCES) if (path.includes(seq)) out.push({ path: 'spec.ingress.path', message: `must not contain "${seq}" (pathType ${String(ingress?.pathType ?? 'Prefix')})` });
    for (const end of INGRESS_PATH_SUFFIXES) if (path.endsWith(end)) out.push({ path: 'spec.ingress.path', message: `must not end with "${end}" (pathType ${String(ingress?.pathType ?? 'Prefix')})` });
  }
};

// --- HTTPRoute (the CEL rules of gateway.networking.k8s.io_httproutes.yaml, v1.6.1)

const ROUTE_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F', '#'];
const ROUTE_PATH_CHARACTERS = /^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|%[0-9a-fA-F]{2})+$/;
const GATEWAY_GROUP = 'gateway.networking.k8s.io';

const checkRoute: SpecCheck = (spec, out) => {
  const route = objectAt(spec.route);
  if (!route) return;
  for (const [i, h] of (Array.isArray(route.hostnames) ? route.hostnames : []).entries()) {
    // The Gateway API's Hostname: "IPs are not allowed".
    if (typeof h === 'string' && isIPv4(h)) out.push({ path: `spec.route.hostnames[${i}]`, message: 'must be a DNS name, not an IP address' });
  }
  const path = stringAt(route.path);
  if (path !== undefined) {
    for (const seq of ROUTE_PATH_SEQUENCES) if (path.includes(seq)) out.push({ path: 'spec.route.path', message: `must not contain "${seq}"` });
    for (const end of INGRESS_PATH_SUFFIXES) if (path.endsWith(end)) out.push({ path: 'spec.route.path', message: `must not end with "${end}"` });
    if (path !== '' && !ROUTE_PATH_CHARACTERS.test(path)) {
      out.push({ path: 'spec.route.path', message: 'may contain only letters, digits, -/._~!$&\'()*+,;=:@ and %-escapes such as %20' });
    }
  }
  // Two references to one parent must each name a listener, and different ones (the parentRefs
  // CEL rules: group, kind, name and namespace as the API server defaults them; port does not count).
  const parents = itemsOf(route.parentRefs).map(([i, p]) => ({
    i,
    parent: JSON.stringify([p.group ?? GATEWAY_GROUP, p.kind ?? 'Gateway', p.name, p.namespace ?? '']),
    section: stringAt(p.sectionName) ?? '',
  }));
  // By parent, the first reference with and without a sectionName, and the first of each section: one pass.
  const seen = new Map<string, { withSection?: number; without?: number; sections: Map<string, number> }>();
  for (const p of parents) {
    const known = seen.get(p.parent) ?? { sections: new Map<string, number>() };
    seen.set(p.parent, known);
    const mixed = p.section === '' ? known.withSection : known.without;
    const same = known.sections.get(p.section);
    if (mixed !== undefined) out.push({ path: `spec.route.parentRefs[${p.i}].sectionName`, message: `must be set on every reference to a parent that parentRefs[${mixed}] also refers to (or on none)` });
    else if (same !== undefined) out.push({ path: `spec.route.parentRefs[${p.i}]`, message: `refers to the same parent${p.section ? ` and sectionName` : ''} as parentRefs[${same}]; give each reference to one parent its own sectionName` });
    if (p.section === '') known.without ??= p.i;
    else known.withSection ??= p.i;
    if (!known.sections.has(p.section)) known.sections.set(p.section, p.i);
  }
};

// --- The container (core/validation: ValidateEnv, ValidateEnvFrom, ValidateResourceRequirements,
// ValidateSecurityContext)

const DIVISORS: [RegExp, string[]][] = [
  [/^(limits|requests)\.cpu$/, ['1m', '1']],
  [/^(limits|requests)\.(memory|ephemeral-storage|hugepages-.+)$/, ['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei']],
];

const checkEnv: SpecCheck = (spec, out) => {
  for (const [i, e] of itemsOf(spec.env)) {
    const from = objectAt(e.valueFrom);
    const p = `spec.env[${i}].valueFrom`;
    const fieldPath = stringAt(objectAt(from?.fieldRef)?.fieldPath);
    const subscript = fieldPath === undefined ? null : /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(fieldPath);
    // Kubernetes compares annotation keys in lower case.
    if (subscript && !isQualifiedName(subscript[1] === 'labels' ? subscript[2]! : subscript[2]!.toLowerCase())) {
      out.push({ path: `${p}.fieldRef.fieldPath`, message: `the key in [''] must be a valid ${subscript[1] === 'labels' ? 'label' : 'annotation'} key` });
    }
    const resourceRef = objectAt(from?.resourceFieldRef);
    const resource = stringAt(resourceRef?.resource);
    const divisor = resourceRef?.divisor;
    if (resource !== undefined && (typeof divisor === 'string' || typeof divisor === 'number')) {
      const allowed = DIVISORS.find(([re]) => re.test(resource))?.[1];
      // Compared as the API server prints it (1000m is 1); zero is no divisor, as there.
      const text = unitQuantityText(divisor);
      if (allowed && text !== '0' && !allowed.includes(text ?? String(divisor))) out.push({ path: `${p}.resourceFieldRef.divisor`, message: `must be one of ${allowed.join(', ')} for ${resource}` });
    }
    for (const ref of ['secretKeyRef', 'configMapKeyRef']) {
      const key = stringAt(objectAt(from?.[ref])?.key);
      if (key !== undefined && isChDirName(key)) out.push({ path: `${p}.${ref}.key`, message: 'must not be "." nor start with ".."' });
    }
  }
  for (const [i, e] of itemsOf(spec.envFrom)) {
    const prefix = stringAt(e.prefix);
    if (prefix && !isEnvVarName(prefix)) {
      out.push({ path: `spec.envFrom[${i}].prefix`, message: 'must be a valid environment variable name: letters, digits, "_", "-" and ".", not starting with a digit, not "." nor starting with ".."' });
    }
  }
  for (const [i, v] of itemsOf(spec.volumes)) {
    for (const source of ['configMap', 'secret']) {
      for (const [j, item] of itemsOf(objectAt(v[source])?.items)) {
        if (typeof item.key === 'string' && isChDirName(item.key)) out.push({ path: `spec.volumes[${i}].${source}.items[${j}].key`, message: 'must not be "." nor start with ".."' });
      }
    }
  }
};

const STANDARD_RESOURCES = ['cpu', 'memory', 'ephemeral-storage'];
const isHugePages = (name: string) => name.startsWith('hugepages-');
/**
 * The page size of a huge-page resource in bytes, when it is a whole positive number of them:
 * Kubernetes refuses every value of any other (IsHugePageResourceValueDivisible).
 */
function hugePageSize(name: string): bigint | undefined {
  const nanos = quantityNanos(name.slice('hugepages-'.length));
  return nanos !== undefined && nanos > 0n && isWholeQuantity(nanos) ? unitsRoundedUp(nanos) : undefined;
}
/** Outside Kubernetes' own resources (no "kubernetes.io/" in the name): device plugins' and operators' resources. */
const isExtended = (name: string) => name.includes('/') && !name.includes('kubernetes.io/');

/** Why a container resource name is refused, or undefined (validateContainerResourceName). */
function resourceNameProblem(name: string): string | undefined {
  if (STANDARD_RESOURCES.includes(name)) return undefined;
  if (isHugePages(name)) return hugePageSize(name) !== undefined ? undefined : 'must be hugepages-<page size>, a whole number of bytes such as hugepages-2Mi';
  const ok = name.includes('/') && isQualifiedName(name) && (!isExtended(name) || (!name.startsWith('requests.') && isQualifiedName(`requests.${name}`)));
  return ok ? undefined : 'must be cpu, memory, ephemeral-storage, hugepages-<size> or an extended resource such as example.com/gpu';
}

const checkResources: SpecCheck = (spec, out) => {
  const resources = objectAt(spec.resources);
  if (!resources) return;
  const requests = objectAt(resources.requests) ?? {};
  const limits = objectAt(resources.limits) ?? {};
  for (const [kind, list] of [['requests', requests], ['limits', limits]] as const) {
    for (const [name, q] of Object.entries(list)) {
      const problem = resourceNameProblem(name);
      if (problem) {
        out.push({ path: keyPath(`spec.resources.${kind}`, name), message: problem });
        continue;
      }
      const v = typeof q === 'string' || typeof q === 'number' ? quantityNanos(q) : undefined;
      // Huge pages come in whole pages (validateResourceQuantityHugePageValue, on requests and limits).
      const pageSize = isHugePages(name) ? hugePageSize(name) : undefined;
      if (pageSize !== undefined && v !== undefined && v >= 0n && unitsRoundedUp(v) % pageSize !== 0n) {
        const page = name.slice('hugepages-'.length);
        out.push({ path: keyPath(`spec.resources.${kind}`, name), message: `must be a whole number of ${page} pages (a multiple of ${page})` });
      }
      // Extended resources are counted in whole units (IsIntegerResourceName).
      if (isExtended(name) && v !== undefined && !isWholeQuantity(v)) out.push({ path: keyPath(`spec.resources.${kind}`, name), message: 'must be a whole number (an extended resource)' });
    }
  }
  // Huge pages and extended resources cannot be overcommitted: a request needs the same limit.
  for (const [name, q] of Object.entries(requests)) {
    if (!isHugePages(name) && !isExtended(name)) continue;
    const path = keyPath('spec.resources.requests', name);
    if (!(name in limits)) out.push({ path, message: `requires spec.resources.limits of ${name} too, equal to it (${name} cannot be overcommitted)` });
    else {
      const [r, l] = [q, limits[name]].map((x) => (typeof x === 'string' || typeof x === 'number' ? quantityNanos(x) : undefined));
      if (r !== undefined && l !== undefined && r !== l) out.push({ path, message: `must equal the limit (${String(limits[name])}): ${name} cannot be overcommitted` });
    }
  }
  const names = [...Object.keys(requests), ...Object.keys(limits)];
  if (names.some(isHugePages) && !names.some((n) => n === 'cpu' || n === 'memory')) {
    out.push({ path: 'spec.resources', message: 'huge pages require a cpu or memory request or limit' });
  }
};

const checkSecurityContext: SpecCheck = (spec, out) => {
  const container = objectAt(spec.securityContext);
  const add = objectAt(container?.capabilities)?.add;
  if (container?.allowPrivilegeEscalation === false && Array.isArray(add)) {
    add.forEach((c, i) => {
      if (c === 'CAP_SYS_ADMIN') out.push({ path: `spec.securityContext.capabilities.add[${i}]`, message: 'may not be CAP_SYS_ADMIN when allowPrivilegeEscalation is false' });
    });
  }
  for (const field of ['podSecurityContext', 'securityContext']) {
    const profile = stringAt(objectAt(objectAt(spec[field])?.seccompProfile)?.localhostProfile);
    if (profile !== undefined && !isLocalDescendingPath(profile)) out.push({ path: `spec.${field}.seccompProfile.localhostProfile`, message: 'must be a relative path without ".."' });
  }
};

// --- Pod annotations with a meaning to Kubernetes (ValidatePodSpecificAnnotations)

const APPARMOR_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';
const RESERVED_POD_ANNOTATIONS: [(key: string) => boolean, string][] = [
  [(k) => k === 'kubernetes.io/config.mirror', 'is reserved: it marks static pods, and the API server refuses it in a pod template'],
  [(k) => k === 'scheduler.alpha.kubernetes.io/tolerations', 'is reserved: set spec.tolerations instead'],
  [(k) => k === 'seccomp.security.alpha.kubernetes.io/pod' || k.startsWith('container.seccomp.security.alpha.kubernetes.io/'),
    'is reserved: set spec.podSecurityContext.seccompProfile or spec.securityContext.seccompProfile instead'],
];

const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

/**
 * A pod deletion cost as Kubernetes parses it (GetDeletionCostFromPodAnnotations): a decimal int32,
 * without "+" or leading zeros (after a "-", Go's ParseInt takes them).
 */
export const isPodDeletionCost = (v: string) => /^(0|[1-9][0-9]*|-[0-9]+)$/.test(v) && Number(v) >= -2147483648 && Number(v) <= 2147483647;

const checkPodAnnotations: SpecCheck = (spec, out) => {
  for (const [key, value] of Object.entries(objectAt(spec.podAnnotations) ?? {})) {
    const path = keyPath('spec.podAnnotations', key);
    const reserved = RESERVED_POD_ANNOTATIONS.find(([matches]) => matches(key));
    if (reserved) out.push({ path, message: reserved[1] });
    // Parsed by the API server on every pod template (the PodDeletionCost feature, on since 1.22).
    if (key === POD_DELETION_COST && typeof value === 'string' && !isPodDeletionCost(value)) {
      out.push({ path, message: 'must be a 32-bit integer such as 100 or -5 (no "+" nor leading zeros)' });
    }
    if (!key.startsWith(APPARMOR_PREFIX)) continue;
    if (key !== `${APPARMOR_PREFIX}app`) out.push({ path, message: `names a container the pod does not have: the App's container is "app" (${APPARMOR_PREFIX}app)` });
    if (typeof value === 'string' && !isAppArmorProfile(value)) out.push({ path, message: 'must be runtime/default, unconfined or localhost/<profile>' });
  }
};

export const isAppArmorProfile = (v: string) => v === 'runtime/default' || v === 'unconfined' || /^localhost\/.+/.test(v);

// --- The PodDisruptionBudget: an integer of an int-or-string field is an int32.

const checkDisruption: SpecCheck = (spec, out) => {
  const d = objectAt(spec.disruption);
  for (const key of ['maxUnavailable', 'minAvailable']) {
    const v = d?.[key];
    if (typeof v === 'number' && v > INT32_MAX) out.push({ path: `spec.disruption.${key}`, message: `must be at most ${INT32_MAX}` });
  }
};

export const API_SERVER_CHECKS: readonly SpecCheck[] = [checkIngress, checkRoute, checkEnv, checkResources, checkSecurityContext, checkPodAnnotations, checkDisruption];

/** Every problem the API server would find in the objects the App's spec renders (see above). */
export function apiServerProblems(spec: Obj): Problem[] {
  const out: Problem[] = [];
  for (const check of API_SERVER_CHECKS) check(spec, out);
  return out;
}
