// The revision history (ControllerRevisions), spec.rollout.paused, skiff.dev/retry and
// skiff.dev/skip-canary on a real control plane (etcd, kube-apiserver, kube-controller-manager)
// with the pod simulator standing in for the kubelet.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Watch, type CoreV1Event, type KubernetesObject, type V1ControllerRevision } from '@kubernetes/client-node';
import type { ControlPlane } from '../../dev/control-plane.js';
import type { AppSpec, CanaryStep, RolloutSpec } from '../../shared/app-types.js';
import type { KubeClients } from '../../dev/kube-clients.js';
import { defaulted } from '../../shared/defaults.js';
import { renderPodTemplate } from '../../shared/render/pod-template.js';
import { kubectl } from '../support/kube.js';
import { useControllerCluster } from '../support/controller-cluster.js';
import { condition, createApp, getApp, newNamespace, observeFor, testLogger } from '../support/apps.js';
import { reconcileCount } from '../support/metrics.js';
import { eventually, until } from '../../dev/wait.js';

const log = testLogger('controller');
const PLUGIN = join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..'), 'cli', 'kubectl-skiff');

/** Runs the built plugin; resolves with its exit code and output. */
function plugin(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((done) => execFile(PLUGIN, [...args, '--kubeconfig', cp.kubeconfigPath], (err, stdout, stderr) =>
    done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` })));
}
const WEIGHT = 'nginx.ingress.kubernetes.io/canary-weight';

let cp: ControlPlane;
let api: KubeClients;

function canarySpec(image: string, steps: CanaryStep[], extra: Partial<RolloutSpec> = {}, more: Partial<AppSpec> = {}): AppSpec {
  return { image, replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, steps, ...extra }, ...more };
}

const patchApp = (ns: string, patch: object) => kubectl(cp.kubeconfigPath, ['patch', 'app', 'web', '-n', ns, '--type=merge', '-p', JSON.stringify(patch)]);

/** The App's history, by number. */
async function history(ns: string): Promise<V1ControllerRevision[]> {
  const list = await api.apps.listNamespacedControllerRevision({ namespace: ns });
  return list.items.filter((r) => r.metadata?.labels?.['skiff.dev/app'] === 'web').sort((a, b) => a.revision - b.revision);
}
const outcomes = async (ns: string) => (await history(ns)).map((r) => `${r.metadata?.name} ${r.metadata?.annotations?.['skiff.dev/outcome']}`);

async function weight(ns: string): Promise<string | undefined> {
  try {
    return (await api.networking.readNamespacedIngress({ namespace: ns, name: 'web-canary' })).metadata?.annotations?.[WEIGHT];
  } catch {
    return undefined;
  }
}

/** The pod-template revision (hash) of the App with another image, as the controller computes it. */
async function revisionWith(ns: string, image: string): Promise<string> {
  const app = await getApp(api, ns, 'web');
  return renderPodTemplate(defaulted({ ...app, spec: { ...app.spec, image } }), 'stable').revision;
}

async function events(ns: string, reason: string): Promise<CoreV1Event[]> {
  const list = await api.core.listNamespacedEvent({ namespace: ns });
  return list.items.filter((e) => e.reason === reason && e.involvedObject.name === 'web');
}

async function stableApp(image: string, steps: CanaryStep[], extra: Partial<RolloutSpec> = {}, more: Partial<AppSpec> = {}): Promise<string> {
  const ns = await newNamespace(api, 'h');
  await createApp(api, ns, 'web', canarySpec(image, steps, extra, more));
  await eventually(async () => {
    const app = await getApp(api, ns, 'web');
    return app.status?.stableImage === image && condition(app, 'Ready')?.status === 'True' && (await outcomes(ns)).join() === 'web-1 Promoted';
  }, { timeoutMs: 30_000, message: 'the first revision stable and recorded' });
  return ns;
}

const stableIs = (ns: string, image: string) => eventually(async () => {
  const a = await getApp(api, ns, 'web');
  return a.status?.stableImage === image && !a.status.canary && a;
}, { timeoutMs: 40_000, message: `stable on ${image}` });

/** A reconcile of the App after now: an annotation of the test's own, then the reconcile count moving. */
async function pokeAndReconcile(ns: string, value: string, controller: Parameters<typeof reconcileCount>[0]): Promise<void> {
  const before = await reconcileCount(controller);
  await patchApp(ns, { metadata: { annotations: { 'test.skiff.dev/poke': value } } });
  await until(async () => assert.ok((await reconcileCount(controller)) > before), { timeoutMs: 10_000, intervalMs: 50, message: 'a reconcile after the poke' });
}

describe('revision history and the rollout commands (real control plane)', function () {
  this.timeout(120_000);
  const cluster = useControllerCluster('history', {
    cluster: { controllerManager: true },
    controllers: () => [{ resyncMs: 30_000, watchBrokenLimitMs: 5_000, log }],
  });
  before(() => {
    ({ cp, api } = cluster);
  });

  it('records each revision (name, number, labels, data, annotations) with its outcome through a promoted, an aborted and a cancelled canary', async () => {
    const ns = await stableApp('registry.example/web:1', [{ setWeight: 50 }, { pause: {} }], {}, { env: [{ name: 'MODE', value: 'a' }] });
    const app = await getApp(api, ns, 'web');
    const [first] = await history(ns);
    assert.equal(first.revision, 1);
    assert.deepEqual(first.metadata?.labels, {
      'app.kubernetes.io/name': 'web', 'app.kubernetes.io/managed-by': 'skiff', 'skiff.dev/app': 'web', 'skiff.dev/revision': app.status!.stableRevision!,
    });
    assert.deepEqual(first.data, { spec: { image: 'registry.example/web:1', env: [{ name: 'MODE', value: 'a' }], port: 8080 } });
    assert.equal(first.metadata?.annotations?.['skiff.dev/images'], 'registry.example/web:1');
    assert.equal(first.metadata?.annotations?.['skiff.dev/changes'], '');
    assert.match(first.metadata?.annotations?.['skiff.dev/started-at'] ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(first.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller, r.blockOwnerDeletion]), [['App', 'web', app.metadata.uid, true, true]]);

    // A canary of a new image and env: recorded when it starts, Promoted when it becomes stable.
    await patchApp(ns, { spec: { image: 'registry.example/web:2', env: [{ name: 'MODE', value: 'b' }] } });
    await eventually(async () => (await outcomes(ns)).join() === 'web-1 Promoted,web-2 Running', { timeoutMs: 30_000, message: 'web-2 Running' });
    const second = (await history(ns))[1];
    assert.equal(second.metadata?.labels?.['skiff.dev/revision'], (await getApp(api, ns, 'web')).status?.canary?.revision);
    assert.equal(second.metadata?.annotations?.['skiff.dev/changes'], 'image,env MODE');
    assert.deepEqual((second.data as { spec: AppSpec }).spec.env, [{ name: 'MODE', value: 'b' }]);
    await eventually(async () => (await weight(ns)) === '50', { timeoutMs: 30_000, message: 'weight 50' });
    await patchApp(ns, { metadata: { annotations: { 'skiff.dev/promote': 'true' } } });
    await stableIs(ns, 'registry.example/web:2');
    await eventually(async () => (await outcomes(ns)).join() === 'web-1 Promoted,web-2 Promoted', { timeoutMs: 15_000, message: 'web-2 Promoted' });

    // Aborted.
    await patchApp(ns, { spec: { image: 'registry.example/web:3' } });
    await eventually(async () => (await weight(ns)) === '50', { timeoutMs: 30_000, message: 'weight 50 for web:3' });
    await patchApp(ns, { metadata: { annotations: { 'skiff.dev/abort': 'true' } } });
    await eventually(async () => (await outcomes(ns)).join() === 'web-1 Promoted,web-2 Promoted,web-3 Aborted', { timeoutMs: 30_000, message: 'web-3 Aborted' });

    // Cancelled: replaced by a newer template while it runs.
    await patchApp(ns, { spec: { image: 'registry.example/web:4' } });
    await eventually(async () => (await outcomes(ns)).at(-1) === 'web-4 Running', { timeoutMs: 30_000, message: 'web-4 Running' });
    await patchApp(ns, { spec: { image: 'registry.example/web:5' } });
    await eventually(async () => (await outcomes(ns)).slice(3).join() === 'web-4 Cancelled,web-5 Running', { timeoutMs: 30_000, message: 'web-4 Cancelled, web-5 Running' });
    assert.ok((await events(ns, 'RevisionRecorded')).length > 0, 'the App has RevisionRecorded Events');

    // A pass with nothing to do writes no entry: the history's versions stay as they are.
    const versions = (await history(ns)).map((r) => r.metadata?.resourceVersion);
    await pokeAndReconcile(ns, 'no-op', cluster.controller);
    assert.deepEqual((await history(ns)).map((r) => r.metadata?.resourceVersion), versions, 'no write to the history in a no-op pass');
  });

  it('entries of fields that hold what Go escapes (&, <, >) and keys in any order: their outcomes are recorded, they take a hand annotation, and the App goes with --cascade=orphan, leaving them', async () => {
    // The API server keeps an entry's data as the bytes sent and re-encodes it in Go's form on every
    // patch: bytes in another form made each patch a refused change of the immutable data.
    const more: Partial<AppSpec> = {
      env: [{ name: 'MODE', value: 'a && b <c>' }],
      command: ['sh', '-c', 'migrate && serve > /dev/null'],
      podAnnotations: { '10': 'x', '9': 'y', zone: 'b', 'example.com/note': 'é \u2028' },
    };
    // stableApp waits for web-1 Promoted: the outcome patch of an entry.
    const ns = await stableApp('registry.example/web:1', [{ setWeight: 50 }, { pause: {} }], {}, more);
    await patchApp(ns, { spec: { image: 'registry.example/web:2' } });
    await eventually(async () => (await weight(ns)) === '50', { timeoutMs: 30_000, message: 'weight 50' });
    await patchApp(ns, { metadata: { annotations: { 'skiff.dev/promote': 'true' } } });
    await eventually(async () => (await outcomes(ns)).join() === 'web-1 Promoted,web-2 Promoted', { timeoutMs: 30_000, message: `web-2 Promoted: ${(await outcomes(ns)).join()}` });
    assert.notEqual(condition(await getApp(api, ns, 'web'), 'Degraded')?.reason, 'ReconcileError');
    await kubectl(cp.kubeconfigPath, ['annotate', 'controllerrevision', 'web-1', '-n', ns, 'example.com/kept=yes']);
    await kubectl(cp.kubeconfigPath, ['delete', 'app', 'web', '-n', ns, '--cascade=orphan', '--wait=false']);
    await eventually(async () => {
      try {
        await getApp(api, ns, 'web');
        return false;
      } catch {
        return true;
      }
    }, { timeoutMs: 30_000, message: 'the App gone, its dependents orphaned' });
    const left = await history(ns);
    assert.deepEqual(left.map((r) => [r.metadata?.name, r.metadata?.ownerReferences ?? []]), [['web-1', []], ['web-2', []]]);
    assert.deepEqual((left[0].data as { spec: AppSpec }).spec.env, more.env);
  });

  it('a change outside the pod template (progressDeadlineSeconds): Ready never leaves True and the history entry stays Promoted (watch-recorded)', async () => {
    for (const strategy of ['RollingUpdate', 'Canary'] as const) {
      const ns = await stableApp('registry.example/web:1', [{ setWeight: 50 }], { strategy });
      // Every version of the App and of its history entries, as the watches deliver them.
      const seen: { kind: string; obj: KubernetesObject & { status?: { conditions?: { type: string; status: string; reason: string }[] } } }[] = [];
      const watch = new Watch(cluster.kc);
      const requests = await Promise.all([
        ['App', `/apis/skiff.dev/v1alpha1/namespaces/${ns}/apps`], ['ControllerRevision', `/apis/apps/v1/namespaces/${ns}/controllerrevisions`],
      ].map(([kind, path]) => watch.watch(path, {}, (_type: string, obj: KubernetesObject) => seen.push({ kind, obj }), () => {})));
      try {
        await patchApp(ns, { spec: { rollout: { progressDeadlineSeconds: 300 } } });
        await eventually(async () => {
          const a = await getApp(api, ns, 'web');
          const d = await api.apps.readNamespacedDeployment({ namespace: ns, name: 'web' });
          return d.spec?.progressDeadlineSeconds === 300 && d.status?.observedGeneration === d.metadata?.generation
            && a.status?.observedGeneration === a.metadata.generation && condition(a, 'Progressing')?.reason === 'RolloutComplete';
        }, { timeoutMs: 20_000, message: 'the change written and seen by the Deployment controller' });
        // Passes the Deployment's own events brought after its controller caught up.
        await observeFor(1_000, 'the passes after the change');
      } finally {
        requests.forEach((r) => r.abort());
      }
      const readiness = seen.filter((e) => e.kind === 'App').map((e) => e.obj.status?.conditions?.find((c) => c.type === 'Ready')).map((c) => `${c?.status}/${c?.reason}`);
      assert.ok(readiness.length > 0 && readiness.every((r) => r === 'True/Available'), `${strategy}: Ready as recorded: ${readiness.join(' ')}`);
      const entries = seen.filter((e) => e.kind === 'ControllerRevision').map((e) => `${e.obj.metadata?.name} ${e.obj.metadata?.annotations?.['skiff.dev/outcome']}`);
      assert.deepEqual([...new Set(entries)], entries.length ? ['web-1 Promoted'] : [], `${strategy}: history as recorded: ${entries.join(', ')}`);
      assert.deepEqual(await outcomes(ns), ['web-1 Promoted']);
    }
  });

  it('a scale of spec.replicas, up and down, and a kubectl rollout restart are no rollout: the history entry stays Promoted throughout (watch-recorded)', async () => {
    for (const strategy of ['RollingUpdate', 'Canary'] as const) {
      const ns = await stableApp('registry.example/web:1', [{ setWeight: 50 }], { strategy }, { replicas: 2 });
      const seen: string[] = [];
      const watch = new Watch(cluster.kc);
      const request = await watch.watch(`/apis/apps/v1/namespaces/${ns}/controllerrevisions`, {}, (_type: string, obj: KubernetesObject) => {
        seen.push(`${obj.metadata?.name} ${obj.metadata?.annotations?.['skiff.dev/outcome']}`);
      }, () => {});
      try {
        for (const replicas of [3, 2]) {
          await patchApp(ns, { spec: { replicas } });
          await eventually(async () => {
            const d = await api.apps.readNamespacedDeployment({ namespace: ns, name: 'web' });
            const a = await getApp(api, ns, 'web');
            return d.spec?.replicas === replicas && d.status?.observedGeneration === d.metadata?.generation && d.status?.readyReplicas === replicas
              && a.status?.observedGeneration === a.metadata.generation && condition(a, 'Ready')?.status === 'True';
          }, { timeoutMs: 30_000, message: `scaled to ${replicas} and seen by the Deployment controller` });
        }
        // New pods of the same revision, in a new ReplicaSet beside the old one's until they are up.
        await kubectl(cp.kubeconfigPath, ['rollout', 'restart', 'deployment/web', '-n', ns]);
        await kubectl(cp.kubeconfigPath, ['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s']);
        await observeFor(1_000, 'the passes after the scale and the restart');
      } finally {
        request.abort();
      }
      assert.deepEqual([...new Set(seen)], seen.length ? ['web-1 Promoted'] : [], `${strategy}: history as recorded: ${seen.join(', ')}`);
      assert.deepEqual(await outcomes(ns), ['web-1 Promoted']);
    }
  });

  it('prunes beyond revisionHistoryLimit, never the stable or the running entry', async () => {
    const ns = await stableApp('registry.example/web:1', [{ setWeight: 50 }, { pause: {} }], {}, { revisionHistoryLimit: 1 });
    for (const [n, image] of [[2, 'web:2'], [3, 'web:3'], [4, 'web:4']] as const) {
      await patchApp(ns, { spec: { image: `registry.example/${image}` } });
      await eventually(async () => (await outcomes(ns)).at(-1) === `web-${n} Running`, { timeoutMs: 30_000, message: `web-${n} Running` });
    }
    // Stable (web-1), the running one (web-4), and one more (the newest of the others).
    await eventually(async () => (await outcomes(ns)).join() === 'web-1 Promoted,web-3 Cancelled,web-4 Running', { timeoutMs: 15_000, message: 'web-2 pruned' });
    await patchApp(ns, { spec: { revisionHistoryLimit: 0 } });
    await eventually(async () => (await outcomes(ns)).join() === 'web-1 Promoted,web-4 Running', { timeoutMs: 15_000, message: 'only stable and running at limit 0' });
  });

  it('paused: holds the weight, the step and the pause timer while the clock stops; resumes where it was; a new template waits', async () => {
    const ns = await stableApp('registry.example/web:1', [{ setWeight: 50 }, { pause: { duration: '4s' } }, { setWeight: 75 }, { pause: {} }]);
    await patchApp(ns, { spec: { image: 'registry.example/web:2' } });
    await eventually(async () => (await getApp(api, ns, 'web')).status?.canary?.stepIndex === 1, { timeoutMs: 30_000, message: 'the timed pause' });
    await patchApp(ns, { spec: { rollout: { paused: true } } });
    const paused = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return a.status?.canary?.pausedAt !== undefined && a;
    }, { timeoutMs: 10_000, message: 'pausedAt set' });
    assert.equal(paused.status?.canary?.stepIndex, 1, 'paused within the 4 s pause');
    assert.deepEqual([condition(paused, 'Progressing')?.status, condition(paused, 'Progressing')?.reason], ['Unknown', 'RolloutPaused']);
    // A window, not a poll: longer than the 4 s pause, which must not end while paused.
    await observeFor(6_000, 'a paused canary does not leave its timed pause');
    await pokeAndReconcile(ns, 'paused', cluster.controller);
    const held = await getApp(api, ns, 'web');
    assert.equal(held.status?.canary?.stepIndex, 1, 'still at the pause');
    assert.equal(held.status?.canary?.stepStartedAt, paused.status?.canary?.stepStartedAt);
    assert.equal(await weight(ns), '50', 'the weight is held');

    await patchApp(ns, { spec: { rollout: { paused: false } } });
    const resumed = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return a.status?.canary && a.status.canary.pausedAt === undefined && a;
    }, { timeoutMs: 10_000, message: 'resumed' });
    const moved = Date.parse(resumed.status!.canary!.stepStartedAt) - Date.parse(paused.status!.canary!.stepStartedAt);
    assert.ok(moved >= 6_000, `stepStartedAt moved forward by the time paused (${moved} ms)`);
    await eventually(async () => (await weight(ns)) === '75', { timeoutMs: 30_000, message: 'the rollout goes on to weight 75' });

    // Paused again, a new template waits: the canary of web:2 is cancelled and nothing starts.
    await patchApp(ns, { spec: { rollout: { paused: true } } });
    await eventually(async () => (await getApp(api, ns, 'web')).status?.canary?.pausedAt !== undefined, { timeoutMs: 10_000, message: 'paused again' });
    await patchApp(ns, { spec: { image: 'registry.example/web:3' } });
    const waiting = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return a.status?.observedGeneration === a.metadata.generation && !a.status?.canary && a;
    }, { timeoutMs: 15_000, message: 'the new template waits' });
    assert.equal(waiting.status?.stableImage, 'registry.example/web:1');
    assert.equal(condition(waiting, 'Progressing')?.reason, 'RolloutPaused');
    await eventually(async () => (await outcomes(ns)).join() === 'web-1 Promoted,web-2 Cancelled', { timeoutMs: 15_000, message: 'web-2 Cancelled, web:3 not recorded' });
    const stable = await api.apps.readNamespacedDeployment({ namespace: ns, name: 'web' });
    assert.equal(stable.spec?.template.spec?.containers[0].image, 'registry.example/web:1', 'stable keeps its template');
    await patchApp(ns, { spec: { rollout: { paused: false } } });
    await eventually(async () => (await outcomes(ns)).at(-1) === 'web-3 Running', { timeoutMs: 30_000, message: 'web:3 starts on resume' });
  });

  it('retry after an abort runs the canary again to its promotion', async () => {
    const ns = await stableApp('registry.example/web:1', [{ setWeight: 50 }, { pause: { duration: '1s' } }]);
    await patchApp(ns, { spec: { image: 'registry.example/web:2' } });
    await eventually(async () => (await weight(ns)) === '50', { timeoutMs: 30_000, message: 'weight 50' });
    await patchApp(ns, { metadata: { annotations: { 'skiff.dev/abort': 'true' } } });
    await eventually(async () => condition(await getApp(api, ns, 'web'), 'Degraded')?.reason === 'RolloutAborted' && (await outcomes(ns)).at(-1) === 'web-2 Aborted', { timeoutMs: 30_000, message: 'aborted' });
    await eventually(async () => (await weight(ns)) === undefined, { timeoutMs: 15_000, message: 'the aborted canary removed' });

    await patchApp(ns, { metadata: { annotations: { 'skiff.dev/retry': 'true' } } });
    const app = await stableIs(ns, 'registry.example/web:2');
    assert.equal(condition(app, 'Degraded')?.status, 'False');
    assert.equal(app.status?.abortedRevision, undefined);
    // Removed by a write of its own after the status write that records the retry.
    await eventually(async () => (await getApp(api, ns, 'web')).metadata.annotations?.['skiff.dev/retry'] === undefined, { timeoutMs: 10_000, message: 'the retry annotation removed' });
    await eventually(async () => (await outcomes(ns)).join() === 'web-1 Promoted,web-2 Promoted', { timeoutMs: 15_000, message: 'web-2 Promoted after the retry' });
    await eventually(async () => (await events(ns, 'RolloutRetried')).length === 1, { timeoutMs: 10_000, message: 'a RolloutRetried Event' });

    // Nothing aborted now: a retry is refused with a Warning and removed.
    await patchApp(ns, { metadata: { annotations: { 'skiff.dev/retry': 'true' } } });
    await eventually(async () => (await events(ns, 'RetryIgnored')).some((e) => e.type === 'Warning'), { timeoutMs: 15_000, message: 'RetryIgnored' });
    await eventually(async () => (await getApp(api, ns, 'web')).metadata.annotations?.['skiff.dev/retry'] === undefined, { timeoutMs: 10_000, message: 'the refused retry removed' });
  });

  it('kubectl skiff undo: back to the previous stable revision as a canary; --skip-canary straight to stable, refused for a never-promoted one', async () => {
    const ns = await stableApp('registry.example/web:1', [{ setWeight: 50 }, { pause: {} }], {}, { env: [{ name: 'MODE', value: 'a' }] });
    const first = (await getApp(api, ns, 'web')).status!.stableRevision!;
    await patchApp(ns, { spec: { image: 'registry.example/web:2', env: null } });
    await eventually(async () => (await weight(ns)) === '50', { timeoutMs: 30_000, message: 'weight 50' });
    assert.equal((await plugin(['promote', 'web', '-n', ns])).code, 0);
    await stableIs(ns, 'registry.example/web:2');

    // undo: revision 1's pod-template fields come back (env too), rolled out as a canary.
    const undo = await plugin(['undo', 'web', '-n', ns]);
    assert.equal(undo.code, 0, undo.out);
    const canary = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return a.status?.canary?.revision === first && a;
    }, { timeoutMs: 30_000, message: 'a canary of revision 1\'s template' });
    assert.equal(canary.spec.image, 'registry.example/web:1');
    assert.deepEqual(canary.spec.env, [{ name: 'MODE', value: 'a' }]);
    assert.equal(canary.status?.stableImage, 'registry.example/web:2');
    await eventually(async () => (await outcomes(ns)).join() === 'web-1 Promoted,web-2 Promoted,web-3 Running', { timeoutMs: 15_000, message: 'web-3 Running' });
    // Done with that canary: promoted, so that web-2 is the stable revision before the current one.
    assert.equal((await plugin(['promote', 'web', '-n', ns])).code, 0);
    await stableIs(ns, 'registry.example/web:1');

    // undo --skip-canary to revision 2 (promoted before): straight to stable, no canary Deployment ever.
    const seen: string[] = [];
    const request = await new Watch(cluster.kc).watch(`/apis/apps/v1/namespaces/${ns}/deployments`, {}, (type: string, obj: KubernetesObject) => {
      if (obj.metadata?.name === 'web-canary') seen.push(type);
    }, () => {});
    try {
      await eventually(async () => !(await exists(ns)), { timeoutMs: 15_000, message: 'the canary of web-3 gone' });
      seen.length = 0;
      const skip = await plugin(['undo', 'web', '-n', ns, '--to-revision', '2', '--skip-canary']);
      assert.equal(skip.code, 0, skip.out);
      const back = await stableIs(ns, 'registry.example/web:2');
      assert.equal(back.spec.env, undefined, 'revision 2 had no env: the field is removed');
      await eventually(async () => (await events(ns, 'RollbackWithoutCanary')).length === 1, { timeoutMs: 10_000, message: 'RollbackWithoutCanary' });
    } finally {
      request.abort();
    }
    assert.deepEqual(seen, [], 'no canary Deployment for the emergency rollback');

    // A revision that was never stable: the plugin refuses, and nothing is written.
    await patchApp(ns, { spec: { image: 'registry.example/web:bad' } });
    await eventually(async () => (await weight(ns)) === '50', { timeoutMs: 30_000, message: 'weight 50 for web:bad' });
    assert.equal((await plugin(['abort', 'web', '-n', ns])).code, 0);
    await eventually(async () => (await outcomes(ns)).at(-1)?.endsWith('Aborted'), { timeoutMs: 30_000, message: 'web:bad aborted' });
    const bad = (await history(ns)).at(-1)!.revision;
    const generation = (await getApp(api, ns, 'web')).metadata.generation;
    // Still the App's template: an undo to it would change nothing, with or without --skip-canary.
    const same = await plugin(['undo', 'web', '-n', ns, '--to-revision', String(bad), '--skip-canary']);
    assert.equal(same.code, 1);
    assert.match(same.out, new RegExp(`has revision ${bad}'s pod template already \\(hash [0-9a-f]+\\): nothing to undo`));
    assert.equal((await getApp(api, ns, 'web')).metadata.generation, generation, 'a refused undo writes nothing');
    // Once the App has moved on (back to web:2, stable), the undo to it is refused for having never been promoted.
    await patchApp(ns, { spec: { image: 'registry.example/web:2' } });
    await eventually(async () => (await getApp(api, ns, 'web')).status?.observedGeneration === generation! + 1, { timeoutMs: 15_000, message: 'web:2 again seen' });
    const refused = await plugin(['undo', 'web', '-n', ns, '--to-revision', String(bad), '--skip-canary']);
    assert.equal(refused.code, 1);
    assert.match(refused.out, new RegExp(`revision ${bad} \\(hash [0-9a-f]+\\) was never promoted, so it cannot skip the canary; undo without --skip-canary rolls it out with its canary steps`));
    assert.equal((await getApp(api, ns, 'web')).metadata.generation, generation! + 1, 'a refused undo writes nothing');
  });

  it('skip-canary: a formerly promoted revision goes straight to stable with no canary objects; a never-promoted one gets a canary', async () => {
    const ns = await stableApp('registry.example/web:1', [{ setWeight: 50 }, { pause: {} }]);
    const first = (await getApp(api, ns, 'web')).status!.stableRevision!;
    await patchApp(ns, { spec: { image: 'registry.example/web:2' } });
    await eventually(async () => (await weight(ns)) === '50', { timeoutMs: 30_000, message: 'weight 50' });
    await patchApp(ns, { metadata: { annotations: { 'skiff.dev/promote': 'true' } } });
    await stableIs(ns, 'registry.example/web:2');
    await eventually(async () => !(await exists(ns)), { timeoutMs: 15_000, message: 'the canary of web:2 gone' });

    // Watch the canary Deployment from here on: it must never be created for the rollback.
    const seen: string[] = [];
    const request = await new Watch(cluster.kc).watch(`/apis/apps/v1/namespaces/${ns}/deployments`, {}, (type: string, obj: KubernetesObject) => {
      if (obj.metadata?.name === 'web-canary') seen.push(type);
    }, () => {});
    try {
      await patchApp(ns, { metadata: { annotations: { 'skiff.dev/skip-canary': first } }, spec: { image: 'registry.example/web:1' } });
      const back = await stableIs(ns, 'registry.example/web:1');
      assert.equal(back.status?.stableRevision, first);
      // Removed by a write of its own after the status write that records the rollback.
      await eventually(async () => (await getApp(api, ns, 'web')).metadata.annotations?.['skiff.dev/skip-canary'] === undefined, { timeoutMs: 10_000, message: 'the skip-canary annotation removed' });
      await eventually(async () => (await outcomes(ns)).join() === 'web-1 Promoted,web-2 Promoted,web-3 Promoted', { timeoutMs: 15_000, message: 'web-3 (the first hash again) Promoted' });
      assert.equal((await history(ns))[2].metadata?.labels?.['skiff.dev/revision'], first);
      await eventually(async () => (await events(ns, 'RollbackWithoutCanary')).length === 1, { timeoutMs: 10_000, message: 'RollbackWithoutCanary' });
      const stable = await api.apps.readNamespacedDeployment({ namespace: ns, name: 'web' });
      assert.equal(stable.spec?.template.spec?.containers[0].image, 'registry.example/web:1');
    } finally {
      request.abort();
    }
    assert.deepEqual(seen, [], 'no canary Deployment was created for the rollback');

    // A revision never promoted: refused, and rolled out as a canary.
    const never = await revisionWith(ns, 'registry.example/web:9');
    await patchApp(ns, { metadata: { annotations: { 'skiff.dev/skip-canary': never } }, spec: { image: 'registry.example/web:9' } });
    const app = await eventually(async () => {
      const a = await getApp(api, ns, 'web');
      return a.status?.canary?.revision === never && a;
    }, { timeoutMs: 30_000, message: 'a canary of the never-promoted revision' });
    assert.equal(app.status?.stableImage, 'registry.example/web:1');
    await eventually(async () => (await events(ns, 'SkipCanaryRefused')).some((e) => e.type === 'Warning'), { timeoutMs: 10_000, message: 'SkipCanaryRefused' });
    await eventually(async () => (await outcomes(ns)).at(-1) === 'web-4 Running', { timeoutMs: 15_000, message: 'web-4 Running' });
  });
});

async function exists(ns: string): Promise<boolean> {
  try {
    await api.apps.readNamespacedDeployment({ namespace: ns, name: 'web-canary' });
    return true;
  } catch {
    return false;
  }
}

