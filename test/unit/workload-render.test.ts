// Rendering of the workload fields: the pod template, its revision, the PodDisruptionBudget and
// the HorizontalPodAutoscaler, and the stable replicas under an autoscaler.
import { strict as assert } from 'node:assert';
import type { V1Deployment } from '@kubernetes/client-node';
import { templateChanges } from '../../controller/canary/changes.js';
import { currentReplicas, decide } from '../../controller/decide.js';
import { desiredHorizontalPodAutoscaler, desiredPodDisruptionBudget } from '../../controller/render/disruption-scaling.js';
import { pickVersions } from '../../controller/render/served-versions.js';
import { served } from '../../controller/discovery.js';
import type { Observed } from '../../controller/observe.js';
import { renderPodTemplate } from '../../shared/render/pod-template.js';
import { render } from '../../controller/render/render.js';
import { recordedPodTemplate } from '../../controller/render/pod-template-record.js';
import type { App, AppSpec } from '../../shared/app-types.js';
import { defaultedAppFixture } from '../support/app-fixture.js';

// Every App here is the same object (its uid is in the owner references), at its first generation.
const app = (spec: Partial<AppSpec> = {}, status?: App['status']) => defaultedAppFixture({ metadata: { uid: 'u1', generation: 1 }, spec, status });

