import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { DEFAULT_CANARY_STEPS, withDefaults } from '../../shared/defaults.js';
import { fieldPath, formatErrors, validateApp } from '../../shared/validation.js';
import { cutToBounds, oversized } from '../../shared/oversized.js';

const base = () => ({
  apiVersion: 'skiff.dev/v1alpha1',
  kind: 'App',
  metadata: { name: 'web', namespace: 'shop' },
  spec: withDefaults({ spec: { image: 'ghcr.io/acme/web:1.4.2', ingress: { host: 'web.example.com' } } }).spec as Record<string, unknown>,
});

type Edit = (spec: Record<string, any>, app: Record<string, any>) => void;

const readSample = (name: string) => parse(readFileSync(new URL(`../../../config/samples/${name}.yaml`, import.meta.url), 'utf8'));

/** The production sample, defaulted: every workload field set, and valid. */
const production = () => withDefaults(readSample('app-production')) as Record<string, any>;

function errorsOf(edit: Edit, start: () => object = base): string[] {
  const a = start() as Record<string, any>;
  edit(a.spec, a);
  return validateApp(a).errors.map((e) => `${e.path}: ${e.message}`);
}

function rejects(edit: Edit, path: string, message?: RegExp, start?: () => object) {
  const errors = errorsOf(edit, start);
  const hit = errors.find((e) => e.startsWith(`${path}: `));
  assert.ok(hit, `expected an error at ${path}, got ${JSON.stringify(errors)}`);
  if (message) assert.match(hit, message);
}

function accepts(edit: Edit, start?: () => object) {
  assert.deepEqual(errorsOf(edit, start), []);
}

