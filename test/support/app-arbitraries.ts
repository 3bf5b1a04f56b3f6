// fast-check arbitraries of App specs that go near every bound of the API: names and keys of the
// longest lengths, lists of the most entries, int32 maxima, host names of 253 characters, 16
// hostnames and 32 parentRefs, and pod templates filled up to the 100 KiB cap. Each generated
// spec is meant to be admitted (the tests count how many are); what it renders must then be
// accepted by the API server.
import fc from 'fast-check';
import { INT32_MAX } from '../../shared/app-schema.js';
import { MAX_POD_TEMPLATE_BYTES, podTemplateBytes } from '../../shared/pod-template-size.js';
import type { App } from '../../shared/app-types.js';

type Spec = Record<string, unknown>;

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = LOWER + DIGITS;
const LETTERS = LOWER + LOWER.toUpperCase();

const char = (set: string) => fc.constantFrom(...set.split(''));
/** A length from min to max: one of the two, or small, or anything between. */
const length = (min: number, max: number) => fc.oneof(
  { arbitrary: fc.constant(min), weight: 1 }, { arbitrary: fc.constant(max), weight: 1 },
  { arbitrary: fc.integer({ min, max: Math.min(max, min + 4) }), weight: 4 }, { arbitrary: fc.integer({ min, max }), weight: 1 },
);
const exactly = (set: string, n: number) => fc.array(char(set), { minLength: n, maxLength: n }).map((a) => a.join(''));
const text = (set: string, min: number, max: number) => length(min, max).chain((n) => exactly(set, n));
/** A list of `min` to `max` entries, often the most. */
const list = <T>(item: fc.Arbitrary<T>, min: number, max: number) => length(min, max).chain((n) => fc.array(item, { minLength: n, maxLength: n }));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
/** A record without its undefined members (an absent optional field, not a null). */
const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** [a-z0-9]([-a-z0-9]*[a-z0-9])? of min..max characters. */
export const dnsLabel = (max = 63, min = 1) => length(min, max).chain((n) =>
  n === 1 ? char(ALNUM) : fc.tuple(char(ALNUM), exactly(`${ALNUM}-`, n - 2), char(ALNUM)).map(([a, b, c]) => a + b + c));
const dns1035 = (max: number) => length(1, max).chain((n) =>
  n === 1 ? char(LOWER) : fc.tuple(char(LOWER), exactly(`${ALNUM}-`, n - 2), char(ALNUM)).map(([a, b, c]) => a + b + c));