const production: Partial<AppSpec> = {
  replicas: 3,
  imagePullSecrets: [{ name: 'regcred' }],
  serviceAccountName: 'web',
  env: [{ name: 'MODE', value: 'prod' }, { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
  envFrom: [{ secretRef: { name: 'web-env' } }, { configMapRef: { name: 'web-cfg' }, prefix: 'CFG_' }],
  volumes: [
    { name: 'config', mountPath: '/etc/web', configMap: { name: 'web-cfg', items: [{ key: 'app.yaml', path: 'app.yaml' }] } },
    { name: 'tls', mountPath: '/etc/tls', secret: { secretName: 'web-tls' } },
    { name: 'scratch', mountPath: '/tmp', emptyDir: { sizeLimit: '64Mi' } },
  ],
  probes: { readiness: { httpGet: { path: '/ready' }, periodSeconds: 5 }, liveness: { httpGet: { path: '/live' }, initialDelaySeconds: 10 }, startup: { tcpSocket: {}, failureThreshold: 30 } },
  podAnnotations: { 'prometheus.io/scrape': 'true' },
  podLabels: { team: 'shop' },
  podSecurityContext: { runAsNonRoot: true, fsGroup: 2000, seccompProfile: { type: 'RuntimeDefault' } },
  securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
  nodeSelector: { 'kubernetes.io/arch': 'amd64' },
  tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
  priorityClassName: 'high',
  terminationGracePeriodSeconds: 30,
  resources: { requests: { cpu: '100m', memory: '128Mi' } },
};

describe('workload rendering', () => {
  it('renders every pod field with the Kubernetes names and shapes', () => {
    const d = render(app(production)).deployment;
    const pod = d.spec!.template.spec!;
    const c = pod.containers[0];
    assert.deepEqual(c.env, production.env);
    assert.deepEqual(c.envFrom, production.envFrom);
    assert.deepEqual(pod.volumes, [
      { name: 'config', configMap: { name: 'web-cfg', items: [{ key: 'app.yaml', path: 'app.yaml' }] } },
      { name: 'tls', secret: { secretName: 'web-tls' } },
      { name: 'scratch', emptyDir: { sizeLimit: '64Mi' } },
    ]);
    assert.deepEqual(c.volumeMounts, [
      { name: 'config', mountPath: '/etc/web', readOnly: true },
      { name: 'tls', mountPath: '/etc/tls', readOnly: true },
      { name: 'scratch', mountPath: '/tmp' },
    ]);
    assert.deepEqual(c.readinessProbe, { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 5 });
    assert.deepEqual(c.livenessProbe, { httpGet: { path: '/live', port: 8080 }, initialDelaySeconds: 10 });
    assert.deepEqual(c.startupProbe, { tcpSocket: { port: 8080 }, failureThreshold: 30 });
    assert.deepEqual(c.securityContext, production.securityContext);
    assert.deepEqual(pod.securityContext, production.podSecurityContext);
    assert.deepEqual(pod.imagePullSecrets, [{ name: 'regcred' }]);
    assert.equal(pod.serviceAccountName, 'web');
    assert.deepEqual(pod.nodeSelector, { 'kubernetes.io/arch': 'amd64' });
    assert.deepEqual(pod.tolerations, production.tolerations);
    assert.equal(pod.priorityClassName, 'high');
    assert.equal(pod.terminationGracePeriodSeconds, 30);
    assert.deepEqual(d.spec!.template.metadata!.annotations, { 'prometheus.io/scrape': 'true' });
    assert.equal(d.spec!.template.metadata!.labels!.team, 'shop');
    assert.equal(d.spec!.template.metadata!.labels!['skiff.dev/track'], 'stable');
  });

  it('keeps an explicit probe port, and the readinessPath shorthand', () => {
    const c = render(app({ port: 9000, probes: { liveness: { httpGet: { path: '/l', port: 'admin' } } }, readinessPath: '/r' })).deployment.spec!.template.spec!.containers[0];
    assert.deepEqual(c.livenessProbe, { httpGet: { path: '/l', port: 'admin' } });
    assert.deepEqual(c.readinessProbe, { httpGet: { path: '/r', port: 9000 } });
  });

  it('an emptyDir may be writable or read-only; configMap and secret volumes are always read-only', () => {
    const c = render(app({ volumes: [{ name: 'a', mountPath: '/a', emptyDir: {}, readOnly: true }, { name: 'b', mountPath: '/b', secret: { secretName: 's' }, readOnly: false }] })).deployment.spec!.template.spec!.containers[0];
    assert.deepEqual(c.volumeMounts!.map((m) => m.readOnly), [true, true]);
  });

  it('spreads 2+ pods softly over nodes and zones, outside the revision', () => {
    const one = render(app({ replicas: 1 })).deployment;
    const three = render(app({ replicas: 3 })).deployment;
    assert.equal(one.spec!.template.spec!.topologySpreadConstraints, undefined);
    assert.deepEqual(three.spec!.template.spec!.topologySpreadConstraints, ['kubernetes.io/hostname', 'topology.kubernetes.io/zone'].map((topologyKey) => ({
      maxSkew: 1, topologyKey, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { 'skiff.dev/app': 'web', 'skiff.dev/track': 'stable' } },
    })));
    assert.equal(renderPodTemplate(app({ replicas: 1 }), 'stable').revision, renderPodTemplate(app({ replicas: 3 }), 'stable').revision);
  });

  describe('revision', () => {
    const base = renderPodTemplate(app(production), 'stable').revision;
    const changes: [string, Partial<AppSpec>][] = [
      ['image', { image: 'web:2' }],
      ['port', { port: 9090 }],
      ['command', { command: ['/bin/web'] }],
      ['args', { args: ['-v'] }],
      ['env value', { env: [{ name: 'MODE', value: 'dev' }] }],
      ['env source', { env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'c', key: 'mode' } } }] }],
      ['envFrom', { envFrom: [] }],
      ['resources', { resources: { requests: { cpu: '200m', memory: '128Mi' } } }],
      ['readiness probe', { probes: { ...production.probes, readiness: { httpGet: { path: '/other' } } } }],
      ['readinessPath', { probes: undefined, readinessPath: '/healthz' }],
      ['volumes', { volumes: production.volumes!.slice(1) }],
      ['pod annotations', { podAnnotations: {} }],
      ['pod labels', { podLabels: { team: 'other' } }],
      ['pod security context', { podSecurityContext: { runAsNonRoot: false } }],
      ['security context', { securityContext: { readOnlyRootFilesystem: false } }],
      ['node selector', { nodeSelector: {} }],
      ['tolerations', { tolerations: [] }],
      ['priority class', { priorityClassName: 'low' }],
      ['grace period', { terminationGracePeriodSeconds: 5 }],
      ['pull secrets', { imagePullSecrets: [] }],
      ['service account', { serviceAccountName: 'other' }],
    ];
    for (const [what, change] of changes) {
      it(`changes with ${what}`, () => assert.notEqual(renderPodTemplate(app({ ...production, ...change }), 'stable').revision, base));
    }
    const unchanged: [string, Partial<AppSpec>][] = [
      ['replicas', { replicas: 7 }],
      ['service', { service: { type: 'NodePort', port: 81 } }],
      ['ingress', { ingress: { host: 'web.example.com' } }],
      ['rollout', { rollout: { strategy: 'Canary', steps: [{ setWeight: 10 }] } }],
      ['disruption', { disruption: { minAvailable: 2 } }],
      ['autoscaling', { autoscaling: { minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 70 } }],
    ];
    for (const [what, change] of unchanged) {
      it(`does not change with ${what}`, () => assert.equal(renderPodTemplate(app({ ...production, ...change }), 'stable').revision, base));
    }
    it('is the same for the stable and the canary track', () => {
      assert.equal(renderPodTemplate(app(production), 'canary').revision, base);
    });
    it('is recorded on the stable Deployment with its template, and a tampered record is not trusted', () => {
      const d = render(app(production)).deployment;
      assert.deepEqual(recordedPodTemplate(d), renderPodTemplate(app(production), 'stable'));
      const tampered = structuredClone(d);
      tampered.metadata!.annotations!['skiff.dev/pod-template'] = tampered.metadata!.annotations!['skiff.dev/pod-template'].replace('web:1', 'evil:1');
      assert.equal(recordedPodTemplate(tampered), undefined);
    });
  });

  describe('PodDisruptionBudget', () => {
    it('is wanted from 2 replicas, with maxUnavailable 1 by default, selecting every pod of the App', () => {
      assert.equal(desiredPodDisruptionBudget(app({ replicas: 1 }), 'policy/v1'), undefined);
      assert.deepEqual(desiredPodDisruptionBudget(app({ replicas: 2 }), 'policy/v1'), {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: {
          name: 'web', namespace: 'shop',
          labels: { 'app.kubernetes.io/name': 'web', 'app.kubernetes.io/managed-by': 'skiff', 'skiff.dev/app': 'web', 'skiff.dev/track': 'stable' },
          ownerReferences: [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: 'u1', controller: true, blockOwnerDeletion: true }],
        },
        spec: { maxUnavailable: 1, selector: { matchLabels: { 'skiff.dev/app': 'web' } } },
      });
    });
    it('takes maxUnavailable or minAvailable, integer or percentage, in the served version', () => {
      assert.deepEqual((desiredPodDisruptionBudget(app({ replicas: 4, disruption: { minAvailable: '50%' } }), 'policy/v1beta1') as { spec: object }).spec, { minAvailable: '50%', selector: { matchLabels: { 'skiff.dev/app': 'web' } } });
      assert.equal(desiredPodDisruptionBudget(app({ replicas: 4, disruption: { maxUnavailable: 2 } }), 'policy/v1beta1')!.apiVersion, 'policy/v1beta1');
    });
    it('with autoscaling, follows minReplicas', () => {
      assert.equal(desiredPodDisruptionBudget(app({ replicas: 5, autoscaling: { minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 50 } }), 'policy/v1'), undefined);
      assert.ok(desiredPodDisruptionBudget(app({ replicas: 1, autoscaling: { minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 50 } }), 'policy/v1'));
    });
  });

  describe('HorizontalPodAutoscaler', () => {
    it('targets the stable Deployment with the CPU and memory targets given', () => {
      const hpa = desiredHorizontalPodAutoscaler(app({ autoscaling: { minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 70, targetMemoryUtilizationPercentage: 80 } }), 'autoscaling/v2beta2') as { apiVersion: string; spec: object };
      assert.equal(hpa.apiVersion, 'autoscaling/v2beta2');
      assert.deepEqual(hpa.spec, {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 2,
        maxReplicas: 10,
        // In the order every API server gives them back (1.20's stores the CPU target apart, last).
        metrics: [
          { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 80 } } },
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
        ],
      });
      assert.equal(desiredHorizontalPodAutoscaler(app(), 'autoscaling/v2'), undefined);
    });

    it('leaves the replicas of an existing Deployment to it, and starts a new one within its bounds', () => {
      const autoscaled = app({ replicas: 1, autoscaling: { minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 70 } });
      const observed = (stable?: V1Deployment): Observed => ({ cached: {}, stable, canary: { canaryObjectsExist: false } });
      const served = { horizontalPodAutoscaler: 'autoscaling/v2' as const };
      const fresh = decide(autoscaled, observed(), { versions: served }, new Date());
      assert.equal(fresh.stable.deployment.spec!.replicas, 2);
      const existing = { metadata: { name: 'web' }, spec: { replicas: 7 } } as V1Deployment;
      const later = decide(autoscaled, observed(existing), { versions: served }, new Date());
      assert.equal(later.stable.deployment.spec!.replicas, undefined, 'the autoscaler owns spec.replicas');
      assert.equal(later.replicas, 7);
      assert.equal(currentReplicas(app({ replicas: 3 }), existing), 3, 'without autoscaling spec.replicas rules');
    });

    it('where the cluster serves no autoscaling API: no autoscaler, and the Deployment keeps `replicas` within its bounds (nothing else would set its count)', () => {
      const observed = (stable?: V1Deployment): Observed => ({ cached: {}, stable, canary: { canaryObjectsExist: false } });
      const existing = { metadata: { name: 'web' }, spec: { replicas: 7 } } as V1Deployment;
      const within = decide(app({ replicas: 4, autoscaling: { minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 70 } }), observed(existing), { versions: {} }, new Date());
      assert.deepEqual([within.stable.horizontalPodAutoscaler, within.stable.deployment.spec!.replicas], [undefined, 4]);
      const below = decide(app({ replicas: 1, autoscaling: { minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 70 } }), observed(existing), { versions: {} }, new Date());
      assert.equal(below.stable.deployment.spec!.replicas, 2, 'raised to minReplicas');
    });
  });

  it('renders an env divisor given as a number as the string apply takes (a number is refused: "expected string")', () => {
    const env = renderPodTemplate(app({ env: [
      { name: 'MEMORY', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: 1 } } },
      { name: 'MEMORY_MI', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
    ] }), 'stable').template.spec?.containers[0].env;
    assert.deepEqual(env?.map((e) => e.valueFrom?.resourceFieldRef?.divisor), ['1', '1Mi']);
  });

  it('renders no `value: ""` beside valueFrom, which the API server would not store (its Deployment would differ from the render on every pass)', () => {
    const env = renderPodTemplate(app({ env: [{ name: 'POD', value: '', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'EMPTY', value: '' }] }), 'stable').template.spec?.containers[0].env;
    assert.deepEqual(env, [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'EMPTY', value: '' }]);
  });

  it('picks the newest served versions from discovery', () => {
    assert.deepEqual(pickVersions(new Set(['policy/v1beta1', 'autoscaling/v1', 'autoscaling/v2beta2'])), { podDisruptionBudget: 'policy/v1beta1', horizontalPodAutoscaler: 'autoscaling/v2beta2', httpRoute: undefined });
    assert.deepEqual(pickVersions(new Set(['policy/v1', 'policy/v1beta1', 'autoscaling/v2', 'autoscaling/v2beta2', 'gateway.networking.k8s.io/v1', 'gateway.networking.k8s.io/v1beta1'])), { podDisruptionBudget: 'policy/v1', horizontalPodAutoscaler: 'autoscaling/v2', httpRoute: 'gateway.networking.k8s.io/v1' });
    assert.deepEqual(pickVersions(new Set(['gateway.networking.k8s.io/v1beta1'])), { podDisruptionBudget: undefined, horizontalPodAutoscaler: undefined, httpRoute: undefined }, 'Skiff writes HTTPRoutes in v1 only');
  });

  it('uses the Gateway API only where its group/version serves HTTPRoutes (a partial install has a watch that never syncs)', async () => {
    const groups = { groups: [{ name: 'policy', versions: [{ groupVersion: 'policy/v1' }] }, { name: 'gateway.networking.k8s.io', versions: [{ groupVersion: 'gateway.networking.k8s.io/v1' }] }] };
    const asked: string[] = [];
    const clients = (resources: string[]) => ({
      apiGroups: async () => groups,
      apiResources: async (gv: string) => { asked.push(gv); return { resources: resources.map((name) => ({ name })) }; },
    });
    assert.equal((await served(clients(['gateways', 'gatewayclasses']))).httpRoute, undefined);
    assert.deepEqual(asked, ['gateway.networking.k8s.io/v1']);
    const all = await served(clients(['gateways', 'httproutes', 'httproutes/status']));
    assert.deepEqual([all.httpRoute, all.podDisruptionBudget], ['gateway.networking.k8s.io/v1', 'policy/v1']);
  });

  it('names what a canary changes in App terms', () => {
    const from = renderPodTemplate(app(production), 'stable').template;
    const to = renderPodTemplate(app({ ...production, image: 'web:2', env: [{ name: 'MODE', value: 'dev' }, ...production.env!.slice(1)], probes: { ...production.probes, liveness: undefined } }), 'stable').template;
    assert.deepEqual(templateChanges(from, to), ['image', 'probes.liveness', 'env MODE']);
    assert.deepEqual(templateChanges(from, from), []);
  });

  it('notes a change of env order, which matters when one variable refers to another', () => {
    const from = renderPodTemplate(app({ env: [{ name: 'A', value: '1' }, { name: 'B', value: '$(A)' }] }), 'stable').template;
    const to = renderPodTemplate(app({ env: [{ name: 'B', value: '$(A)' }, { name: 'A', value: '1' }] }), 'stable').template;
    assert.deepEqual(templateChanges(from, to), ['env (order)']);
  });

  it('an abort during promotion takes stable back to the template it ran before', () => {
    const v1 = app({ ...production, rollout: { strategy: 'Canary' }, ingress: { host: 'web.example.com' } });
    const r1 = renderPodTemplate(v1, 'stable').revision;
    const v2 = app({ ...v1.spec, env: [{ name: 'MODE', value: 'dev' }] }, { stableRevision: r1, stableImage: 'web:1' });
    const r2 = renderPodTemplate(v2, 'stable').revision;
    // Promoting: stable took v2's template, recording v1's as the previous one.
    const stableV1 = render(v1).deployment;
    const promoting = decide({ ...v2, status: { ...v2.status, canary: { image: 'web:1', revision: r2, weight: 20, stepIndex: 4, stepStartedAt: '2026-11-22T10:00:00Z' } } },
      { cached: {}, stable: stableV1, canary: { canaryObjectsExist: true, canaryDeployment: { revision: r2, replicas: 1, available: true }, stableDeployment: { revision: r1, available: true }, routerWeight: 20 } }, { versions: {} }, new Date());
    const stableV2 = promoting.stable.deployment;
    assert.equal(stableV2.metadata!.annotations!['skiff.dev/revision'], r2);
    assert.deepEqual(JSON.parse(stableV2.metadata!.annotations!['skiff.dev/previous-pod-template']), renderPodTemplate(v1, 'stable').template);
    // Aborted now: stable goes back to v1's template, found in the previous record.
    const aborting = decide({ ...v2, metadata: { ...v2.metadata, annotations: { 'skiff.dev/abort': 'true' } }, status: { ...v2.status, canary: { image: 'web:1', revision: r2, weight: 20, stepIndex: 4, stepStartedAt: '2026-11-22T10:00:00Z' } } },
      { cached: {}, stable: stableV2, canary: { canaryObjectsExist: true, canaryDeployment: { revision: r2, replicas: 1, available: true }, stableDeployment: { revision: r2, available: false }, routerWeight: 20 } }, { versions: {} }, new Date());
    assert.equal(aborting.rollout.phase, 'Aborted');
    assert.equal(aborting.stable.deployment.metadata!.annotations!['skiff.dev/revision'], r1);
    assert.deepEqual(aborting.stable.deployment.spec!.template.spec!.containers[0].env, production.env);
  });

  it('keeps stable on its recorded template during a canary of a new one', () => {
    const before = app({ ...production, rollout: { strategy: 'Canary' }, ingress: { host: 'web.example.com' } });
    const stable = { ...render(before).deployment, status: { observedGeneration: 1 } } as V1Deployment;
    stable.metadata = { ...stable.metadata, generation: 1 };
    const revision = renderPodTemplate(before, 'stable').revision;
    const after = app({ ...before.spec, env: [{ name: 'MODE', value: 'dev' }] }, { stableRevision: revision, stableImage: 'web:1' });
    const plan = decide(after, { cached: {}, stable, canary: { canaryObjectsExist: false, stableDeployment: { revision, available: true } } }, { versions: {} }, new Date());
    assert.equal(plan.rollout.phase, 'CanaryStep');
    assert.deepEqual(plan.stable.deployment.spec!.template, stable.spec!.template, 'stable runs what it ran');
    assert.deepEqual(plan.canary!.objects!.deployment.spec!.template.spec!.containers[0].env, [{ name: 'MODE', value: 'dev' }]);
    assert.deepEqual(plan.rollout.status.canary!.changes, ['env MODE', 'env DB_PASSWORD', 'env POD']);
  });
});
