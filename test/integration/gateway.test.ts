// Gateway API routing on a real control plane: the v1.6.1 CRDs installed as published, a
// stand-in for the Gateway implementation reporting routes Accepted (or withholding that), the
// pod simulator for the kubelet, and the controller.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { PatchStrategy, setHeaderOptions, Watch, type KubernetesObject, type V1Deployment } from '@kubernetes/client-node';
import { rolloutState } from '../../controller/state/deployment-state.js';
import type { HTTPRoute } from '../../controller/routers/gateway/render.js';
import { waitForCrdsEstablished } from '../../dev/crds.js';
import { startRouteStatusSimulator, type RouteStatusSimulator } from '../../dev/route-status.js';
import type { AppSpec } from '../../shared/app-types.js';
import { appCount, condition, createApp, getApp, newNamespace, observeFor, testLogger } from '../support/apps.js';
import { auditedWrites } from '../support/audit.js';
import { repoRoot } from '../support/bundle.js';
import { useControllerCluster } from '../support/controller-cluster.js';
import { kubectl } from '../support/kube.js';
import { reconcileCount, resyncsGoBy } from '../support/metrics.js';
import { eventually } from '../../dev/wait.js';

const RESYNC_MS = 2_000;
const ROUTES = { group: 'gateway.networking.k8s.io', version: 'v1', plural: 'httproutes' };

