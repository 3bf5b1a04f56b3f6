import { strict as assert } from 'node:assert';
import type { App } from '../../shared/app-types.js';
import { render, renderCanary } from '../../controller/render/render.js';
import { containerImage } from '../../shared/render/pod-template.js';
import { defaulted } from '../../shared/defaults.js';

const meta = { name: 'web', namespace: 'shop', uid: 'uid-1', generation: 1 };
const minimal: App = { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: meta, spec: { image: 'nginx:1.27' } };
const full: App = {
  apiVersion: 'skiff.dev/v1alpha1',
  kind: 'App',
  metadata: meta,
  spec: {
    image: 'ghcr.io/acme/web:1.4.2',
    replicas: 3,
    port: 9090,
    command: ['/bin/web'],
    args: ['--verbose'],
    env: [{ name: 'MODE', value: 'prod' }, { name: 'EMPTY' }],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: 1, memory: '256Mi' } },
    readinessPath: '/healthz',
    service: { type: 'NodePort', port: 8000 },
    ingress: { host: 'web.shop.example.com', path: '/app', pathType: 'Exact', className: 'public', tlsSecretName: 'web-tls' },
    rollout: { strategy: 'RollingUpdate', progressDeadlineSeconds: 120 },
  },
};

const labels = (track: string) => ({
  'app.kubernetes.io/name': 'web',
  'app.kubernetes.io/managed-by': 'skiff',
  'skiff.dev/app': 'web',
  'skiff.dev/track': track,
});
const ownerReferences = [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: 'uid-1', controller: true, blockOwnerDeletion: true }];

describe('render', () => {
  it('renders a minimal App with every default', () => {
    const out = render(defaulted(minimal));
    const template = {
      metadata: { labels: labels('stable') },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }] }] },
    };
    const revision = out.deployment.metadata!.annotations!['skiff.dev/revision'];
    assert.match(revision, /^[0-9a-f]{10}$/);
    assert.deepEqual(out.deployment, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web', namespace: 'shop', labels: labels('stable'), ownerReferences,
        // What stable runs, recorded so that a canary of a later template can keep stable on it.
        annotations: { 'skiff.dev/revision': revision, 'skiff.dev/pod-template': JSON.stringify(template) },
      },
      spec: {
        replicas: 1,
        selector: { matchLabels: { 'skiff.dev/app': 'web', 'skiff.dev/track': 'stable' } },
        template,
        strategy: { type: 'RollingUpdate' },
        progressDeadlineSeconds: 600,
      },
    });
    assert.deepEqual(out.service, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'shop', labels: labels('stable'), ownerReferences },
      spec: {
        type: 'ClusterIP',
        selector: { 'skiff.dev/app': 'web', 'skiff.dev/track': 'stable' },
        ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }],
      },
    });
    assert.equal(out.ingress, undefined);
  });

  it('renders every field of a full App', () => {
    const out = render(defaulted(full));
    const c = out.deployment.spec!.template.spec!.containers[0];
    assert.deepEqual(c, {
      name: 'app',
      image: 'ghcr.io/acme/web:1.4.2',
      ports: [{ name: 'http', containerPort: 9090, protocol: 'TCP' }],
      command: ['/bin/web'],
      args: ['--verbose'],
      env: [{ name: 'MODE', value: 'prod' }, { name: 'EMPTY' }],
      resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '256Mi' } },
      readinessProbe: { httpGet: { path: '/healthz', port: 9090 } },
    });
    assert.equal(out.deployment.spec!.replicas, 3);
    assert.equal(out.deployment.spec!.progressDeadlineSeconds, 120);
    assert.deepEqual(out.service.spec, {
      type: 'NodePort',
      selector: { 'skiff.dev/app': 'web', 'skiff.dev/track': 'stable' },
      ports: [{ name: 'http', port: 8000, targetPort: 'http', protocol: 'TCP' }],
    });
    assert.deepEqual(out.ingress, {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'web', namespace: 'shop', labels: labels('stable'), ownerReferences },
      spec: {
        ingressClassName: 'public',
        rules: [{ host: 'web.shop.example.com', http: { paths: [{ path: '/app', pathType: 'Exact', backend: { service: { name: 'web', port: { number: 8000 } } } }] } }],
        tls: [{ hosts: ['web.shop.example.com'], secretName: 'web-tls' }],
      },
    });
  });

  it('defaults the ingress path, pathType and class, and omits tls without a secret', () => {
    const out = render(defaulted({ ...minimal, spec: { image: 'nginx:1.27', ingress: { host: 'web.example.com' } } }));
    assert.deepEqual(out.ingress!.spec, {
      ingressClassName: 'nginx',
      rules: [{ host: 'web.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }],
    });
  });

  it('renders the canary Deployment and Service with the same builders', () => {
    const { deployment: d, service: s } = renderCanary(defaulted({ ...full, spec: { ...full.spec, image: 'ghcr.io/acme/web:1.5.0' } }), 1);
    assert.equal(d.metadata!.name, 'web-canary');
    assert.deepEqual(d.metadata!.labels, labels('canary'));
    assert.deepEqual(d.spec!.selector.matchLabels, { 'skiff.dev/app': 'web', 'skiff.dev/track': 'canary' });
    assert.equal(containerImage(d), 'ghcr.io/acme/web:1.5.0');
    assert.equal(d.spec!.replicas, 1);
    assert.deepEqual(d.spec!.template.spec!.containers[0].env, [{ name: 'MODE', value: 'prod' }, { name: 'EMPTY' }]);
    assert.equal(s.metadata!.name, 'web-canary');
    assert.deepEqual(s.metadata!.labels, labels('canary'));
    assert.deepEqual(s.spec!.selector, { 'skiff.dev/app': 'web', 'skiff.dev/track': 'canary' });
    // Reached only through the canary route: never a NodePort or LoadBalancer like stable's.
    assert.equal(s.spec!.type, 'ClusterIP');
    assert.deepEqual(s.spec!.ports, [{ name: 'http', port: 8000, targetPort: 'http', protocol: 'TCP' }]);
  });

  it('keeps an empty env value as the empty string', () => {
    const out = render(defaulted({ ...minimal, spec: { image: 'nginx:1.27', env: [{ name: 'FLAG', value: '' }] } }));
    assert.deepEqual(out.deployment.spec!.template.spec!.containers[0].env, [{ name: 'FLAG', value: '' }]);
  });

  it('does not modify the App it is given', () => {
    const app = defaulted(full);
    const copy = structuredClone(app);
    render(app);
    renderCanary(app, 2);
    assert.deepEqual(app, copy);
  });
});
