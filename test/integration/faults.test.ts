// Faults on a real control plane: the API server stopped in the middle of a bulk reconcile, the
// controller process killed with SIGKILL mid-bulk and mid-canary, and another client editing the
// App and its objects at the same time. Everything must converge with nothing duplicated,
// orphaned or lost.
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { V1Deployment } from '@kubernetes/client-node';
import type { ControlPlane } from '../../dev/control-plane.js';
import { GROUP, PLURAL, VERSION, type App, type AppSpec } from '../../shared/app-types.js';
import type { KubeClients } from '../../dev/kube-clients.js';
import { freePort } from '../../dev/free-port.js';
import { kubectl } from '../support/kube.js';
import { useControllerCluster } from '../support/controller-cluster.js';
import { condition, createApp, getApp, newNamespace } from '../support/apps.js';
import { sampleValue, scrape } from '../support/metrics.js';
import { eventually, until } from '../../dev/wait.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const appsApi = { group: GROUP, version: VERSION, plural: PLURAL };

// The cluster of the suite below, for the helpers outside it.
let cp: ControlPlane;
let api: KubeClients;
const controllers = new Set<ChildProcess>();

/** The controller as users run it: its own process, flags and all (/metrics on `metricsPort`, if given). */
function startControllerProcess(namespace: string, extraArgs: string[] = [], metricsPort = 0): ChildProcess {
  // Each test's controller watches only that test's namespace, so that tests do not add up.
  const child = spawn(process.execPath, [join(root, 'dist', 'controller', 'main.js'), `--namespace=${namespace}`, '--health-port=0', `--metrics-port=${metricsPort}`, '--resync-seconds=5', ...extraArgs], {
    env: { ...process.env, KUBECONFIG: cp.kubeconfigPath, SKIFF_LOG_LEVEL: process.env.SKIFF_LOG_LEVEL ?? 'error' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  controllers.add(child);
  child.once('exit', () => controllers.delete(child));
  return child;
}

function kill9(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGKILL');
  });
}

async function createApps(namespace: string, count: number, spec: (i: number) => AppSpec): Promise<void> {
  const names = Array.from({ length: count }, (_, i) => `app-${i}`);
  // Ten at a time, as a user's `kubectl apply` of a big directory would.
  for (let i = 0; i < names.length; i += 10) {
    await Promise.all(names.slice(i, i + 10).map((name, j) => createApp(api, namespace, name, spec(i + j))));
  }
}

const listApps = async (namespace: string) => ((await api.custom.listNamespacedCustomObject({ ...appsApi, namespace })) as { items: App[] }).items;

/**
 * Every App has exactly its Deployment and Service (one each, controlled by it, at its spec) and
 * Ready=True in a status of its current generation; nothing else labelled as ours exists.
 */
async function converged(namespace: string, expectedApps: number): Promise<true> {
  const apps = await listApps(namespace);
  if (apps.length !== expectedApps) throw new Error(`${apps.length} Apps`);
  const selector = 'app.kubernetes.io/managed-by=skiff';
  const deployments = (await api.apps.listNamespacedDeployment({ namespace, labelSelector: selector })).items;
  const services = (await api.core.listNamespacedService({ namespace, labelSelector: selector })).items;
  const uids = new Map(apps.map((a) => [a.metadata.uid, a]));
  const owner = (o: { metadata?: { ownerReferences?: { uid: string; controller?: boolean }[] } }) =>
    uids.get(o.metadata?.ownerReferences?.find((r) => r.controller)?.uid ?? '');
  if (deployments.length !== apps.length || services.length !== apps.length) throw new Error(`${deployments.length} Deployments and ${services.length} Services for ${apps.length} Apps`);
  for (const d of deployments) {
    const app = owner(d);
    if (!app || app.metadata.name !== d.metadata?.name) throw new Error(`Deployment ${d.metadata?.name} is not controlled by its App`);
    if (d.spec?.replicas !== (app.spec.replicas ?? 1) || d.spec?.template.spec?.containers[0]?.image !== app.spec.image) throw new Error(`Deployment ${d.metadata?.name} differs from its App`);
  }
  const strayService = services.find((s) => owner(s)?.metadata.name !== s.metadata?.name);
  if (strayService) throw new Error(`Service ${strayService.metadata?.name} is not controlled by its App`);
  const notReady = apps.filter((a) => !(a.status?.observedGeneration === a.metadata.generation && condition(a, 'Ready')?.status === 'True'));
  if (notReady.length > 0) throw new Error(`${notReady.length} Apps not Ready at their generation, e.g. ${notReady[0].metadata.name}: ${JSON.stringify(notReady[0].status?.conditions?.map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`))}`);
  return true;
}

describe('faults (real control plane)', function () {
  this.timeout(240_000);

  // The controllers are processes of each test's own, as users run them.
  const cluster = useControllerCluster('faults', { cluster: { controllerManager: true }, hookTimeoutMs: { start: 240_000, stop: 240_000 } });
  before(() => {
    ({ cp, api } = cluster);
  });

  afterEach(async () => {
    await Promise.all([...controllers].map(kill9));
  });

  it('converges 200 Apps when the API server stops in the middle of reconciling them', async () => {
    const ns = await newNamespace(api, 'f');
    const metricsPort = await freePort();
    const controller = startControllerProcess(ns, [], metricsPort);
    await createApps(ns, 200, (i) => ({ image: `registry.example/web:${i % 7}`, replicas: 1 }));
    // Stop it while the controller is still creating objects.
    await eventually(async () => (await api.apps.listNamespacedDeployment({ namespace: ns })).items.length >= 20, { timeoutMs: 60_000, intervalMs: 50, message: 'the bulk reconcile to be under way' });
    const watches = ['apps.skiff.dev', 'deployments.apps', 'services', 'ingresses.networking.k8s.io'];
    const restarts = (text: string, resource: string) => sampleValue(text, `skiff_controller_watch_restarts_total{resource="${resource}"}`);
    const before = await scrape(metricsPort);
    await cp.stopApiServer();
    // The outage lasts until the controller has been through it: each of its four watches failed,
    // backed off and found the API server still down on its next try (two more restarts each).
    await until(async () => {
      const text = await scrape(metricsPort);
      for (const resource of watches) assert.ok(restarts(text, resource) - restarts(before, resource) >= 2, `${resource} watch restarts`);
    }, { timeoutMs: 30_000, intervalMs: 100, message: 'the controller to retry its watches against the stopped API server' });
    await cp.startApiServer();
    await eventually(() => converged(ns, 200), { timeoutMs: 180_000, intervalMs: 1_000, message: '200 Apps converged after the API server came back' });
    assert.equal(controller.exitCode, null, 'the controller did not crash');
  });

  it('a new controller finishes the work of one killed with SIGKILL mid-bulk', async () => {
    const ns = await newNamespace(api, 'f');
    const first = startControllerProcess(ns, ['--leader-elect', '--leader-election-namespace=default', '--leader-elect-lease-duration-seconds=4', '--leader-elect-renew-deadline-seconds=3', '--leader-elect-retry-period-seconds=1']);
    await createApps(ns, 100, (i) => ({ image: `registry.example/web:${i % 3}` }));
    await eventually(async () => (await api.apps.listNamespacedDeployment({ namespace: ns })).items.length >= 10, { timeoutMs: 60_000, intervalMs: 50, message: 'the bulk reconcile to be under way' });
    await kill9(first);
    startControllerProcess(ns, ['--leader-elect', '--leader-election-namespace=default', '--leader-elect-lease-duration-seconds=4', '--leader-elect-renew-deadline-seconds=3', '--leader-elect-retry-period-seconds=1']);
    await eventually(() => converged(ns, 100), { timeoutMs: 120_000, intervalMs: 1_000, message: '100 Apps converged by the second controller' });
  });

  it('a new controller resumes a canary whose controller was killed with SIGKILL in a timed pause', async () => {
    const ns = await newNamespace(api, 'f');
    let controller = startControllerProcess(ns);
    await createApp(api, ns, 'web', {
      image: 'registry.example/web:1', replicas: 2, ingress: { host: 'web.example.com' },
      rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, steps: [{ setWeight: 50 }, { pause: { duration: '6s' } }, { setWeight: 100 }] },
    });
    const get = () => getApp(api, ns, 'web');
    await eventually(async () => (await get()).status?.stableImage === 'registry.example/web:1', { timeoutMs: 30_000, message: 'stable' });
    await kubectl(cp.kubeconfigPath, ['patch', 'app', 'web', '-n', ns, '--type=merge', '-p', '{"spec":{"image":"registry.example/web:2"}}']);
    const paused = await eventually(async () => { const a = await get(); return a.status?.canary?.stepIndex === 1 && a; }, { timeoutMs: 30_000, message: 'the timed pause' });
    await kill9(controller);
    controller = startControllerProcess(ns);
    const done = await eventually(async () => { const a = await get(); return a.status?.stableImage === 'registry.example/web:2' && !a.status.canary && a; }, { timeoutMs: 60_000, message: 'the canary to complete under the new controller' });
    assert.ok(Date.parse(condition(done, 'Progressing')!.lastTransitionTime) - Date.parse(paused.status!.canary!.stepStartedAt) >= 6_000, 'the pause was not cut short');
    const canary = await api.apps.listNamespacedDeployment({ namespace: ns, labelSelector: 'skiff.dev/track=canary' });
    await eventually(async () => (await api.apps.listNamespacedDeployment({ namespace: ns, labelSelector: 'skiff.dev/track=canary' })).items.length === 0, { timeoutMs: 20_000, message: `canary Deployment removed (had ${canary.items.length})` });
  });

  it('retries through concurrent edits (409s) and ends at the App, leaving fields it does not own alone', async () => {
    const ns = await newNamespace(api, 'f');
    startControllerProcess(ns);
    await createApps(ns, 5, () => ({ image: 'registry.example/web:1', replicas: 2 }));
    await eventually(() => converged(ns, 5), { timeoutMs: 60_000, message: 'initial convergence' });

    // Another client annotates the Deployments (a field skiff does not own) and scales them, while
    // the App's spec changes underneath: the controller sees stale caches and 409s.
    const deadline = Date.now() + 8_000;
    let round = 0;
    const annotated = new Map<string, string>();
    while (Date.now() < deadline) {
      round++;
      await Promise.all(Array.from({ length: 5 }, async (_, i) => {
        const name = `app-${i}`;
        await Promise.allSettled([
          api.apps.readNamespacedDeployment({ namespace: ns, name }).then(async (d: V1Deployment) => {
            const value = `round-${round}`;
            await api.apps.replaceNamespacedDeployment({ namespace: ns, name, body: { ...d, metadata: { ...d.metadata, annotations: { ...d.metadata?.annotations, 'team.example/owner': value } }, spec: { ...d.spec!, replicas: 9 } } });
            annotated.set(name, value);
          }),
          kubectl(cp.kubeconfigPath, ['patch', 'app', name, '-n', ns, '--type=merge', '-p', JSON.stringify({ spec: { replicas: 1 + (round % 3) } })]),
        ]);
      }));
    }
    const finalReplicas = 1 + (round % 3);
    await eventually(() => converged(ns, 5), { timeoutMs: 60_000, message: 'convergence after the concurrent edits' });
    for (let i = 0; i < 5; i++) {
      const d = await api.apps.readNamespacedDeployment({ namespace: ns, name: `app-${i}` });
      assert.equal(d.spec?.replicas, finalReplicas);
      assert.ok(annotated.has(`app-${i}`), 'some edits of the other client went through');
      assert.equal(d.metadata?.annotations?.['team.example/owner'], annotated.get(`app-${i}`), 'the other client\'s last annotation is kept');
    }
  });
});
