// api.md "Tenant safety": the bounds of the App (durations, int32 fields, list and string sizes)
// and what the webhook refuses because the API server would refuse the objects the App renders.
// Every rule: a case at the bound that is accepted and one past it that is denied, with its path
// and message. The same Apps on a real API server: test/integration/render-dry-run.test.ts.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { desiredDeployment } from '../../controller/render/render.js';
import { ANNOTATION_POD_TEMPLATE, ANNOTATION_PREVIOUS_POD_TEMPLATE } from '../../controller/render/pod-template-record.js';
import { renderPodTemplate } from '../../shared/render/pod-template.js';
import { withDefaults, type DefaultedApp } from '../../shared/defaults.js';
import { MAX_ANNOTATIONS_BYTES, MAX_POD_TEMPLATE_BYTES, podTemplateBytes } from '../../shared/pod-template-size.js';
import { validateApp } from '../../shared/validation.js';

type Spec = Record<string, any>;
type Edit = (spec: Spec) => void;

const readSample = (name: string) => parse(readFileSync(new URL(`../../../config/samples/${name}.yaml`, import.meta.url), 'utf8'));
/** The production sample (every workload field set), defaulted, with an Ingress. */
const production = () => withDefaults({ ...readSample('app-production'), metadata: { name: 'web', namespace: 'shop' } }) as { spec: Spec; metadata: Spec };
/** A defaulted App served by an HTTPRoute, with a canary and analysis. */
const routed = () => withDefaults({
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: 'shop' },
  spec: {
    image: 'ghcr.io/acme/web:1.4.2',
    route: { parentRefs: [{ name: 'public', namespace: 'infra', sectionName: 'https' }], hostnames: ['web.example.com'] },
    rollout: { strategy: 'Canary', analysis: { interval: '1m', minRequests: 0, metrics: [{ name: 'errors', query: 'sum(rate(errors_total[{{interval}}]))', max: 1 }] } },
  },
}) as { spec: Spec; metadata: Spec };

function errorsOf(edit: Edit, start: () => { spec: Spec }): string[] {
  const app = start();
  edit(app.spec);
  return validateApp(app).errors.map((e) => `${e.path}: ${e.message}`);
}
function ok(edit: Edit, start: () => { spec: Spec } = production) {
  assert.deepEqual(errorsOf(edit, start), []);
}
function bad(edit: Edit, path: string, message: RegExp, start: () => { spec: Spec } = production) {
  const errors = errorsOf(edit, start);
  const hit = errors.find((e) => e.startsWith(`${path}: `) && message.test(e));
  assert.ok(hit, `expected ${path}: ${message} in ${JSON.stringify(errors)}`);
}