describe('Gateway API routing (real control plane)', function () {
  this.timeout(90_000);
  let routes: RouteStatusSimulator | undefined;
  const cluster = useControllerCluster('gateway', {
    cluster: { controllerManager: true, auditPolicy: true },
    controllers: () => [{ resyncMs: RESYNC_MS, discoveryIntervalMs: 1_000, log: testLogger('controller') }],
    cleanup: () => routes?.stop(),
  });
  /** Routes whose acceptance the stand-in withholds, as "namespace/name". */
  const withheld = new Set<string>();
  const api = () => cluster.api;
  const k = (ns: string, args: string[]) => kubectl(cluster.cp.kubeconfigPath, ['-n', ns, ...args]);
  const route = (ns: string) => api().custom.getNamespacedCustomObject({ ...ROUTES, namespace: ns, name: 'web' }).then((r) => r as HTTPRoute, (err: { code?: number }) => {
    if (err.code === 404) return undefined;
    throw err;
  });
  const deployment = (ns: string, name: string) => api().apps.readNamespacedDeployment({ namespace: ns, name }).then((d) => d as V1Deployment, (err: { code?: number }) => {
    if (err.code === 404) return undefined;
    throw err;
  });
  const backends = (r: HTTPRoute | undefined) => r?.spec?.rules?.map((rule) => rule.backendRefs?.map((b) => `${b.name}:${b.weight}`).join(',')).join(' | ');
  const spec = (extra: Partial<AppSpec> = {}): AppSpec => ({
    image: 'registry.example/web:1',
    replicas: 4,
    route: { parentRefs: [{ name: 'public', namespace: 'infra', sectionName: 'https' }], hostnames: ['web.example.com'], tls: true },
    ...extra,
  });

  it('reports RouteAPIUnavailable while the cluster serves no HTTPRoutes, and serves the route once the CRDs are installed', async () => {
    const ns = await newNamespace(api(), 'g');
    await createApp(api(), ns, 'web', spec());
    const degraded = await eventually(async () => {
      const c = condition(await getApp(api(), ns, 'web'), 'Degraded');
      return c?.reason === 'RouteAPIUnavailable' && c;
    }, { timeoutMs: 20_000, message: 'Degraded RouteAPIUnavailable' });
    assert.equal(degraded.status, 'True');
    assert.match(degraded.message, /gateway\.networking\.k8s\.io\/v1 HTTPRoutes/);
    assert.ok(await deployment(ns, 'web'), 'the rest of the App is served all the same');

    // The standard-channel CRDs as published; the 1.20 server cannot parse their CEL rules and
    // kubectl refuses to send them, hence --validate=false (a 1.25+ server needs no flag).
    await kubectl(cluster.cp.kubeconfigPath, ['apply', '--validate=false', '-f', join(repoRoot, 'test', 'fixtures', 'gateway-api-v1.6.1')]);
    await waitForCrdsEstablished(cluster.cp.kubeconfigPath, ['httproutes.gateway.networking.k8s.io']);
    routes = startRouteStatusSimulator(cluster.kc, { accept: ({ namespace, name }) => !withheld.has(`${namespace}/${name}`) });

    const r = await eventually(() => route(ns), { timeoutMs: 30_000, message: 'the HTTPRoute once discovery sees the API' });
    const app = await getApp(api(), ns, 'web');
    assert.deepEqual(r.metadata!.ownerReferences, [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: app.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    assert.equal(r.metadata!.labels!['app.kubernetes.io/managed-by'], 'skiff');
    assert.deepEqual(r.spec!.hostnames, ['web.example.com']);
    // Stored with the server's defaults (group, kind) on top of what Skiff wrote.
    assert.deepEqual(r.spec!.rules, [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [{ group: '', kind: 'Service', name: 'web', port: 80, weight: 100 }] }]);
    await eventually(async () => condition(await getApp(api(), ns, 'web'), 'Degraded')?.status === 'False', { timeoutMs: 20_000, message: 'Degraded cleared' });
    assert.equal((await getApp(api(), ns, 'web')).status?.url, 'https://web.example.com/');

    // At rest: the server's defaults are no difference, nothing is written on a no-op pass. At
    // rest means the route accepted, the App Ready and its first history entry settled (the pass
    // that sees the pods ready writes both, the status first).
    await eventually(async () => (await route(ns))?.status?.parents?.length === 1, { timeoutMs: 10_000, message: 'the route accepted' });
    await eventually(async () => condition(await getApp(api(), ns, 'web'), 'Ready')?.status === 'True', { timeoutMs: 30_000, message: 'Ready' });
    await eventually(async () => {
      const entry = JSON.parse(await kubectl(cluster.cp.kubeconfigPath, ['get', 'controllerrevision', '-n', ns, 'web-1', '-o', 'json'])) as { metadata: { annotations?: Record<string, string> } };
      return entry.metadata.annotations?.['skiff.dev/outcome'] !== 'Running';
    }, { timeoutMs: 10_000, message: 'the first history entry settled' });
    const since = Date.now();
    await resyncsGoBy({ n: 2, resyncMs: RESYNC_MS, reconciles: () => reconcileCount(cluster.controller), apps: () => appCount(api()), why: 'no-op passes over an App with a route' });
    assert.deepEqual(auditedWrites(cluster.cp.auditLogPath!, { agent: 'skiff-controller/', namespace: ns, sinceMs: since }), []);
  });

  it('runs a canary through the route: weights follow the steps, never before the canary is available and the route accepted, back to stable before deletion', async () => {
    const ns = await newNamespace(api(), 'g');
    await createApp(api(), ns, 'web', spec({ rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, canaryHeader: 'X-Canary', steps: [{ setWeight: 25 }, { pause: { duration: '1s' } }, { setWeight: 50 }, { pause: { duration: '1s' } }] } }));
    await eventually(async () => condition(await getApp(api(), ns, 'web'), 'Ready')?.status === 'True', { timeoutMs: 30_000, message: 'the first version Ready' });

    const seen: { kind: string; type: string; rv: number; obj: KubernetesObject }[] = [];
    const watch = new Watch(cluster.kc);
    const requests = await Promise.all([['Deployment', `/apis/apps/v1/namespaces/${ns}/deployments`], ['HTTPRoute', `/apis/gateway.networking.k8s.io/v1/namespaces/${ns}/httproutes`]]
      .map(([kind, path]) => watch.watch(path, {}, (type: string, obj: KubernetesObject) => seen.push({ kind, type, rv: Number(obj.metadata?.resourceVersion), obj }), () => {})));
    try {
      // The route is not accepted at first: the weight stays at 0, Progressing says why.
      withheld.add(`${ns}/web`);
      await k(ns, ['patch', 'app', 'web', '--type=merge', '-p', JSON.stringify({ spec: { image: 'registry.example/web:2' } })]);
      const waiting = await eventually(async () => {
        const a = await getApp(api(), ns, 'web');
        return condition(a, 'Progressing')?.reason === 'WaitingForRoute' && a;
      }, { timeoutMs: 30_000, message: 'Progressing WaitingForRoute' });
      assert.match(condition(waiting, 'Progressing')!.message, /infra\/public\/https/);
      assert.equal(backends(await route(ns)), 'web-canary:100 | web:100 | web:100,web-canary:0', 'header rules first; the split exists at weight 0');
      withheld.delete(`${ns}/web`);

      await eventually(async () => backends(await route(ns)) === 'web-canary:100 | web:100 | web:75,web-canary:25', { timeoutMs: 30_000, message: 'weight 25' });
      const r = await route(ns);
      assert.deepEqual(r!.spec!.rules![0].matches, [{ path: { type: 'PathPrefix', value: '/' }, headers: [{ type: 'Exact', name: 'X-Canary', value: 'always' }] }]);
      await eventually(async () => backends(await route(ns)) === 'web-canary:100 | web:100 | web:50,web-canary:50', { timeoutMs: 30_000, message: 'weight 50' });
      await eventually(async () => {
        const a = await getApp(api(), ns, 'web');
        return a.status?.stableImage === 'registry.example/web:2' && !a.status.canary && condition(a, 'Progressing')?.reason === 'RolloutComplete';
      }, { timeoutMs: 40_000, message: 'the rollout to complete' });
      assert.equal(backends(await route(ns)), 'web:100');
      await eventually(async () => !(await deployment(ns, 'web-canary')), { timeoutMs: 15_000, message: 'the canary Deployment gone' });
    } finally {
      requests.forEach((r) => r.abort());
    }

    seen.sort((a, b) => a.rv - b.rv);
    const canaryAvailableAt = seen.find((e) => e.kind === 'Deployment' && e.obj.metadata?.name === 'web-canary' && rolloutState(e.obj as V1Deployment).available)?.rv;
    const firstWeighted = seen.find((e) => e.kind === 'HTTPRoute' && ((e.obj as HTTPRoute).spec?.rules?.at(-1)?.backendRefs?.find((b) => b.name === 'web-canary')?.weight ?? 0) > 0)?.rv;
    assert.ok(canaryAvailableAt !== undefined && firstWeighted !== undefined && canaryAvailableAt < firstWeighted, 'no weight before the canary was available');
    const lastWithCanary = seen.filter((e) => e.kind === 'HTTPRoute' && backends(e.obj as HTTPRoute)?.includes('web-canary')).at(-1)!.rv;
    const stableOnlyAt = seen.find((e) => e.kind === 'HTTPRoute' && e.rv > lastWithCanary)?.rv;
    const canaryDeleting = seen.find((e) => e.kind === 'Deployment' && e.obj.metadata?.name === 'web-canary' && (e.type === 'DELETED' || e.obj.metadata?.deletionTimestamp))?.rv;
    assert.ok(stableOnlyAt !== undefined && canaryDeleting !== undefined && stableOnlyAt < canaryDeleting, `the route went back to stable (${stableOnlyAt}) before the canary Deployment was deleted (${canaryDeleting})`);
  });

  it('a new image mid-canary through the route: the earlier canary\'s pods take the new template only once the Gateway accepted the route at 0% (watch-recorded)', async () => {
    const ns = await newNamespace(api(), 'g');
    await createApp(api(), ns, 'web', spec({ rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, steps: [{ setWeight: 25 }, { pause: {} }] } }));
    await eventually(async () => condition(await getApp(api(), ns, 'web'), 'Ready')?.status === 'True', { timeoutMs: 30_000, message: 'the first version Ready' });
    await k(ns, ['patch', 'app', 'web', '--type=merge', '-p', JSON.stringify({ spec: { image: 'registry.example/web:2' } })]);
    let split: string | undefined;
    await eventually(async () => {
      split = backends(await route(ns));
      return (await getApp(api(), ns, 'web')).status?.canary?.stepIndex === 1 && split === 'web:75,web-canary:25';
    }, { timeoutMs: 30_000, message: () => `web:2 at 25%, paused (the route: ${split})` });

    const seen: { kind: string; rv: number; obj: KubernetesObject }[] = [];
    const watch = new Watch(cluster.kc);
    const requests = await Promise.all([['Deployment', `/apis/apps/v1/namespaces/${ns}/deployments`], ['HTTPRoute', `/apis/gateway.networking.k8s.io/v1/namespaces/${ns}/httproutes`]]
      .map(([kind, path]) => watch.watch(path, {}, (_type: string, obj: KubernetesObject) => seen.push({ kind, rv: Number(obj.metadata?.resourceVersion), obj }), () => {})));
    const canaryImage = async () => (await deployment(ns, 'web-canary'))?.spec?.template.spec?.containers[0]?.image;
    try {
      // The Gateway lags: it still carries 25% to the web:2 pods after the route says 0%.
      withheld.add(`${ns}/web`);
      await k(ns, ['patch', 'app', 'web', '--type=merge', '-p', JSON.stringify({ spec: { image: 'registry.example/web:3' } })]);
      await eventually(async () => backends(await route(ns)) === 'web:100,web-canary:0', { timeoutMs: 30_000, message: 'the route at 0%' });
      await observeFor(3_000, 'the canary Deployment while the Gateway has not accepted 0%');
      assert.equal(await canaryImage(), 'registry.example/web:2', 'the pods the Gateway still sends 25% to keep their template');
      withheld.delete(`${ns}/web`);
      await eventually(async () => (await canaryImage()) === 'registry.example/web:3', { timeoutMs: 30_000, message: 'the canary Deployment on web:3' });
      await eventually(async () => backends(await route(ns)) === 'web:75,web-canary:25', { timeoutMs: 30_000, message: 'web:3 at 25%' });
    } finally {
      requests.forEach((r) => r.abort());
    }
    seen.sort((a, b) => a.rv - b.rv);
    const accepted = (r: HTTPRoute) => r.status?.parents?.length && r.status.parents.every((p) => p.conditions?.some((c) => c.type === 'Accepted' && c.status === 'True' && c.observedGeneration === r.metadata?.generation));
    const zeroAccepted = seen.find((e) => e.kind === 'HTTPRoute' && backends(e.obj as HTTPRoute) === 'web:100,web-canary:0' && accepted(e.obj as HTTPRoute))?.rv;
    const firstNew = seen.find((e) => e.kind === 'Deployment' && e.obj.metadata?.name === 'web-canary' && (e.obj as V1Deployment).spec?.template.spec?.containers[0]?.image === 'registry.example/web:3')?.rv;
    assert.ok(zeroAccepted !== undefined && firstNew !== undefined && zeroAccepted < firstNew, `the route at 0% accepted (${zeroAccepted}) before the canary took web:3 (${firstNew})`);
  });

  it('a lower weight through the route: the canary keeps its pods until the Gateway accepted the lower weight (watch-recorded)', async () => {
    const ns = await newNamespace(api(), 'g');
    await createApp(api(), ns, 'web', spec({ rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, steps: [{ setWeight: 50 }, { pause: { duration: '5s' } }, { setWeight: 10 }, { pause: {} }] } }));
    await eventually(async () => condition(await getApp(api(), ns, 'web'), 'Ready')?.status === 'True', { timeoutMs: 30_000, message: 'the first version Ready' });
    await k(ns, ['patch', 'app', 'web', '--type=merge', '-p', JSON.stringify({ spec: { image: 'registry.example/web:2' } })]);
    // At 50% (2 of 4 canary pods) and in the 5 s pause: the Gateway lags from here on.
    await eventually(async () => (await getApp(api(), ns, 'web')).status?.canary?.stepIndex === 1 && backends(await route(ns)) === 'web:50,web-canary:50', { timeoutMs: 30_000, message: 'web:2 at 50%, in the pause' });
    withheld.add(`${ns}/web`);

    const seen: { kind: string; rv: number; obj: KubernetesObject }[] = [];
    const watch = new Watch(cluster.kc);
    const requests = await Promise.all([['Deployment', `/apis/apps/v1/namespaces/${ns}/deployments`], ['HTTPRoute', `/apis/gateway.networking.k8s.io/v1/namespaces/${ns}/httproutes`]]
      .map(([kind, path]) => watch.watch(path, {}, (_type: string, obj: KubernetesObject) => seen.push({ kind, rv: Number(obj.metadata?.resourceVersion), obj }), () => {})));
    const canaryReplicas = async () => (await deployment(ns, 'web-canary'))?.spec?.replicas;
    try {
      await eventually(async () => backends(await route(ns)) === 'web:90,web-canary:10', { timeoutMs: 30_000, message: 'the route at 10%' });
      await observeFor(3_000, 'the canary Deployment while the Gateway has not accepted 10%');
      assert.equal(await canaryReplicas(), 2, 'the 2 pods the Gateway may still send 50% to are kept');
      withheld.delete(`${ns}/web`);
      await eventually(async () => (await canaryReplicas()) === 1, { timeoutMs: 30_000, message: 'the canary at 1 pod for 10%' });
    } finally {
      requests.forEach((r) => r.abort());
    }
    seen.sort((a, b) => a.rv - b.rv);
    const accepted = (r: HTTPRoute) => r.status?.parents?.length && r.status.parents.every((p) => p.conditions?.some((c) => c.type === 'Accepted' && c.status === 'True' && c.observedGeneration === r.metadata?.generation));
    const tenAccepted = seen.find((e) => e.kind === 'HTTPRoute' && backends(e.obj as HTTPRoute) === 'web:90,web-canary:10' && accepted(e.obj as HTTPRoute))?.rv;
    const shrunk = seen.find((e) => e.kind === 'Deployment' && e.obj.metadata?.name === 'web-canary' && (e.obj as V1Deployment).spec?.replicas === 1)?.rv;
    assert.ok(tenAccepted !== undefined && shrunk !== undefined && tenAccepted < shrunk, `the route at 10% accepted (${tenAccepted}) before the canary went to 1 pod (${shrunk})`);
  });

  it('aborts through the route: weight 0 first, then stable only, and the canary objects go only once the Gateway took that', async () => {
    const ns = await newNamespace(api(), 'g');
    await createApp(api(), ns, 'web', spec({ rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, steps: [{ setWeight: 30 }, { pause: {} }] } }));
    await eventually(async () => condition(await getApp(api(), ns, 'web'), 'Ready')?.status === 'True', { timeoutMs: 30_000, message: 'Ready' });
    await k(ns, ['patch', 'app', 'web', '--type=merge', '-p', JSON.stringify({ spec: { image: 'registry.example/web:2' } })]);
    await eventually(async () => backends(await route(ns)) === 'web:70,web-canary:30', { timeoutMs: 30_000, message: 'weight 30' });
    // The Gateway is slow to take the stable-only route: the canary's pods must stay meanwhile.
    withheld.add(`${ns}/web`);
    await k(ns, ['annotate', 'app', 'web', 'skiff.dev/abort=true']);
    await eventually(async () => backends(await route(ns)) === 'web:100', { timeoutMs: 30_000, message: 'the route back to stable only' });
    await observeFor(3_000, 'the Gateway has not accepted the stable-only route yet');
    assert.ok(await deployment(ns, 'web-canary'), 'the canary Deployment stays until the stable-only route is accepted');
    withheld.delete(`${ns}/web`);
    const aborted = await eventually(async () => {
      const a = await getApp(api(), ns, 'web');
      return condition(a, 'Degraded')?.reason === 'RolloutAborted' && !(await deployment(ns, 'web-canary')) && a;
    }, { timeoutMs: 30_000, message: 'the abort to finish' });
    assert.equal(aborted.status?.stableImage, 'registry.example/web:1');
    assert.equal(backends(await route(ns)), 'web:100');
  });

  it('aborts a canary while the App moves from an Ingress to a route not yet accepted: the old canary Ingress goes before the canary pods, the main Ingress serves on', async () => {
    const ns = await newNamespace(api(), 'g');
    await createApp(api(), ns, 'web', { image: 'registry.example/web:1', replicas: 4, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, steps: [{ setWeight: 20 }, { pause: {} }] } });
    await eventually(async () => condition(await getApp(api(), ns, 'web'), 'Ready')?.status === 'True', { timeoutMs: 30_000, message: 'Ready' });
    const ingress = (name: string) => api().networking.readNamespacedIngress({ namespace: ns, name }).then((i) => i, (err: { code?: number }) => {
      if (err.code === 404) return undefined;
      throw err;
    });
    const seen: { kind: string; type: string; rv: number; obj: KubernetesObject }[] = [];
    const watch = new Watch(cluster.kc);
    const requests = await Promise.all([['Deployment', `/apis/apps/v1/namespaces/${ns}/deployments`], ['Ingress', `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`]]
      .map(([kind, path]) => watch.watch(path, {}, (type: string, obj: KubernetesObject) => seen.push({ kind, type, rv: Number(obj.metadata?.resourceVersion), obj }), () => {})));
    try {
      await k(ns, ['patch', 'app', 'web', '--type=merge', '-p', JSON.stringify({ spec: { image: 'registry.example/web:2' } })]);
      await eventually(async () => (await ingress('web-canary'))?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'] === '20', { timeoutMs: 30_000, message: 'the canary Ingress at 20' });
      // The Gateway never accepts the new route while this runs: the Ingresses carry the traffic.
      withheld.add(`${ns}/web`);
      await k(ns, ['patch', 'app', 'web', '--type=json', '-p', JSON.stringify([{ op: 'remove', path: '/spec/ingress' }, { op: 'add', path: '/spec/route', value: { parentRefs: [{ name: 'public' }], hostnames: ['web.example.com'] } }])]);
      await eventually(() => route(ns), { timeoutMs: 20_000, message: 'the HTTPRoute' });
      await observeFor(2_000, 'the route not accepted');
      assert.equal((await ingress('web-canary'))?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'], '20', 'the old canary Ingress carries its share until the route does');
      await k(ns, ['annotate', 'app', 'web', 'skiff.dev/abort=true']);
      await eventually(async () => condition(await getApp(api(), ns, 'web'), 'Degraded')?.reason === 'RolloutAborted' && !(await ingress('web-canary')), { timeoutMs: 30_000, message: 'aborted, the old canary Ingress gone' });
      assert.ok(await ingress('web'), 'the main Ingress serves stable until the route is accepted');
      await eventually(async () => backends(await route(ns)) === 'web:100', { timeoutMs: 10_000, message: 'the route, not accepted yet, sending nothing to the canary either' });
      // The canary's pods go once the App's router (the route) has taken the stable-only routing.
      await observeFor(2_000, 'the route still not accepted');
      assert.ok(await deployment(ns, 'web-canary'), 'the canary Deployment stays while the route is not accepted');
      withheld.delete(`${ns}/web`);
      await eventually(async () => !(await deployment(ns, 'web-canary')), { timeoutMs: 30_000, message: 'the canary Deployment gone once the route is accepted' });
    } finally {
      requests.forEach((r) => r.abort());
      withheld.delete(`${ns}/web`);
    }
    seen.sort((a, b) => a.rv - b.rv);
    const canaryIngressGone = seen.find((e) => e.kind === 'Ingress' && e.obj.metadata?.name === 'web-canary' && (e.type === 'DELETED' || e.obj.metadata?.deletionTimestamp))?.rv;
    const canaryDeleting = seen.find((e) => e.kind === 'Deployment' && e.obj.metadata?.name === 'web-canary' && (e.type === 'DELETED' || e.obj.metadata?.deletionTimestamp))?.rv;
    assert.ok(canaryIngressGone !== undefined && canaryDeleting !== undefined && canaryIngressGone < canaryDeleting, `the canary Ingress went (${canaryIngressGone}) before the canary Deployment was deleted (${canaryDeleting})`);
    const weights = seen.filter((e) => e.kind === 'Ingress' && e.obj.metadata?.name === 'web-canary' && e.type !== 'DELETED').map((e) => Number(e.obj.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight']));
    assert.ok(weights.every((w) => w <= 20), `the old canary Ingress never rose above 20: ${weights.join(' → ')}`);
    // Once the route is accepted, the main Ingress goes too.
    await eventually(async () => !(await ingress('web')), { timeoutMs: 20_000, message: 'the main Ingress removed once the route is accepted' });
  });

  it('a new image while the App moves from an Ingress to a route not yet accepted: the old canary Ingress sends nothing to the canary before its pods take the new image', async () => {
    const ns = await newNamespace(api(), 'g');
    await createApp(api(), ns, 'web', { image: 'registry.example/web:1', replicas: 4, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, steps: [{ setWeight: 20 }, { pause: {} }] } });
    await eventually(async () => condition(await getApp(api(), ns, 'web'), 'Ready')?.status === 'True', { timeoutMs: 30_000, message: 'Ready' });
    const seen: { kind: string; type: string; rv: number; obj: KubernetesObject }[] = [];
    const watch = new Watch(cluster.kc);
    const requests = await Promise.all([['Deployment', `/apis/apps/v1/namespaces/${ns}/deployments`], ['Ingress', `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`]]
      .map(([kind, path]) => watch.watch(path, {}, (type: string, obj: KubernetesObject) => seen.push({ kind, type, rv: Number(obj.metadata?.resourceVersion), obj }), () => {})));
    const canaryImage = (d: KubernetesObject) => (d as V1Deployment).spec?.template?.spec?.containers?.[0]?.image;
    try {
      await k(ns, ['patch', 'app', 'web', '--type=merge', '-p', JSON.stringify({ spec: { image: 'registry.example/web:2' } })]);
      await eventually(() => seen.some((e) => e.kind === 'Ingress' && e.obj.metadata?.name === 'web-canary' && e.obj.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'] === '20'), { timeoutMs: 30_000, message: 'the canary Ingress at 20' });
      withheld.add(`${ns}/web`);
      await k(ns, ['patch', 'app', 'web', '--type=json', '-p', JSON.stringify([{ op: 'remove', path: '/spec/ingress' }, { op: 'add', path: '/spec/route', value: { parentRefs: [{ name: 'public' }], hostnames: ['web.example.com'] } }])]);
      await eventually(() => route(ns), { timeoutMs: 20_000, message: 'the HTTPRoute' });
      await k(ns, ['patch', 'app', 'web', '--type=merge', '-p', JSON.stringify({ spec: { image: 'registry.example/web:3' } })]);
      await eventually(() => seen.some((e) => e.kind === 'Deployment' && e.obj.metadata?.name === 'web-canary' && e.type !== 'DELETED' && canaryImage(e.obj) === 'registry.example/web:3'), { timeoutMs: 30_000, message: 'the canary Deployment on web:3' });
    } finally {
      requests.forEach((r) => r.abort());
      withheld.delete(`${ns}/web`);
    }
    seen.sort((a, b) => a.rv - b.rv);
    const onWeb3 = seen.find((e) => e.kind === 'Deployment' && e.obj.metadata?.name === 'web-canary' && e.type !== 'DELETED' && canaryImage(e.obj) === 'registry.example/web:3')!.rv;
    const lastCanaryIngress = seen.filter((e) => e.kind === 'Ingress' && e.obj.metadata?.name === 'web-canary').at(-1);
    // The canary Ingress gone (or at 0) before, and never sending anything to web:3's pods.
    const sharing = (e: { type: string; obj: KubernetesObject }) => e.type !== 'DELETED' && !e.obj.metadata?.deletionTimestamp && Number(e.obj.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'] ?? 0) > 0;
    assert.ok(lastCanaryIngress && !sharing(lastCanaryIngress) && lastCanaryIngress.rv < onWeb3, `the canary Ingress sent nothing (${lastCanaryIngress?.type} at ${lastCanaryIngress?.rv}) before the canary Deployment took web:3 (${onWeb3})`);
  });

  it('moves an App from an Ingress to a route during a pause at 20%: the Ingresses go only after the Gateway accepted the route at 20%, never while what it accepted sends the canary less (watch-recorded)', async () => {
    const ns = await newNamespace(api(), 'g');
    await createApp(api(), ns, 'web', { image: 'registry.example/web:1', replicas: 4, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, steps: [{ setWeight: 20 }, { pause: {} }] } });
    await eventually(async () => condition(await getApp(api(), ns, 'web'), 'Ready')?.status === 'True', { timeoutMs: 30_000, message: 'Ready' });
    const seen: { kind: string; type: string; rv: number; obj: KubernetesObject }[] = [];
    const watch = new Watch(cluster.kc);
    const requests = await Promise.all([['Ingress', `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`], ['HTTPRoute', `/apis/gateway.networking.k8s.io/v1/namespaces/${ns}/httproutes`]]
      .map(([kind, path]) => watch.watch(path, {}, (type: string, obj: KubernetesObject) => seen.push({ kind, type, rv: Number(obj.metadata?.resourceVersion), obj }), () => {})));
    try {
      await k(ns, ['patch', 'app', 'web', '--type=merge', '-p', JSON.stringify({ spec: { image: 'registry.example/web:2' } })]);
      await eventually(async () => seen.some((e) => e.obj.metadata?.name === 'web-canary' && e.obj.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'] === '20'), { timeoutMs: 30_000, message: 'the canary Ingress at 20' });
      await eventually(async () => (await getApp(api(), ns, 'web')).status?.canary?.stepIndex === 1, { timeoutMs: 20_000, message: 'paused at the second step' });
      // The route is first accepted at 0% (as made, before the Gateway took it): the pass after
      // that gives it the canary's 20% in a new generation, which the Gateway accepts a moment later.
      withheld.add(`${ns}/web`);
      await k(ns, ['patch', 'app', 'web', '--type=json', '-p', JSON.stringify([{ op: 'remove', path: '/spec/ingress' }, { op: 'add', path: '/spec/route', value: { parentRefs: [{ name: 'public' }], hostnames: ['web.example.com'] } }])]);
      await eventually(() => route(ns), { timeoutMs: 20_000, message: 'the HTTPRoute' });
      withheld.delete(`${ns}/web`);
      await eventually(async () => !seen.some((e) => e.kind === 'Ingress' && e.type !== 'DELETED' && !e.obj.metadata?.deletionTimestamp && e.rv === Math.max(...seen.filter((x) => x.kind === 'Ingress' && x.obj.metadata?.name === e.obj.metadata?.name).map((x) => x.rv))),
        { timeoutMs: 30_000, message: 'both Ingresses gone' });
    } finally {
      requests.forEach((r) => r.abort());
      withheld.delete(`${ns}/web`);
    }
    seen.sort((a, b) => a.rv - b.rv);
    type Route = HTTPRoute & { metadata?: { generation?: number }; status?: { parents?: { conditions?: { type: string; status: string; observedGeneration?: number }[] }[] } };
    const canaryShare = (r: Route) => r.spec?.rules?.at(-1)?.backendRefs?.find((b) => b.name === 'web-canary')?.weight ?? 0;
    const accepted = (r: Route) => (r.status?.parents ?? []).length > 0 && (r.status?.parents ?? []).every((p) => p.conditions?.some((c) => c.type === 'Accepted' && c.status === 'True' && c.observedGeneration === r.metadata?.generation));
    const acceptedAt20 = seen.find((e) => e.kind === 'HTTPRoute' && accepted(e.obj as Route) && canaryShare(e.obj as Route) === 20)?.rv;
    const ingressGone = seen.filter((e) => e.kind === 'Ingress' && (e.type === 'DELETED' || e.obj.metadata?.deletionTimestamp)).map((e) => e.rv);
    assert.ok(acceptedAt20 !== undefined, `the route accepted at 20%: ${seen.filter((e) => e.kind === 'HTTPRoute').map((e) => `${e.rv} ${backends(e.obj as HTTPRoute)} accepted=${accepted(e.obj as Route)}`).join('; ')}`);
    assert.ok(ingressGone.length > 0 && ingressGone.every((rv) => rv > acceptedAt20!), `the Ingresses went (${ingressGone.join(', ')}) after the route was accepted at 20% (${acceptedAt20})`);
    const ingressWeights = seen.filter((e) => e.kind === 'Ingress' && e.obj.metadata?.name === 'web-canary' && e.type !== 'DELETED').map((e) => e.obj.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight']);
    assert.ok(ingressWeights.slice(ingressWeights.indexOf('20')).every((w) => w === '20'), `the canary Ingress kept its 20% until it went: ${ingressWeights.join(' → ')}`);
  });

  it('a route its Gateway refuses (Accepted=False for its generation): Degraded RouteNotAccepted naming the parent while Ready stays the Deployment\'s, cleared once accepted; removing spec.route deletes it with a Deleted Event', async () => {
    const ns = await newNamespace(api(), 'g');
    // The stand-in reports nothing for it: a Gateway implementation of its own answers instead.
    withheld.add(`${ns}/web`);
    await createApp(api(), ns, 'web', spec({ replicas: 1 }));
    const r = await eventually(() => route(ns), { timeoutMs: 20_000, message: 'the HTTPRoute' });
    await eventually(async () => condition(await getApp(api(), ns, 'web'), 'Ready')?.status === 'True', { timeoutMs: 30_000, message: 'Ready' });
    const report = (accepted: 'True' | 'False') => api().custom.patchNamespacedCustomObjectStatus({
      ...ROUTES, namespace: ns, name: 'web',
      body: { status: { parents: [{
        parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'public', namespace: 'infra', sectionName: 'https' },
        controllerName: 'example.com/gateway',
        conditions: ['Accepted', 'ResolvedRefs'].map((type) => ({
          type, status: type === 'Accepted' ? accepted : 'True', reason: type === 'Accepted' && accepted === 'False' ? 'NotAllowedByListeners' : type,
          message: 'by the test', observedGeneration: r.metadata!.generation, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        })),
      }] } },
    }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    await report('False');
    const refused = await eventually(async () => {
      const a = await getApp(api(), ns, 'web');
      return condition(a, 'Degraded')?.reason === 'RouteNotAccepted' && a;
    }, { timeoutMs: 20_000, message: 'Degraded RouteNotAccepted' });
    assert.equal(condition(refused, 'Degraded')?.message, `HTTPRoute ${ns}/web: parent infra/public/https has not reported Accepted=True for generation ${r.metadata!.generation} (False, NotAllowedByListeners); the App's hostnames do not reach its pods through that parent`);
    assert.equal(condition(refused, 'Ready')?.status, 'True', 'Ready is the Deployment\'s');
    await report('True');
    await eventually(async () => condition(await getApp(api(), ns, 'web'), 'Degraded')?.status === 'False', { timeoutMs: 20_000, message: 'Degraded cleared once accepted' });

    await k(ns, ['patch', 'app', 'web', '--type=json', '-p', JSON.stringify([{ op: 'remove', path: '/spec/route' }])]);
    await eventually(async () => !(await route(ns)), { timeoutMs: 20_000, message: 'the HTTPRoute removed' });
    await eventually(async () => (await api().core.listNamespacedEvent({ namespace: ns })).items.some((e) => e.reason === 'Deleted' && e.message?.includes(`Deleted HTTPRoute ${ns}/web (the App has no spec.route)`)),
      { timeoutMs: 10_000, message: 'the Deleted Event of the HTTPRoute' });
  });

  it('moves an App from an Ingress to a route: the Ingress goes, the route comes', async () => {
    const ns = await newNamespace(api(), 'g');
    await createApp(api(), ns, 'web', { image: 'registry.example/web:1', ingress: { host: 'web.example.com' } });
    await eventually(() => api().networking.readNamespacedIngress({ namespace: ns, name: 'web' }), { timeoutMs: 20_000, message: 'the Ingress' });
    await k(ns, ['patch', 'app', 'web', '--type=json', '-p', JSON.stringify([{ op: 'remove', path: '/spec/ingress' }, { op: 'add', path: '/spec/route', value: { parentRefs: [{ name: 'public' }], hostnames: ['web.example.com'] } }])]);
    await eventually(() => route(ns), { timeoutMs: 20_000, message: 'the HTTPRoute' });
    await eventually(async () => api().networking.readNamespacedIngress({ namespace: ns, name: 'web' }).then(() => false, (err: { code?: number }) => err.code === 404), { timeoutMs: 20_000, message: 'the Ingress removed' });
    assert.equal((await getApp(api(), ns, 'web')).status?.url, 'http://web.example.com/');
    // And back: the route goes.
    await k(ns, ['patch', 'app', 'web', '--type=json', '-p', JSON.stringify([{ op: 'remove', path: '/spec/route' }, { op: 'add', path: '/spec/ingress', value: { host: 'web.example.com' } }])]);
    await eventually(async () => !(await route(ns)), { timeoutMs: 20_000, message: 'the HTTPRoute removed' });
  });
});
