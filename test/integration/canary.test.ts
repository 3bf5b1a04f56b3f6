// Canary rollouts on a real control plane (etcd, kube-apiserver, kube-controller-manager) with
// the pod simulator standing in for the kubelet, and the `kubectl skiff` plugin against them.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Watch, type KubeConfig, type KubernetesObject, type V1Deployment, type V1Ingress } from '@kubernetes/client-node';
import type { ControlPlane } from '../../dev/control-plane.js';
import type { App, AppSpec, CanaryStep, RolloutSpec } from '../../shared/app-types.js';
import type { KubeClients } from '../../dev/kube-clients.js';
import { rolloutState } from '../../controller/state/deployment-state.js';
import { kubectl } from '../support/kube.js';
import { useControllerCluster } from '../support/controller-cluster.js';
import { appCount, condition, createApp, getApp, newNamespace, observeFor, testLogger } from '../support/apps.js';
import { reconcileCount, sampleSum } from '../support/metrics.js';
import { eventually, until } from '../../dev/wait.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const log = testLogger('controller');

// The cluster of the suite below, for the helpers outside it.
let cp: ControlPlane;
let kc: KubeConfig;
let api: KubeClients;

const WEIGHT = 'nginx.ingress.kubernetes.io/canary-weight';

function canarySpec(image: string, steps: CanaryStep[], extra: Partial<RolloutSpec> = {}): AppSpec {
  return {
    image,
    replicas: 4,
    ingress: { host: 'web.example.com' },
    // The delay before a finished canary's pods go has tests of its own (traffic-safety.test).
    rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, steps, ...extra },
  };
}

const mergePatchApp = (namespace: string, patch: object) =>
  kubectl(cp.kubeconfigPath, ['patch', 'app', 'web', '-n', namespace, '--type=merge', '-p', JSON.stringify(patch)]);

async function readOrUndefined<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

const canaryIngress = (ns: string) => readOrUndefined(() => api.networking.readNamespacedIngress({ namespace: ns, name: 'web-canary' }));
const canaryDeployment = (ns: string) => readOrUndefined(() => api.apps.readNamespacedDeployment({ namespace: ns, name: 'web-canary' }));
const stableDeployment = (ns: string) => api.apps.readNamespacedDeployment({ namespace: ns, name: 'web' });
const image = (d: V1Deployment | undefined) => d?.spec?.template.spec?.containers[0]?.image;

/** A stable App, deployed and available, ready for a canary of a new image. */
async function stableApp(steps: CanaryStep[], extra: Partial<RolloutSpec> = {}): Promise<string> {
  const ns = await newNamespace(api, 'c');
  await createApp(api, ns, 'web', canarySpec('registry.example/web:1', steps, extra));
  await eventually(async () => {
    const app = await getApp(api, ns, 'web');
    return app.status?.stableImage === 'registry.example/web:1' && condition(app, 'Ready')?.status === 'True';
  }, { timeoutMs: 30_000, message: 'the first version to be Ready (never a canary)' });
  assert.equal(await canaryDeployment(ns), undefined, 'the first deployment of an App is never a canary');
  return ns;
}

/** Records every version of the objects of a namespace the watch sees, in etcd order. */
async function recordHistory(ns: string) {
  const seen: { kind: string; rv: number; obj: KubernetesObject }[] = [];
  const watch = new Watch(kc);
  const requests = await Promise.all(
    [['Deployment', `/apis/apps/v1/namespaces/${ns}/deployments`], ['Ingress', `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`]].map(([kind, path]) =>
      watch.watch(path, {}, (_type: string, obj: KubernetesObject) => seen.push({ kind, rv: Number(obj.metadata?.resourceVersion), obj }), () => {})),
  );
  return { seen, stop: () => requests.forEach((r) => r.abort()) };
}