describe('App bounds (api.md, Tenant safety)', () => {
  it('the starting Apps are valid', () => {
    ok(() => {});
    ok(() => {}, routed);
  });

  it('analysis.interval is 10s to 24h', () => {
    for (const interval of ['10s', '1m', '24h', '1440m', '86400s']) ok((s) => (s.rollout.analysis.interval = interval), routed);
    bad((s) => (s.rollout.analysis.interval = '0s'), 'spec.rollout.analysis.interval', /must be at least 10s/, routed);
    bad((s) => (s.rollout.analysis.interval = '9s'), 'spec.rollout.analysis.interval', /must be at least 10s/, routed);
    bad((s) => (s.rollout.analysis.interval = '25h'), 'spec.rollout.analysis.interval', /must be at most 24h/, routed);
    bad((s) => (s.rollout.analysis.interval = '99999999999999999999s'), 'spec.rollout.analysis.interval', /must be at most 24h/, routed);
  });

  it('at most 10 custom metrics', () => {
    const metrics = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `m${i}`, query: 'up', max: 1 }));
    ok((s) => (s.rollout.analysis.metrics = metrics(10)), routed);
    bad((s) => (s.rollout.analysis.metrics = metrics(11)), 'spec.rollout.analysis.metrics', /must NOT have more than 10 items/, routed);
  });

  it('a pause is at most 24h', () => {
    for (const duration of ['24h', '1440m', '86400s', '0s']) ok((s) => (s.rollout.steps = [{ setWeight: 10 }, { pause: { duration } }]));
    bad((s) => (s.rollout.steps = [{ setWeight: 10 }, { pause: { duration: '1000h' } }]), 'spec.rollout.steps[1].pause.duration', /must be at most 24h/);
    bad((s) => (s.rollout.steps = [{ pause: { duration: '86401s' } }]), 'spec.rollout.steps[0].pause.duration', /must be at most 24h/);
  });

  it('progressDeadlineSeconds is 1..86400', () => {
    ok((s) => (s.rollout.progressDeadlineSeconds = 86400));
    bad((s) => (s.rollout.progressDeadlineSeconds = 86401), 'spec.rollout.progressDeadlineSeconds', /must be <= 86400/);
    bad((s) => (s.rollout.progressDeadlineSeconds = 2147483648), 'spec.rollout.progressDeadlineSeconds', /must be <= 86400/);
  });

  it('terminationGracePeriodSeconds is 0..86400 (1e20 is no int64)', () => {
    ok((s) => (s.terminationGracePeriodSeconds = 86400));
    bad((s) => (s.terminationGracePeriodSeconds = 1e20), 'spec.terminationGracePeriodSeconds', /must be <= 86400/);
  });

  it('int32 fields of the pod template stay within int32', () => {
    ok((s) => Object.assign(s.probes.liveness, { initialDelaySeconds: 2147483647, periodSeconds: 2147483647, timeoutSeconds: 2147483647, failureThreshold: 2147483647 }));
    for (const field of ['initialDelaySeconds', 'periodSeconds', 'timeoutSeconds', 'failureThreshold', 'successThreshold']) {
      bad((s) => (s.probes.readiness[field] = 2147483648), `spec.probes.readiness.${field}`, /must be <= 2147483647/);
    }
    ok((s) => (s.autoscaling.targetCPUUtilizationPercentage = 2147483647));
    bad((s) => (s.autoscaling.targetCPUUtilizationPercentage = 2147483648), 'spec.autoscaling.targetCPUUtilizationPercentage', /must be <= 2147483647/);
    ok((s) => (s.disruption = { maxUnavailable: 2147483647 }));
    bad((s) => (s.disruption = { maxUnavailable: 2147483648 }), 'spec.disruption.maxUnavailable', /must be at most 2147483647/);
    ok((s) => (s.tolerations = [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 2147483647 }]));
    bad((s) => (s.tolerations = [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 1e20 }]), 'spec.tolerations[0].tolerationSeconds', /must be <= 2147483647/);
    bad((s) => (s.rollout.analysis.failureLimit = 2147483648), 'spec.rollout.analysis.failureLimit', /must be <= 2147483647/, routed);
  });

  it('lists are bounded', () => {
    const many = (n: number, f: (i: number) => unknown) => Array.from({ length: n }, (_, i) => f(i));
    ok((s) => (s.env = many(512, (i) => ({ name: `V${i}`, value: 'x' }))));
    bad((s) => (s.env = many(513, (i) => ({ name: `V${i}`, value: 'x' }))), 'spec.env', /must NOT have more than 512 items/);
    bad((s) => (s.args = many(1025, () => 'a')), 'spec.args', /must NOT have more than 1024 items/);
    bad((s) => (s.command = many(257, () => 'a')), 'spec.command', /must NOT have more than 256 items/);
    bad((s) => (s.tolerations = many(65, () => ({ operator: 'Exists' }))), 'spec.tolerations', /must NOT have more than 64 items/);
    bad((s) => (s.rollout.steps = many(65, () => ({ setWeight: 1 }))), 'spec.rollout.steps', /must NOT have more than 64 items/);
    bad((s) => (s.volumes = many(65, (i) => ({ name: `v${i}`, mountPath: `/v${i}`, emptyDir: {} }))), 'spec.volumes', /must NOT have more than 64 items/);
  });
});