describe('validation', () => {
  it('accepts the defaulted minimal App', () => accepts(() => {}));

  describe('image', () => {
    for (const image of ['nginx', 'nginx:1.27', 'ghcr.io/acme/web:1.4.2', 'localhost:5000/a/b-c_d.e:v1', `nginx@sha256:${'a'.repeat(64)}`, 'registry.k8s.io/pause:3.9', '10.0.0.5:5000/app:1', '[::1]:5000/app:1.0', '[2001:db8::1]/team/app:1'])
      it(`accepts ${image}`, () => accepts((s) => (s.image = image)));
    for (const image of ['', 'Nginx', 'nginx:', 'a b', 'nginx:1.0:2', '-nginx', 'ghcr.io/acme/web@sha256:xyz', '[::1]/', '[]:5000/app', '[::g]/app', '::1/app'])
      it(`rejects ${JSON.stringify(image)}`, () => rejects((s) => (s.image = image), 'spec.image'));
    it('is required', () => rejects((s) => delete s.image, 'spec.image', /required/));
    it('a repository name of at most 255 characters, as distribution/reference and the kubelet allow', () => {
      const name = (n: number) => `ghcr.io/${'a'.repeat(n - 'ghcr.io/'.length)}`;
      accepts((s) => (s.image = `${name(255)}:1`));
      accepts((s) => (s.image = `${name(255)}@sha256:${'a'.repeat(64)}`));
      rejects((s) => (s.image = `${name(256)}:1`), 'spec.image', /repository name .* at most 255 characters \(it has 256\)/);
    });
    it('a Docker Hub name of at most 255 characters as the kubelet reads it (docker.io/, and library/ for one component, before it)', () => {
      accepts((s) => (s.image = `${'a'.repeat(237)}:1`));
      rejects((s) => (s.image = `${'a'.repeat(238)}:1`), 'spec.image', /at most 255 characters with the "docker\.io\/library\/" the kubelet puts before it \(it has 256\)/);
      accepts((s) => (s.image = `acme/${'a'.repeat(240)}@sha256:${'b'.repeat(64)}`));
      rejects((s) => (s.image = `acme/${'a'.repeat(241)}`), 'spec.image', /with the "docker\.io\/" the kubelet puts before it \(it has 256\)/);
      // A first component that is a registry (a dot, a port, localhost) is not Docker Hub's.
      accepts((s) => (s.image = `localhost/${'a'.repeat(245)}:1`));
    });
    it('a digest the kubelet takes: sha256, sha384 or sha512 of their length in lower-case hex', () => {
      accepts((s) => (s.image = `nginx@sha384:${'c'.repeat(96)}`));
      accepts((s) => (s.image = `nginx:1.27@sha512:${'d'.repeat(128)}`));
      rejects((s) => (s.image = `nginx@sha256:${'0123456789abcdef'.repeat(2)}`), 'spec.image', /a sha256 digest is 64 lower-case hex digits \(this one has 32\)/);
      rejects((s) => (s.image = `nginx@sha256:${'ABCDEF0123456789'.repeat(4)}`), 'spec.image', /a sha256 digest is 64 lower-case hex digits \(this one has 64, some upper-case\)/);
      rejects((s) => (s.image = `nginx@foo:${'0123456789abcdef'.repeat(4)}`), 'spec.image', /the digest's algorithm "foo" is not one the kubelet takes/);
      for (const algorithm of ['constructor', 'toString', 'hasOwnProperty']) rejects((s) => (s.image = `nginx@${algorithm}:${'a'.repeat(64)}`), 'spec.image', new RegExp(`the digest's algorithm "${algorithm}" is not one the kubelet takes`));
    });
    it('not an image ID (64 hex digits) for a name, which the kubelet refuses', () => {
      rejects((s) => (s.image = '0123456789abcdef'.repeat(4)), 'spec.image', /is an image ID, which the kubelet does not take as a reference/);
      accepts((s) => (s.image = `${'0123456789abcdef'.repeat(4)}:1`));
    });
    it('a reference longer than any the kubelet takes is named for its length, before the grammar runs on it', () => {
      // The longest the kubelet takes: a repository name of 255, a tag of 128 and a sha512 digest.
      const longest = `r.io/${'a/'.repeat(124)}aa:${'t'.repeat(128)}@sha512:${'d'.repeat(128)}`;
      assert.equal(longest.length, 520);
      accepts((s) => (s.image = longest));
      rejects((s) => (s.image = `${longest}d`), 'spec.image', /must NOT have more than 520 characters/);
      // Millions of characters the grammar backtracks over: V8's regular expressions overflow
      // their stack on it, which the webhook answered with a 500.
      rejects((s) => (s.image = `${'a-'.repeat(2_097_152)}!`), 'spec.image', /must NOT have more than 520 characters/);
    });
  });

  describe('numbers', () => {
    it('a fraction in an int32 or int64 field is one problem, said once', () => {
      const errors = errorsOf((s) => {
        s.terminationGracePeriodSeconds = 1.5;
        s.probes = { liveness: { exec: { command: ['x'] }, periodSeconds: 2.5 } };
      });
      assert.deepEqual(errors.filter((e) => /periodSeconds|terminationGracePeriodSeconds/.test(e)).sort(),
        ['spec.probes.liveness.periodSeconds: must be integer', 'spec.terminationGracePeriodSeconds: must be integer']);
      assert.ok(!errors.some((e) => e.includes('format')), JSON.stringify(errors));
    });
    it('replicas 0 and 1000 are fine', () => { accepts((s) => (s.replicas = 0)); accepts((s) => (s.replicas = 1000)); });
    it('replicas over 1000', () => rejects((s) => (s.replicas = 1001), 'spec.replicas', /must be <= 1000/));
    it('replicas below 0', () => rejects((s) => (s.replicas = -1), 'spec.replicas', /must be >= 0/));
    it('replicas as a string', () => rejects((s) => (s.replicas = '3'), 'spec.replicas', /must be integer/));
    it('port out of range', () => { rejects((s) => (s.port = 0), 'spec.port'); rejects((s) => (s.port = 65536), 'spec.port'); });
    it('service port out of range', () => rejects((s) => (s.service.port = 70000), 'spec.service.port'));
    it('service type not in the enum', () => rejects((s) => (s.service.type = 'External'), 'spec.service.type', /ClusterIP, NodePort, LoadBalancer/));
  });

  describe('env', () => {
    it('accepts unique C identifiers', () => accepts((s) => (s.env = [{ name: 'A_1', value: 'x' }, { name: '_b' }])));
    it('rejects a name that is not a C identifier', () => rejects((s) => (s.env = [{ name: '1A' }]), 'spec.env[0].name', /C identifier/));
    it('rejects a duplicate name at the duplicate', () => rejects((s) => (s.env = [{ name: 'A' }, { name: 'B' }, { name: 'A' }]), 'spec.env[2].name', /duplicate/));
    it('requires a name', () => rejects((s) => (s.env = [{ value: 'x' }]), 'spec.env[0].name', /required/));
  });

  describe('resources', () => {
    it('accepts quantities with requests up to limits', () =>
      accepts((s) => (s.resources = { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: 1, memory: '0.5Gi' } })));
    it('compares across units', () => accepts((s) => (s.resources = { requests: { memory: '1G' }, limits: { memory: '1Gi' } })));
    it('names a fractional number (0.5 unquoted) as a quantity to quote', () =>
      rejects((s) => (s.resources = { requests: { cpu: 0.5 } }), 'spec.resources.requests.cpu', /must be a quantity such as 100m, "0.5" or 128Mi \(quote a fractional value\)/));
    it('rejects a value that is not a quantity', () => rejects((s) => (s.resources = { limits: { memory: '12 MB' } }), 'spec.resources.limits.memory', /quantity/));
    it('says when spaces around a quantity are all that is wrong (Kubernetes would store it trimmed, and Skiff write it again)', () => {
      rejects((s) => (s.resources = { requests: { cpu: ' 100m ' } }), 'spec.resources.requests.cpu', /: must be written without spaces around it: "100m"$/);
      rejects((s) => (s.resources = { requests: { cpu: ' 1 00m' } }), 'spec.resources.requests.cpu', /must be a quantity such as 100m/);
      rejects((s) => (s.resources = { requests: { cpu: ' -1 ' } }), 'spec.resources.requests.cpu', /must be a quantity such as 100m/);
    });
    it('asks for quotes around a number JSON cannot hold exactly (1e20 is a float to the API server; 123456789012345678 arrives rounded)', () => {
      rejects((s) => (s.resources = { limits: { memory: 1e20 } }), 'spec.resources.limits.memory', /must be quoted when larger than 9007199254740991/);
      rejects((s) => (s.resources = { requests: { memory: JSON.parse('123456789012345678') } }), 'spec.resources.requests.memory', /must be quoted/);
      accepts((s) => (s.resources = { limits: { memory: Number.MAX_SAFE_INTEGER, 'ephemeral-storage': '123456789012345678' } }));
    });
    it('rejects a binary quantity above the largest int64, which the API server would store as that instead (the App would say another)', () => {
      rejects((s) => (s.resources = { requests: { memory: '99999999999999999999999Ei' } }), 'spec.resources.requests.memory', /must be at most 9223372036854775807 \(the largest int64, just under 8Ei\)/);
      rejects((s) => (s.resources = { limits: { memory: '8Ei' } }), 'spec.resources.limits.memory', /must be at most 9223372036854775807/);
      rejects((s) => (s.volumes = [{ name: 'scratch', mountPath: '/tmp', emptyDir: { sizeLimit: '16Ei' } }]), 'spec.volumes[0].emptyDir.sizeLimit', /must be at most 9223372036854775807/);
      accepts((s) => (s.resources = { limits: { memory: '7Ei', 'ephemeral-storage': '9223372036854775807' } }));
      // A decimal one is not capped: 20E stays 2×10^19, as the App says.
      accepts((s) => (s.resources = { limits: { memory: '20E' } }));
    });
    it('rejects an exponent beyond an int64, which the API server cannot parse', () =>
      rejects((s) => (s.resources = { limits: { cpu: '1e99999999999999999999' } }), 'spec.resources.limits.cpu', /must be a quantity/));
    it('rejects a request above its limit', () =>
      rejects((s) => (s.resources = { requests: { cpu: '1500m' }, limits: { cpu: '1' } }), 'spec.resources.requests.cpu', /no greater than the limit/));
    it('compares a request with its limit exactly, as the API server does (not as floats)', () => {
      rejects((s) => (s.resources = { requests: { cpu: '1.0000000000000001' }, limits: { cpu: '1' } }), 'spec.resources.requests.cpu', /no greater than the limit/);
      rejects((s) => (s.resources = { requests: { memory: '9007199254740993' }, limits: { memory: '9007199254740992' } }), 'spec.resources.requests.memory', /no greater than the limit/);
      rejects((s) => (s.resources = { requests: { 'example.com/gpu': '1.0000000001' }, limits: { 'example.com/gpu': '1.0000000001' } }), 'spec.resources.limits["example.com/gpu"]', /must be a whole number/);
      accepts((s) => (s.resources = { requests: { cpu: '1.0000000001', 'example.com/gpu': '1000m' }, limits: { cpu: '1000000001n', 'example.com/gpu': '1' } }));
    });
    it('compares values beyond an int64 as the API server holds them: decimal ones exactly, binary ones capped, exponents kept as an int32', () => {
      rejects((s) => (s.resources = { requests: { memory: '20E' }, limits: { memory: '10E' } }), 'spec.resources.requests.memory', /no greater than the limit/);
      rejects((s) => (s.resources = { requests: { cpu: '10000P' }, limits: { cpu: '9999P' } }), 'spec.resources.requests.cpu', /no greater than the limit/);
      rejects((s) => (s.resources = { requests: { memory: '2' }, limits: { memory: '1e4294967296' } }), 'spec.resources.requests.memory', /no greater than the limit/);
      // 16Ei and 8Ei would both be 2^63-1 bytes there: neither is what the App says, so both are refused.
      rejects((s) => (s.resources = { requests: { memory: '16Ei' }, limits: { memory: '8Ei' } }), 'spec.resources.requests.memory', /must be at most 9223372036854775807/);
    });
    it('reads the exa suffix E as 10^18 when comparing a request with its limit', () => {
      rejects((s) => (s.resources = { requests: { memory: '1E' }, limits: { memory: '2Gi' } }), 'spec.resources.requests.memory', /no greater than the limit/);
      accepts((s) => (s.resources = { requests: { memory: '2Gi' }, limits: { memory: '1E' } }));
    });
    it('rejects an unknown key', () => rejects((s) => (s.resources = { request: {} }), 'spec.resources.request', /unknown field/));
  });

  describe('ingress', () => {
    it('accepts every path type', () => { for (const p of ['Prefix', 'Exact', 'ImplementationSpecific']) accepts((s) => (s.ingress.pathType = p)); });
    it('rejects a host that is not a DNS-1123 subdomain', () => rejects((s) => (s.ingress.host = 'Web_Shop.example.com'), 'spec.ingress.host', /DNS-1123 subdomain/));
    it('requires a host', () => rejects((s) => delete s.ingress.host, 'spec.ingress.host', /required/));
    it('rejects a path without a leading slash', () => rejects((s) => (s.ingress.path = 'shop'), 'spec.ingress.path', /start with "\/"/));
    it('takes a path of at most 1024 characters, as spec.route.path: it goes into every Ingress and status.url', () => {
      accepts((s) => (s.ingress.path = `/${'a'.repeat(1023)}`));
      rejects((s) => (s.ingress.path = `/${'a'.repeat(1024)}`), 'spec.ingress.path', /must NOT have more than 1024 characters/);
    });
    it('rejects a bad TLS secret name', () => rejects((s) => (s.ingress.tlsSecretName = 'Web TLS'), 'spec.ingress.tlsSecretName'));
  });

  describe('analysis', () => {
    const canaryWith = (analysis: Record<string, unknown>): Edit => (s) => (s.rollout = { strategy: 'Canary', progressDeadlineSeconds: 600, steps: [{ setWeight: 20 }], analysis });
    const good = { interval: '30s', failureLimit: 2, minRequests: 5, noData: 'Fail', successRate: { min: 99, maxDropFromStable: 1 }, latency: { maxMs: 500 }, metrics: [{ name: 'checkout-errors', query: 'sum(rate(errors{namespace="{{namespace}}",app="{{app}}"}[{{interval}}]))', max: 0.5 }] };
    it('accepts the built-ins and a custom metric with known placeholders', () => accepts(canaryWith(good)));
    it('rejects a bad interval, negative limits and an unknown noData', () => {
      rejects(canaryWith({ ...good, interval: '1d' }), 'spec.rollout.analysis.interval', /duration/);
      rejects(canaryWith({ ...good, failureLimit: -1 }), 'spec.rollout.analysis.failureLimit');
      rejects(canaryWith({ ...good, minRequests: -1 }), 'spec.rollout.analysis.minRequests');
      rejects(canaryWith({ ...good, noData: 'Ignore' }), 'spec.rollout.analysis.noData', /Wait, Fail, Pass/);
    });
    it('needs something to check, and successRate needs a bound', () => {
      rejects(canaryWith({ interval: '1m' }), 'spec.rollout.analysis', /must check something/);
      rejects(canaryWith({ successRate: {} }), 'spec.rollout.analysis.successRate', /min or maxDropFromStable/);
      rejects(canaryWith({ successRate: { min: 101 } }), 'spec.rollout.analysis.successRate.min');
      rejects(canaryWith({ latency: { maxMs: 0 } }), 'spec.rollout.analysis.latency.maxMs', /> 0/);
    });
    it('names the bound of latency.maxMs as it is (above 0) for a negative one too: not ">= 0", which 0 then fails', () => {
      assert.deepEqual(errorsOf(canaryWith({ latency: { maxMs: -5 } })), ['spec.rollout.analysis.latency.maxMs: must be > 0']);
    });
    it('a custom metric needs a query and a bound, a unique name that is not a built-in, and only known placeholders', () => {
      const metric = (m: Record<string, unknown>) => canaryWith({ metrics: [m] });
      rejects(metric({ name: 'x', max: 1 }), 'spec.rollout.analysis.metrics[0].query', /required/);
      rejects(metric({ name: 'x', query: 'up' }), 'spec.rollout.analysis.metrics[0]', /min or max/);
      rejects(metric({ name: 'x', query: 'up', min: 2, max: 1 }), 'spec.rollout.analysis.metrics[0].min', /<= max/);
      rejects(metric({ name: 'latency', query: 'up', max: 1 }), 'spec.rollout.analysis.metrics[0].name', /built-in/);
      rejects(metric({ name: 'Bad Name', query: 'up', max: 1 }), 'spec.rollout.analysis.metrics[0].name', /DNS-1123 label/);
      rejects(metric({ name: 'x', query: 'up{pod="{{pod}}",a="{{ app }}"}', max: 1 }), 'spec.rollout.analysis.metrics[0].query', /unknown placeholder \{\{pod\}\}, \{\{ app \}\}/);
      rejects(canaryWith({ metrics: [{ name: 'x', query: 'up', max: 1 }, { name: 'x', query: 'up', max: 2 }] }), 'spec.rollout.analysis.metrics[1].name', /duplicate/);
    });
    it('a custom query must parse and may read its own namespace only', () => {
      const queries = (...qs: string[]) => canaryWith({ metrics: qs.map((query, i) => ({ name: `m${i}`, query, max: 1 })) });
      accepts(queries('up', 'sum(rate(x{namespace="{{namespace}}"}[{{interval}}]))', 'x{namespace="shop"} / on() y{app="{{app}}"}'));
      assert.deepEqual(errorsOf(queries('up', 'sum(rate(x[5m])', 'a / b{namespace="payments"}', 'x{namespace=~"{{namespace}}"}')), [
        'spec.rollout.analysis.metrics[1].query: does not parse as PromQL: the query ends too soon at character 16, after "sum(rate(x[5m])"',
        'spec.rollout.analysis.metrics[2].query: the matcher namespace="payments" at character 7 is not allowed: the query may read namespace "shop" only, and every selector gets namespace="shop"',
        'spec.rollout.analysis.metrics[3].query: the matcher namespace=~"{{namespace}}" at character 3 is not allowed: the query may read namespace "shop" only, and every selector gets namespace="shop"',
      ]);
      // An unknown placeholder is the one problem named: the query is not parsed with it.
      assert.deepEqual(errorsOf(queries('x[{{window}}]')), ['spec.rollout.analysis.metrics[0].query: unknown placeholder {{window}}; known: {{namespace}}, {{app}}, {{canaryService}}, {{stableService}}, {{ingress}}, {{interval}}']);
    });
    it('without a namespace (an App judged on its own), a custom query is judged by its syntax only', () => {
      const inNoNamespace = () => { const a = base() as Record<string, any>; delete a.metadata.namespace; return a; };
      const metric = (query: string) => canaryWith({ metrics: [{ name: 'x', query, max: 1 }] });
      accepts(metric('x{namespace="payments"}'), inNoNamespace);
      rejects(metric('x{'), 'spec.rollout.analysis.metrics[0].query', /does not parse as PromQL/, inNoNamespace);
    });
  });

  describe('route', () => {
    const routed: Edit = (s) => {
      delete s.ingress;
      s.route = { parentRefs: [{ name: 'public', namespace: 'infra', sectionName: 'https' }], hostnames: ['web.example.com'], path: '/', tls: true };
    };
    const edit = (more: Edit): Edit => (s, a) => { routed(s, a); more(s, a); };
    it('accepts a route, also for the Canary strategy', () => {
      accepts(routed);
      accepts(edit((s) => (s.rollout = { strategy: 'Canary', progressDeadlineSeconds: 600, steps: [{ setWeight: 10 }] })));
    });
    it('is one of spec.ingress or spec.route, never both', () => rejects((s) => (s.route = { parentRefs: [{ name: 'public' }] }), 'spec.route', /together with spec.ingress/));
    it('needs at least one parentRef, each with a name', () => {
      rejects(edit((s) => (s.route.parentRefs = [])), 'spec.route.parentRefs');
      rejects(edit((s) => delete s.route.parentRefs), 'spec.route.parentRefs', /required/);
      rejects(edit((s) => (s.route.parentRefs = [{ namespace: 'infra' }])), 'spec.route.parentRefs[0].name', /required/);
      rejects(edit((s) => (s.route.parentRefs = [{ name: 'gw', namespace: 'Infra_1' }])), 'spec.route.parentRefs[0].namespace', /DNS-1123 label/);
    });
    it('takes DNS-1123 subdomains as hostnames', () => rejects(edit((s) => (s.route.hostnames = ['ok.example.com', 'Not OK'])), 'spec.route.hostnames[1]', /DNS-1123 subdomain/));
    it('rejects a path without a leading slash, and unknown fields', () => {
      rejects(edit((s) => (s.route.path = 'shop')), 'spec.route.path', /start with "\/"/);
      rejects(edit((s) => (s.route.host = 'x')), 'spec.route.host', /unknown field/);
    });
    it('Canary without spec.ingress or spec.route is refused', () => rejects((s) => { delete s.ingress; s.rollout = { strategy: 'Canary' }; }, 'spec.ingress', /unless spec.route is set/));
  });

  describe('blue-green', () => {
    const blueGreen = (s: Record<string, any>) => (s.rollout = { strategy: 'BlueGreen', blueGreen: { autoPromote: false, autoPromoteAfter: '30s', previewHost: 'preview.web.example.com' } });
    it('accepts a blue-green rollout, with or without an ingress', () => {
      accepts(blueGreen);
      accepts((s) => { s.rollout = { strategy: 'BlueGreen' }; delete s.ingress; });
    });
    it('refuses canary-only fields with BlueGreen, each by its path', () => {
      rejects((s) => { blueGreen(s); s.rollout.steps = [{ setWeight: 20 }]; }, 'spec.rollout.steps', /only be set with spec.rollout.strategy Canary/);
      rejects((s) => { blueGreen(s); s.rollout.canaryHeader = 'X-Canary'; }, 'spec.rollout.canaryHeader', /Canary, not BlueGreen/);
    });
    it('refuses blueGreen with another strategy', () => {
      rejects((s) => { s.rollout = { strategy: 'Canary', blueGreen: {} }; }, 'spec.rollout.blueGreen', /only be set with spec.rollout.strategy BlueGreen, not Canary/);
      rejects((s) => { s.rollout = { blueGreen: {} }; }, 'spec.rollout.blueGreen', /not RollingUpdate/);
    });
    it("a change of strategy is not refused for the other strategy's defaults the webhook filled, only for what a person set", () => {
      // Stored as Canary: the webhook filled the default steps; the App then moves to BlueGreen.
      const canary = withDefaults({ spec: { image: 'web:1', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary' } } }) as any;
      accepts((s) => { s.rollout = { ...canary.spec.rollout, strategy: 'BlueGreen' }; });
      // Stored as BlueGreen ({autoPromote: true} filled); then RollingUpdate, or Canary.
      const blue = withDefaults({ spec: { image: 'web:1', rollout: { strategy: 'BlueGreen' } } }) as any;
      accepts((s) => { s.rollout = { ...blue.spec.rollout, strategy: 'RollingUpdate' }; });
      accepts((s) => { s.rollout = { ...blue.spec.rollout, strategy: 'Canary' }; });
      rejects((s) => { s.rollout = { strategy: 'BlueGreen', steps: [...canary.spec.rollout.steps, { setWeight: 80 }] }; }, 'spec.rollout.steps', /Canary, not BlueGreen/);
      rejects((s) => { s.rollout = { strategy: 'Canary', blueGreen: { autoPromote: false } }; }, 'spec.rollout.blueGreen', /not Canary/);
    });
    it('previewHost needs an ingress or a route, and is a DNS name', () => {
      rejects((s) => { blueGreen(s); delete s.ingress; }, 'spec.rollout.blueGreen.previewHost', /requires spec.ingress or spec.route/);
      rejects((s) => { blueGreen(s); s.rollout.blueGreen.previewHost = 'Preview_Host'; }, 'spec.rollout.blueGreen.previewHost');
      rejects((s) => { blueGreen(s); s.rollout.blueGreen.previewHost = '10.0.0.1'; }, 'spec.rollout.blueGreen.previewHost', /not an IP address/);
    });
    it('previewHost is not a host the App itself serves: the preview Ingress or route would clash with the main one', () => {
      rejects((s) => { blueGreen(s); s.rollout.blueGreen.previewHost = s.ingress.host; }, 'spec.rollout.blueGreen.previewHost', /must differ from spec.ingress.host/);
      const routed = (s: Record<string, any>) => { blueGreen(s); delete s.ingress; s.route = { parentRefs: [{ name: 'public' }], hostnames: ['web.example.com', 'preview.web.example.com'], path: '/', tls: false }; };
      rejects(routed, 'spec.rollout.blueGreen.previewHost', /must not be one of spec.route.hostnames/);
      accepts((s) => { routed(s); s.route.hostnames = ['web.example.com']; });
    });
    it('bounds autoPromoteAfter and the name of the preview', () => {
      rejects((s) => { blueGreen(s); s.rollout.blueGreen.autoPromoteAfter = '25h'; }, 'spec.rollout.blueGreen.autoPromoteAfter', /at most 24h/);
      rejects((s) => { blueGreen(s); s.rollout.blueGreen.autoPromoteAfter = 'soon'; }, 'spec.rollout.blueGreen.autoPromoteAfter');
      rejects((s) => { blueGreen(s); s.rollout.blueGreen.unknown = true; }, 'spec.rollout.blueGreen.unknown');
    });
    it('defaults autoPromote to true, only with BlueGreen', () => {
      assert.deepEqual((withDefaults({ spec: { image: 'web:1', rollout: { strategy: 'BlueGreen' } } }) as any).spec.rollout.blueGreen, { autoPromote: true });
      assert.deepEqual((withDefaults({ spec: { image: 'web:1', rollout: { strategy: 'BlueGreen', blueGreen: { autoPromote: false } } } }) as any).spec.rollout.blueGreen, { autoPromote: false });
      assert.equal((withDefaults({ spec: { image: 'web:1', rollout: { strategy: 'Canary' } } }) as any).spec.rollout.blueGreen, undefined);
    });
  });

  describe('rollout', () => {
    const canary = (s: Record<string, any>) => (s.rollout = { strategy: 'Canary', progressDeadlineSeconds: 600, steps: [{ setWeight: 20 }, { pause: { duration: '10s' } }, { pause: {} }] });
    it('accepts a canary with an ingress', () => accepts(canary));
    it('Canary requires an ingress', () => rejects((s) => { canary(s); delete s.ingress; }, 'spec.ingress', /required when spec.rollout.strategy is Canary/));
    it('weights are 0..100', () => {
      accepts((s) => { canary(s); s.rollout.steps = [{ setWeight: 0 }, { setWeight: 100 }]; });
      rejects((s) => { canary(s); s.rollout.steps[0].setWeight = 101; }, 'spec.rollout.steps[0].setWeight', /<= 100/);
      rejects((s) => { canary(s); s.rollout.steps[0].setWeight = -1; }, 'spec.rollout.steps[0].setWeight', />= 0/);
    });
    it('pause durations are Ns, Nm or Nh', () => {
      for (const d of ['0s', '90s', '5m', '2h']) accepts((s) => { canary(s); s.rollout.steps[1].pause.duration = d; });
      for (const d of ['5d', '1.5m', 'm', '10', '1h30m'])
        rejects((s) => { canary(s); s.rollout.steps[1].pause.duration = d; }, 'spec.rollout.steps[1].pause.duration', /duration/);
    });
    it('a step sets exactly one of setWeight or pause', () => {
      rejects((s) => { canary(s); s.rollout.steps[0] = {}; }, 'spec.rollout.steps[0]', /exactly one/);
      rejects((s) => { canary(s); s.rollout.steps[0] = { setWeight: 5, pause: {} }; }, 'spec.rollout.steps[0]', /exactly one/);
    });
    it('rejects a bad strategy and a bad header', () => {
      rejects((s) => (s.rollout.strategy = 'Linear'), 'spec.rollout.strategy');
      rejects((s) => (s.rollout.canaryHeader = 'X Canary'), 'spec.rollout.canaryHeader', /header/);
    });
    it('rejects an empty step list', () => rejects((s) => { canary(s); s.rollout.steps = []; }, 'spec.rollout.steps'));
  });

  describe('unknown fields', () => {
    it('are rejected under spec, by path', () => {
      rejects((s) => (s.replica = 3), 'spec.replica', /unknown field/);
      rejects((s) => (s.ingress.hots = 'x'), 'spec.ingress.hots', /unknown field/);
      rejects((s) => (s.rollout.steps = [{ setWeight: 5, wait: 1 }]), 'spec.rollout.steps[0].wait', /unknown field/);
    });
  });

  describe('metadata.name', () => {
    it('must fit "<name>-canary" in a DNS-1035 label', () => {
      accepts((_s, a) => (a.metadata.name = 'a'.repeat(56)));
      rejects((_s, a) => (a.metadata.name = 'a'.repeat(57)), 'metadata.name');
      rejects((_s, a) => (a.metadata.name = '1web'), 'metadata.name');
    });

    it('with generateName (no name yet, as /mutate sees it): the prefix must leave room for the 5 characters the API server adds', () => {
      const unnamed = () => { const a = base() as Record<string, any>; delete a.metadata.name; return a; };
      accepts((_s, a) => (a.metadata.generateName = `${'a'.repeat(50)}-`), unnamed);
      accepts((_s, a) => (a.metadata.generateName = 'web'), unnamed);
      rejects((_s, a) => (a.metadata.generateName = `${'a'.repeat(51)}-`), 'metadata.generateName',
        /^metadata\.generateName: must be at most 51 characters of lower-case letters, digits and "-", starting with a letter \(the API server adds 5 to make the name, which names the Service and "<name>-canary"\)$/, unnamed);
      rejects((_s, a) => (a.metadata.generateName = 'Web-'), 'metadata.generateName', /lower-case/, unnamed);
      rejects((_s, a) => (a.metadata.generateName = '1web-'), 'metadata.generateName', /starting with a letter/, unnamed);
      const blueGreen = () => { const a = unnamed(); a.spec.rollout.strategy = 'BlueGreen'; return a; };
      rejects((_s, a) => (a.metadata.generateName = 'a'.repeat(51)), 'metadata.generateName', /^metadata\.generateName: with strategy BlueGreen, must be at most 50 characters .*"<name>-preview"\)$/, blueGreen);
      // A name given wins over generateName, as in the API server: only the name is checked then.
      accepts((_s, a) => (a.metadata.generateName = 'A'.repeat(80)));
    });
  });

  it('names every bad field in one message', () => {
    const sample = parse(readFileSync(new URL('../../../config/samples/invalid-app.yaml', import.meta.url), 'utf8'));
    const message = formatErrors(validateApp(withDefaults(sample)).errors);
    for (const path of ['spec.image', 'spec.replicas', 'spec.port', 'spec.env[0].name', 'spec.env[2].name', 'spec.resources.requests.memory',
      'spec.resources.requests.cpu', 'spec.ingress.host', 'spec.ingress.path', 'spec.rollout.steps[0].setWeight', 'spec.rollout.steps[1].pause.duration', 'spec.replica'])
      assert.ok(message.includes(`${path}: `), `${path} missing from: ${message}`);
    assert.match(message, /spec\.replicas: must be <= 1000; /);
  });

  it('the samples other than invalid-app are valid', () => {
    for (const f of ['app', 'app-full', 'canary-app', 'app-production', 'bluegreen-app', 'analysis-app', 'route-app']) {
      const sample = readSample(f);
      assert.deepEqual(validateApp(withDefaults(sample)).errors, [], f);
    }
  });

  it('rejects something that is not an object, and a missing spec', () => {
    assert.equal(validateApp('x').errors.length, 1);
    assert.deepEqual(validateApp({ metadata: { name: 'web' } }).errors.map((e) => e.path), ['spec']);
  });

  describe('warnings', () => {
    const warn = (image: string) => validateApp({ ...base(), spec: { ...base().spec, image } }).warnings;
    it('warns for an image with no tag', () => assert.match(warn('nginx').join(), /no tag/));
    it('warns when built-in analysis checks meet an App served by a route (no ingress-nginx metrics there)', () => {
      const routed = (analysis: Record<string, unknown>) => {
        const a = base();
        delete a.spec.ingress;
        a.spec.route = { parentRefs: [{ name: 'gw' }], path: '/', tls: false };
        a.spec.rollout = { strategy: 'Canary', progressDeadlineSeconds: 600, steps: [{ setWeight: 10 }], analysis: { interval: '1m', failureLimit: 1, noData: 'Wait', ...analysis } };
        return validateApp(a);
      };
      const warned = routed({ minRequests: 10, successRate: { min: 99 } });
      assert.deepEqual(warned.errors, []);
      assert.match(warned.warnings.join(), /ingress-nginx's metrics.*custom metrics/);
      assert.deepEqual(routed({ minRequests: 0, metrics: [{ name: 'errors', query: 'sum(rate(envoy_errors[{{interval}}]))', max: 1 }] }).warnings, []);
    });
    it('warns that analysis does nothing with strategy RollingUpdate (or none), and not with Canary or BlueGreen', () => {
      const withStrategy = (strategy: string | undefined) => {
        const a = base();
        a.spec.image = 'nginx:1.27';
        a.spec.rollout = { ...(strategy ? { strategy } : {}), analysis: { interval: '1m', successRate: { min: 99 } } };
        const v = validateApp(a);
        assert.deepEqual(v.errors, [], strategy);
        return v.warnings.filter((w) => w.includes('does nothing with spec.rollout.strategy'));
      };
      assert.match(withStrategy('RollingUpdate').join(), /^spec\.rollout\.analysis: does nothing with spec\.rollout\.strategy RollingUpdate: .*set the strategy to Canary or BlueGreen/);
      assert.equal(withStrategy(undefined).length, 1);
      assert.deepEqual(withStrategy('Canary'), []);
      assert.deepEqual(withStrategy('BlueGreen'), []);
    });
    it('warns that canary steps of the author\'s and a canaryHeader do nothing with strategy RollingUpdate; the default steps left from a Canary say nothing', () => {
      const rolling = (rollout: Record<string, unknown>) => {
        const a = base();
        a.spec.image = 'nginx:1.27';
        a.spec.rollout = { strategy: 'RollingUpdate', ...rollout };
        const v = validateApp(a);
        assert.deepEqual(v.errors, [], JSON.stringify(rollout));
        return v.warnings.filter((w) => /do(es)? nothing with spec\.rollout\.strategy/.test(w));
      };
      assert.match(rolling({ steps: [{ setWeight: 5 }] }).join(), /^spec\.rollout\.steps: do nothing with spec\.rollout\.strategy RollingUpdate: .*set the strategy to Canary/);
      assert.match(rolling({ canaryHeader: 'X-Canary' }).join(), /^spec\.rollout\.canaryHeader: does nothing with spec\.rollout\.strategy RollingUpdate/);
      assert.deepEqual(rolling({ steps: structuredClone(DEFAULT_CANARY_STEPS) }), []);
      assert.deepEqual(rolling({}), []);
    });
    it('warns for a disruption budget that allows no eviction at the fewest pods (replicas, or minReplicas), and is quiet otherwise', () => {
      const budget = (disruption: Record<string, unknown>, more: Record<string, unknown> = { replicas: 3 }) => {
        const a = base();
        Object.assign(a.spec, { image: 'nginx:1.27', disruption, ...more });
        const v = validateApp(a);
        assert.deepEqual(v.errors, []);
        return v.warnings;
      };
      for (const d of [{ maxUnavailable: 0 }, { minAvailable: 3 }, { minAvailable: '100%' }, { maxUnavailable: '0%' }]) {
        assert.match(budget(d).join(), /spec\.disruption\.(maxUnavailable|minAvailable): at 3 pods the PodDisruptionBudget allows no pod to be evicted/, JSON.stringify(d));
      }
      assert.match(budget({ minAvailable: 2 }, { autoscaling: { minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 80 }, resources: { requests: { cpu: '100m' } } }).join(), /at 2 pods/);
      for (const d of [{ maxUnavailable: 1 }, { minAvailable: 2 }, { minAvailable: '50%' }, { maxUnavailable: '10%' }]) assert.deepEqual(budget(d), [], JSON.stringify(d));
      assert.deepEqual(budget({ maxUnavailable: 0 }, { replicas: 1 }), [], 'one pod: no budget at all');
    });
    /** The warnings of a valid canary App with this canaryHeader, behind ingress-nginx or (route) a Gateway. */
    const headed = (canaryHeader: string, route = false) => {
      const a = base();
      Object.assign(a.spec, { image: 'nginx:1.27' });
      if (route) {
        delete a.spec.ingress;
        a.spec.route = { parentRefs: [{ name: 'gw' }], path: '/', tls: false };
      }
      a.spec.rollout = { strategy: 'Canary', progressDeadlineSeconds: 600, steps: [{ setWeight: 10 }], canaryHeader };
      const v = validateApp(a);
      assert.deepEqual(v.errors, []);
      return v.warnings;
    };
    it('warns for a canary header with "_" behind ingress-nginx, which drops such headers by default', () => {
      assert.match(headed('X_Canary').join(), /spec\.rollout\.canaryHeader: ingress-nginx drops request headers with "_"/);
      assert.deepEqual(headed('X-Canary'), []);
      assert.deepEqual(headed('X_Canary', true), [], 'a Gateway passes the header on');
    });
    it('warns for a Prefix or Exact ingress path that ingress-nginx\'s strict path validation refuses', () => {
      const pathed = (path: string, pathType?: string) => {
        const a = base();
        Object.assign(a.spec, { image: 'nginx:1.27' });
        a.spec.ingress = { ...(a.spec.ingress as object), path, ...(pathType ? { pathType } : {}) };
        const v = validateApp(a);
        assert.deepEqual(v.errors, []);
        return v.warnings;
      };
      for (const path of ['/v1.0', '/.well-known', '/a+b', '/~user', '/a:b', '/@me'])
        for (const pathType of ['Prefix', 'Exact']) assert.match(pathed(path, pathType).join(), /spec\.ingress\.path: .*strict-validate-path-type/, `${path} ${pathType}`);
      for (const path of ['/', '/api', '/api/v1_beta-2/', '/API']) assert.deepEqual(pathed(path, 'Prefix'), [], path);
      assert.deepEqual(pathed('/v1.0', 'ImplementationSpecific'), [], 'ImplementationSpecific paths are not checked');
    });
    it('warns for a canary header ingress-nginx\'s annotation validation refuses, which drops the canary-by-header annotation', () => {
      for (const header of ['X!Canary', 'X#Canary', 'X$Canary', 'X%Canary', 'X&Canary', "X'Canary", 'X*Canary', 'X+Canary', 'X^Canary', 'X`Canary', 'X|Canary']) {
        assert.match(headed(header).join(), /spec\.rollout\.canaryHeader: .*ingress-nginx.*canary-by-header/, header);
        assert.deepEqual(headed(header, true), [], `${header}: a Gateway takes any HTTP header name`);
      }
      for (const header of ['X-Canary', 'x.canary', 'X~Canary']) assert.deepEqual(headed(header), [], header);
    });
    it('warns for an analysis interval not shorter than progressDeadlineSeconds: no check can pass within the deadline', () => {
      const warned = (rollout: Record<string, unknown>) => {
        const a = base();
        Object.assign(a.spec, { image: 'nginx:1.27' });
        a.spec.rollout = { scaleDownDelaySeconds: 3600, ...rollout };
        const v = validateApp(a);
        assert.deepEqual(v.errors, []);
        return v.warnings.filter((w) => /progressDeadlineSeconds/.test(w));
      };
      const analysis = (interval: string) => ({ interval, failureLimit: 1, minRequests: 10, noData: 'Wait', successRate: { min: 99 } });
      const canary = { strategy: 'Canary', steps: [{ setWeight: 20 }] };
      // The first check at a weight is due an interval after the router carries it, the deadline
      // counts from the step's start: every setWeight step above 0 is aborted, AnalysisInconclusive.
      assert.match(warned({ ...canary, progressDeadlineSeconds: 600, analysis: analysis('10m') }).join(), /spec\.rollout\.analysis\.interval: 10m is not shorter than progressDeadlineSeconds 600/);
      assert.match(warned({ ...canary, progressDeadlineSeconds: 60, analysis: analysis('5m') }).join(), /interval: 5m is not shorter than progressDeadlineSeconds 60/);
      assert.match(warned({ strategy: 'BlueGreen', progressDeadlineSeconds: 120, blueGreen: { previewHost: 'p.example.com' }, analysis: analysis('2m') }).join(), /interval: 2m/);
      assert.deepEqual(warned({ ...canary, progressDeadlineSeconds: 600, analysis: analysis('1m') }), []);
      assert.deepEqual(warned({ ...canary, progressDeadlineSeconds: 60 }), [], 'no analysis');
      assert.deepEqual(warned({ strategy: 'RollingUpdate', progressDeadlineSeconds: 60 }), []);
    });
    it('warns for a successRate held only by maxDropFromStable where it is checked under full traffic (a setWeight: 100 step, blue-green after the switch): there it holds nothing', () => {
      const warned = (rollout: Record<string, unknown>) => {
        const a = base();
        Object.assign(a.spec, { image: 'nginx:1.27' });
        a.spec.rollout = { progressDeadlineSeconds: 600, scaleDownDelaySeconds: 3600, ...rollout };
        const v = validateApp(a);
        assert.deepEqual(v.errors, []);
        return v.warnings.filter((w) => /maxDropFromStable/.test(w));
      };
      const analysis = (successRate: object) => ({ interval: '1m', failureLimit: 1, minRequests: 10, noData: 'Wait', successRate });
      assert.match(warned({ strategy: 'Canary', steps: [{ setWeight: 100 }], analysis: analysis({ maxDropFromStable: 1 }) }).join(),
        /^spec\.rollout\.analysis\.successRate: maxDropFromStable alone is not applied at a setWeight: 100 step, .*set min as well$/);
      assert.match(warned({ strategy: 'BlueGreen', blueGreen: { previewHost: 'p.example.com' }, analysis: analysis({ maxDropFromStable: 1 }) }).join(), /not applied after the blue-green switch/);
      assert.deepEqual(warned({ strategy: 'Canary', steps: [{ setWeight: 100 }], analysis: analysis({ min: 99, maxDropFromStable: 1 }) }), [], 'min holds it there');
      assert.deepEqual(warned({ strategy: 'Canary', steps: [{ setWeight: 20 }, { setWeight: 50 }, { pause: {} }], analysis: analysis({ maxDropFromStable: 1 }) }), [], 'every check compares with stable');
    });
    it('warns for canary analysis whose steps never give the canary traffic: no check runs before the promotion', () => {
      const warned = (steps: object[], withAnalysis = true) => {
        const a = base();
        Object.assign(a.spec, { image: 'nginx:1.27' });
        a.spec.rollout = { strategy: 'Canary', progressDeadlineSeconds: 600, steps, ...(withAnalysis && { analysis: { interval: '1m', failureLimit: 1, minRequests: 10, noData: 'Wait', successRate: { min: 99 } } }) };
        const v = validateApp(a);
        assert.deepEqual(v.errors, []);
        return v.warnings.filter((w) => /no step gives the canary traffic/.test(w));
      };
      assert.match(warned([{ pause: { duration: '5s' } }]).join(), /^spec\.rollout\.steps: no step gives the canary traffic .*add a setWeight step$/);
      assert.equal(warned([{ setWeight: 0 }, { pause: {} }]).length, 1);
      assert.deepEqual(warned([{ setWeight: 0 }, { setWeight: 10 }]), []);
      assert.deepEqual(warned([{ pause: {} }], false), [], 'nothing to check');
    });
    it('warns for a blue-green analysis whose first check after the switch would come after the old pods are gone', () => {
      const blueGreen = (rollout: Record<string, unknown>) => {
        const a = base();
        Object.assign(a.spec, { image: 'nginx:1.27' });
        a.spec.rollout = { strategy: 'BlueGreen', progressDeadlineSeconds: 600, blueGreen: { previewHost: 'preview.web.example.com' }, ...rollout };
        const v = validateApp(a);
        assert.deepEqual(v.errors, []);
        return v.warnings;
      };
      const analysis = (interval?: string) => ({ ...(interval && { interval }), failureLimit: 1, minRequests: 10, noData: 'Wait', successRate: { min: 99 } });
      // The defaults, 30 s against 1m: no check ever runs under full traffic.
      assert.match(blueGreen({ analysis: analysis() }).join(), /spec\.rollout\.scaleDownDelaySeconds: 30s is not longer than analysis\.interval 1m/);
      assert.match(blueGreen({ scaleDownDelaySeconds: 60, analysis: analysis('1m') }).join(), /scaleDownDelaySeconds: 60s is not longer than analysis\.interval 1m/);
      assert.deepEqual(blueGreen({ scaleDownDelaySeconds: 120, analysis: analysis('1m') }), []);
      assert.deepEqual(blueGreen({ scaleDownDelaySeconds: 30, analysis: analysis('10s') }), []);
      assert.deepEqual(blueGreen({ scaleDownDelaySeconds: 30 }), [], 'no analysis');
    });
    it('warns for a blue-green analysis with built-in checks but no previewHost: the preview has no ingress-nginx traffic of its own', () => {
      const blueGreen = (rollout: Record<string, unknown>) => {
        const a = base();
        Object.assign(a.spec, { image: 'nginx:1.27' });
        a.spec.rollout = { strategy: 'BlueGreen', progressDeadlineSeconds: 600, scaleDownDelaySeconds: 120, ...rollout };
        const v = validateApp(a);
        assert.deepEqual(v.errors, []);
        return v.warnings;
      };
      const analysis = (more: Record<string, unknown>) => ({ interval: '1m', failureLimit: 1, noData: 'Wait', ...more });
      const custom = { metrics: [{ name: 'errors', query: 'sum(rate(app_errors_total[{{interval}}]))', max: 1 }] };
      for (const checks of [{ minRequests: 10, successRate: { min: 99 } }, { minRequests: 0, latency: { maxMs: 300 } }, { minRequests: 10, ...custom }]) {
        assert.match(blueGreen({ analysis: analysis(checks) }).join(), /spec\.rollout\.blueGreen\.previewHost: .*no data/, JSON.stringify(checks));
        assert.deepEqual(blueGreen({ blueGreen: { previewHost: 'preview.web.example.com' }, analysis: analysis(checks) }), [], JSON.stringify(checks));
      }
      assert.deepEqual(blueGreen({ analysis: analysis({ minRequests: 0, ...custom }) }), [], 'custom metrics alone');
    });
    it('warns for the latest tag', () => assert.match(warn('ghcr.io/acme/web:latest').join(), /latest/));
    it('is quiet for a pinned tag or digest', () => {
      assert.deepEqual(warn('nginx:1.27'), []);
      assert.deepEqual(warn(`nginx@sha256:${'0'.repeat(64)}`), []);
    });
  });

  it('fieldPath turns JSON pointers into field paths', () => {
    assert.equal(fieldPath('/spec/env/0/name'), 'spec.env[0].name');
    assert.equal(fieldPath('/spec/resources/limits/nvidia.com~1gpu'), 'spec.resources.limits["nvidia.com/gpu"]');
    assert.equal(fieldPath(''), '');
    // Given the App, a map key of digits is a key, not a list's index.
    assert.equal(fieldPath('/spec/podLabels/123', { spec: { podLabels: { 123: 'x' } } }), 'spec.podLabels["123"]');
    assert.equal(fieldPath('/spec/env/0/name', { spec: { env: [{ name: 'x' }] } }), 'spec.env[0].name');
  });

  it('names a map key of digits the same way in every message: quoted', () => {
    const errors = errorsOf((s) => { s.resources = { limits: { 1: 'abc' } }; s.podLabels = { 123: 'bad value' }; });
    const paths = errors.map((e) => e.slice(0, e.indexOf(': ')));
    assert.deepEqual([...new Set(paths)].sort(), ['spec.podLabels["123"]', 'spec.resources.limits["1"]'], JSON.stringify(errors));
  });
});

// api.md "Real workloads": for every rule an accepted and a denied case, on the production
// sample (every workload field set), asserting the field path and the message.
describe('validation: workload fields', () => {
  const ok = (edit: Edit) => accepts(edit, production);
  const bad = (edit: Edit, path: string, message: RegExp) => rejects(edit, path, message, production);

  it('the production sample sets every workload field and is valid', () => {
    const spec = production().spec;
    for (const field of ['imagePullSecrets', 'serviceAccountName', 'envFrom', 'volumes', 'probes', 'podAnnotations', 'podLabels', 'podSecurityContext',
      'securityContext', 'nodeSelector', 'tolerations', 'priorityClassName', 'terminationGracePeriodSeconds', 'disruption', 'autoscaling'])
      assert.ok(spec[field] !== undefined, field);
    for (const source of ['secretKeyRef', 'configMapKeyRef', 'fieldRef', 'resourceFieldRef'])
      assert.ok(spec.env.some((e: any) => e.valueFrom?.[source]), source);
    for (const kind of ['configMap', 'secret', 'emptyDir']) assert.ok(spec.volumes.some((v: any) => v[kind]), kind);
    for (const kind of ['readiness', 'liveness', 'startup']) assert.ok(spec.probes[kind], kind);
    ok(() => {});
  });

  it('names every problem in one message', () => {
    const errors = validateApp({ ...production(), spec: { ...production().spec, env: [{ name: 'A', value: 'x', valueFrom: {} }], volumes: [{ name: 'v', mountPath: 'tmp' }], disruption: {} } }).errors;
    assert.equal(formatErrors(errors),
      'spec.volumes[0].mountPath: must be an absolute path (start with "/"); spec.env[0]: must set exactly one of value or valueFrom, not both; ' +
      'spec.env[0].valueFrom: must set exactly one of secretKeyRef, configMapKeyRef, fieldRef or resourceFieldRef; ' +
      'spec.volumes[0]: must set exactly one of configMap, secret or emptyDir; spec.disruption: must set exactly one of maxUnavailable or minAvailable');
  });

  describe('env', () => {
    it('value or valueFrom, not both ("" beside valueFrom is no value, as the API server takes it)', () => {
      ok((s) => (s.env = [{ name: 'A', value: '' }, { name: 'B', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'C' }]));
      ok((s) => (s.env[1].value = ''));
      bad((s) => (s.env[1].value = 'x'), 'spec.env[1]', /^spec\.env\[1\]: must set exactly one of value or valueFrom/);
      bad((s) => (s.env[0].valueFrom = { fieldRef: { fieldPath: 'metadata.name' } }), 'spec.env[0]', /exactly one of value or valueFrom/);
    });
    it('valueFrom names exactly one source', () => {
      ok((s) => (s.env[1].valueFrom = { configMapKeyRef: { name: 'c', key: 'k' } }));
      bad((s) => (s.env[1].valueFrom = {}), 'spec.env[1].valueFrom', /must set exactly one of secretKeyRef, configMapKeyRef, fieldRef or resourceFieldRef/);
      bad((s) => (s.env[1].valueFrom.fieldRef = { fieldPath: 'metadata.name' }), 'spec.env[1].valueFrom', /exactly one of secretKeyRef/);
    });
    it('secretKeyRef and configMapKeyRef need a name and a key', () => {
      ok((s) => (s.env[1].valueFrom.secretKeyRef = { name: 'db.v2', key: 'tls.crt', optional: false }));
      bad((s) => delete s.env[1].valueFrom.secretKeyRef.key, 'spec.env[1].valueFrom.secretKeyRef.key', /required/);
      bad((s) => delete s.env[2].valueFrom.configMapKeyRef.name, 'spec.env[2].valueFrom.configMapKeyRef.name', /required/);
      bad((s) => (s.env[1].valueFrom.secretKeyRef.name = 'DB'), 'spec.env[1].valueFrom.secretKeyRef.name', /DNS-1123 subdomain/);
      bad((s) => (s.env[2].valueFrom.configMapKeyRef.key = 'a/b'), 'spec.env[2].valueFrom.configMapKeyRef.key', /key of letters, digits/);
    });
    it('fieldRef reads a field Kubernetes offers to env', () => {
      for (const f of ['metadata.namespace', "metadata.labels['team']", "metadata.annotations['a.b/c']", 'spec.nodeName', 'status.podIPs'])
        ok((s) => (s.env[3].valueFrom.fieldRef = { fieldPath: f, apiVersion: 'v1' }));
      for (const f of ['metadata.labels', 'spec.containers', 'status.phase'])
        bad((s) => (s.env[3].valueFrom.fieldRef.fieldPath = f), 'spec.env[3].valueFrom.fieldRef.fieldPath', /must be one of metadata\.name, /);
      bad((s) => (s.env[3].valueFrom.fieldRef.apiVersion = 'v2'), 'spec.env[3].valueFrom.fieldRef.apiVersion', /must be one of v1/);
    });
    it('resourceFieldRef reads a request or limit, divided by a positive quantity', () => {
      ok((s) => (s.env[4].valueFrom.resourceFieldRef = { resource: 'requests.cpu', containerName: 'app', divisor: '1m' }));
      ok((s) => (s.env[4].valueFrom.resourceFieldRef.divisor = 1));
      bad((s) => (s.env[4].valueFrom.resourceFieldRef.divisor = 1e21), 'spec.env[4].valueFrom.resourceFieldRef.divisor', /must be quoted/);
      bad((s) => (s.env[4].valueFrom.resourceFieldRef.resource = 'limits.gpu'), 'spec.env[4].valueFrom.resourceFieldRef.resource', /limits\.<resource> or requests\.<resource>/);
      // 0 is no divisor (1) for the API server and the kubelet.
      ok((s) => (s.env[4].valueFrom.resourceFieldRef.divisor = '0'));
      bad((s) => (s.env[4].valueFrom.resourceFieldRef.divisor = '-1'), 'spec.env[4].valueFrom.resourceFieldRef.divisor', /quantity/);
      bad((s) => (s.env[4].valueFrom.resourceFieldRef.divisor = ' -1 '), 'spec.env[4].valueFrom.resourceFieldRef.divisor', /must be a quantity such as 100m/);
      bad((s) => (s.env[4].valueFrom.resourceFieldRef.divisor = ' 1m'), 'spec.env[4].valueFrom.resourceFieldRef.divisor', /must be written without spaces around it: "1m"/);
      bad((s) => (s.env[4].valueFrom.resourceFieldRef.divisor = 'one'), 'spec.env[4].valueFrom.resourceFieldRef.divisor', /quantity/);
    });
    it('resourceFieldRef.containerName names the App\'s one container, app (the kubelet finds no other: the pod never starts)', () => {
      ok((s) => delete s.env[4].valueFrom.resourceFieldRef.containerName);
      bad((s) => (s.env[4].valueFrom.resourceFieldRef.containerName = 'web'), 'spec.env[4].valueFrom.resourceFieldRef.containerName', /names no container of the pod: its one container is app/);
    });
  });

  describe('envFrom', () => {
    it('each entry names exactly one of secretRef or configMapRef', () => {
      ok((s) => (s.envFrom = [{ configMapRef: { name: 'a', optional: true } }, { secretRef: { name: 'b' }, prefix: 'B_' }]));
      bad((s) => (s.envFrom[0] = { prefix: 'X_' }), 'spec.envFrom[0]', /must set exactly one of secretRef or configMapRef/);
      bad((s) => (s.envFrom[1].secretRef = { name: 'x' }), 'spec.envFrom[1]', /must set exactly one of secretRef or configMapRef/);
      bad((s) => (s.envFrom[0].secretRef = {}), 'spec.envFrom[0].secretRef.name', /required/);
    });
    it('prefix is any string, as in Kubernetes', () => {
      for (const prefix of ['CFG_', 'my-app.', '']) ok((s) => (s.envFrom[1].prefix = prefix));
      bad((s) => (s.envFrom[1].prefix = 7), 'spec.envFrom[1].prefix', /must be string/);
    });
  });

  describe('volumes', () => {
    it('names are unique DNS-1123 labels', () => {
      ok((s) => (s.volumes[0].name = `a${'b'.repeat(62)}`));
      bad((s) => (s.volumes[0].name = 'Config'), 'spec.volumes[0].name', /must be a DNS-1123 label/);
      bad((s) => (s.volumes[0].name = 'a'.repeat(64)), 'spec.volumes[0].name', /must NOT have more than 63 characters/);
      bad((s) => (s.volumes[2].name = 'config'), 'spec.volumes[2].name', /duplicate name "config"/);
      bad((s) => delete s.volumes[0].name, 'spec.volumes[0].name', /required/);
    });
    it('mount paths are absolute and unique', () => {
      ok((s) => (s.volumes[2].mountPath = '/etc/web/cache'));
      bad((s) => (s.volumes[0].mountPath = 'etc/web'), 'spec.volumes[0].mountPath', /must be an absolute path/);
      bad((s) => (s.volumes[1].mountPath = '/etc/web/'), 'spec.volumes[1].mountPath', /duplicate mountPath "\/etc\/web\/"/);
      bad((s) => delete s.volumes[1].mountPath, 'spec.volumes[1].mountPath', /required/);
    });
    it('each volume has exactly one of configMap, secret or emptyDir', () => {
      bad((s) => delete s.volumes[2].emptyDir, 'spec.volumes[2]', /must set exactly one of configMap, secret or emptyDir/);
      bad((s) => (s.volumes[1].emptyDir = {}), 'spec.volumes[1]', /must set exactly one of configMap, secret or emptyDir/);
    });
    it('readOnly: false only for emptyDir (configMap and secret are always read-only)', () => {
      ok((s) => { s.volumes[0].readOnly = true; s.volumes[2].readOnly = false; });
      bad((s) => (s.volumes[1].readOnly = false), 'spec.volumes[1].readOnly', /may be false only for an emptyDir volume/);
      bad((s) => (s.volumes[0].readOnly = false), 'spec.volumes[0].readOnly', /configMap and secret volumes are always read-only/);
    });
    it('emptyDir: sizeLimit is a quantity, medium "" or Memory', () => {
      ok((s) => (s.volumes[2].emptyDir = { medium: 'Memory', sizeLimit: 1048576 }));
      ok((s) => (s.volumes[2].emptyDir = { medium: '' }));
      bad((s) => (s.volumes[2].emptyDir.sizeLimit = '64 MB'), 'spec.volumes[2].emptyDir.sizeLimit', /must be a quantity/);
      bad((s) => (s.volumes[2].emptyDir.sizeLimit = '64Mi\n'), 'spec.volumes[2].emptyDir.sizeLimit', /must be written without spaces around it: "64Mi"/);
      bad((s) => (s.volumes[2].emptyDir.medium = 'Disk'), 'spec.volumes[2].emptyDir.medium', /must be one of "", Memory/);
      // A YAML number with a fraction is not a value the schema's int-or-string holds: the message says to quote it.
      bad((s) => (s.volumes[2].emptyDir.sizeLimit = 0.5), 'spec.volumes[2].emptyDir.sizeLimit', /quote a fractional value/);
      bad((s) => (s.volumes[2].emptyDir.sizeLimit = JSON.parse('18446744073709551616')), 'spec.volumes[2].emptyDir.sizeLimit', /must be quoted when larger than/);
      ok((s) => (s.volumes[2].emptyDir.sizeLimit = '18446744073709551616'));
    });
    it('items[].path is relative, without ".."', () => {
      ok((s) => (s.volumes[0].configMap.items = [{ key: 'a', path: 'conf/app.yaml', mode: 0o400 }]));
      for (const path of ['/etc/x', '../x', 'a/../../b', '..data'])
        bad((s) => (s.volumes[0].configMap.items[0].path = path), 'spec.volumes[0].configMap.items[0].path', /must be a relative path without "\.\."/);
      bad((s) => (s.volumes[1].secret.items = [{ key: 'tls.key', path: '../key' }]), 'spec.volumes[1].secret.items[0].path', /relative path/);
      bad((s) => (s.volumes[0].configMap.items[0] = { key: 'a' }), 'spec.volumes[0].configMap.items[0].path', /required/);
    });
    it('subPath is relative, without ".."', () => {
      ok((s) => (s.volumes[0].subPath = 'app.yaml'));
      bad((s) => (s.volumes[0].subPath = '../etc'), 'spec.volumes[0].subPath', /must be a relative path without "\.\."/);
    });
    it('file modes are 0..0777 (0..511)', () => {
      ok((s) => { s.volumes[0].configMap.defaultMode = 0; s.volumes[1].secret.defaultMode = 0o777; });
      bad((s) => (s.volumes[1].secret.defaultMode = 512), 'spec.volumes[1].secret.defaultMode', /must be <= 511/);
      bad((s) => (s.volumes[0].configMap.defaultMode = -1), 'spec.volumes[0].configMap.defaultMode', /must be >= 0/);
      bad((s) => (s.volumes[0].configMap.items[0].mode = 1000), 'spec.volumes[0].configMap.items[0].mode', /must be <= 511/);
    });
    it('the source names its object', () => {
      bad((s) => delete s.volumes[1].secret.secretName, 'spec.volumes[1].secret.secretName', /required/);
      bad((s) => (s.volumes[0].configMap.name = 'Web Config'), 'spec.volumes[0].configMap.name', /DNS-1123 subdomain/);
    });
  });

  describe('probes', () => {
    it('each probe has exactly one of httpGet, tcpSocket or exec', () => {
      ok((s) => (s.probes.liveness = { exec: { command: ['/bin/check'] } }));
      for (const kind of ['readiness', 'liveness', 'startup']) {
        bad((s) => (s.probes[kind] = { periodSeconds: 5 }), `spec.probes.${kind}`, /must set exactly one of httpGet, tcpSocket or exec/);
        bad((s) => (s.probes[kind] = { httpGet: {}, tcpSocket: {} }), `spec.probes.${kind}`, /must set exactly one of httpGet, tcpSocket or exec/);
      }
      bad((s) => (s.probes.liveness = { exec: { command: [] } }), 'spec.probes.liveness.exec.command', /must NOT have fewer than 1 items/);
    });
    it('port is 1..65535 or a port name (IANA_SVC_NAME)', () => {
      for (const port of [1, 65535, 'http']) ok((s) => { s.probes.readiness.httpGet.port = port; s.probes.startup.tcpSocket.port = port; });
      // A well-formed name the container has no port of: the kubelet cannot resolve it, so the probe never runs.
      for (const port of ['web-8080', 'a'.repeat(15)]) {
        bad((s) => (s.probes.readiness.httpGet.port = port), 'spec.probes.readiness.httpGet.port', /names no port of the container: its one port \(spec\.port\) is named http/);
        bad((s) => (s.probes.startup.tcpSocket.port = port), 'spec.probes.startup.tcpSocket.port', /names no port of the container/);
      }
      for (const port of [0, 65536, 'HTTP', 'a--b', '8080', 'a'.repeat(16), '-http'])
        bad((s) => (s.probes.readiness.httpGet.port = port), 'spec.probes.readiness.httpGet.port', /must be a port number 1\.\.65535 or a port name/);
      bad((s) => (s.probes.startup.tcpSocket.port = 0), 'spec.probes.startup.tcpSocket.port', /port number/);
      bad((s) => (s.probes.startup.tcpSocket.port = 80.5), 'spec.probes.startup.tcpSocket.port', /must be a port number or a port name/);
    });
    it('periods and thresholds are at least their Kubernetes minimums', () => {
      ok((s) => (s.probes.readiness = { httpGet: {}, initialDelaySeconds: 0, periodSeconds: 1, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 1 }));
      for (const field of ['periodSeconds', 'timeoutSeconds', 'successThreshold', 'failureThreshold'])
        bad((s) => (s.probes.readiness[field] = 0), `spec.probes.readiness.${field}`, /must be >= 1/);
      bad((s) => (s.probes.liveness.initialDelaySeconds = -1), 'spec.probes.liveness.initialDelaySeconds', /must be >= 0/);
    });
    it('liveness and startup probes have successThreshold 1', () => {
      ok((s) => { s.probes.readiness.successThreshold = 3; s.probes.liveness.successThreshold = 1; s.probes.startup.successThreshold = 1; });
      bad((s) => (s.probes.liveness.successThreshold = 2), 'spec.probes.liveness.successThreshold', /must be 1 for a liveness probe/);
      bad((s) => (s.probes.startup.successThreshold = 3), 'spec.probes.startup.successThreshold', /must be 1 for a startup probe/);
    });
    it('httpGet: path starts with "/", scheme HTTP or HTTPS, header names', () => {
      ok((s) => (s.probes.readiness.httpGet = { path: '/ready', scheme: 'HTTPS', httpHeaders: [{ name: 'X-Probe', value: '' }] }));
      bad((s) => (s.probes.readiness.httpGet.path = 'ready'), 'spec.probes.readiness.httpGet.path', /must start with "\/"/);
      bad((s) => (s.probes.readiness.httpGet.scheme = 'TCP'), 'spec.probes.readiness.httpGet.scheme', /must be one of HTTP, HTTPS/);
      bad((s) => (s.probes.readiness.httpGet.httpHeaders = [{ name: 'X Probe', value: 'a' }]), 'spec.probes.readiness.httpGet.httpHeaders[0].name', /HTTP header name/);
    });
    it('readinessPath and probes.readiness are one or the other', () => {
      ok((s) => { s.readinessPath = '/healthz'; delete s.probes.readiness; });
      bad((s) => (s.readinessPath = '/healthz'), 'spec.readinessPath', /may not be set together with spec\.probes\.readiness/);
    });
  });

  describe('pod labels, annotations and node selector', () => {
    it('podLabels: label keys and values', () => {
      ok((s) => (s.podLabels = { team: 'shop', 'example.com/tier': 'front_end-1.0', 'app.kubernetes.io/version': '', [`${'a'.repeat(63)}`]: 'b'.repeat(63) }));
      for (const key of ['bad key', 'a/b/c', 'Example.com/x', '/x', 'x/', `${'a'.repeat(64)}`])
        bad((s) => (s.podLabels = { [key]: 'v' }), /^a+$/.test(key) ? `spec.podLabels.${key}` : `spec.podLabels[${JSON.stringify(key)}]`, /key must be a valid label key/);
      bad((s) => (s.podLabels.team = 'shop team'), 'spec.podLabels.team', /value must be a valid label value/);
      bad((s) => (s.podLabels.team = 'x'.repeat(64)), 'spec.podLabels.team', /value must be a valid label value/);
      bad((s) => (s.podLabels.team = 3), 'spec.podLabels.team', /must be string/);
    });
    it('podLabels may not set skiff.dev/* or app.kubernetes.io/{name,managed-by}', () => {
      ok((s) => (s.podLabels['app.kubernetes.io/part-of'] = 'shop'));
      for (const key of ['skiff.dev/track', 'skiff.dev/app', 'skiff.dev/anything', 'app.kubernetes.io/name', 'app.kubernetes.io/managed-by'])
        bad((s) => (s.podLabels[key] = 'x'), `spec.podLabels["${key}"]`, /is reserved: Skiff sets skiff\.dev\/\*/);
    });
    it('podAnnotations may not set skiff.dev/*, where Skiff records the config copies a template runs on', () => {
      ok((s) => (s.podAnnotations['example.com/skiff.dev'] = 'x'));
      for (const key of ['skiff.dev/config-copies', 'skiff.dev/anything', 'Skiff.dev/config-copies'])
        bad((s) => (s.podAnnotations[key] = 'web-cfg-0123456789'), `spec.podAnnotations["${key}"]`, /is reserved: Skiff sets skiff\.dev\/\* pod annotations itself/);
    });
    it('podAnnotations: annotation keys, any values', () => {
      ok((s) => (s.podAnnotations = { 'prometheus.io/path': '/metrics', note: 'any text: with spaces\nand lines', 'a.b/c': '' }));
      bad((s) => (s.podAnnotations['bad key'] = 'x'), 'spec.podAnnotations["bad key"]', /key must be a valid annotation key/);
      // As the API server checks them: lower-cased (ValidateAnnotations); label keys are not.
      ok((s) => (s.podAnnotations = { 'Example.com/Team': 'web' }));
      bad((s) => (s.podLabels = { 'Example.com/team': 'web' }), 'spec.podLabels["Example.com/team"]', /key must be a valid label key/);
      bad((s) => (s.podAnnotations['prometheus.io/scrape'] = true), 'spec.podAnnotations["prometheus.io/scrape"]', /must be string/);
    });
    it('nodeSelector: label keys and values', () => {
      ok((s) => (s.nodeSelector = { 'kubernetes.io/os': 'linux', 'node.example.com/pool': 'web' }));
      bad((s) => (s.nodeSelector['kubernetes.io/arch'] = 'x86 64'), 'spec.nodeSelector["kubernetes.io/arch"]', /value must be a valid label value/);
      bad((s) => (s.nodeSelector['pool name'] = 'web'), 'spec.nodeSelector["pool name"]', /key must be a valid label key/);
    });
  });

  describe('security contexts', () => {
    it('privileged: true is refused', () => {
      ok((s) => (s.securityContext.privileged = false));
      bad((s) => (s.securityContext.privileged = true), 'spec.securityContext.privileged', /must not be true/);
    });
    it('capabilities add and drop are lists of names', () => {
      ok((s) => (s.securityContext.capabilities = { add: ['NET_BIND_SERVICE'], drop: ['ALL'] }));
      bad((s) => (s.securityContext.capabilities.drop = [1]), 'spec.securityContext.capabilities.drop[0]', /must be string/);
      bad((s) => (s.securityContext.capabilities.drop = 'ALL'), 'spec.securityContext.capabilities.drop', /must be array/);
    });
    it('seccompProfile: a type from the enum; Localhost needs localhostProfile, and only it may have one', () => {
      for (const field of ['podSecurityContext', 'securityContext']) {
        ok((s) => (s[field].seccompProfile = { type: 'Localhost', localhostProfile: 'profiles/web.json' }));
        ok((s) => (s[field].seccompProfile = { type: 'Unconfined' }));
        bad((s) => (s[field].seccompProfile = { type: 'Default' }), `spec.${field}.seccompProfile.type`, /must be one of RuntimeDefault, Localhost, Unconfined/);
        bad((s) => (s[field].seccompProfile = {}), `spec.${field}.seccompProfile.type`, /required/);
        bad((s) => (s[field].seccompProfile = { type: 'Localhost' }), `spec.${field}.seccompProfile.localhostProfile`, /required when type is Localhost/);
        bad((s) => (s[field].seccompProfile = { type: 'RuntimeDefault', localhostProfile: 'x.json' }), `spec.${field}.seccompProfile.localhostProfile`, /may be set only when type is Localhost/);
      }
    });
    it('runAsNonRoot with runAsUser 0 is refused where the 0 is set', () => {
      ok((s) => { s.podSecurityContext.runAsUser = 0; s.securityContext.runAsUser = 1000; });
      ok((s) => { s.podSecurityContext.runAsNonRoot = false; s.podSecurityContext.runAsUser = 0; });
      bad((s) => (s.podSecurityContext.runAsUser = 0), 'spec.podSecurityContext.runAsUser', /must not be 0 when runAsNonRoot is true/);
      bad((s) => { s.securityContext.runAsNonRoot = true; s.securityContext.runAsUser = 0; }, 'spec.securityContext.runAsUser', /must not be 0 when runAsNonRoot is true/);
    });
    it('IDs are 0..2147483647; fsGroupChangePolicy from the enum', () => {
      ok((s) => { s.podSecurityContext.supplementalGroups = [0, 2147483647]; s.podSecurityContext.fsGroupChangePolicy = 'OnRootMismatch'; });
      bad((s) => (s.podSecurityContext.fsGroup = -1), 'spec.podSecurityContext.fsGroup', /must be >= 0/);
      bad((s) => (s.securityContext.runAsGroup = 2147483648), 'spec.securityContext.runAsGroup', /must be <= 2147483647/);
      bad((s) => (s.podSecurityContext.fsGroupChangePolicy = 'Never'), 'spec.podSecurityContext.fsGroupChangePolicy', /must be one of OnRootMismatch, Always/);
    });
  });

  describe('tolerations', () => {
    it('operator Exists or Equal, effect from the enum', () => {
      ok((s) => (s.tolerations = [{ key: 'a', operator: 'Exists', effect: 'PreferNoSchedule' }, { key: 'b', value: 'c' }, { operator: 'Exists' }]));
      bad((s) => (s.tolerations[0].operator = 'In'), 'spec.tolerations[0].operator', /must be one of Exists, Equal, ""$/);
      bad((s) => (s.tolerations[0].effect = 'NoRun'), 'spec.tolerations[0].effect', /must be one of NoSchedule, PreferNoSchedule, NoExecute, ""$/);
    });
    it('an empty effect is every effect and an empty operator is Equal, as Kubernetes takes them', () => {
      ok((s) => (s.tolerations = [{ key: 'dedicated', operator: 'Exists', effect: '' }, { key: 'dedicated', operator: '', value: 'web' }]));
      bad((s) => (s.tolerations = [{ operator: '', effect: '' }]), 'spec.tolerations[0].operator', /must be Exists when key is empty/);
      bad((s) => (s.tolerations = [{ key: 'k', operator: 'Exists', effect: '', tolerationSeconds: 5 }]), 'spec.tolerations[0].tolerationSeconds', /may be set only when effect is NoExecute/);
      bad((s) => (s.tolerations = [{ key: 'k', operator: '', value: 'a b' }]), 'spec.tolerations[0].value', /must be a valid label value/);
    });
    it('Exists has no value', () => {
      ok((s) => (s.tolerations[0] = { key: 'dedicated', operator: 'Exists', value: '' }));
      bad((s) => (s.tolerations[0].operator = 'Exists'), 'spec.tolerations[0].value', /must be empty when operator is Exists/);
    });
    it('tolerationSeconds only with effect NoExecute', () => {
      ok((s) => (s.tolerations[0] = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }));
      bad((s) => (s.tolerations[0].tolerationSeconds = 60), 'spec.tolerations[0].tolerationSeconds', /may be set only when effect is NoExecute/);
    });
    it('an empty key needs operator Exists; keys and values have label syntax', () => {
      bad((s) => (s.tolerations[0] = { value: 'web' }), 'spec.tolerations[0].operator', /must be Exists when key is empty/);
      bad((s) => (s.tolerations[0].key = 'dedicated node'), 'spec.tolerations[0].key', /must be a valid label key/);
      bad((s) => (s.tolerations[0].value = 'web server'), 'spec.tolerations[0].value', /must be a valid label value/);
    });
  });

  describe('names of other objects', () => {
    it('serviceAccountName, priorityClassName and imagePullSecrets are DNS-1123 subdomains', () => {
      ok((s) => { s.serviceAccountName = 'web.v2'; s.priorityClassName = 'system-cluster-critical'; s.imagePullSecrets = [{ name: 'a' }, { name: 'b.c' }]; });
      bad((s) => (s.serviceAccountName = 'Web'), 'spec.serviceAccountName', /must be a DNS-1123 subdomain/);
      bad((s) => (s.priorityClassName = 'high_priority'), 'spec.priorityClassName', /must be a DNS-1123 subdomain/);
      bad((s) => (s.imagePullSecrets = [{ name: 'regcred' }, { name: 'Reg Cred' }]), 'spec.imagePullSecrets[1].name', /must be a DNS-1123 subdomain/);
      bad((s) => (s.imagePullSecrets = [{}]), 'spec.imagePullSecrets[0].name', /required/);
      bad((s) => (s.serviceAccountName = 'a'.repeat(254)), 'spec.serviceAccountName', /must NOT have more than 253 characters/);
    });

    it('imagePullSecrets names are unique: server-side apply refuses a pod template that lists one twice', () => {
      bad((s) => (s.imagePullSecrets = [{ name: 'regcred' }, { name: 'mirror' }, { name: 'regcred' }]), 'spec.imagePullSecrets[2].name', /duplicate name "regcred"/);
    });
  });

  it('terminationGracePeriodSeconds is at least 0', () => {
    ok((s) => (s.terminationGracePeriodSeconds = 0));
    bad((s) => (s.terminationGracePeriodSeconds = -1), 'spec.terminationGracePeriodSeconds', /must be >= 0/);
  });

  describe('disruption', () => {
    it('exactly one of maxUnavailable or minAvailable', () => {
      ok((s) => (s.disruption = { minAvailable: '50%' }));
      bad((s) => (s.disruption = {}), 'spec.disruption', /must set exactly one of maxUnavailable or minAvailable/);
      bad((s) => (s.disruption.minAvailable = 2), 'spec.disruption', /must set exactly one of maxUnavailable or minAvailable/);
    });
    it('an integer >= 0 or a percentage 0%..100%', () => {
      for (const v of [0, 1, 100, '0%', '25%', '100%']) ok((s) => (s.disruption = { maxUnavailable: v }));
      for (const v of [-1, '101%', '25', 'half', '-5%', ' 5%'])
        bad((s) => (s.disruption = { minAvailable: v }), 'spec.disruption.minAvailable', /must be an integer >= 0 or a percentage from 0% to 100%/);
      bad((s) => (s.disruption = { maxUnavailable: 1.5 }), 'spec.disruption.maxUnavailable', /must be an integer or a percentage such as 25%/);
    });
  });

  describe('autoscaling', () => {
    it('maxReplicas is required, 1..1000; minReplicas at least 1 and at most maxReplicas', () => {
      ok((s) => (s.autoscaling = { minReplicas: 1000, maxReplicas: 1000, targetCPUUtilizationPercentage: 80 }));
      ok((s) => delete s.autoscaling.minReplicas);
      bad((s) => delete s.autoscaling.maxReplicas, 'spec.autoscaling.maxReplicas', /required/);
      bad((s) => (s.autoscaling.maxReplicas = 1001), 'spec.autoscaling.maxReplicas', /must be <= 1000/);
      bad((s) => (s.autoscaling.maxReplicas = 0), 'spec.autoscaling.maxReplicas', /must be >= 1/);
      bad((s) => (s.autoscaling.minReplicas = 0), 'spec.autoscaling.minReplicas', /must be >= 1/);
      bad((s) => (s.autoscaling = { minReplicas: 5, maxReplicas: 3, targetCPUUtilizationPercentage: 70 }), 'spec.autoscaling.minReplicas', /must be <= maxReplicas \(3\)/);
    });
    it('at least one target, each at least 1 (above 100 is fine)', () => {
      ok((s) => (s.autoscaling.targetCPUUtilizationPercentage = 150));
      bad((s) => delete s.autoscaling.targetCPUUtilizationPercentage, 'spec.autoscaling', /must set targetCPUUtilizationPercentage or targetMemoryUtilizationPercentage/);
      bad((s) => (s.autoscaling.targetCPUUtilizationPercentage = 0), 'spec.autoscaling.targetCPUUtilizationPercentage', /must be >= 1/);
    });
    it('a CPU target needs requests.cpu, a memory target requests.memory', () => {
      ok((s) => (s.autoscaling.targetMemoryUtilizationPercentage = 80));
      ok((s) => { s.autoscaling = { maxReplicas: 4, targetMemoryUtilizationPercentage: 80 }; s.resources = { requests: { memory: '128Mi' } }; });
      bad((s) => delete s.resources.requests.cpu, 'spec.autoscaling.targetCPUUtilizationPercentage', /^spec\.autoscaling\.targetCPUUtilizationPercentage: requires spec\.resources\.requests\.cpu$/);
      bad((s) => { s.autoscaling.targetMemoryUtilizationPercentage = 80; delete s.resources; },
        'spec.autoscaling.targetMemoryUtilizationPercentage', /requires spec\.resources\.requests\.memory/);
    });
    it('a zero request gives the autoscaler nothing to take a percentage of: denied like a missing one', () => {
      bad((s) => (s.resources.requests.cpu = '0'), 'spec.autoscaling.targetCPUUtilizationPercentage', /requires spec\.resources\.requests\.cpu above 0/);
      bad((s) => (s.resources.requests.cpu = 0), 'spec.autoscaling.targetCPUUtilizationPercentage', /requires spec\.resources\.requests\.cpu above 0/);
      bad((s) => { s.autoscaling.targetMemoryUtilizationPercentage = 80; s.resources.requests.memory = '0Mi'; },
        'spec.autoscaling.targetMemoryUtilizationPercentage', /requires spec\.resources\.requests\.memory above 0/);
      ok((s) => (s.resources.requests.cpu = '1m'));
    });
  });

  it('unknown fields in the workload fields are rejected by path', () => {
    bad((s) => (s.volumes[0].hostPath = { path: '/' }), 'spec.volumes[0].hostPath', /unknown field/);
    bad((s) => (s.probes.readiness.grpc = { port: 1 }), 'spec.probes.readiness.grpc', /unknown field/);
    bad((s) => (s.probes.ready = {}), 'spec.probes.ready', /unknown field/);
    bad((s) => (s.securityContext.seLinuxOptions = {}), 'spec.securityContext.seLinuxOptions', /unknown field/);
    bad((s) => (s.env[1].valueFrom.secretKeyRef.namespace = 'x'), 'spec.env[1].valueFrom.secretKeyRef.namespace', /unknown field/);
    bad((s) => (s.autoscaling.metrics = []), 'spec.autoscaling.metrics', /unknown field/);
  });

  it('status takes the pod-template revisions', () => {
    accepts((_s, a) => (a.status = { stableImage: 'x:1', stableRevision: '03ae268b06', abortedRevision: 'ab12', canary: { image: 'x:2', revision: 'cd34', weight: 0, stepIndex: 0, stepStartedAt: '2026-01-10T10:00:00Z' } }));
    rejects((_s, a) => (a.status = { stableRevision: 7 }), 'status.stableRevision', /must be string/);
  });
});

describe('validation: fields over their bounds are named for that alone, without a look inside them; the rest of the App is checked', () => {
  // What a mutating admission can carry before the API server applies the CRD's schema: 3 MiB.
  it('a list over its maxItems: that problem for it, none of its 40,000 entries checked, and every other field\'s problem', () => {
    const errors = errorsOf((s) => {
      s.ingress = undefined;
      // Every entry is a problem of its own (an empty sectionName, the same parent twice): none is named.
      s.route = { parentRefs: Array.from({ length: 40_000 }, (_, i) => ({ name: 'g', sectionName: i % 2 ? 's' : '' })) };
      s.replicas = -1;
      s.env = [{ name: '1BAD', value: 'x' }];
    });
    assert.deepEqual(errors, ['spec.route.parentRefs: must NOT have more than 32 items', 'spec.replicas: must be >= 0', 'spec.env[0].name: must be a C identifier (letters, digits and _, not starting with a digit)']);
  });

  it('cuts a copy of the App to the bounds, leaving the App as it was', () => {
    const app = { spec: { list: [1, 2, 3, 4], map: { a: 1, b: 2, c: 3 }, text: 'abcdef', nested: [{ s: 'xyz' }], other: { kept: true } } };
    const before = JSON.stringify(app);
    const cut = cutToBounds(app, [
      { pointer: '/spec/list', message: '', bound: 2 }, { pointer: '/spec/map', message: '', bound: 1 },
      { pointer: '/spec/text', message: '', bound: 3 }, { pointer: '/spec/nested/0/s', message: '', bound: 1 },
      { pointer: '/spec/text', message: '', bound: 5 },
    ]) as typeof app;
    assert.deepEqual(cut, { spec: { list: [1, 2], map: { a: 1 }, text: 'abc', nested: [{ s: 'x' }], other: { kept: true } } });
    assert.equal(JSON.stringify(app), before);
    assert.equal(cut.spec.other, app.spec.other, 'what is not on the way to a cut field is not copied');
  });

  it('measures the pod template beside problems outside its fields (a bad replicas does not hide a template over the cap)', () => {
    const errors = errorsOf((s) => {
      s.replicas = -1;
      s.command = Array.from({ length: 200 }, () => 'x'.repeat(1000));
    });
    assert.equal(errors.length, 2, errors.join('\n'));
    assert.equal(errors[0], 'spec.replicas: must be >= 0');
    assert.match(errors[1]!, /^spec: the rendered pod template is \d+ KiB; at most 100 KiB/);
    // A problem in the template's own fields: not rendered, the problem alone.
    assert.deepEqual(errorsOf((s) => {
      s.port = 0;
      s.command = Array.from({ length: 200 }, () => 'x'.repeat(1000));
    }), ['spec.port: must be >= 1']);
    // Fields of a kind no valid App has elsewhere (a rollout of the wrong type): named, and no throw.
    assert.deepEqual(errorsOf((s) => {
      s.rollout = { strategy: 'Canary', steps: 'all of them' };
      s.command = ['x'];
    }), ['spec.rollout.steps: must be array']);
  });

  it('a map with no bound of its own, over 4096 entries; a string over its maxLength; each named by its path', () => {
    assert.deepEqual(errorsOf((s) => {
      s.podLabels = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, 'v']));
      s.resources = { requests: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`example.com/r${i}`, '1'])) };
    }), ['spec.podLabels: must NOT have more than 4096 properties', 'spec.resources.requests: must NOT have more than 4096 properties']);
    assert.deepEqual(errorsOf((s) => {
      s.rollout = { strategy: 'Canary', analysis: { metrics: [{ name: 'm', query: `sum(${'('.repeat(3000)}up${')'.repeat(3000)})`, max: 1 }] } };
    }), ['spec.rollout.analysis.metrics[0].query: must NOT have more than 4096 characters']);
  });

  it('takes a map key that names a property of every object (constructor) as a key like any other', () => {
    const schema = { type: 'object', properties: { fixed: { type: 'string', maxLength: 1 } }, additionalProperties: { type: 'string', maxLength: 5 } };
    assert.deepEqual(oversized({ constructor: 'too long', toString: 'too long', fixed: 'xx' }, schema as never, '/spec/m'), [
      { pointer: '/spec/m/constructor', message: 'must NOT have more than 5 characters', bound: 5 },
      { pointer: '/spec/m/toString', message: 'must NOT have more than 5 characters', bound: 5 },
      { pointer: '/spec/m/fixed', message: 'must NOT have more than 1 characters', bound: 1 },
    ]);
  });

  it('within the bounds, every check runs as before', () => {
    accepts((s) => (s.podLabels = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, 'v']))));
    rejects((s) => (s.route = { parentRefs: [{ name: 'g' }, { name: 'g' }] }, s.ingress = undefined), 'spec.route.parentRefs[1]', /same parent/);
  });
});