describe('canary rollouts (real control plane)', function () {
  this.timeout(90_000);
  const cluster = useControllerCluster('canary', {
    cluster: { controllerManager: true },
    controllers: () => [{ resyncMs: 30_000, watchBrokenLimitMs: 5_000, log }],
  });
  before(() => {
    ({ cp, kc, api } = cluster);
  });

  it('runs every step to the end and leaves only the stable objects on the new image; no weight before the canary is available', async () => {
    const ns = await stableApp([{ setWeight: 25 }, { pause: { duration: '2s' } }, { setWeight: 50 }, { pause: { duration: '1s' } }], { canaryHeader: 'X-Canary' });
    const history = await recordHistory(ns);
    try {
      await mergePatchApp(ns, { spec: { image: 'registry.example/web:2' } });

      const ingress = await eventually(async () => (await canaryIngress(ns))?.metadata?.annotations?.[WEIGHT] === '25' && canaryIngress(ns), { timeoutMs: 30_000, message: 'canary weight 25' });
      assert.equal(ingress.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary'], 'true');
      assert.equal(ingress.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-by-header'], 'X-Canary');
      assert.equal(ingress.spec?.rules?.[0]?.host, 'web.example.com');
      assert.equal(ingress.spec?.rules?.[0]?.http?.paths[0]?.backend.service?.name, 'web-canary');
      const canary = await canaryDeployment(ns);
      assert.equal(image(canary), 'registry.example/web:2');
      assert.equal(canary?.spec?.replicas, 1, 'ceil(4 x 25%) = 1');
      assert.equal(image(await stableDeployment(ns)), 'registry.example/web:1', 'stable keeps the old image during the canary');
      let app = await getApp(api, ns, 'web');
      assert.equal(app.status?.canary?.image, 'registry.example/web:2');
      assert.equal(app.status?.stableImage, 'registry.example/web:1');

      await eventually(async () => (await canaryDeployment(ns))?.spec?.replicas === 2 && (await canaryIngress(ns))?.metadata?.annotations?.[WEIGHT] === '50', { timeoutMs: 30_000, message: 'step 3: weight 50 with 2 canary replicas' });

      app = await eventually(async () => {
        const a = await getApp(api, ns, 'web');
        return a.status?.stableImage === 'registry.example/web:2' && !a.status.canary && a;
      }, { timeoutMs: 40_000, message: 'the rollout to complete' });
      assert.equal(condition(app, 'Progressing')?.reason, 'RolloutComplete');
      assert.equal(condition(app, 'Degraded')?.status, 'False');
      assert.equal(image(await stableDeployment(ns)), 'registry.example/web:2');
      await eventually(async () => !(await canaryDeployment(ns)) && !(await canaryIngress(ns)) && !(await readOrUndefined(() => api.core.readNamespacedService({ namespace: ns, name: 'web-canary' }))), { timeoutMs: 15_000, message: 'the canary objects to be gone' });
      // The main Ingress was never pointed elsewhere.
      const main = await api.networking.readNamespacedIngress({ namespace: ns, name: 'web' });
      assert.equal(main.spec?.rules?.[0]?.http?.paths[0]?.backend.service?.name, 'web');
    } finally {
      history.stop();
    }

    // Traffic never went to a canary with no ready pods: every canary Ingress version with a
    // weight above 0 comes (in etcd order) after a version of the canary Deployment that was
    // available at the size of that step.
    const weighted = history.seen.filter((e) => e.kind === 'Ingress' && e.obj.metadata?.name === 'web-canary' && Number((e.obj as V1Ingress).metadata?.annotations?.[WEIGHT] ?? 0) > 0);
    assert.ok(weighted.length > 0, 'the watch saw weighted canary Ingress versions');
    for (const w of weighted) {
      const weight = Number((w.obj as V1Ingress).metadata!.annotations![WEIGHT]);
      const availableBefore = history.seen.some((e) => e.kind === 'Deployment' && e.obj.metadata?.name === 'web-canary' && e.rv < w.rv
        && rolloutState(e.obj as V1Deployment).available && (e.obj as V1Deployment).spec?.replicas === Math.ceil((4 * weight) / 100));
      assert.ok(availableBefore, `weight ${weight} (resourceVersion ${w.rv}) was set before the canary Deployment was available`);
    }
    // Nor did the requests carrying the header, which reach the canary at any weight: every canary
    // Ingress version routing the header comes after a version of the canary Deployment with a ready pod.
    const headed = history.seen.filter((e) => e.kind === 'Ingress' && e.obj.metadata?.name === 'web-canary' && (e.obj as V1Ingress).metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-by-header'] !== undefined);
    assert.ok(headed.length > 0, 'the watch saw canary Ingress versions routing the header');
    for (const h of headed) {
      const readyBefore = history.seen.some((e) => e.kind === 'Deployment' && e.obj.metadata?.name === 'web-canary' && e.rv < h.rv && ((e.obj as V1Deployment).status?.readyReplicas ?? 0) > 0);
      assert.ok(readyBefore, `the header was routed (resourceVersion ${h.rv}) before the canary had a ready pod`);
    }
    // Once routed, the header stayed until the canary Ingress went: step 3 scaling the canary from
    // 1 pod to 2 left its ready pod as it was, and those requests with it.
    const headers = history.seen.filter((e) => e.kind === 'Ingress' && e.obj.metadata?.name === 'web-canary').sort((a, b) => a.rv - b.rv)
      .map((e) => `${e.rv}:${(e.obj as V1Ingress).metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-by-header'] ?? '-'}`);
    const first = headers.findIndex((h) => h.endsWith(':X-Canary'));
    assert.ok(headers.slice(first).every((h) => h.endsWith(':X-Canary')), `the header left the routing and came back: ${headers.join(' ')}`);
  });

  it('the stable Deployment deleted mid-canary comes back on the stable image, never the canary\'s (watch-recorded)', async () => {
    const ns = await stableApp([{ setWeight: 25 }, { pause: {} }]);
    await mergePatchApp(ns, { spec: { image: 'registry.example/web:2' } });
    await eventually(async () => (await canaryIngress(ns))?.metadata?.annotations?.[WEIGHT] === '25', { timeoutMs: 30_000, message: 'canary weight 25' });
    const before = await stableDeployment(ns);
    const history = await recordHistory(ns);
    try {
      // As kubectl deletes it (in the background): its ReplicaSet and pods go after it.
      await api.apps.deleteNamespacedDeployment({ namespace: ns, name: 'web', body: { propagationPolicy: 'Background' } });
      await eventually(async () => {
        const d = await readOrUndefined(() => stableDeployment(ns));
        return d !== undefined && d.metadata?.uid !== before.metadata?.uid;
      }, { timeoutMs: 30_000, message: 'the stable Deployment made again' });
      await observeFor(2_000, 'the Deployment settling, the canary holding at its pause');
    } finally {
      history.stop();
    }
    const versions = history.seen.filter((e) => e.kind === 'Deployment' && e.obj.metadata?.name === 'web' && e.obj.metadata?.uid !== before.metadata?.uid);
    assert.ok(versions.length > 0, 'the watch saw the Deployment made again');
    for (const v of versions) {
      assert.equal(image(v.obj as V1Deployment), 'registry.example/web:1', `resourceVersion ${v.rv}`);
      assert.equal(v.obj.metadata?.annotations?.['skiff.dev/revision'], before.metadata?.annotations?.['skiff.dev/revision']);
    }
    assert.deepEqual((await stableDeployment(ns)).spec?.template.spec, before.spec?.template.spec, 'the template stable ran');
    assert.equal(image(await canaryDeployment(ns)), 'registry.example/web:2');
    assert.equal((await canaryIngress(ns))?.metadata?.annotations?.[WEIGHT], '25');
  });

  it('replicas across one pod mid-canary (the spreading changes the canary\'s template within its revision): its pods keep the header\'s requests, and no unavailable count starts (watch-recorded)', async () => {
    const ns = await stableApp([{ setWeight: 50 }, { pause: {} }], { canaryHeader: 'X-Canary' });
    await mergePatchApp(ns, { spec: { image: 'registry.example/web:2' } });
    await eventually(async () => condition(await getApp(api, ns, 'web'), 'Progressing')?.reason === 'CanaryPaused'
      && (await canaryIngress(ns))?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-by-header'] === 'X-Canary', { timeoutMs: 30_000, message: 'paused at 50% with the header routed' });
    const history = await recordHistory(ns);
    const apps: App[] = [];
    const appWatch = await new Watch(kc).watch(`/apis/skiff.dev/v1alpha1/namespaces/${ns}/apps`, {}, (_type: string, obj: App) => apps.push(obj), () => {});
    try {
      // 4 to 1 replicas: the canary goes from 2 pods to 1, and its template loses the spreading.
      await mergePatchApp(ns, { spec: { replicas: 1 } });
      await eventually(async () => {
        const d = await canaryDeployment(ns);
        return d?.spec?.replicas === 1 && !d.spec.template.spec?.topologySpreadConstraints && rolloutState(d).available;
      }, { timeoutMs: 30_000, message: 'the canary at 1 pod, without the spreading, rolled out' });
      await observeFor(2_000, 'the routing after the canary rolled its pod over');
    } finally {
      history.stop();
      appWatch.abort();
    }
    const headers = history.seen.filter((e) => e.kind === 'Ingress' && e.obj.metadata?.name === 'web-canary').sort((a, b) => a.rv - b.rv)
      .map((e) => `${e.rv}:${(e.obj as V1Ingress).metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-by-header'] ?? '-'}`);
    assert.ok(headers.every((h) => h.endsWith(':X-Canary')), `the header left the routing: ${headers.join(' ')}`);
    const counted = apps.filter((a) => a.status?.canary?.unavailableSince !== undefined).map((a) => a.metadata.resourceVersion);
    assert.deepEqual(counted, [], 'no App version recorded the canary as unavailable');
    assert.ok(apps.length > 0 && history.seen.some((e) => e.kind === 'Deployment' && e.obj.metadata?.name === 'web-canary'), 'the watches saw the change');
  });

  it('waits at a pause without duration until promoted, then removes the annotation', async () => {
    const ns = await stableApp([{ setWeight: 50 }, { pause: {} }]);
    await mergePatchApp(ns, { spec: { image: 'registry.example/web:2' } });
    await eventually(async () => condition(await getApp(api, ns, 'web'), 'Progressing')?.reason === 'CanaryPaused', { timeoutMs: 30_000, message: 'CanaryPaused' });
    // A window, not a poll: the pause must NOT end by itself, and an absence has no event to wait for.
    await observeFor(3_000, 'a pause without duration holds');
    // Then a change to the App that asks nothing (an annotation of ours) makes the controller look at
    // it again: once that reconcile is done, the status below is what a controller 3 s into the
    // pause decides, not one written before the window.
    const reconcilesBefore = await reconcileCount(cluster.controller);
    await mergePatchApp(ns, { metadata: { annotations: { 'test.skiff.dev/poke': 'after-3s' } } });
    await until(async () => assert.ok((await reconcileCount(cluster.controller)) > reconcilesBefore), { timeoutMs: 10_000, intervalMs: 50, message: 'a reconcile after the window' });
    let app = await getApp(api, ns, 'web');
    assert.equal(app.status?.canary?.stepIndex, 1, 'still paused after 3 s');
    assert.equal(app.status?.stableImage, 'registry.example/web:1');

    await execPlugin(['promote', 'web', '-n', ns]);
    app = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return a.status?.stableImage === 'registry.example/web:2' && !a.status.canary && a;
    }, { timeoutMs: 40_000, message: 'promotion to complete' });
    // Removed by a write of its own after the status write that records the promotion.
    await eventually(async () => (await getApp(api, ns, 'web')).metadata.annotations?.['skiff.dev/promote'] === undefined, { timeoutMs: 10_000, message: 'the promote annotation removed' });
    await eventually(async () => !(await canaryDeployment(ns)), { timeoutMs: 15_000, message: 'canary Deployment deleted' });
  });

  it('removes ingress-nginx canary annotations added by hand to its Ingresses (they would route around the weight), keeping other hand annotations', async () => {
    const ns = await stableApp([{ setWeight: 20 }, { pause: {} }]);
    await mergePatchApp(ns, { spec: { image: 'registry.example/web:2' } });
    await eventually(async () => (await canaryIngress(ns))?.metadata?.annotations?.[WEIGHT] === '20', { timeoutMs: 30_000, message: 'weight 20' });
    const annotate = (name: string, annotations: Record<string, string>) =>
      kubectl(cp.kubeconfigPath, ['annotate', 'ingress', name, '-n', ns, '--overwrite', ...Object.entries(annotations).map(([k, v]) => `${k}=${v}`)]);
    // By cookie or by header, every request that carries them goes to the canary, at any weight.
    await annotate('web-canary', { 'nginx.ingress.kubernetes.io/canary-by-cookie': 'beta', 'nginx.ingress.kubernetes.io/canary-by-header': 'X-Beta', 'nginx.ingress.kubernetes.io/canary-by-header-value': 'on', 'example.com/owner': 'team-a' });
    // On the main Ingress, canary "true" makes it a canary of nothing: the host would lose its stable backend.
    await annotate('web', { 'nginx.ingress.kubernetes.io/canary': 'true', 'example.com/owner': 'team-a' });
    const canaryKeys = (i: V1Ingress | undefined) => Object.keys(i?.metadata?.annotations ?? {}).filter((k) => k.startsWith('nginx.ingress.kubernetes.io/canary')).sort();
    await until(async () => {
      const canary = await canaryIngress(ns);
      const main = await api.networking.readNamespacedIngress({ namespace: ns, name: 'web' });
      assert.deepEqual(canaryKeys(canary), ['nginx.ingress.kubernetes.io/canary', 'nginx.ingress.kubernetes.io/canary-weight', 'nginx.ingress.kubernetes.io/canary-weight-total']);
      assert.equal(canary?.metadata?.annotations?.[WEIGHT], '20');
      assert.deepEqual(canaryKeys(main), []);
      assert.equal(canary?.metadata?.annotations?.['example.com/owner'], 'team-a', 'not a routing annotation: not the App\'s to remove');
      assert.equal(main.metadata?.annotations?.['example.com/owner'], 'team-a');
    }, { timeoutMs: 15_000, message: 'the hand-added canary annotations removed' });
  });

  it('aborts by annotation: weight to 0, canary removed, Degraded RolloutAborted until the image changes', async () => {
    const ns = await stableApp([{ setWeight: 50 }, { pause: {} }]);
    await mergePatchApp(ns, { spec: { image: 'registry.example/web:2' } });
    await eventually(async () => (await canaryIngress(ns))?.metadata?.annotations?.[WEIGHT] === '50', { timeoutMs: 30_000, message: 'weight 50' });
    const history = await recordHistory(ns);
    let app: App;
    try {
      await execPlugin(['abort', 'web', '-n', ns]);
      app = await eventually(async () => {
        const a = await getApp(api, ns, 'web');
        return condition(a, 'Degraded')?.reason === 'RolloutAborted' && !(await canaryIngress(ns)) && !(await canaryDeployment(ns)) && a;
      }, { timeoutMs: 30_000, message: 'the abort to finish' });
    } finally {
      history.stop();
    }
    assert.equal(condition(app, 'Degraded')?.status, 'True');
    assert.equal(app.status?.stableImage, 'registry.example/web:1');
    await eventually(async () => (await getApp(api, ns, 'web')).metadata.annotations?.['skiff.dev/abort'] === undefined, { timeoutMs: 10_000, message: 'the abort annotation removed' });
    assert.equal(image(await stableDeployment(ns)), 'registry.example/web:1');
    // The weight went to 0 before the canary Ingress was deleted.
    const versions = history.seen.filter((e) => e.kind === 'Ingress' && e.obj.metadata?.name === 'web-canary');
    assert.ok(versions.some((e) => (e.obj as V1Ingress).metadata?.annotations?.[WEIGHT] === '0'), 'a version at weight 0 before deletion');

    // A new image rolls out again and clears Degraded.
    await mergePatchApp(ns, { spec: { image: 'registry.example/web:3' } });
    await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return a.status?.canary?.image === 'registry.example/web:3' && condition(a, 'Degraded')?.status === 'False';
    }, { timeoutMs: 30_000, message: 'a new canary after the abort' });
  });

  it('aborts by itself with ProgressDeadlineExceeded when the canary never becomes available', async () => {
    const ns = await stableApp([{ setWeight: 50 }, { pause: {} }], { progressDeadlineSeconds: 5 });
    await mergePatchApp(ns, { spec: { image: 'registry.example/web:never-ready' } });
    const app = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return condition(a, 'Degraded')?.reason === 'ProgressDeadlineExceeded' && a;
    }, { timeoutMs: 40_000, message: 'ProgressDeadlineExceeded' });
    assert.equal(app.status?.stableImage, 'registry.example/web:1');
    assert.equal(app.status?.abortedImage, 'registry.example/web:never-ready');
    const ingress = await canaryIngress(ns);
    assert.ok(!ingress || ingress.metadata?.annotations?.[WEIGHT] === '0', 'no traffic ever went to the unready canary');
    await eventually(async () => !(await canaryDeployment(ns)) && !(await canaryIngress(ns)), { timeoutMs: 20_000, message: 'canary objects removed' });
  });

  it('aborts with ProgressDeadlineExceeded when the canary Service is refused (a quota on Services): the step does not wait for ever, and no weight goes anywhere', async () => {
    const ns = await stableApp([{ setWeight: 50 }, { pause: {} }], { progressDeadlineSeconds: 8 });
    // The App's Service counts already: no room for web-canary.
    await api.core.createNamespacedResourceQuota({ namespace: ns, body: { metadata: { name: 'services' }, spec: { hard: { 'count/services': '1' } } } });
    await mergePatchApp(ns, { spec: { image: 'registry.example/web:2' } });
    const app = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return condition(a, 'Degraded')?.reason === 'ProgressDeadlineExceeded' && a;
    }, { timeoutMs: 60_000, message: 'ProgressDeadlineExceeded with the canary Service refused' });
    assert.match(condition(app, 'Degraded')!.message, /within 8s at step 1\/2 \(setWeight 50%\)/);
    assert.equal(app.status?.stableImage, 'registry.example/web:1');
    assert.equal(app.status?.abortedImage, 'registry.example/web:2');
    const ingress = await canaryIngress(ns);
    assert.ok(!ingress || ingress.metadata?.annotations?.[WEIGHT] === '0', 'no weight on a canary without its Service');
    await eventually(async () => !(await canaryDeployment(ns)), { timeoutMs: 30_000, message: 'the canary Deployment removed after the abort' });
  });

  it('a namespace deleted mid-canary: the creates it refuses (NamespaceTerminating) are no failed reconciles retried with backoff', async () => {
    const ns = await stableApp([{ setWeight: 50 }, { pause: {} }]);
    await mergePatchApp(ns, { spec: { image: 'registry.example/web:2' } });
    await eventually(async () => (await getApp(api, ns, 'web')).status?.canary?.weight === 50, { timeoutMs: 30_000, message: 'the canary at 50%' });
    const errors = async () => sampleSum(await cluster.controller.metrics.registry.getSingleMetricAsString('skiff_controller_reconcile_errors_total'), 'skiff_controller_reconcile_errors_total');
    const before = await errors();
    await api.core.deleteNamespace({ name: ns });
    await eventually(async () => (await readOrUndefined(() => api.core.readNamespace({ name: ns }))) === undefined, { timeoutMs: 60_000, message: 'the namespace gone' });
    assert.equal(await errors(), before, 'no reconcile failed');
  });

  it('restarts at step 0 when spec.image changes during a canary; the earlier canary\'s traffic goes to 0 before its pods take the new image', async () => {
    const ns = await stableApp([{ setWeight: 25 }, { pause: {} }]);
    await mergePatchApp(ns, { spec: { image: 'registry.example/web:2' } });
    await eventually(async () => (await getApp(api, ns, 'web')).status?.canary?.stepIndex === 1, { timeoutMs: 30_000, message: 'paused at step 2' });
    const history = await recordHistory(ns);
    try {
      await mergePatchApp(ns, { spec: { image: 'registry.example/web:3' } });
      const app = await eventually(async () => {
        const a = await getApp(api, ns, 'web');
        return a.status?.canary?.image === 'registry.example/web:3' && a;
      }, { timeoutMs: 15_000, message: 'a canary of the newer image' });
      assert.ok(app.status!.canary!.stepIndex <= 1);
      await eventually(async () => image(await canaryDeployment(ns)) === 'registry.example/web:3', { timeoutMs: 15_000, message: 'the canary Deployment on the newer image' });
      assert.equal(image(await stableDeployment(ns)), 'registry.example/web:1');
      await eventually(async () => (await canaryIngress(ns))?.metadata?.annotations?.[WEIGHT] === '25', { timeoutMs: 30_000, message: 'the newer canary at 25%' });
    } finally {
      history.stop();
    }
    // In etcd order: no moment where the canary Deployment runs web:3 while the canary Ingress sends it weight from web:2's steps.
    const ordered = history.seen.sort((a, b) => a.rv - b.rv);
    let weight = '25';
    let drained = false;
    for (const { kind, obj } of ordered) {
      if (kind === 'Ingress' && obj.metadata?.name === 'web-canary') weight = (obj as V1Ingress).metadata?.annotations?.[WEIGHT] ?? '0';
      if (kind === 'Deployment' && obj.metadata?.name === 'web-canary' && image(obj as V1Deployment) === 'registry.example/web:3') {
        if (!drained) assert.equal(weight, '0', 'web:3 pods are created only once the earlier canary gets no traffic');
        drained = true;
      }
    }
    assert.ok(drained, 'the canary Deployment took web:3');
  });

  it('a new image while the earlier canary is being promoted: the promotion ends, and stable never goes back to the image before', async () => {
    const ns = await stableApp([{ setWeight: 50 }, { pause: {} }], { scaleDownDelaySeconds: 3 });
    await mergePatchApp(ns, { spec: { image: 'registry.example/web:2' } });
    await eventually(async () => (await getApp(api, ns, 'web')).status?.canary?.stepIndex === 1, { timeoutMs: 30_000, message: 'paused at step 2' });
    const history = await recordHistory(ns);
    try {
      await mergePatchApp(ns, { metadata: { annotations: { 'skiff.dev/promote': 'true' } } });
      await eventually(async () => image(await stableDeployment(ns)) === 'registry.example/web:2', { timeoutMs: 30_000, message: 'stable on web:2 (the promotion has begun)' });
      await mergePatchApp(ns, { spec: { image: 'registry.example/web:3' } });
      const app = await eventually(async () => {
        const a = await getApp(api, ns, 'web');
        return a.status?.canary?.image === 'registry.example/web:3' && a;
      }, { timeoutMs: 30_000, message: 'the canary of web:3, after the promotion of web:2' });
      assert.equal(app.status?.stableImage, 'registry.example/web:2');
    } finally {
      history.stop();
    }
    const stableImages = history.seen.sort((a, b) => a.rv - b.rv).filter((e) => e.kind === 'Deployment' && e.obj.metadata?.name === 'web').map((e) => image(e.obj as V1Deployment));
    const first = stableImages.indexOf('registry.example/web:2');
    assert.ok(first >= 0, JSON.stringify(stableImages));
    assert.deepEqual([...new Set(stableImages.slice(first))], ['registry.example/web:2'], 'once on web:2, stable never ran web:1 again');
  });

  it('resumes a timed pause at the same step after a controller restart', async () => {
    const ns = await stableApp([{ setWeight: 25 }, { pause: { duration: '8s' } }, { setWeight: 75 }, { pause: {} }]);
    await mergePatchApp(ns, { spec: { image: 'registry.example/web:2' } });
    const paused = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return a.status?.canary?.stepIndex === 1 && a;
    }, { timeoutMs: 30_000, message: 'the timed pause' });
    await cluster.stopController();
    // A window, not a poll: the controller is down for a while (nothing happens, by design) while
    // the timed pause runs on.
    await observeFor(1_000, 'no controller runs during part of the timed pause');
    await cluster.startController();
    // The new controller has reconciled every App (it enqueues them all once its caches sync), so
    // the status read below is its own decision about the pause.
    const apps = await appCount(api);
    await until(async () => assert.ok((await reconcileCount(cluster.controller)) >= apps), { timeoutMs: 15_000, intervalMs: 50, message: 'the restarted controller to reconcile every App' });
    const after = await getApp(api, ns, 'web');
    assert.equal(after.status?.canary?.stepIndex, 1);
    assert.equal(after.status?.canary?.stepStartedAt, paused.status!.canary!.stepStartedAt, 'the pause keeps its start time');
    const next = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return (a.status?.canary?.stepIndex ?? 0) >= 3 && a;
    }, { timeoutMs: 30_000, message: 'the pause to end after the restart' });
    const elapsedMs = Date.parse(next.status!.canary!.stepStartedAt) - Date.parse(paused.status!.canary!.stepStartedAt);
    assert.ok(elapsedMs >= 8_000, `the pause lasted its full 8 s from its original start (${elapsedMs} ms)`);
  });

  it('kubectl skiff status shows the step, weight, images and time left; clear errors otherwise', async () => {
    const ns = await stableApp([{ setWeight: 25 }, { pause: { duration: '1h' } }]);
    await mergePatchApp(ns, { spec: { image: 'registry.example/web:2' } });
    const inPause = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return a.status?.canary?.stepIndex === 1 && a;
    }, { timeoutMs: 30_000, message: 'the pause' });
    const before = Date.now();
    const out = await execPlugin(['status', 'web', '-n', ns]);
    const after = Date.now();
    assert.match(out, /step 2\/2/i);
    assert.match(out, /25%/);
    assert.match(out, /registry\.example\/web:1/);
    assert.match(out, /registry\.example\/web:2/);
    // The time left is its own text after the step label ("pause 1h"): whole seconds, from the
    // pause's start, at a moment between the two clock reads around the command.
    const left = /^Step: +2\/2 pause 1h, (\d+)s left$/m.exec(out);
    assert.ok(left, `the time left in the pause is shown:\n${out}`);
    const endsMs = Date.parse(inPause.status!.canary!.stepStartedAt) + 3_600_000;
    const [least, most] = [Math.ceil((endsMs - after) / 1000), Math.ceil((endsMs - before) / 1000)];
    const leftS = Number(left[1]);
    assert.ok(leftS >= least && leftS <= most, `${leftS}s left, expected ${least}..${most}:\n${out}`);

    await assert.rejects(execPlugin(['status', 'nothere', '-n', ns]), /not found|no App/i);
    const plain = await newNamespace(api, 'c');
    await createApp(api, plain, 'web', { image: 'registry.example/web:1' });
    await assert.rejects(execPlugin(['promote', 'web', '-n', plain]), /canary/i);
  });

  it('exports rollout metrics that follow a canary and disappear with the App', async () => {
    const ns = await stableApp([{ setWeight: 50 }, { pause: {} }]);
    const scrape = () => cluster.controller.metrics.registry.metrics();
    const series = (text: string) => text.split('\n').filter((l) => l.includes(`namespace="${ns}"`) && l.includes('app="web"'));
    const has = (text: string, line: string) => series(text).includes(line);
    let text = await eventually(async () => { const t = await scrape(); return has(t, `skiff_app_phase{namespace="${ns}",app="web",phase="Healthy"} 1`) && t; }, { timeoutMs: 15_000, message: 'Healthy' });
    const app = await getApp(api, ns, 'web');
    assert.ok(has(text, `skiff_app_info{namespace="${ns}",app="web",strategy="Canary",revision="${app.status!.stableRevision}"} 1`), series(text).join('\n'));
    assert.ok(has(text, `skiff_canary_weight{namespace="${ns}",app="web"} 0`));
    assert.ok(has(text, `skiff_app_condition{namespace="${ns}",app="web",condition="Ready",status="True",reason="Available"} 1`), series(text).join('\n'));
    for (const phase of ['Progressing', 'Paused', 'Degraded']) assert.ok(has(text, `skiff_app_phase{namespace="${ns}",app="web",phase="${phase}"} 0`));

    await mergePatchApp(ns, { spec: { image: 'registry.example/web:2' } });
    text = await eventually(async () => { const t = await scrape(); return has(t, `skiff_canary_weight{namespace="${ns}",app="web"} 50`) && t; }, { timeoutMs: 30_000, message: 'weight 50 in the metrics' });
    assert.ok(has(text, `skiff_app_phase{namespace="${ns}",app="web",phase="Progressing"} 1`), series(text).join('\n'));
    assert.ok(has(text, `skiff_app_phase{namespace="${ns}",app="web",phase="Healthy"} 0`));

    await execPlugin(['abort', 'web', '-n', ns]);
    text = await eventually(async () => { const t = await scrape(); return has(t, `skiff_app_condition{namespace="${ns}",app="web",condition="Degraded",status="True",reason="RolloutAborted"} 1`) && t; }, { timeoutMs: 30_000, message: 'Degraded RolloutAborted in the metrics' });
    assert.ok(has(text, `skiff_app_phase{namespace="${ns}",app="web",phase="Degraded"} 1`));
    assert.ok(has(text, `skiff_canary_weight{namespace="${ns}",app="web"} 0`));
    assert.equal(series(text).filter((l) => l.startsWith('skiff_app_condition{') && l.includes('condition="Degraded"')).length, 1, 'one series per condition: the old reason is gone');

    await kubectl(cp.kubeconfigPath, ['delete', 'app', 'web', '-n', ns, '--wait=true']);
    await eventually(async () => series(await scrape()).length === 0, { timeoutMs: 15_000, message: 'the series of a deleted App to be gone' });
  });

  it('reports in skiff_canary_weight the weight the routing carries: none while the canary Ingress\'s name is someone else\'s', async () => {
    const ns = await stableApp([{ setWeight: 50 }, { pause: {} }]);
    const weight = async () => (await cluster.controller.metrics.registry.metrics()).split('\n').find((l) => l.startsWith(`skiff_canary_weight{namespace="${ns}",app="web"}`));
    await api.networking.createNamespacedIngress({ namespace: ns, body: {
      metadata: { name: 'web-canary' },
      spec: { rules: [{ host: 'other.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'other', port: { number: 80 } } } }] } }] },
    } });
    await mergePatchApp(ns, { spec: { image: 'registry.example/web:2' } });
    await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return a.status?.canary?.weight === 50 && condition(a, 'Degraded')?.reason === 'ResourceConflict';
    }, { timeoutMs: 30_000, message: 'the canary at 50% in the status, its Ingress refused' });
    assert.equal(await weight(), `skiff_canary_weight{namespace="${ns}",app="web"} 0`);
    await api.networking.deleteNamespacedIngress({ namespace: ns, name: 'web-canary' });
    await eventually(async () => (await weight()) === `skiff_canary_weight{namespace="${ns}",app="web"} 50`, { timeoutMs: 30_000, message: 'the weight once the canary Ingress is the App\'s' });
  });
});

function execPlugin(args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    execFile(join(root, 'cli', 'kubectl-skiff'), args, { env: { ...process.env, KUBECONFIG: cp.kubeconfigPath } }, (err, stdout, stderr) =>
      err ? fail(new Error(`kubectl-skiff ${args.join(' ')} failed: ${stderr}${stdout}`)) : done(stdout));
  });
}