describe('what the API server would refuse in the rendered objects', () => {
  it('an Ingress host that is an IP address, and a class name that is not an IngressClass name', () => {
    bad((s) => (s.ingress = { ...s.ingress, host: '10.0.0.1' }), 'spec.ingress.host', /must be a DNS name, not an IP address/);
    ok((s) => (s.ingress = { ...s.ingress, host: '10.0.0.1.example.com' }));
    // The API server reads IPs as Go 1.16 did (netutils.ParseIPSloppy): leading zeros, any number of them.
    bad((s) => (s.ingress = { ...s.ingress, host: '0010.0.0.1' }), 'spec.ingress.host', /must be a DNS name, not an IP address/);
    bad((s) => (s.ingress = { ...s.ingress, host: '10.0.0.0001' }), 'spec.ingress.host', /must be a DNS name, not an IP address/);
    ok((s) => (s.ingress = { ...s.ingress, host: '10.0.0.0256' }));
    bad((s) => (s.ingress.className = 'My Class'), 'spec.ingress.className', /must be a DNS-1123 subdomain \(an IngressClass name\)/);
    ok((s) => (s.ingress.className = 'internal.nginx'));
  });

  it('Ingress paths that Prefix and Exact refuse, and ImplementationSpecific takes', () => {
    for (const [path, message] of [['/a//b', /must not contain "\/\/"/], ['/a/./b', /"\/\.\/"/], ['/a/../b', /"\/\.\.\/"/], ['/a%2fb', /"%2f"/], ['/a/..', /must not end with "\/\.\."/], ['/a/.', /must not end with "\/\."/]] as const) {
      bad((s) => (s.ingress.path = path), 'spec.ingress.path', message);
      bad((s) => Object.assign(s.ingress, { path, pathType: 'Exact' }), 'spec.ingress.path', message);
      ok((s) => Object.assign(s.ingress, { path, pathType: 'ImplementationSpecific' }));
    }
  });

  it('HTTPRoute: 16 hostnames and 32 parentRefs at most, no IP hostnames', () => {
    const hosts = (n: number) => Array.from({ length: n }, (_, i) => `h${i}.example.com`);
    const parents = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `gw${i}` }));
    ok((s) => Object.assign(s.route, { hostnames: hosts(16), parentRefs: parents(32) }), routed);
    bad((s) => (s.route.hostnames = hosts(17)), 'spec.route.hostnames', /must NOT have more than 16 items/, routed);
    bad((s) => (s.route.parentRefs = parents(33)), 'spec.route.parentRefs', /must NOT have more than 32 items/, routed);
    bad((s) => (s.route.hostnames = ['web.example.com', '192.168.0.1']), 'spec.route.hostnames[1]', /not an IP address/, routed);
  });

  it('HTTPRoute: two references to one parent need different sectionNames (the CEL rules)', () => {
    ok((s) => (s.route.parentRefs = [{ name: 'gw', sectionName: 'http' }, { name: 'gw', sectionName: 'https' }, { name: 'gw', namespace: 'infra' }]), routed);
    bad((s) => (s.route.parentRefs = [{ name: 'gw' }, { name: 'gw', port: 443 }]), 'spec.route.parentRefs[1]', /refers to the same parent as parentRefs\[0\]/, routed);
    bad((s) => (s.route.parentRefs = [{ name: 'gw', sectionName: 'a' }, { name: 'gw', sectionName: 'a', kind: 'Gateway' }]), 'spec.route.parentRefs[1]', /same parent and sectionName as parentRefs\[0\]/, routed);
    bad((s) => (s.route.parentRefs = [{ name: 'gw', sectionName: 'a' }, { name: 'gw' }]), 'spec.route.parentRefs[1].sectionName', /must be set on every reference/, routed);
    bad((s) => (s.route.parentRefs = [{ name: 'gw', group: 'Gateway.Networking' }]), 'spec.route.parentRefs[0].group', /must be empty or a DNS-1123 subdomain/, routed);
    bad((s) => (s.route.parentRefs = [{ name: 'gw', kind: 'my gateway' }]), 'spec.route.parentRefs[0].kind', /must be a kind/, routed);
  });

  it('HTTPRoute paths: at most 1024 characters, Gateway API characters and sequences only', () => {
    ok((s) => (s.route.path = `/${'a'.repeat(1023)}`), routed);
    ok((s) => (s.route.path = "/a-b/c.d_e~f!$&'()*+,;=:@/%20"), routed);
    bad((s) => (s.route.path = `/${'a'.repeat(1024)}`), 'spec.route.path', /must NOT have more than 1024 characters/, routed);
    bad((s) => (s.route.path = '/a#b'), 'spec.route.path', /must not contain "#"/, routed);
    bad((s) => (s.route.path = '/a b'), 'spec.route.path', /may contain only letters, digits/, routed);
    bad((s) => (s.route.path = '/a//b'), 'spec.route.path', /must not contain "\/\/"/, routed);
    bad((s) => (s.route.path = '/a/.'), 'spec.route.path', /must not end with "\/\."/, routed);
  });

  it('an envFrom prefix must be an environment variable name', () => {
    for (const prefix of ['CFG_', 'my.prefix-', '_', '.a']) ok((s) => (s.envFrom[1].prefix = prefix));
    for (const prefix of ['A=B-', '1A', '.', '..A', 'a b']) bad((s) => (s.envFrom[1].prefix = prefix), 'spec.envFrom[1].prefix', /must be a valid environment variable name/);
  });

  it('config keys are not "." nor start with ".."', () => {
    bad((s) => (s.env[1].valueFrom.secretKeyRef.key = '..data'), 'spec.env[1].valueFrom.secretKeyRef.key', /must not be "\." nor start with "\.\."/);
    bad((s) => (s.volumes[0].configMap.items[0].key = '.'), 'spec.volumes[0].configMap.items[0].key', /must not be "\."/);
    ok((s) => (s.env[1].valueFrom.secretKeyRef.key = '.hidden'));
  });

  it('downward API label and annotation keys, and resource divisors Kubernetes supports', () => {
    ok((s) => (s.env[3].valueFrom.fieldRef.fieldPath = "metadata.labels['app.kubernetes.io/name']"));
    ok((s) => (s.env[3].valueFrom.fieldRef.fieldPath = "metadata.annotations['Example.com/Key']"));
    bad((s) => (s.env[3].valueFrom.fieldRef.fieldPath = "metadata.labels['a b']"), 'spec.env[3].valueFrom.fieldRef.fieldPath', /must be a valid label key/);
    ok((s) => (s.env[4].valueFrom.resourceFieldRef = { resource: 'requests.cpu', divisor: '1m' }));
    bad((s) => (s.env[4].valueFrom.resourceFieldRef = { resource: 'requests.cpu', divisor: '2' }), 'spec.env[4].valueFrom.resourceFieldRef.divisor', /must be one of 1m, 1 for requests\.cpu/);
    bad((s) => (s.env[4].valueFrom.resourceFieldRef.divisor = '3Mi'), 'spec.env[4].valueFrom.resourceFieldRef.divisor', /must be one of 1, 1k/);
    // Compared as the 1.20 API server printed each (create --dry-run=server): 1000m is 1, 1024Ki is
    // 1Mi, 0.0009765625Ki is 1, 1000k is 1M, 0 is no divisor; an exponent keeps its form, refused.
    for (const [resource, divisor] of [['requests.cpu', '1000m'], ['requests.cpu', '0.001k'], ['requests.cpu', '0'], ['limits.memory', '1024Ki'], ['limits.memory', '0.0009765625Ki'], ['limits.memory', '1000k']]) {
      ok((s) => (s.env[4].valueFrom.resourceFieldRef = { resource, divisor }));
    }
    for (const [resource, divisor] of [['limits.memory', '1e3'], ['limits.memory', '1048576'], ['requests.cpu', '1e0'], ['requests.cpu', '1e-3'], ['limits.memory', '1536Ki'],
      // Spellings Kubernetes keeps as written, and so prints so: no divisor.
      ['requests.cpu', '+1'], ['requests.cpu', '1.'], ['requests.cpu', '01m'], ['limits.memory', '+1Mi'], ['limits.memory', '001Ki'], ['limits.memory', '1.Mi']]) {
      bad((s) => (s.env[4].valueFrom.resourceFieldRef = { resource, divisor }), 'spec.env[4].valueFrom.resourceFieldRef.divisor', /must be one of/);
    }
    // E is exa (10^18): a divisor of memory, not 1 and so none of cpu's.
    ok((s) => (s.env[4].valueFrom.resourceFieldRef = { resource: 'limits.memory', divisor: '1E' }));
    bad((s) => (s.env[4].valueFrom.resourceFieldRef = { resource: 'requests.cpu', divisor: '1E' }), 'spec.env[4].valueFrom.resourceFieldRef.divisor', /must be one of 1m, 1 for requests\.cpu/);
  });

  it('resource names a container can have; huge pages and extended resources are not overcommitted', () => {
    ok((s) => Object.assign(s.resources, { requests: { cpu: '1', 'example.com/gpu': 2 }, limits: { cpu: '1', 'example.com/gpu': '2' } }));
    bad((s) => (s.resources.requests.cpus = '1'), 'spec.resources.requests.cpus', /must be cpu, memory, ephemeral-storage, hugepages-<size> or an extended resource/);
    bad((s) => (s.resources.requests['example.com/gpu'] = 1), 'spec.resources.requests["example.com/gpu"]', /requires spec\.resources\.limits of example\.com\/gpu/);
    bad((s) => Object.assign(s.resources, { requests: { 'example.com/gpu': 1 }, limits: { 'example.com/gpu': 2 } }), 'spec.resources.requests["example.com/gpu"]', /must equal the limit/);
    bad((s) => (s.resources.limits['example.com/gpu'] = '500m'), 'spec.resources.limits["example.com/gpu"]', /must be a whole number/);
    ok((s) => Object.assign(s.resources, { requests: { cpu: '1', memory: '1Gi', 'hugepages-2Mi': '1Gi' }, limits: { memory: '1Gi', 'hugepages-2Mi': '1Gi' } }));
    bad((s) => (s.resources = { limits: { 'hugepages-2Mi': '1Gi' } }), 'spec.resources', /huge pages require a cpu or memory/);
    bad((s) => (s.resources.limits['hugepages-x'] = '1Gi'), 'spec.resources.limits.hugepages-x', /must be hugepages-<page size>/);
  });

  it('huge pages come in whole pages of a whole page size (IsHugePageResourceValueDivisible)', () => {
    const hugePages = (size: string, value: string) => (s: Spec) => Object.assign(s.resources, { requests: { cpu: '1', [`hugepages-${size}`]: value }, limits: { [`hugepages-${size}`]: value } });
    ok(hugePages('2Mi', '4Mi'));
    ok(hugePages('1Gi', '2Gi'));
    ok(hugePages('2Mi', '0'));
    bad(hugePages('2Mi', '3Mi'), 'spec.resources.limits.hugepages-2Mi', /must be a whole number of 2Mi pages/);
    bad(hugePages('2Mi', '3Mi'), 'spec.resources.requests.hugepages-2Mi', /must be a whole number of 2Mi pages/);
    bad(hugePages('1Gi', '1.5Gi'), 'spec.resources.limits.hugepages-1Gi', /must be a whole number of 1Gi pages/);
    bad(hugePages('1500m', '3'), 'spec.resources.limits.hugepages-1500m', /must be hugepages-<page size>/);
  });

  it('security contexts: CAP_SYS_ADMIN without privilege escalation, and a seccomp profile inside the seccomp directory', () => {
    ok((s) => (s.securityContext.capabilities.add = ['NET_BIND_SERVICE']));
    bad((s) => (s.securityContext.capabilities.add = ['CAP_SYS_ADMIN']), 'spec.securityContext.capabilities.add[0]', /may not be CAP_SYS_ADMIN when allowPrivilegeEscalation is false/);
    ok((s) => (s.podSecurityContext.seccompProfile = { type: 'Localhost', localhostProfile: 'profiles/web.json' }));
    bad((s) => (s.podSecurityContext.seccompProfile = { type: 'Localhost', localhostProfile: '../web.json' }), 'spec.podSecurityContext.seccompProfile.localhostProfile', /relative path without "\.\."/);
  });

  it('probe header names are letters, digits and "-"', () => {
    ok((s) => (s.probes.readiness.httpGet.httpHeaders = [{ name: 'X-Probe-1', value: 'a' }]));
    bad((s) => (s.probes.readiness.httpGet.httpHeaders = [{ name: 'X_Probe', value: 'a' }]), 'spec.probes.readiness.httpGet.httpHeaders[0].name', /HTTP header name of letters, digits and "-"/);
  });

  it('pod annotations Kubernetes interprets: mirror, tolerations and seccomp are refused, AppArmor only for the container app', () => {
    for (const key of ['kubernetes.io/config.mirror', 'scheduler.alpha.kubernetes.io/tolerations', 'seccomp.security.alpha.kubernetes.io/pod', 'container.seccomp.security.alpha.kubernetes.io/app']) {
      bad((s) => (s.podAnnotations = { [key]: 'x' }), `spec.podAnnotations["${key}"]`, /is reserved/);
    }
    for (const profile of ['runtime/default', 'unconfined', 'localhost/web']) ok((s) => (s.podAnnotations = { 'container.apparmor.security.beta.kubernetes.io/app': profile }));
    bad((s) => (s.podAnnotations = { 'container.apparmor.security.beta.kubernetes.io/web': 'runtime/default' }), 'spec.podAnnotations["container.apparmor.security.beta.kubernetes.io/web"]', /container the pod does not have/);
    bad((s) => (s.podAnnotations = { 'container.apparmor.security.beta.kubernetes.io/app': 'docker-default' }), 'spec.podAnnotations["container.apparmor.security.beta.kubernetes.io/app"]', /must be runtime\/default, unconfined or localhost\/<profile>/);
  });
});

