import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { applyPatch, defaultsPatch, DEFAULT_CANARY_STEPS, withDefaults } from '../../shared/defaults.js';
import { validateApp } from '../../shared/validation.js';
import { appManifest } from '../support/app-fixture.js';

const app = (spec: Record<string, unknown>) => appManifest(spec, { namespace: null });

describe('defaults', () => {
  const table: { name: string; spec: Record<string, unknown>; ops: { path: string; value: unknown }[] }[] = [
    {
      name: 'a minimal App gets replicas, port, service and rollout',
      spec: { image: 'nginx:1.27' },
      ops: [
        { path: '/spec/replicas', value: 1 },
        { path: '/spec/revisionHistoryLimit', value: 10 },
        { path: '/spec/port', value: 8080 },
        { path: '/spec/service', value: { type: 'ClusterIP', port: 80 } },
        { path: '/spec/rollout', value: { strategy: 'RollingUpdate', progressDeadlineSeconds: 600, scaleDownDelaySeconds: 30, paused: false, trackConfig: false } },
      ],
    },
    {
      name: 'present fields are never overwritten, including zero values',
      spec: { image: 'nginx:1.27', replicas: 0, revisionHistoryLimit: 0, port: 3000, service: { type: 'NodePort', port: 8000 }, rollout: { strategy: 'RollingUpdate', progressDeadlineSeconds: 30, scaleDownDelaySeconds: 30, paused: false, trackConfig: false } },
      ops: [],
    },
    {
      name: 'a partial service gets only its missing fields',
      spec: { image: 'nginx:1.27', replicas: 2, revisionHistoryLimit: 10, port: 80, service: { type: 'LoadBalancer' }, rollout: { strategy: 'RollingUpdate', progressDeadlineSeconds: 600, scaleDownDelaySeconds: 30, paused: false, trackConfig: false } },
      ops: [{ path: '/spec/service/port', value: 80 }],
    },
    {
      name: 'an ingress gets path, pathType and className',
      spec: { image: 'nginx:1.27', replicas: 1, revisionHistoryLimit: 10, port: 8080, service: { type: 'ClusterIP', port: 80 }, ingress: { host: 'a.example.com' }, rollout: { strategy: 'RollingUpdate', progressDeadlineSeconds: 600, scaleDownDelaySeconds: 30, paused: false, trackConfig: false } },
      ops: [
        { path: '/spec/ingress/path', value: '/' },
        { path: '/spec/ingress/pathType', value: 'Prefix' },
        { path: '/spec/ingress/className', value: 'nginx' },
      ],
    },
    {
      name: 'Canary gets the four default steps and a deadline',
      spec: { image: 'nginx:1.27', replicas: 1, revisionHistoryLimit: 10, port: 8080, service: { type: 'ClusterIP', port: 80 }, ingress: { host: 'a.example.com', path: '/x', pathType: 'Exact', className: 'public' }, rollout: { strategy: 'Canary' } },
      ops: [
        { path: '/spec/rollout/progressDeadlineSeconds', value: 600 },
        { path: '/spec/rollout/scaleDownDelaySeconds', value: 30 },
        { path: '/spec/rollout/paused', value: false },
        { path: '/spec/rollout/trackConfig', value: false },
        { path: '/spec/rollout/steps', value: [{ setWeight: 20 }, { pause: { duration: '60s' } }, { setWeight: 50 }, { pause: {} }] },
      ],
    },
    {
      name: 'Canary with its own steps keeps them',
      spec: { image: 'nginx:1.27', replicas: 1, revisionHistoryLimit: 10, port: 8080, service: { type: 'ClusterIP', port: 80 }, ingress: { host: 'a.example.com', path: '/', pathType: 'Prefix', className: 'nginx' }, rollout: { strategy: 'Canary', progressDeadlineSeconds: 60, scaleDownDelaySeconds: 30, paused: true, trackConfig: false, steps: [{ setWeight: 100 }] } },
      ops: [],
    },
    {
      name: 'a rollout without strategy gets RollingUpdate and no steps',
      spec: { image: 'nginx:1.27', replicas: 1, revisionHistoryLimit: 10, port: 8080, service: { type: 'ClusterIP', port: 80 }, rollout: {} },
      ops: [
        { path: '/spec/rollout/strategy', value: 'RollingUpdate' },
        { path: '/spec/rollout/progressDeadlineSeconds', value: 600 },
        { path: '/spec/rollout/scaleDownDelaySeconds', value: 30 },
        { path: '/spec/rollout/paused', value: false },
        { path: '/spec/rollout/trackConfig', value: false },
      ],
    },
    {
      // api.md gives no defaults for the workload fields: a probe's port and the HPA's
      // minReplicas are filled in where they are used, so a later spec.port still applies.
      name: 'the workload fields get no defaults of their own',
      spec: {
        image: 'nginx:1.27',
        env: [{ name: 'A' }, { name: 'B', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
        volumes: [{ name: 'tmp', mountPath: '/tmp', emptyDir: {} }],
        probes: { readiness: { httpGet: {} }, startup: { tcpSocket: {} } },
        tolerations: [{ key: 'a', operator: 'Exists' }],
        disruption: {},
        autoscaling: { maxReplicas: 3, targetCPUUtilizationPercentage: 70 },
        podSecurityContext: {},
        securityContext: {},
      },
      ops: [
        { path: '/spec/replicas', value: 1 },
        { path: '/spec/revisionHistoryLimit', value: 10 },
        { path: '/spec/port', value: 8080 },
        { path: '/spec/service', value: { type: 'ClusterIP', port: 80 } },
        { path: '/spec/rollout', value: { strategy: 'RollingUpdate', progressDeadlineSeconds: 600, scaleDownDelaySeconds: 30, paused: false, trackConfig: false } },
      ],
    },
    {
      name: 'fields of the wrong type are left for validation to report',
      spec: { image: 'nginx:1.27', replicas: 1, revisionHistoryLimit: 10, port: 8080, service: 'oops', ingress: 7, rollout: [] },
      ops: [],
    },
  ];

  for (const row of table) {
    it(row.name, () => {
      const ops = defaultsPatch(app(row.spec));
      assert.deepEqual(ops, row.ops.map((o) => ({ op: 'add', ...o })));
    });
  }

  it('a route gets path "/" and tls false', () => {
    const ops = defaultsPatch(app({ image: 'x:1', route: { parentRefs: [{ name: 'gw' }] } }));
    assert.deepEqual(ops.filter((o) => o.path.startsWith('/spec/route')), [
      { op: 'add', path: '/spec/route/path', value: '/' },
      { op: 'add', path: '/spec/route/tls', value: false },
    ]);
    assert.deepEqual(defaultsPatch(app({ image: 'x:1', route: { parentRefs: [{ name: 'gw' }], path: '/a', tls: true } })).filter((o) => o.path.startsWith('/spec/route')), []);
  });

  it('analysis gets interval 1m, failureLimit 1, minRequests 10, noData Wait', () => {
    const ops = defaultsPatch(app({ image: 'x:1', ingress: { host: 'a.b' }, rollout: { strategy: 'Canary', analysis: { successRate: { min: 99 } } } }));
    assert.deepEqual(ops.filter((o) => o.path.startsWith('/spec/rollout/analysis')), [
      { op: 'add', path: '/spec/rollout/analysis/interval', value: '1m' },
      { op: 'add', path: '/spec/rollout/analysis/failureLimit', value: 1 },
      { op: 'add', path: '/spec/rollout/analysis/minRequests', value: 10 },
      { op: 'add', path: '/spec/rollout/analysis/noData', value: 'Wait' },
    ]);
  });

  it('gives nothing for something that is not an App', () => {
    for (const v of [null, 1, 'x', [], {}, { spec: null }, { spec: [] }]) assert.deepEqual(defaultsPatch(v), []);
  });

  it('is idempotent: the same App gives the same patch, the patched App gives none', () => {
    for (const row of table) {
      const a = app(row.spec);
      assert.deepEqual(defaultsPatch(a), defaultsPatch(structuredClone(a)));
      assert.deepEqual(defaultsPatch(withDefaults(a)), []);
    }
  });

  it('does not share the default steps between Apps', () => {
    const a = withDefaults(app({ image: 'x:1', ingress: { host: 'a.b' }, rollout: { strategy: 'Canary' } }));
    (a.spec.rollout as { steps: { setWeight?: number }[] }).steps[0].setWeight = 99;
    assert.equal(DEFAULT_CANARY_STEPS[0].setWeight, 20);
  });

  it('reads a null as a field left out: a defaulted one gets its default, any other goes, at any depth (server-side apply sends them)', () => {
    const sent = app({
      image: 'nginx:1.27', replicas: null, service: null, ingress: { host: 'a.b', path: null, className: null },
      env: [{ name: 'A', value: null }], podLabels: { 'team/x': null }, autoscaling: null,
      rollout: { strategy: 'Canary', steps: null, analysis: { interval: null, latency: { maxMs: 300 }, metrics: null } },
    });
    const defaulted = withDefaults(sent) as { spec: Record<string, unknown> };
    assert.deepEqual(defaulted.spec, withDefaults(app({
      image: 'nginx:1.27', ingress: { host: 'a.b' }, env: [{ name: 'A' }], podLabels: {},
      rollout: { strategy: 'Canary', analysis: { latency: { maxMs: 300 } } },
    })).spec);
    assert.deepEqual(validateApp(defaulted).errors, []);
    const ops = defaultsPatch(sent);
    assert.ok(ops.some((op) => op.op === 'remove' && op.path === '/spec/podLabels/team~1x'), JSON.stringify(ops));
    assert.deepEqual(applyPatch(sent, ops), defaulted);
    assert.equal((sent.spec as Record<string, unknown>).replicas, null, 'the input is left as it was');
    assert.deepEqual(defaultsPatch(defaulted), []);
  });

  it('leaves a null item of a list for validation to name', () => {
    const defaulted = withDefaults(app({ image: 'nginx:1.27', env: [null] }));
    assert.deepEqual((defaulted.spec as { env: unknown[] }).env, [null]);
    assert.match(validateApp(defaulted).errors.map((e) => `${e.path}: ${e.message}`).join('; '), /spec\.env\[0\]/);
  });

  it('takes out nulls nested far deeper than the stack goes', () => {
    let deep: Record<string, unknown> = { leaf: null };
    for (let i = 0; i < 20_000; i++) deep = { d: deep };
    const ops = defaultsPatch(app({ image: 'nginx:1.27', unknown: deep }));
    assert.equal(ops.filter((op) => op.op === 'remove').length, 1);
  });

  it('applyPatch adds values at the JSON pointer without touching the input', () => {
    const doc = { spec: { a: 1 } };
    const out = applyPatch(doc, [{ op: 'add', path: '/spec/b', value: { c: 2 } }]);
    assert.deepEqual(out, { spec: { a: 1, b: { c: 2 } } });
    assert.deepEqual(doc, { spec: { a: 1 } });
  });

  it('defaults the production sample (every workload field) once: the second patch is empty and the workload fields are untouched', () => {
    const sample = parse(readFileSync(new URL('../../../config/samples/app-production.yaml', import.meta.url), 'utf8'));
    const ops = defaultsPatch(sample);
    assert.deepEqual(ops.map((o) => o.path), ['/spec/ingress/path', '/spec/ingress/pathType', '/spec/ingress/className', '/spec/rollout/progressDeadlineSeconds', '/spec/rollout/scaleDownDelaySeconds', '/spec/rollout/paused', '/spec/rollout/trackConfig']);
    const defaulted = withDefaults(sample);
    assert.deepEqual(defaultsPatch(defaulted), []);
    const { ingress: _i, rollout: _r, ...rest } = defaulted.spec;
    const { ingress: _i2, rollout: _r2, ...before } = sample.spec;
    assert.deepEqual(rest, before);
    assert.deepEqual(validateApp(defaulted).errors, []);
  });

  it('always gives a valid App from a valid minimal one', () => {
    const a = withDefaults(app({ image: 'ghcr.io/acme/web:1.0', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary' } }));
    assert.deepEqual(validateApp(a).errors, []);
  });
});