/** A DNS-1123 subdomain of at most `max` characters, often exactly `max`. */
export const subdomain = (max = 253) => fc.oneof(
  fc.array(dnsLabel(20), { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.')),
  // The longest: labels of 63 and a last one that fills up to max.
  fc.tuple(dnsLabel(63, 63), dnsLabel(63, 63), dnsLabel(63, 63), dnsLabel(61, 61)).map((l) => l.join('.').slice(0, max).replace(/[-.]+$/, '')),
).filter((s) => s.length <= max && s.length > 0 && !/^[0-9.]+$/.test(s));
/** A label or annotation name part: [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])? of at most 63. */
const namePart = length(1, 63).chain((n) =>
  n === 1 ? char(ALNUM) : fc.tuple(char(LETTERS + DIGITS), exactly(`${LETTERS}${DIGITS}-_.`, n - 2), char(LETTERS + DIGITS)).map(([a, b, c]) => a + b + c));
export const qualifiedName = fc.tuple(maybe(subdomain(253)), namePart).map(([prefix, name]) => (prefix ? `${prefix}/${name}` : name));
const labelValue = fc.oneof(fc.constant(''), namePart);
const cIdentifier = fc.tuple(char(`${LETTERS}_`), text(`${LETTERS}${DIGITS}_`, 0, 80)).map(([a, b]) => a + b);
const envVarName = fc.tuple(char(`${LETTERS}_-`), text(`${LETTERS}${DIGITS}_.-`, 0, 40)).map(([a, b]) => a + b);
const configKey = text(`${LETTERS}${DIGITS}-_.`, 1, 253).filter((k) => k !== '.' && !k.startsWith('..'));
/** Any text, some of it beyond ASCII. */
const anyText = (max: number) => fc.oneof(fc.string({ maxLength: max }), fc.string({ maxLength: max, unit: 'grapheme' }), fc.string({ maxLength: max, unit: 'binary' }));
const int32 = (min: number) => fc.oneof(fc.constant(min), fc.constant(INT32_MAX), fc.integer({ min, max: INT32_MAX }));
const portNumber = fc.oneof(fc.constant(1), fc.constant(65535), fc.integer({ min: 1, max: 65535 }));
// The one name a probe can resolve: the container's only port (spec.port) is named http.
const portName = fc.constant('http');
const absolutePath = (max: number, set = `${ALNUM}-._~`) => list(text(set, 1, 20), 0, 8).map((parts) => `/${parts.join('/')}`.slice(0, max))
  .filter((p) => !p.includes('//') && !/\/\.\.?(\/|$)/.test(p));
const duration = (maxSeconds: number, minSeconds = 0) => fc.oneof(
  fc.integer({ min: minSeconds, max: maxSeconds }).map((n) => `${n}s`),
  fc.integer({ min: Math.ceil(minSeconds / 60), max: maxSeconds / 60 }).map((n) => `${n}m`),
  fc.integer({ min: Math.ceil(minSeconds / 3600), max: maxSeconds / 3600 }).map((n) => `${n}h`),
);

const image = fc.tuple(
  fc.constantFrom('nginx', 'ghcr.io/acme/web', 'registry.example.com:5000/team/app', 'localhost:5000/a/b-c_d.e'),
  maybe(fc.tuple(char(`${LETTERS}${DIGITS}_`), text(`${LETTERS}${DIGITS}_.-`, 0, 127)).map(([a, b]) => a + b)),
  maybe(exactly('0123456789abcdef', 64)),
).map(([repo, tag, digest]) => `${repo}${tag ? `:${tag}` : ''}${digest ? `@sha256:${digest}` : ''}`);

const quantity = fc.oneof(
  fc.integer({ min: 0, max: 64 }),
  fc.constantFrom('100m', '0.5', '1', '128Mi', '1Gi', '2G', '1e3', '1.5', '999999999Ki', '0'),
);

const probe = (liveness: boolean) => fc.tuple(
  fc.oneof(
    fc.record({ httpGet: fc.record({ path: absolutePath(200), port: maybe(fc.oneof(portNumber, portName)), scheme: maybe(fc.constantFrom('HTTP', 'HTTPS')),
      httpHeaders: maybe(list(fc.record({ name: text(`${LETTERS}${DIGITS}-`, 1, 40), value: anyText(30) }), 0, 32)) }).map(defined) }),
    fc.record({ tcpSocket: fc.record({ port: maybe(fc.oneof(portNumber, portName)) }).map(defined) }),
    fc.record({ exec: fc.record({ command: list(anyText(20), 1, 256) }) }),
  ),
  fc.record({ initialDelaySeconds: maybe(int32(0)), periodSeconds: maybe(int32(1)), timeoutSeconds: maybe(int32(1)), failureThreshold: maybe(int32(1)),
    successThreshold: liveness ? fc.constant(undefined) : maybe(int32(1)) }).map(defined),
).map(([handler, timing]) => ({ ...handler, ...timing }));

// status.hostIPs needs Kubernetes 1.28, hugepages in resourceFieldRef 1.21: not on the 1.20 test server.
const fieldPath = fc.oneof(
  fc.constantFrom('metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.podIP', 'status.podIPs'),
  qualifiedName.map((k) => `metadata.labels['${k}']`),
  qualifiedName.map((k) => `metadata.annotations['${k}']`),
);
const resourceFieldRef = fc.oneof(
  fc.record({ resource: fc.constantFrom('limits.cpu', 'requests.cpu'), divisor: maybe(fc.constantFrom('1m', '1', 1)) }),
  fc.record({ resource: fc.constantFrom('limits.memory', 'requests.memory', 'limits.ephemeral-storage', 'requests.ephemeral-storage'),
    divisor: maybe(fc.constantFrom('1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei')) }),
).chain((r) => fc.record({ containerName: maybe(fc.constant('app')) }).map((c) => defined({ ...r, ...c })));
const keySelector = fc.record({ name: subdomain(253), key: configKey, optional: maybe(fc.boolean()) }).map(defined);
const envVar = fc.tuple(cIdentifier, fc.oneof(
  fc.record({ value: anyText(40) }),
  fc.record({}),
  fc.record({ valueFrom: fc.oneof(
    fc.record({ secretKeyRef: keySelector }), fc.record({ configMapKeyRef: keySelector }),
    fc.record({ fieldRef: fc.record({ fieldPath, apiVersion: maybe(fc.constant('v1')) }).map(defined) }), fc.record({ resourceFieldRef })) }),
)).map(([name, rest]) => ({ name, ...rest }));

const keyToPaths = list(fc.record({ key: configKey, path: list(text(`${ALNUM}-_`, 1, 30), 1, 3).map((p) => p.join('/')), mode: maybe(fc.integer({ min: 0, max: 511 })) }).map(defined), 0, 20);
const volumes = list(fc.oneof(
  fc.record({ configMap: fc.record({ name: subdomain(253), items: maybe(keyToPaths), defaultMode: maybe(fc.integer({ min: 0, max: 511 })), optional: maybe(fc.boolean()) }).map(defined) }),
  fc.record({ secret: fc.record({ secretName: subdomain(253), items: maybe(keyToPaths), defaultMode: maybe(fc.integer({ min: 0, max: 511 })), optional: maybe(fc.boolean()) }).map(defined) }),
  fc.record({ emptyDir: fc.record({ medium: maybe(fc.constantFrom('', 'Memory')), sizeLimit: maybe(quantity) }).map(defined), readOnly: maybe(fc.boolean()) }).map(defined),
), 0, 64).chain((sources) => fc.tuple(
  fc.uniqueArray(dnsLabel(63), { minLength: sources.length, maxLength: sources.length }),
  fc.array(maybe(list(text(`${ALNUM}-_.`, 1, 20), 1, 3).map((p) => p.join('/')).filter((p) => !p.split('/').includes('..'))), { minLength: sources.length, maxLength: sources.length }),
).map(([names, subPaths]) => sources.map((s, i) => defined({ name: names[i], mountPath: `/mnt/${i}/${names[i]}`, subPath: subPaths[i], ...s }))));

const seccomp = fc.oneof(
  fc.record({ type: fc.constantFrom('RuntimeDefault', 'Unconfined') }),
  fc.record({ type: fc.constant('Localhost'), localhostProfile: list(text(`${ALNUM}-_.`, 1, 30), 1, 4).map((p) => p.join('/')).filter((p) => !p.split('/').includes('..')) }),
);
const securityContexts = fc.record({
  podSecurityContext: fc.record({
    runAsUser: maybe(int32(1)), runAsGroup: maybe(int32(0)), runAsNonRoot: maybe(fc.boolean()), fsGroup: maybe(int32(0)),
    fsGroupChangePolicy: maybe(fc.constantFrom('OnRootMismatch', 'Always')), supplementalGroups: maybe(list(int32(0), 0, 64)), seccompProfile: maybe(seccomp),
  }).map(defined),
  securityContext: fc.record({
    runAsUser: maybe(int32(1)), runAsGroup: maybe(int32(0)), runAsNonRoot: maybe(fc.boolean()), readOnlyRootFilesystem: maybe(fc.boolean()),
    allowPrivilegeEscalation: maybe(fc.boolean()), privileged: maybe(fc.constant(false)),
    capabilities: maybe(fc.record({ add: maybe(list(fc.constantFrom('NET_BIND_SERVICE', 'CHOWN', 'SYS_TIME', 'NET_ADMIN'), 0, 64)), drop: maybe(list(fc.constantFrom('ALL', 'NET_RAW', 'MKNOD'), 0, 64)) }).map(defined)),
    seccompProfile: maybe(seccomp),
  }).map(defined),
});

const toleration = fc.oneof(
  fc.record({ key: qualifiedName, operator: fc.constant('Equal'), value: labelValue, effect: maybe(fc.constantFrom('NoSchedule', 'PreferNoSchedule')) }).map(defined),
  fc.record({ key: maybe(qualifiedName), operator: fc.constant('Exists'), effect: fc.constant('NoExecute'), tolerationSeconds: maybe(int32(0)) }).map(defined),
);

const resources = fc.oneof(
  fc.record({ requests: fc.record({ cpu: fc.constantFrom('100m', '1', 2), memory: fc.constantFrom('64Mi', '1Gi'), 'ephemeral-storage': maybe(fc.constantFrom('1Gi', '10G')) }).map(defined),
    limits: maybe(fc.record({ cpu: fc.constantFrom('2', 4), memory: fc.constantFrom('2Gi', '4Gi') })) }).map(defined),
  // Quantities beyond an int64, which the API server holds exactly when decimal, capped when binary,
  // with an exponent kept as an int32: whether a request is over its limit is decided as it decides.
  fc.tuple(...[0, 1].map(() => fc.constantFrom('20E', '10E', '10000P', '9999P', '16Ei', '8Ei', '1e4294967296', '2', '1e400', '1e401', '9223372036854775808', '9223372036854775807')))
    .map(([request, limit]) => ({ requests: { cpu: '100m', memory: request }, limits: { memory: limit } })),
  // Extended resources and huge pages: whole, and requested as much as limited.
  fc.integer({ min: 0, max: 8 }).map((gpus) => ({
    requests: { cpu: '1', memory: '1Gi', 'example.com/gpu': gpus, 'hugepages-2Mi': '2Mi' },
    limits: { memory: '1Gi', 'example.com/gpu': String(gpus), 'hugepages-2Mi': '2Mi' },
  })),
);

const podAnnotations = fc.tuple(
  fc.dictionary(qualifiedName.filter((k) => !/(^|\.)kubernetes\.io\//.test(k)), anyText(100), { maxKeys: 20 }),
  maybe(fc.constantFrom('runtime/default', 'unconfined', 'localhost/web-profile')),
).map(([annotations, appArmor]) => (appArmor ? { ...annotations, 'container.apparmor.security.beta.kubernetes.io/app': appArmor } : annotations));

const hostname = subdomain(253);
const parentRefs = list(fc.record({ name: text(`${LETTERS}${DIGITS}-._ `, 1, 253), namespace: maybe(dnsLabel(63)), group: maybe(fc.constantFrom('gateway.networking.k8s.io', '', 'example.com')),
  kind: maybe(fc.constantFrom('Gateway', 'ListenerSet', 'A')), port: maybe(portNumber) }).map(defined), 1, 32)
  // Each its own sectionName: references to the same parent must differ in it (the Gateway API's rule).
  .map((refs) => refs.map((r, i) => ({ ...r, sectionName: `listener-${i}` })));
const routePath = fc.oneof(absolutePath(1024, `${ALNUM}-._~!$&'()*+,;=:@`), text(`${ALNUM}-._~`, 1022, 1022).map((t) => `/${t}/`));

const steps = list(fc.oneof(fc.record({ setWeight: fc.integer({ min: 0, max: 100 }) }), fc.record({ pause: fc.record({ duration: maybe(duration(86400)) }).map(defined) })), 1, 64);
const analysis = fc.record({
  interval: duration(86400, 10), failureLimit: int32(0), minRequests: int32(0), noData: fc.constantFrom('Wait', 'Fail', 'Pass'),
  successRate: maybe(fc.record({ min: fc.double({ min: 0, max: 100, noNaN: true }) })),
  metrics: list(fc.record({ query: fc.constant('sum(rate(errors_total{namespace="{{namespace}}"}[{{interval}}]))'), max: fc.double({ min: 0, max: 1e9, noNaN: true }) }), 1, 10)
    .map((ms) => ms.map((m, i) => ({ name: `metric-${i}`, ...m }))),
});

const routing = fc.oneof(
  fc.record({ ingress: fc.record({ host: hostname, path: maybe(absolutePath(300)), pathType: maybe(fc.constantFrom('Prefix', 'Exact', 'ImplementationSpecific')),
    className: maybe(subdomain(253)), tlsSecretName: maybe(subdomain(253)) }).map(defined) }),
  fc.record({ route: fc.record({ parentRefs, hostnames: maybe(list(hostname, 0, 16)), path: maybe(routePath), tls: maybe(fc.boolean()) }).map(defined) }),
);

/** The spec of an App near the bounds, canaried through an Ingress or an HTTPRoute. */
export const specNearBounds: fc.Arbitrary<Spec> = fc.record({
  image,
  replicas: fc.oneof(fc.constant(0), fc.constant(1000), fc.integer({ min: 0, max: 1000 })),
  port: portNumber,
  // The longest lists have short entries, so that the whole template can stay within the cap.
  command: maybe(fc.oneof(list(anyText(30), 0, 20), fc.constant(Array.from({ length: 256 }, (_, i) => `c${i}`)))),
  args: maybe(fc.oneof(list(anyText(10), 0, 30), fc.constant(Array.from({ length: 1024 }, (_, i) => `${i}`)))),
  env: maybe(fc.oneof(list(envVar, 0, 40).map((vars) => vars.map((v, i) => ({ ...v, name: `${v.name}_${i}` }))),
    fc.constant(Array.from({ length: 512 }, (_, i) => ({ name: `V${i}`, value: '' }))))),
  envFrom: maybe(list(fc.tuple(fc.oneof(fc.record({ secretRef: fc.record({ name: subdomain(253), optional: maybe(fc.boolean()) }).map(defined) }),
    fc.record({ configMapRef: fc.record({ name: subdomain(253), optional: maybe(fc.boolean()) }).map(defined) })), maybe(envVarName)).map(([ref, prefix]) => defined({ ...ref, prefix })), 0, 64)),
  volumes: maybe(volumes),
  probes: maybe(fc.record({ readiness: maybe(probe(false)), liveness: maybe(probe(true)), startup: maybe(probe(true)) }).map(defined)),
  podAnnotations: maybe(podAnnotations),
  podLabels: maybe(fc.dictionary(qualifiedName.filter((k) => !k.startsWith('skiff.dev/') && k !== 'app.kubernetes.io/name' && k !== 'app.kubernetes.io/managed-by'), labelValue, { maxKeys: 20 })),
  nodeSelector: maybe(fc.dictionary(qualifiedName, labelValue, { maxKeys: 10 })),
  tolerations: maybe(list(toleration, 0, 64)),
  imagePullSecrets: maybe(list(subdomain(253).map((name) => ({ name })), 0, 16)),
  serviceAccountName: maybe(subdomain(253)),
  priorityClassName: maybe(subdomain(253)),
  terminationGracePeriodSeconds: maybe(fc.oneof(fc.constant(86400), fc.integer({ min: 0, max: 86400 }))),
  disruption: maybe(fc.oneof(fc.record({ maxUnavailable: fc.oneof(int32(0), fc.integer({ min: 0, max: 100 }).map((n) => `${n}%`)) }),
    fc.record({ minAvailable: fc.oneof(int32(0), fc.integer({ min: 0, max: 100 }).map((n) => `${n}%`)) }))),
  service: maybe(fc.record({ type: fc.constantFrom('ClusterIP', 'NodePort', 'LoadBalancer'), port: portNumber })),
  canaryHeader: maybe(text(`${LETTERS}${DIGITS}!#$%&'*+.^_\`|~-`, 1, 256)),
  progressDeadlineSeconds: fc.oneof(fc.constant(86400), fc.integer({ min: 1, max: 86400 })),
  steps,
  analysis: maybe(analysis),
  routing,
  securityContexts,
  resources: maybe(resources),
  autoscaling: maybe(fc.tuple(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 1000 }), int32(1), int32(1))
    .map(([a, b, cpu, memory]) => ({ minReplicas: Math.min(a, b), maxReplicas: Math.max(a, b), targetCPUUtilizationPercentage: cpu, targetMemoryUtilizationPercentage: memory }))),
}).map(({ canaryHeader, progressDeadlineSeconds, steps: s, analysis: a, routing: r, securityContexts: sc, resources: res, autoscaling, ...rest }) => {
  const spec: Spec = defined({ ...rest, ...r, ...sc, rollout: defined({ strategy: 'Canary', canaryHeader, progressDeadlineSeconds, steps: s, analysis: a }) });
  // An autoscaler needs requests of what it targets.
  if (autoscaling) spec.resources = res ?? { requests: { cpu: '100m', memory: '64Mi' } };
  else if (res) spec.resources = res;
  if (autoscaling) spec.autoscaling = autoscaling;
  return spec;
});

/**
 * An App with the spec, its pod template filled with one pod annotation up to `targetBytes`
 * (when it is smaller), so that templates at and near the 100 KiB cap are common.
 */
export function filledApp(name: string, namespace: string, spec: Spec, targetBytes: number): App {
  // A copy: fast-check's values are reused when it shrinks a failure.
  const app = { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name, namespace }, spec: { ...spec } } as unknown as App;
  const before = podTemplateBytes(app);
  if (before >= targetBytes) return app;
  const fill = (n: number) => (app.spec.podAnnotations = { ...spec.podAnnotations as Record<string, string>, 'fill.example.com/pad': 'p'.repeat(Math.max(0, n)) });
  fill(0);
  fill(targetBytes - podTemplateBytes(app));
  return app;
}

/** Template sizes to fill to: the cap itself often, else anything up to it. */
export const templateTarget = fc.oneof(fc.constant(MAX_POD_TEMPLATE_BYTES), fc.integer({ min: 0, max: MAX_POD_TEMPLATE_BYTES }));
export const appName = fc.oneof(dns1035(56), dns1035(56).map((n) => n.padEnd(56, 'x')));