describe('pod annotations the API server parses', () => {
  const cost = 'controller.kubernetes.io/pod-deletion-cost';
  it(`${cost} is a 32-bit integer as Kubernetes parses it (GetDeletionCostFromPodAnnotations)`, () => {
    for (const value of ['0', '10', '-10', '-0', '-007', '2147483647', '-2147483648']) ok((s) => (s.podAnnotations = { [cost]: value }));
    for (const value of ['', 'high', '+10', '007', '00', '1.5', '2147483648', '-2147483649', '-', ' 1']) {
      bad((s) => (s.podAnnotations = { [cost]: value }), `spec.podAnnotations["${cost}"]`, /must be a 32-bit integer/);
    }
  });
});

describe('the size of the rendered pod template', () => {
  /** The production App with one pod annotation of `bytes` bytes. */
  const annotated = (bytes: number) => {
    const app = production();
    app.spec.podAnnotations = { ...app.spec.podAnnotations, 'example.com/big': 'x'.repeat(bytes) };
    return app;
  };
  /** The production App whose template is exactly `bytes` long. */
  const sized = (bytes: number) => annotated(bytes - podTemplateBytes(annotated(0) as never));

  it('denies a 300 KiB pod annotation, and a 130 KiB template, with the size and the cap', () => {
    const messages = (app: object) => validateApp(app).errors.map((e) => `${e.path}: ${e.message}`);
    assert.match(messages(annotated(300 * 1024)).join('\n'), /^spec: the rendered pod template is 30[0-9] KiB; at most 100 KiB/);
    assert.match(messages(sized(130 * 1024)).join('\n'), /^spec: the rendered pod template is 130 KiB; at most 100 KiB/);
    assert.match(messages(sized(MAX_POD_TEMPLATE_BYTES + 1)).join('\n'), /is 101 KiB; at most 100 KiB/);
    assert.deepEqual(messages(sized(MAX_POD_TEMPLATE_BYTES)), []);
  });

  it('a template at the cap keeps the stable Deployment\'s annotations within 256 KiB at promotion, its record and the previous one together', () => {
    const app = sized(MAX_POD_TEMPLATE_BYTES) as unknown as DefaultedApp;
    const pod = renderPodTemplate(app, 'stable');
    const previous = renderPodTemplate(sized(MAX_POD_TEMPLATE_BYTES - 7) as unknown as DefaultedApp, 'stable');
    const d = desiredDeployment(app, 'stable', pod, 3, JSON.stringify(previous.template));
    const annotations = d.metadata!.annotations!;
    assert.equal(annotations[ANNOTATION_POD_TEMPLATE]!.length, MAX_POD_TEMPLATE_BYTES);
    assert.ok(annotations[ANNOTATION_PREVIOUS_POD_TEMPLATE]);
    const total = Object.entries(annotations).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
    assert.ok(total <= MAX_ANNOTATIONS_BYTES - 50 * 1024, `${total} bytes of annotations leave at least 50 KiB to others`);
  });

  it('measures the template in UTF-8 bytes, and with the longest name when the App has none yet (generateName)', () => {
    const ascii = podTemplateBytes(annotated(1000) as never);
    const app = annotated(0);
    app.spec.podAnnotations['example.com/big'] = 'é'.repeat(500);
    assert.equal(podTemplateBytes(app as never), ascii);
    const unnamed = annotated(1000);
    delete unnamed.metadata.name;
    assert.ok(podTemplateBytes(unnamed as never) > ascii);
  });
});
