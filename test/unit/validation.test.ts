import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { withDefaults } from '../../shared/defaults.js';
import { fieldPath, formatErrors, validateApp } from '../../shared/validation.js';

const base = () => ({
  apiVersion: 'skiff.dev/v1alpha1',
  kind: 'App',
  metadata: { name: 'web', namespace: 'shop' },
  spec: withDefaults({ spec: { image: 'ghcr.io/acme/web:1.4.2', ingress: { host: 'web.example.com' } } }).spec as Record<string, unknown>,
});

type Edit = (spec: Record<string, any>, app: Record<string, any>) => void;

function errorsOf(edit: Edit): string[] {
  const a = base() as Record<string, any>;
  edit(a.spec, a);
  return validateApp(a).errors.map((e) => `${e.path}: ${e.message}`);
}

function rejects(edit: Edit, path: string, message?: RegExp) {
  const errors = errorsOf(edit);
  const hit = errors.find((e) => e.startsWith(`${path}: `));
  assert.ok(hit, `expected an error at ${path}, got ${JSON.stringify(errors)}`);
  if (message) assert.match(hit, message);
}

function accepts(edit: Edit) {
  assert.deepEqual(errorsOf(edit), []);
}

describe('validation', () => {
  it('accepts the defaulted minimal App', () => accepts(() => {}));

  describe('image', () => {
    for (const image of ['nginx', 'nginx:1.27', 'ghcr.io/acme/web:1.4.2', 'localhost:5000/a/b-c_d.e:v1', `nginx@sha256:${'a'.repeat(64)}`, 'registry.k8s.io/pause:3.9'])
      it(`accepts ${image}`, () => accepts((s) => (s.image = image)));
    for (const image of ['', 'Nginx', 'nginx:', 'a b', 'nginx:1.0:2', '-nginx', 'ghcr.io/acme/web@sha256:xyz'])
      it(`rejects ${JSON.stringify(image)}`, () => rejects((s) => (s.image = image), 'spec.image'));
    it('is required', () => rejects((s) => delete s.image, 'spec.image', /required/));
  });

  describe('numbers', () => {
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
    it('rejects a value that is not a quantity', () => rejects((s) => (s.resources = { limits: { memory: '12 MB' } }), 'spec.resources.limits.memory', /quantity/));
    it('rejects a request above its limit', () =>
      rejects((s) => (s.resources = { requests: { cpu: '1500m' }, limits: { cpu: '1' } }), 'spec.resources.requests.cpu', /no greater than the limit/));
    it('rejects an unknown key', () => rejects((s) => (s.resources = { request: {} }), 'spec.resources.request', /unknown field/));
  });

  describe('ingress', () => {
    it('accepts every path type', () => { for (const p of ['Prefix', 'Exact', 'ImplementationSpecific']) accepts((s) => (s.ingress.pathType = p)); });
    it('rejects a host that is not a DNS-1123 subdomain', () => rejects((s) => (s.ingress.host = 'Web_Shop.example.com'), 'spec.ingress.host', /DNS-1123 subdomain/));
    it('requires a host', () => rejects((s) => delete s.ingress.host, 'spec.ingress.host', /required/));
    it('rejects a path without a leading slash', () => rejects((s) => (s.ingress.path = 'shop'), 'spec.ingress.path', /start with "\/"/));
    it('rejects a bad TLS secret name', () => rejects((s) => (s.ingress.tlsSecretName = 'Web TLS'), 'spec.ingress.tlsSecretName'));
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
      rejects((s) => (s.rollout.strategy = 'BlueGreen'), 'spec.rollout.strategy');
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
    for (const f of ['app', 'app-full', 'canary-app']) {
      const sample = parse(readFileSync(new URL(`../../../config/samples/${f}.yaml`, import.meta.url), 'utf8'));
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
  });
});
