// Real workloads on a real control plane: the pod template fields, the owned
// PodDisruptionBudget and HorizontalPodAutoscaler (in the versions discovery finds), the
// autoscaler's replica count left alone, and a canary for every pod-template change.
import { strict as assert } from 'node:assert';
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import type { AppSpec } from '../../shared/app-types.js';
import { appCount, condition, createApp, getApp, newNamespace, plain, testLogger } from '../support/apps.js';
import { auditedWrites } from '../support/audit.js';
import { useControllerCluster } from '../support/controller-cluster.js';
import { kubectl } from '../support/kube.js';
import { reconcileCount, resyncsGoBy } from '../support/metrics.js';
import { eventually } from '../../dev/wait.js';

const RESYNC_MS = 2_000;

describe('real workloads (real control plane)', function () {
  this.timeout(90_000);
  const cluster = useControllerCluster('workloads', {
    cluster: { controllerManager: true, auditPolicy: true },
    controllers: () => [{ resyncMs: RESYNC_MS, log: testLogger('controller') }],
  });
  const api = () => cluster.api;
  const k = (ns: string, args: string[]) => kubectl(cluster.cp.kubeconfigPath, ['-n', ns, ...args]);
  const deployment = (ns: string, name = 'web') => api().apps.readNamespacedDeployment({ namespace: ns, name }) as Promise<V1Deployment>;
  const maybe = async <T>(read: () => Promise<T>): Promise<T | undefined> => read().catch((err: { code?: number }) => {
    if (err.code === 404) return undefined;
    throw err;
  });
  const getJson = async (ns: string, kind: string, name: string) => JSON.parse(await k(ns, ['get', kind, name, '-o', 'json'])) as KubernetesObject & { spec: Record<string, any> };
  /** The object through kubectl (which names any served version), or undefined when it does not exist. */
  const find = (ns: string, kind: string, name: string) => getJson(ns, kind, name).catch((err: Error) => {
    if (/NotFound/.test(err.message)) return undefined;
    throw err;
  });
  const patchApp = (ns: string, patch: object) => k(ns, ['patch', 'app', 'web', '--type=merge', '-p', JSON.stringify(patch)]);
  const readyApp = (ns: string) => eventually(async () => {
    const app = await getApp(api(), ns, 'web');
    return condition(app, 'Ready')?.status === 'True' && app.status?.observedGeneration === app.metadata.generation && app;
  }, { timeoutMs: 30_000, message: 'the App to be Ready' });

  it('renders secret env, envFrom, a pull secret, volumes and probes into the Deployment\'s pod template', async () => {
    const ns = await newNamespace(api(), 'w');
    const spec: AppSpec = {
      image: 'registry.example/web:1',
      imagePullSecrets: [{ name: 'regcred' }],
      serviceAccountName: 'default',
      env: [{ name: 'MODE', value: 'prod' }, { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }],
      envFrom: [{ configMapRef: { name: 'web-cfg' }, prefix: 'CFG_' }],
      volumes: [
        { name: 'config', mountPath: '/etc/web', configMap: { name: 'web-cfg' } },
        { name: 'tls', mountPath: '/etc/tls', secret: { secretName: 'web-tls' } },
        { name: 'scratch', mountPath: '/tmp', emptyDir: { sizeLimit: '64Mi' } },
      ],
      probes: { readiness: { httpGet: { path: '/ready' }, periodSeconds: 5 }, liveness: { tcpSocket: {} } },
      securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
      podSecurityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
      terminationGracePeriodSeconds: 20,
    };
    await createApp(api(), ns, 'web', spec);
    const d = await eventually(() => deployment(ns), { timeoutMs: 20_000, message: 'the Deployment' });
    const pod = plain(d.spec!.template.spec!);
    const c = pod.containers[0];
    assert.deepEqual(pod.imagePullSecrets, [{ name: 'regcred' }]);
    assert.equal(pod.serviceAccountName, 'default');
    assert.deepEqual(c.env, spec.env);
    assert.deepEqual(c.envFrom, spec.envFrom);
    assert.deepEqual(pod.volumes!.map((v) => v.name), ['config', 'tls', 'scratch']);
    assert.equal(pod.volumes![1].secret!.secretName, 'web-tls');
    assert.equal(pod.volumes![2].emptyDir!.sizeLimit, '64Mi');
    assert.deepEqual(c.volumeMounts!.map((m) => [m.mountPath, m.readOnly ?? false]), [['/etc/web', true], ['/etc/tls', true], ['/tmp', false]]);
    assert.equal(c.readinessProbe!.httpGet!.path, '/ready');
    assert.equal(c.readinessProbe!.httpGet!.port, 8080, 'the probe port defaults to spec.port');
    assert.equal(c.readinessProbe!.periodSeconds, 5);
    assert.equal(c.livenessProbe!.tcpSocket!.port, 8080);
    assert.equal(c.securityContext!.readOnlyRootFilesystem, true);
    assert.deepEqual(c.securityContext!.capabilities, { drop: ['ALL'] });
    assert.equal(pod.securityContext!.runAsNonRoot, true);
    assert.equal(pod.tolerations![0].key, 'dedicated');
    assert.equal(pod.terminationGracePeriodSeconds, 20);
    // And the App rests: the API server's defaults inside probes and volumes are no difference.
    const app = await readyApp(ns);
    const generation = (await deployment(ns)).metadata!.generation;
    const since = Date.now();
    await resyncsGoBy({ n: 1, resyncMs: RESYNC_MS, reconciles: () => reconcileCount(cluster.controller), apps: () => appCount(api()), why: 'a resync of an App with every workload field' });
    assert.equal((await deployment(ns)).metadata!.generation, generation);
    assert.deepEqual(auditedWrites(cluster.cp.auditLogPath!, { agent: 'skiff-controller/', namespace: ns, sinceMs: since }).filter((w) => w.resource !== 'events'), []);
    assert.ok(app.status?.stableRevision, 'status.stableRevision is set');
  });

  it('pods a LimitRange refuses: Degraded ReplicaFailure in the API server\'s words long before the progress deadline, cleared once they can be created', async () => {
    const ns = await newNamespace(api(), 'w');
    const limit = (cpu: string) => JSON.stringify({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'cap', namespace: ns }, spec: { limits: [{ type: 'Container', max: { cpu } }] } });
    await kubectl(cluster.cp.kubeconfigPath, ['apply', '-f', '-'], limit('500m'));
    await createApp(api(), ns, 'web', { image: 'registry.example/web:1', replicas: 2, resources: { requests: { cpu: '800m' }, limits: { cpu: '1' } } });
    // The kube-controller-manager's ReplicaSet controller is refused by the LimitRanger admission
    // plugin and says so on the Deployment (ReplicaFailure); the default deadline is 600 s away.
    const refused = await eventually(async () => {
      const app = await getApp(api(), ns, 'web');
      const degraded = condition(app, 'Degraded');
      return degraded?.reason === 'ReplicaFailure' && app;
    }, { timeoutMs: 30_000, message: 'Degraded ReplicaFailure' });
    assert.match(condition(refused, 'Degraded')!.message, new RegExp(`^Deployment ${ns}/web cannot create pods: pods "web-[a-z0-9-]+" is forbidden: maximum cpu usage per Container is 500m, but limit is 1$`));
    assert.match(condition(refused, 'Ready')!.message, /pods cannot be created: pods "web-[a-z0-9-]+" is forbidden: maximum cpu usage per Container is 500m/);
    // Raised: the ReplicaSet controller creates the pods and takes its condition away.
    await kubectl(cluster.cp.kubeconfigPath, ['apply', '-f', '-'], limit('2'));
    await eventually(async () => condition(await getApp(api(), ns, 'web'), 'Degraded')?.reason === 'AsExpected', { timeoutMs: 60_000, message: 'Degraded cleared once the pods can be created' });
  });

  it('owns a PodDisruptionBudget and a HorizontalPodAutoscaler in the versions discovery finds, corrects them and removes them again', async () => {
    const ns = await newNamespace(api(), 'w');
    await createApp(api(), ns, 'web', {
      image: 'registry.example/web:1',
      replicas: 3,
      resources: { requests: { cpu: '100m' } },
      autoscaling: { minReplicas: 2, maxReplicas: 6, targetCPUUtilizationPercentage: 70 },
    });
    const app = await readyApp(ns);
    const owner = { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: app.metadata.uid, controller: true, blockOwnerDeletion: true };
    // This 1.20 server serves policy/v1beta1 and autoscaling/v2beta2 only: discovery picks them.
    // A 1.21+ server would get policy/v1, a 1.23+ server autoscaling/v2.
    const pdb = await eventually(() => find(ns, 'poddisruptionbudgets.v1beta1.policy', 'web'), { timeoutMs: 20_000, message: 'the PodDisruptionBudget' });
    assert.equal(pdb.apiVersion, 'policy/v1beta1');
    assert.deepEqual(pdb.metadata!.ownerReferences, [owner]);
    assert.equal(pdb.metadata!.labels!['skiff.dev/app'], 'web');
    assert.deepEqual(pdb.spec, { maxUnavailable: 1, selector: { matchLabels: { 'skiff.dev/app': 'web' } } });
    const hpa = await getJson(ns, 'horizontalpodautoscalers.v2beta2.autoscaling', 'web');
    assert.equal(hpa.apiVersion, 'autoscaling/v2beta2');
    assert.deepEqual(hpa.metadata!.ownerReferences, [owner]);
    assert.deepEqual(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' });
    assert.deepEqual([hpa.spec.minReplicas, hpa.spec.maxReplicas], [2, 6]);
    assert.deepEqual(hpa.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }]);

    // Drift is corrected.
    await k(ns, ['patch', 'poddisruptionbudgets.v1beta1.policy', 'web', '--type=merge', '-p', '{"spec":{"maxUnavailable":3}}']);
    await k(ns, ['patch', 'horizontalpodautoscalers.v2beta2.autoscaling', 'web', '--type=merge', '-p', '{"spec":{"maxReplicas":60}}']);
    await eventually(async () => (await getJson(ns, 'poddisruptionbudgets.v1beta1.policy', 'web')).spec.maxUnavailable === 1, { timeoutMs: 15_000, message: 'the PDB corrected' });
    await eventually(async () => (await getJson(ns, 'horizontalpodautoscalers.v2beta2.autoscaling', 'web')).spec.maxReplicas === 6, { timeoutMs: 15_000, message: 'the HPA corrected' });

    // Removed when no longer wanted.
    await k(ns, ['patch', 'app', 'web', '--type=json', '-p', JSON.stringify([{ op: 'remove', path: '/spec/autoscaling' }, { op: 'replace', path: '/spec/replicas', value: 1 }])]);
    await eventually(async () => !(await find(ns, 'horizontalpodautoscalers.v2beta2.autoscaling', 'web')), { timeoutMs: 15_000, message: 'the HPA removed' });
    await eventually(async () => !(await find(ns, 'poddisruptionbudgets.v1beta1.policy', 'web')), { timeoutMs: 15_000, message: 'the PDB removed below 2 replicas' });
    await eventually(async () => (await deployment(ns)).spec!.replicas === 1, { timeoutMs: 15_000, message: 'Skiff sets replicas again without autoscaling' });
  });

  it('an autoscaler with CPU and memory targets is written once: the API server gives its metrics back as applied, so no pass writes it again', async () => {
    const ns = await newNamespace(api(), 'w');
    const since = Date.now();
    await createApp(api(), ns, 'web', {
      image: 'registry.example/web:1', replicas: 2,
      resources: { requests: { cpu: '100m', memory: '64Mi' } },
      autoscaling: { minReplicas: 2, maxReplicas: 6, targetCPUUtilizationPercentage: 70, targetMemoryUtilizationPercentage: 80 },
    });
    await readyApp(ns);
    const hpa = await getJson(ns, 'horizontalpodautoscalers.v2beta2.autoscaling', 'web');
    assert.deepEqual(hpa.spec.metrics.map((m: { resource: { name: string } }) => m.resource.name).sort(), ['cpu', 'memory']);
    await resyncsGoBy({ n: 1, resyncMs: RESYNC_MS, reconciles: () => reconcileCount(cluster.controller), apps: () => appCount(api()), why: 'a resync of an App with an autoscaler' });
    const writes = auditedWrites(cluster.cp.auditLogPath!, { agent: 'skiff-controller/', namespace: ns, sinceMs: since }).filter((w) => w.resource === 'horizontalpodautoscalers');
    assert.equal(writes.length, 1, `the autoscaler written once, at its creation: ${JSON.stringify(writes)}`);
  });

  it('never writes back a replica count the autoscaler set, and hands replicas over without a dip', async () => {
    const ns = await newNamespace(api(), 'w');
    await createApp(api(), ns, 'web', { image: 'registry.example/web:1', replicas: 3, resources: { requests: { cpu: '100m' } } });
    await readyApp(ns);
    // Autoscaling on an App whose replicas Skiff applied so far; then a change that makes Skiff
    // apply the Deployment without replicas. Without a handover, the count would fall to 1.
    await patchApp(ns, { spec: { autoscaling: { minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 70 } } });
    await patchApp(ns, { spec: { terminationGracePeriodSeconds: 15 } });
    await eventually(async () => (await deployment(ns)).spec!.template.spec!.terminationGracePeriodSeconds === 15, { timeoutMs: 15_000, message: 'the new template applied' });
    assert.equal((await deployment(ns)).spec!.replicas, 3, 'replicas kept through the handover');

    // The autoscaler (here: a scale through the same subresource it uses) picks another count.
    await k(ns, ['scale', 'deployment', 'web', '--replicas=5']);
    const since = Date.now();
    await eventually(async () => (await getApp(api(), ns, 'web')).status?.replicas === 5, { timeoutMs: 15_000, message: 'status.replicas reports what runs' });
    await resyncsGoBy({ n: 2, resyncMs: RESYNC_MS, reconciles: () => reconcileCount(cluster.controller), apps: () => appCount(api()), why: 'resyncs that must not fight the autoscaler' });
    assert.equal((await deployment(ns)).spec!.replicas, 5);
    const deploymentWrites = auditedWrites(cluster.cp.auditLogPath!, { agent: 'skiff-controller/', namespace: ns, sinceMs: since }).filter((w) => w.resource.startsWith('deployments'));
    assert.deepEqual(deploymentWrites, [], 'no write to the Deployment after the autoscaler scaled it');
  });

  it('runs a canary for an env change: the canary has the new env, stable the old, until promotion', async () => {
    const ns = await newNamespace(api(), 'w');
    await createApp(api(), ns, 'web', {
      image: 'registry.example/web:1',
      replicas: 2,
      env: [{ name: 'MODE', value: 'prod' }],
      ingress: { host: 'web.example.com' },
      rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, steps: [{ setWeight: 50 }, { pause: {} }] },
    });
    const first = await readyApp(ns);
    // A change outside the pod template is applied directly and never starts a canary.
    await patchApp(ns, { spec: { replicas: 3 } });
    await eventually(async () => (await deployment(ns)).spec!.replicas === 3, { timeoutMs: 15_000, message: 'stable scaled' });
    assert.equal(await maybe(() => deployment(ns, 'web-canary')), undefined, 'replicas alone never start a canary');

    await patchApp(ns, { spec: { env: [{ name: 'MODE', value: 'debug' }] } });
    const paused = await eventually(async () => {
      const app = await getApp(api(), ns, 'web');
      return condition(app, 'Progressing')?.reason === 'CanaryPaused' && app;
    }, { timeoutMs: 30_000, message: 'the canary paused at 50%' });
    assert.equal(paused.status!.stableImage, 'registry.example/web:1', 'the image did not change');
    assert.equal(paused.status!.stableRevision, first.status!.stableRevision);
    assert.notEqual(paused.status!.canary!.revision, paused.status!.stableRevision);
    assert.deepEqual(paused.status!.canary!.changes, ['env MODE']);
    const envOf = (d: V1Deployment | undefined) => plain(d?.spec?.template.spec?.containers[0].env);
    assert.deepEqual(envOf(await deployment(ns, 'web-canary')), [{ name: 'MODE', value: 'debug' }]);
    assert.deepEqual(envOf(await deployment(ns)), [{ name: 'MODE', value: 'prod' }], 'stable keeps the old env during the canary');
    assert.equal((await deployment(ns, 'web-canary')).spec!.replicas, 2, 'ceil(3 × 50 / 100)');

    // Scaling mid-canary resizes the canary.
    await patchApp(ns, { spec: { replicas: 6 } });
    await eventually(async () => (await deployment(ns, 'web-canary')).spec!.replicas === 3, { timeoutMs: 15_000, message: 'canary resized to ceil(6 × 50 / 100)' });
    assert.equal((await deployment(ns)).spec!.replicas, 6);
    assert.deepEqual(envOf(await deployment(ns)), [{ name: 'MODE', value: 'prod' }], 'scaling keeps stable on its template');

    await k(ns, ['annotate', 'app', 'web', 'skiff.dev/promote=true']);
    await eventually(async () => {
      const app = await getApp(api(), ns, 'web');
      return !app.status?.canary && app.status?.stableRevision === paused.status!.canary!.revision && condition(app, 'Progressing')?.reason === 'RolloutComplete';
    }, { timeoutMs: 40_000, message: 'the promotion to complete' });
    assert.deepEqual(envOf(await deployment(ns)), [{ name: 'MODE', value: 'debug' }]);
    await eventually(async () => !(await maybe(() => deployment(ns, 'web-canary'))), { timeoutMs: 15_000, message: 'the canary Deployment gone' });
  });
});
