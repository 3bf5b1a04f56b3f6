// Blue-green rollouts on a real control plane (etcd, kube-apiserver, kube-controller-manager) with
// the pod simulator standing in for the kubelet, and a real Prometheus (Debian's 2.42) scraping the
// stand-in for ingress-nginx's data plane. Sequences (the Service's selector, the old Deployment)
// are recorded from watches, never sampled. Analysis runs every 10 s, the shortest interval allowed.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Watch, type KubernetesObject, type V1Deployment, type V1Service } from '@kubernetes/client-node';
import { startTrafficExporter, type Traffic, type TrafficExporter } from '../../dev/nginx-traffic.js';
import { ensurePrometheus, startPrometheus, type RunningPrometheus } from '../../dev/prometheus.js';
import type { AppSpec, BlueGreenSpec, RolloutSpec } from '../../shared/app-types.js';
import { condition, createApp, exists, getApp, newNamespace, observeFor, testLogger } from '../support/apps.js';
import { useControllerCluster } from '../support/controller-cluster.js';
import { kubectl } from '../support/kube.js';
import { eventually } from '../../dev/wait.js';
import { repoRoot } from '../support/bundle.js';

const REVISION = 'skiff.dev/revision';

/** Runs the built kubectl plugin; resolves with its output, rejects when it fails. */
const plugin = (kubeconfig: string, args: string[]) => new Promise<string>((done, fail) =>
  execFile(join(repoRoot, 'cli', 'kubectl-skiff'), [...args, '--kubeconfig', kubeconfig], (err, stdout, stderr) =>
    (err ? fail(new Error(`kubectl skiff ${args.join(' ')}: ${stderr}${stdout}`)) : done(stdout))));
const healthy: Traffic = { rps: 20, errorRatio: 0, latencyMs: 40 };
const failing: Traffic = { rps: 20, errorRatio: 0.3, latencyMs: 40 };

interface Seen<T> { at: number; rv: number; type: string; obj: T }

describe('blue-green rollouts (real control plane, real Prometheus)', function () {
  this.timeout(150_000);
  let exporter: TrafficExporter;
  let prometheus: RunningPrometheus;
  let promDir: string;
  const cluster = useControllerCluster('bluegreen', {
    cluster: { controllerManager: true },
    prepare: async () => {
      exporter = await startTrafficExporter();
      promDir = await mkdtemp(join(tmpdir(), 'skiff-bluegreen-prometheus-'));
      prometheus = await startPrometheus({ dir: promDir, targets: [`127.0.0.1:${exporter.port}`], scrapeIntervalSeconds: 1, bin: await ensurePrometheus() });
    },
    controllers: () => [{ resyncMs: 30_000, prometheusUrl: prometheus.url, log: testLogger('controller') }],
    cleanup: async () => {
      await prometheus?.stop();
      await exporter?.stop();
      if (promDir) await rm(promDir, { recursive: true, force: true });
    },
    hookTimeoutMs: { start: 300_000 },
  });
  const api = () => cluster.api;
  const app = (ns: string) => getApp(api(), ns, 'web');
  const patch = (ns: string, p: object) => kubectl(cluster.cp.kubeconfigPath, ['-n', ns, 'patch', 'app', 'web', '--type=merge', '-p', JSON.stringify(p)]);
  const deployment = (ns: string, name: string) => api().apps.readNamespacedDeployment({ namespace: ns, name }).catch(() => undefined);
  const selectorOf = (s: V1Service | undefined) => s?.spec?.selector ?? {};

  /** Every version of one kind of object in the namespace, as the watch delivers them. */
  async function record<T extends KubernetesObject>(ns: string, path: string, name: string) {
    const seen: Seen<T>[] = [];
    const req = await new Watch(cluster.kc).watch(`${path.replace('NS', ns)}`, { fieldSelector: `metadata.name=${name}` },
      (type: string, obj: T) => seen.push({ at: Date.now(), rv: Number(obj.metadata?.resourceVersion), type, obj }), () => {});
    return { seen, stop: () => req.abort() };
  }
  const watchService = (ns: string) => record<V1Service>(ns, '/api/v1/namespaces/NS/services', 'web');
  const watchDeployment = (ns: string, name: string) => record<V1Deployment>(ns, '/apis/apps/v1/namespaces/NS/deployments', name);

  /** A stable BlueGreen App, Ready, its Service selecting its revision: resolves with the namespace and that revision. */
  async function stableApp(blueGreen: BlueGreenSpec, rollout: Partial<RolloutSpec> = {}, extra: Partial<AppSpec> = {}): Promise<{ ns: string; r1: string }> {
    const ns = await newNamespace(api(), 'bg');
    await createApp(api(), ns, 'web', { image: 'registry.example/web:1', replicas: 3, ...extra, rollout: { strategy: 'BlueGreen', scaleDownDelaySeconds: 5, progressDeadlineSeconds: 120, blueGreen, ...rollout } });
    const r1 = await eventually(async () => {
      const a = await app(ns);
      const service = await api().core.readNamespacedService({ namespace: ns, name: 'web' });
      return condition(a, 'Ready')?.status === 'True' && selectorOf(service)[REVISION] === a.status?.stableRevision && a.status?.stableRevision;
    }, { timeoutMs: 30_000, message: 'the first version Ready, the Service selecting its revision' });
    return { ns, r1: r1 as string };
  }

  /** The revisions the Service selected, version by version, and how many writes changed the selector. */
  function selections(seen: Seen<V1Service>[]) {
    const selectors = seen.map((s) => selectorOf(s.obj));
    for (const sel of selectors) assert.deepEqual(Object.keys(sel).sort(), ['skiff.dev/app', REVISION], `a selector of one revision, never a mix: ${JSON.stringify(sel)}`);
    const revisions = selectors.map((s) => s[REVISION]);
    return { revisions, changes: revisions.filter((r, i) => i > 0 && r !== revisions[i - 1]).length };
  }

  const done = (ns: string, revision: string, timeoutMs = 60_000) => eventually(async () => {
    const a = await app(ns);
    return a.status?.stableRevision === revision && !a.status.blueGreen && condition(a, 'Progressing')?.reason === 'RolloutComplete' && a;
  }, { timeoutMs, message: 'the blue-green rollout to complete' });

  /** Sets the image and resolves with the App once the Service has switched to it. */
  async function switchTo(ns: string, image: string, message: string) {
    await patch(ns, { spec: { image } });
    return eventually(async () => {
      const a = await app(ns);
      return a.status?.blueGreen?.phase === 'Switched' && a;
    }, { timeoutMs: 30_000, message });
  }

  /** The App's history as `<name> <outcome>`, oldest first. */
  const outcomes = async (ns: string) => (await api().apps.listNamespacedControllerRevision({ namespace: ns })).items
    .filter((r) => r.metadata?.labels?.['skiff.dev/app'] === 'web').sort((a, b) => a.revision - b.revision)
    .map((r) => `${r.metadata?.name} ${r.metadata?.annotations?.['skiff.dev/outcome']}`);

  it('a new App: its Service selects the revision from its first write (watch-recorded), never the track first', async () => {
    const ns = await newNamespace(api(), 'bg');
    const service = await watchService(ns);
    try {
      await createApp(api(), ns, 'web', { image: 'registry.example/web:1', replicas: 2, rollout: { strategy: 'BlueGreen', scaleDownDelaySeconds: 5 } });
      const ready = await eventually(async () => {
        const a = await app(ns);
        return condition(a, 'Ready')?.status === 'True' && a.status?.stableRevision && a;
      }, { timeoutMs: 30_000, message: 'the first version Ready' });
      await observeFor(1_000, 'any write after Ready');
      const { revisions, changes } = selections(service.seen);
      assert.equal(service.seen[0]?.type, 'ADDED');
      assert.deepEqual([...new Set(revisions)], [ready.status!.stableRevision], `every version selects the first revision: ${revisions.join(' ')}`);
      assert.equal(changes, 0);
    } finally {
      service.stop();
    }
  });

  it('without ingress or route: a full-size preview while stable serves, no switch before it is available, one write of the selector, then the scale-down', async () => {
    const { ns, r1 } = await stableApp({});
    const service = await watchService(ns);
    const old = await watchDeployment(ns, 'web');
    try {
      await patch(ns, { spec: { image: 'registry.example/web:2-never-ready' } });
      const preview = await eventually(async () => {
        const d = await deployment(ns, 'web-preview');
        return d?.spec?.replicas === 3 && d;
      }, { timeoutMs: 20_000, message: 'the preview Deployment at the stable replica count' });
      assert.equal(preview.spec?.template.metadata?.labels?.[REVISION], preview.metadata?.annotations?.[REVISION]);
      await eventually(() => exists(() => api().core.readNamespacedService({ namespace: ns, name: 'web-preview' })), { timeoutMs: 10_000, message: 'the preview Service' });
      await observeFor(3_000, 'a preview that never becomes available is never switched to');
      assert.deepEqual(selections(service.seen).revisions.filter((r) => r !== r1), [], 'no switch before the preview is available');
      assert.equal((await app(ns)).status?.blueGreen?.phase, 'Preview');

      await patch(ns, { spec: { image: 'registry.example/web:3' } });
      const switched = await eventually(async () => {
        const a = await app(ns);
        return a.status?.blueGreen?.phase === 'Switched' && a;
      }, { timeoutMs: 30_000, message: 'the switch' });
      const r3 = switched.status!.blueGreen!.previewRevision;
      assert.equal(switched.status!.stableRevision, r1, 'stable keeps its revision during the delay');
      const complete = await done(ns, r3);
      assert.equal(complete.status?.stableImage, 'registry.example/web:3');
      await eventually(async () => !(await exists(() => api().apps.readNamespacedDeployment({ namespace: ns, name: 'web-preview' }))), { timeoutMs: 20_000, message: 'the preview deleted' });
      assert.equal(await exists(() => api().core.readNamespacedService({ namespace: ns, name: 'web-preview' })), false);
      const { revisions, changes } = selections(service.seen);
      assert.equal(changes, 1, `exactly one write changed the selector: ${revisions.join(' ')}`);
      assert.equal(revisions.at(-1), r3);
      // The history as for a canary: the never-ready preview replaced (Cancelled), the switched one Promoted.
      await eventually(async () => (await outcomes(ns)).join() === 'web-1 Promoted,web-2 Cancelled,web-3 Promoted', { timeoutMs: 15_000, message: `the history: ${(await outcomes(ns)).join()}` });
      // The old Deployment kept its pods until the delay was over.
      const firstNew = old.seen.find((s) => s.obj.metadata?.annotations?.[REVISION] === r3);
      assert.ok(firstNew && firstNew.at >= Date.parse(switched.status!.blueGreen!.scaleDownAt!) - 1_000, 'the Deployment took the new template only after scaleDownAt');
    } finally {
      service.stop();
      old.stop();
    }
  });

  it('auto-promotes no earlier than autoPromoteAfter after the preview was ready; with an ingress and previewHost a preview Ingress', async () => {
    const { ns } = await stableApp({ autoPromoteAfter: '5s', previewHost: 'preview.web.example.com' }, {}, { ingress: { host: 'web.example.com' } });
    await patch(ns, { spec: { image: 'registry.example/web:2' } });
    const ingress = await eventually(() => api().networking.readNamespacedIngress({ namespace: ns, name: 'web-preview' }).catch(() => undefined), { timeoutMs: 20_000, message: 'the preview Ingress' });
    assert.equal(ingress.spec?.rules?.[0]?.host, 'preview.web.example.com');
    assert.equal(ingress.spec?.rules?.[0]?.http?.paths[0]?.backend.service?.name, 'web-preview');
    const switched = await eventually(async () => {
      const a = await app(ns);
      return a.status?.blueGreen?.switchedAt && a;
    }, { timeoutMs: 30_000, message: 'the switch' });
    const b = switched.status!.blueGreen!;
    assert.ok(Date.parse(b.switchedAt!) - Date.parse(b.previewReadyAt!) >= 5_000, `switched ${b.switchedAt}, ready ${b.previewReadyAt}`);
    await done(ns, b.previewRevision);
    await eventually(async () => !(await exists(() => api().networking.readNamespacedIngress({ namespace: ns, name: 'web-preview' }))), { timeoutMs: 20_000, message: 'the preview Ingress deleted' });
  });

  it('with autoPromote false: waits for promotion, then switches', async () => {
    const { ns, r1 } = await stableApp({ autoPromote: false });
    const service = await watchService(ns);
    try {
      await patch(ns, { spec: { image: 'registry.example/web:2' } });
      await eventually(async () => (await app(ns)).status?.blueGreen?.previewReadyAt, { timeoutMs: 30_000, message: 'the preview ready' });
      await observeFor(2_000, 'a ready preview is not switched to without promotion');
      assert.deepEqual(selections(service.seen).revisions.filter((r) => r !== r1), []);
      const shown = await plugin(cluster.cp.kubeconfigPath, ['get', 'web', '-n', ns]);
      assert.match(shown, /Preview/, `kubectl skiff get shows the blue-green phase:\n${shown}`);
      await plugin(cluster.cp.kubeconfigPath, ['promote', 'web', '-n', ns]);
      const a = await eventually(async () => {
        const x = await app(ns);
        return x.status?.blueGreen?.phase === 'Switched' && x;
      }, { timeoutMs: 20_000, message: 'the switch after promotion' });
      // Removed by a write of its own after the status write that records the switch.
      await eventually(async () => (await app(ns)).metadata.annotations?.['skiff.dev/promote'] === undefined, { timeoutMs: 10_000, message: 'the promote annotation removed' });
      await done(ns, a.status!.blueGreen!.previewRevision);
      assert.equal(selections(service.seen).changes, 1);
    } finally {
      service.stop();
    }
  });

  it('a change while in Preview: the preview Service selects the new revision only, and its endpoints never mix the two revisions (watch-recorded)', async () => {
    const { ns } = await stableApp({ autoPromote: false });
    const previewService = await record<V1Service>(ns, '/api/v1/namespaces/NS/services', 'web-preview');
    const endpoints = await record<KubernetesObject & { subsets?: { addresses?: { targetRef?: { name?: string } }[]; notReadyAddresses?: unknown[] }[] }>(ns, '/api/v1/namespaces/NS/endpoints', 'web-preview');
    // Every pod's revision label, from a watch of the namespace's pods: the endpoints name pods.
    const revisionOf = new Map<string, string>();
    const pods = await new Watch(cluster.kc).watch(`/api/v1/namespaces/${ns}/pods`, {}, (_type: string, pod: KubernetesObject) => {
      if (pod.metadata?.name && pod.metadata.labels?.[REVISION]) revisionOf.set(pod.metadata.name, pod.metadata.labels[REVISION]);
    }, () => {});
    try {
      const previewReady = (image: string, before?: string) => eventually(async () => {
        const a = await app(ns);
        const d = await deployment(ns, 'web-preview');
        const revision = a.status?.blueGreen?.previewRevision;
        return a.status?.blueGreen?.previewReadyAt && revision !== before && d?.spec?.template?.spec?.containers?.[0]?.image === image && revision;
      }, { timeoutMs: 40_000, message: `the preview of ${image} ready` });
      await patch(ns, { spec: { image: 'registry.example/web:2' } });
      const r2 = await previewReady('registry.example/web:2');
      await patch(ns, { spec: { image: 'registry.example/web:3' } });
      const r3 = await previewReady('registry.example/web:3', r2);
      await observeFor(1_000, 'the endpoints of the ready preview');
      const selected = previewService.seen.filter((e) => e.type !== 'DELETED').map((e) => selectorOf(e.obj));
      for (const sel of selected) assert.deepEqual(Object.keys(sel).sort(), ['skiff.dev/app', REVISION, 'skiff.dev/track'], `one revision of the preview's pods: ${JSON.stringify(sel)}`);
      const revisions = selected.map((sel) => sel[REVISION]).filter((r, i, all) => i === 0 || r !== all[i - 1]);
      assert.deepEqual(revisions, [r2, r3]);
      const mixes = endpoints.seen.map((e) => new Set((e.obj.subsets ?? []).flatMap((sub) => sub.addresses ?? []).map((a) => revisionOf.get(a.targetRef?.name ?? '') ?? 'unknown')))
        .filter((set) => set.size > 1).map((set) => [...set].join('+'));
      assert.deepEqual(mixes, [], 'no version of the endpoints holds pods of two revisions');
      const last = endpoints.seen.at(-1)!.obj.subsets?.flatMap((sub) => sub.addresses ?? []) ?? [];
      assert.ok(last.length > 0 && last.every((a) => revisionOf.get(a.targetRef?.name ?? '') === r3), `the preview's endpoints end on ${r3}: ${JSON.stringify(last)}`);
    } finally {
      previewService.stop();
      endpoints.stop();
      pods.abort();
    }
  });

  it('a preview Service a quota refuses: Degraded says the quota refused it, the wait and the abort at the deadline name it, and the Service stays on stable', async () => {
    const { ns, r1 } = await stableApp({}, { progressDeadlineSeconds: 8 });
    await api().core.createNamespacedResourceQuota({ namespace: ns, body: { metadata: { name: 'services' }, spec: { hard: { 'count/services': '1' } } } });
    await patch(ns, { spec: { image: 'registry.example/web:2' } });
    const waiting = await eventually(async () => {
      const message = condition(await app(ns), 'Progressing')?.message ?? '';
      return message.includes('web-preview') && message;
    }, { timeoutMs: 30_000, message: 'the wait for the preview Service' });
    assert.match(waiting, new RegExp(`waiting for Service ${ns}/web-preview to be the App's \\(made by it; someone else's object of that name, or its creation refused: the Degraded condition says which\\)`));
    assert.match(condition(await app(ns), 'Degraded')?.message ?? '', /web-preview.*exceeded quota/);
    const aborted = await eventually(async () => {
      const a = await app(ns);
      return condition(a, 'Degraded')?.reason === 'ProgressDeadlineExceeded' && a;
    }, { timeoutMs: 40_000, message: 'the abort at the deadline' });
    assert.match(condition(aborted, 'Degraded')!.message, new RegExp(`not available within 8s: not the App's \\(someone else's, or its creation refused\\): Service ${ns}/web-preview`));
    assert.equal(selectorOf(await api().core.readNamespacedService({ namespace: ns, name: 'web' }))[REVISION], r1);
  });

  it('a Service selector patched by hand to the ready preview is no promotion: put back on stable (watch-recorded), the rollout stays in Preview until promoted', async () => {
    const { ns, r1 } = await stableApp({ autoPromote: false });
    await patch(ns, { spec: { image: 'registry.example/web:2' } });
    const r2 = await eventually(async () => {
      const b = (await app(ns)).status?.blueGreen;
      return b?.previewReadyAt && b.previewRevision;
    }, { timeoutMs: 30_000, message: 'the preview ready' }) as string;
    const service = await watchService(ns);
    try {
      // An update (manager kubectl-patch), as kubectl edit makes: the selector only.
      await kubectl(cluster.cp.kubeconfigPath, ['-n', ns, 'patch', 'service', 'web', '--type=merge', '-p', JSON.stringify({ spec: { selector: { [REVISION]: r2 } } })]);
      await eventually(async () => {
        const revisions = selections(service.seen).revisions;
        return revisions.at(-1) === r1 && revisions.includes(r2);
      }, { timeoutMs: 20_000, message: 'the selector put back on stable' });
      await observeFor(3_000, 'nothing switches to the preview without a promotion');
      const a = await app(ns);
      assert.equal(a.status?.blueGreen?.phase, 'Preview', 'no promotion');
      const { revisions } = selections(service.seen);
      assert.deepEqual(revisions.filter((r, i) => i === 0 || r !== revisions[i - 1]), [r1, r2, r1], 'the hand edit, put back once, and nothing since');
      assert.equal(service.seen.at(-1)!.obj.metadata?.annotations?.['skiff.dev/selected-revision'], r1);
      await plugin(cluster.cp.kubeconfigPath, ['promote', 'web', '-n', ns]);
      await done(ns, r2);
    } finally {
      service.stop();
    }
  });

  it('a preview that passed its check waits for its promotion past the deadline: inconclusive checks of it (no previewHost traffic) abort nothing, and the promotion switches', async () => {
    const ns = await newNamespace(api(), 'bgw');
    const previewKey = { namespace: ns, ingress: 'web-preview', host: 'preview.web.example.com' };
    exporter.setTraffic(previewKey, 'stable', healthy);
    exporter.setTraffic({ namespace: ns, ingress: 'web' }, 'stable', healthy);
    await createApp(api(), ns, 'web', {
      image: 'registry.example/web:1', replicas: 2, ingress: { host: 'web.example.com' },
      rollout: { strategy: 'BlueGreen', scaleDownDelaySeconds: 5, progressDeadlineSeconds: 25, blueGreen: { autoPromote: false, previewHost: 'preview.web.example.com' }, analysis: { interval: '10s', minRequests: 5, failureLimit: 0, successRate: { min: 99 } } },
    });
    await eventually(async () => condition(await app(ns), 'Ready')?.status === 'True', { timeoutMs: 30_000, message: 'Ready' });
    await patch(ns, { spec: { image: 'registry.example/web:2' } });
    const passedOnce = await eventually(async () => {
      const a = await app(ns);
      return a.status?.blueGreen?.previewVerdict?.result === 'Passed' && a;
    }, { timeoutMs: 40_000, message: 'a passing check of the preview' });
    // Nobody uses previewHost any more: the checks that follow see too few requests.
    exporter.setTraffic(previewKey, 'stable', { ...healthy, rps: 0 });
    const readyAt = Date.parse(passedOnce.status!.blueGreen!.previewReadyAt!);
    const waited = await eventually(async () => {
      const a = await app(ns);
      const b = a.status?.blueGreen;
      if (condition(a, 'Degraded')?.status === 'True') throw new Error(`aborted: ${condition(a, 'Degraded')?.message}`);
      return b?.analysis?.lastResult === 'Inconclusive' && Date.parse(b.analysis.lastCheckAt!) >= readyAt + 25_000 && a;
    }, { timeoutMs: 60_000, message: 'an inconclusive check of the preview after the deadline' });
    assert.equal(waited.status?.blueGreen?.previewVerdict?.result, 'Passed', 'the pass stands');
    assert.match(condition(waited, 'Progressing')!.message, /kubectl skiff promote/);
    await plugin(cluster.cp.kubeconfigPath, ['promote', 'web', '-n', ns]);
    const switched = await eventually(async () => {
      const a = await app(ns);
      if (condition(a, 'Degraded')?.status === 'True') throw new Error(`aborted: ${condition(a, 'Degraded')?.message}`);
      return a.status?.blueGreen?.phase === 'Switched' && a;
    }, { timeoutMs: 20_000, message: 'the switch after promotion' });
    await done(ns, switched.status!.blueGreen!.previewRevision);
  });

  it('a new image after the switch: the Service goes back to stable at once, the switched-to pods keep their template through the delay, then the new preview', async () => {
    const { ns, r1 } = await stableApp({}, { scaleDownDelaySeconds: 6 });
    const service = await watchService(ns);
    const preview = await watchDeployment(ns, 'web-preview');
    try {
      const switched = await switchTo(ns, 'registry.example/web:2', 'the switch to web:2');
      const r2 = switched.status!.blueGreen!.previewRevision;
      await patch(ns, { spec: { image: 'registry.example/web:3' } });
      const r3 = await eventually(async () => {
        const a = await app(ns);
        return a.status?.blueGreen?.previewRevision !== r2 && a.status?.blueGreen?.phase === 'Preview' && a.status.blueGreen.previewRevision;
      }, { timeoutMs: 40_000, message: 'the preview of web:3, after the web:2 pods went' });
      await done(ns, r3 as string);
      const revisions = selections(service.seen).revisions;
      assert.deepEqual(revisions.filter((r, i) => i === 0 || r !== revisions[i - 1]), [r1, r2, r1, r3], 'switched to web:2, back to web:1 at once, then to web:3');
    } finally {
      service.stop();
      preview.stop();
    }
    // The Deployment web-preview ran web:2 until it was deleted; web:3 came in a new one.
    const versions = preview.seen.sort((a, b) => a.rv - b.rv).map((s) => `${s.type} ${s.obj.spec?.template.spec?.containers[0].image}`);
    const firstThree = versions.findIndex((v) => v.endsWith('web:3'));
    assert.ok(firstThree > 0, versions.join(', '));
    assert.equal(versions[firstThree - 1], 'DELETED registry.example/web:2', `no web:2 preview became web:3 in place: ${versions.join(', ')}`);
  });

  it('a strategy change to RollingUpdate after the switch: the Service leaves the preview at once, in one write, and the preview stays its delay from then (watch-recorded)', async () => {
    const { ns } = await stableApp({}, { scaleDownDelaySeconds: 6 });
    const service = await watchService(ns);
    const preview = await watchDeployment(ns, 'web-preview');
    try {
      const switched = await switchTo(ns, 'registry.example/web:2', 'the switch to web:2');
      const r2 = switched.status!.blueGreen!.previewRevision;
      await eventually(async () => service.seen.some((s) => selectorOf(s.obj)[REVISION] === r2), { timeoutMs: 10_000, message: 'the Service on web:2' });
      await patch(ns, { spec: { rollout: { strategy: 'RollingUpdate', blueGreen: null } } });
      await eventually(async () => preview.seen.some((s) => s.type === 'DELETED'), { timeoutMs: 40_000, message: 'the preview deleted' });
    } finally {
      service.stop();
      preview.stop();
    }
    const left = service.seen.find((s) => selectorOf(s.obj)[REVISION] === undefined);
    const deleted = preview.seen.find((s) => s.type === 'DELETED')!;
    assert.ok(left, 'the Service went to the stable track');
    // The revision key out and the track key in with one write: a selector of the App's name alone
    // in between would pick every pod of the App, the preview's among them.
    assert.deepEqual(service.seen.filter((s) => s.type !== 'DELETED').map((s) => selectorOf(s.obj)).filter((sel) => sel[REVISION] === undefined && sel['skiff.dev/track'] === undefined), [],
      'no version of the Service selects by the App\'s name alone');
    // The revision selected and the annotation saying Skiff selected it go out together: a version
    // with one and not the other would read as a hand edit of the selector.
    assert.deepEqual(service.seen.filter((s) => s.type !== 'DELETED' && selectorOf(s.obj)[REVISION] !== s.obj.metadata?.annotations?.['skiff.dev/selected-revision'])
      .map((s) => `${JSON.stringify(selectorOf(s.obj))} ${s.obj.metadata?.annotations?.['skiff.dev/selected-revision']}`), [], 'no version of the Service selects a revision other than its annotation says');
    assert.ok(deleted.at - left.at >= 5_000, `the preview went ${deleted.at - left.at} ms after the Service left it; the delay is 6 s`);
  });

  it('with an autoscaler: completing hands the count to it without a new generation of web, and Progressing goes from BlueGreenScalingDown to RolloutComplete with nothing between (watch-recorded)', async () => {
    // kube-controller-manager runs the autoscaler's controller; with no metrics API here it never
    // changes the count, so what moves web's generation is Skiff's writes alone.
    const autoscaled: Partial<AppSpec> = { resources: { requests: { cpu: '100m' } }, autoscaling: { minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 70 } };
    const { ns } = await stableApp({}, { scaleDownDelaySeconds: 2 }, autoscaled);
    const apps = await record<KubernetesObject & { status?: { conditions?: { type: string; status: string; reason: string }[] } }>(ns, '/apis/skiff.dev/v1alpha1/namespaces/NS/apps', 'web');
    const old = await watchDeployment(ns, 'web');
    let r2: string;
    try {
      r2 = (await switchTo(ns, 'registry.example/web:2', 'the switch to web:2')).status!.blueGreen!.previewRevision;
      await done(ns, r2);
      await observeFor(3_000, 'writes after the rollout completed');
    } finally {
      apps.stop();
      old.stop();
    }
    const reasons = apps.seen.map((s) => s.obj.status?.conditions?.find((c) => c.type === 'Progressing')).map((c) => `${c?.status}/${c?.reason}`)
      .filter((r, i, all) => i === 0 || r !== all[i - 1]);
    const from = reasons.indexOf('True/BlueGreenScalingDown');
    assert.ok(from >= 0, `the scale-down phase was seen: ${reasons.join(' ')}`);
    assert.deepEqual(reasons.slice(from), ['True/BlueGreenScalingDown', 'False/RolloutComplete'], `Progressing, version by version: ${reasons.join(' ')}`);
    const generations = old.seen.filter((s) => s.obj.metadata?.annotations?.[REVISION] === r2).map((s) => s.obj.metadata?.generation);
    assert.equal(new Set(generations).size, 1, `web took the new template in one generation and kept it: ${generations.join(' ')}`);
  });

  it('abort before the switch deletes the preview; stable serves on, Degraded RolloutAborted', async () => {
    const { ns, r1 } = await stableApp({ autoPromote: false });
    await patch(ns, { spec: { image: 'registry.example/web:2' } });
    await eventually(() => deployment(ns, 'web-preview'), { timeoutMs: 20_000, message: 'the preview' });
    await eventually(async () => (await app(ns)).status?.blueGreen !== undefined, { timeoutMs: 20_000, message: 'status.blueGreen' });
    await plugin(cluster.cp.kubeconfigPath, ['abort', 'web', '-n', ns]);
    const a = await eventually(async () => {
      const x = await app(ns);
      return condition(x, 'Degraded')?.reason === 'RolloutAborted' && x;
    }, { timeoutMs: 20_000, message: 'Degraded RolloutAborted' });
    assert.equal(a.status?.stableRevision, r1);
    await eventually(async () => !(await exists(() => api().apps.readNamespacedDeployment({ namespace: ns, name: 'web-preview' }))) && !(await exists(() => api().core.readNamespacedService({ namespace: ns, name: 'web-preview' }))), { timeoutMs: 20_000, message: 'the preview objects deleted' });
    const service = await api().core.readNamespacedService({ namespace: ns, name: 'web' });
    assert.equal(selectorOf(service)[REVISION], r1);
    await eventually(async () => (await outcomes(ns)).join() === 'web-1 Promoted,web-2 Aborted', { timeoutMs: 15_000, message: `the history: ${(await outcomes(ns)).join()}` });
  });

  it('a failing check under full traffic switches back within one interval; the old pods never went away', async () => {
    const ns = await newNamespace(api(), 'bga');
    exporter.setTraffic({ namespace: ns, ingress: 'web-preview', host: 'preview.web.example.com' }, 'stable', healthy);
    // What the App's own host will answer once it serves the new revision.
    exporter.setTraffic({ namespace: ns, ingress: 'web' }, 'stable', failing);
    await createApp(api(), ns, 'web', {
      image: 'registry.example/web:1', replicas: 2, ingress: { host: 'web.example.com' },
      rollout: { strategy: 'BlueGreen', scaleDownDelaySeconds: 60, progressDeadlineSeconds: 120, blueGreen: { previewHost: 'preview.web.example.com' }, analysis: { interval: '10s', minRequests: 5, failureLimit: 0, successRate: { min: 99 } } },
    });
    const r1 = await eventually(async () => {
      const a = await app(ns);
      return condition(a, 'Ready')?.status === 'True' && a.status?.stableRevision;
    }, { timeoutMs: 30_000, message: 'Ready' });
    await eventually(async () => selectorOf(await api().core.readNamespacedService({ namespace: ns, name: 'web' }))[REVISION] === r1, { timeoutMs: 10_000, message: 'the Service selecting by revision' });
    const service = await watchService(ns);
    const old = await watchDeployment(ns, 'web');
    try {
      await patch(ns, { spec: { image: 'registry.example/web:2' } });
      const switched = await eventually(async () => {
        const a = await app(ns);
        return a.status?.blueGreen?.phase === 'Switched' && a;
      }, { timeoutMs: 60_000, message: 'the switch after a passing check of the preview' });
      assert.equal(switched.status?.blueGreen?.analysis?.lastWeight, 0);
      assert.equal(switched.status?.blueGreen?.analysis?.lastResult, 'Passed');
      const aborted = await eventually(async () => {
        const a = await app(ns);
        return condition(a, 'Degraded')?.reason === 'AnalysisFailed' && a;
      }, { timeoutMs: 45_000, message: 'Degraded AnalysisFailed' });
      const back = service.seen.find((s) => selectorOf(s.obj)[REVISION] === r1 && s.rv > (service.seen.find((x) => selectorOf(x.obj)[REVISION] !== r1)?.rv ?? Infinity));
      assert.ok(back, 'the watch saw the switch back');
      const lastCheck = Date.parse(aborted.status!.blueGreen!.analysis!.lastCheckAt!);
      assert.equal(aborted.status!.blueGreen!.analysis!.lastWeight, 100, 'the failed check ran under full traffic');
      assert.ok(back.at - Date.parse(switched.status!.blueGreen!.switchedAt!) <= 2 * 10_000 + 5_000, 'switched back at the first failing check');
      assert.ok(back.at - lastCheck <= 10_000, 'within one interval of the check');
      const { revisions, changes } = selections(service.seen);
      assert.equal(changes, 2, `one switch and one switch back: ${revisions.join(' ')}`);
      // The old Deployment never changed its template or its size.
      for (const s of old.seen) {
        assert.equal(s.obj.metadata?.annotations?.[REVISION], r1);
        assert.equal(s.obj.spec?.replicas, 2);
        assert.notEqual(s.type, 'DELETED');
      }
      assert.equal(aborted.status?.blueGreen?.phase, 'ScalingDown', 'the preview\'s pods wait for their delay');
      assert.equal(aborted.status?.abortedRevision, switched.status?.blueGreen?.previewRevision);
      // In the history it is Aborted at once, while its pods wait out the delay.
      await eventually(async () => (await outcomes(ns)).join() === 'web-1 Promoted,web-2 Aborted', { timeoutMs: 10_000, message: `web-2 Aborted: ${(await outcomes(ns)).join()}` });
    } finally {
      service.stop();
      old.stop();
    }
  });

  it('a controller restarted mid-delay resumes: the switch is not repeated, the scale-down neither skipped nor repeated', async () => {
    const { ns, r1 } = await stableApp({}, { scaleDownDelaySeconds: 8 });
    const service = await watchService(ns);
    const old = await watchDeployment(ns, 'web');
    try {
      const switched = await switchTo(ns, 'registry.example/web:2', 'the switch');
      await cluster.stopController();
      await observeFor(2_000, 'the controller is down in the middle of the delay');
      await cluster.startController();
      const r2 = switched.status!.blueGreen!.previewRevision;
      const complete = await done(ns, r2);
      assert.equal(complete.status?.blueGreen, undefined);
      const { revisions, changes } = selections(service.seen);
      assert.deepEqual([revisions[0], revisions.at(-1), changes], [r1, r2, 1], `one switch: ${revisions.join(' ')}`);
      const scaleDownAt = Date.parse(switched.status!.blueGreen!.scaleDownAt!);
      const templates = old.seen.map((s) => s.obj.metadata?.annotations?.[REVISION]);
      assert.equal(templates.filter((r, i) => i > 0 && r !== templates[i - 1]).length, 1, `the Deployment took the new template once: ${templates.join(' ')}`);
      const firstNew = old.seen.find((s) => s.obj.metadata?.annotations?.[REVISION] === r2)!;
      assert.ok(firstNew.at >= scaleDownAt - 1_000, 'not before the delay was over');
    } finally {
      service.stop();
      old.stop();
    }
  });

  it('paused: a new pod template starts no preview until kubectl skiff resume', async () => {
    const { ns, r1 } = await stableApp({});
    const preview = await watchDeployment(ns, 'web-preview');
    try {
      await plugin(cluster.cp.kubeconfigPath, ['pause', 'web', '-n', ns]);
      await patch(ns, { spec: { image: 'registry.example/web:2' } });
      const waiting = await eventually(async () => {
        const a = await app(ns);
        return a.status?.observedGeneration === a.metadata.generation && condition(a, 'Progressing')?.reason === 'RolloutPaused' && a;
      }, { timeoutMs: 15_000, message: 'the new template waiting' });
      assert.equal(waiting.status?.stableRevision, r1);
      assert.equal(waiting.status?.blueGreen, undefined);
      await observeFor(3_000, 'a paused App starts no preview');
      assert.deepEqual(preview.seen.map((s) => s.type), [], 'no preview Deployment while paused');
      assert.deepEqual(await outcomes(ns), ['web-1 Promoted'], 'the waiting revision is not recorded yet');
      await plugin(cluster.cp.kubeconfigPath, ['resume', 'web', '-n', ns]);
      const r2 = await eventually(async () => (await app(ns)).status?.blueGreen?.previewRevision, { timeoutMs: 20_000, message: 'the preview once resumed' });
      await done(ns, r2);
      assert.equal(preview.seen[0]?.type, 'ADDED');
    } finally {
      preview.stop();
    }
  });

  it('kubectl skiff retry runs an aborted blue-green rollout again; undo --skip-canary goes straight to stable with no preview', async () => {
    const { ns, r1 } = await stableApp({ autoPromote: false });
    const promoteWhenReady = async (revision: string) => {
      await eventually(async () => (await app(ns)).status?.blueGreen?.previewReadyAt !== undefined, { timeoutMs: 30_000, message: `the preview of ${revision} ready` });
      await plugin(cluster.cp.kubeconfigPath, ['promote', 'web', '-n', ns]);
      return done(ns, revision);
    };
    await patch(ns, { spec: { image: 'registry.example/web:2' } });
    const r2 = await eventually(async () => (await app(ns)).status?.blueGreen?.previewRevision, { timeoutMs: 20_000, message: 'the preview of web:2' });
    await promoteWhenReady(r2);

    // web:3 aborted before the switch, then retried: a new preview, the abort cleared, promoted.
    await patch(ns, { spec: { image: 'registry.example/web:3' } });
    const r3 = await eventually(async () => (await app(ns)).status?.blueGreen?.previewRevision, { timeoutMs: 20_000, message: 'the preview of web:3' });
    await plugin(cluster.cp.kubeconfigPath, ['abort', 'web', '-n', ns]);
    await eventually(async () => condition(await app(ns), 'Degraded')?.reason === 'RolloutAborted' && (await outcomes(ns)).at(-1) === 'web-3 Aborted', { timeoutMs: 20_000, message: 'web:3 aborted' });
    await plugin(cluster.cp.kubeconfigPath, ['retry', 'web', '-n', ns]);
    const retried = await eventually(async () => {
      const a = await app(ns);
      return a.status?.blueGreen?.previewRevision === r3 && a.status.abortedRevision === undefined && a;
    }, { timeoutMs: 20_000, message: 'a new preview of web:3' });
    assert.equal(condition(retried, 'Degraded')?.status, 'False');
    // Removed by a write of its own after the status write that records the retry.
    await eventually(async () => (await app(ns)).metadata.annotations?.['skiff.dev/retry'] === undefined, { timeoutMs: 10_000, message: 'the retry annotation removed' });
    await eventually(async () => (await outcomes(ns)).at(-1) === 'web-3 Running', { timeoutMs: 10_000, message: 'web-3 Running again' });
    await promoteWhenReady(r3);
    await eventually(async () => (await outcomes(ns)).join() === 'web-1 Promoted,web-2 Promoted,web-3 Promoted', { timeoutMs: 10_000, message: `the history: ${(await outcomes(ns)).join()}` });

    // Revision 1 was promoted before: back to it without a preview, a switch or a promotion.
    await eventually(async () => !(await deployment(ns, 'web-preview')), { timeoutMs: 20_000, message: 'the preview of web:3 gone' });
    const preview = await watchDeployment(ns, 'web-preview');
    try {
      const said = await plugin(cluster.cp.kubeconfigPath, ['undo', 'web', '-n', ns, '--to-revision', '1', '--skip-canary']);
      assert.match(said, /undo to revision 1 .*, straight to stable without a preview \(the controller checks that the template is revision 1's; a Warning Event says when it is not\)\n$/);
      const back = await done(ns, r1);
      assert.equal(back.spec.image, 'registry.example/web:1');
      await eventually(async () => (await app(ns)).metadata.annotations?.['skiff.dev/skip-canary'] === undefined, { timeoutMs: 10_000, message: 'the skip-canary annotation removed' });
      await eventually(async () => (await outcomes(ns)).at(-1) === 'web-4 Promoted', { timeoutMs: 10_000, message: `web-4 (revision 1's hash) Promoted: ${(await outcomes(ns)).join()}` });
      const stableDeployment = await deployment(ns, 'web');
      assert.equal(stableDeployment?.spec?.template.spec?.containers[0].image, 'registry.example/web:1');
      await eventually(async () => selectorOf(await api().core.readNamespacedService({ namespace: ns, name: 'web' }))[REVISION] === r1, { timeoutMs: 20_000, message: 'the Service selecting revision 1' });
    } finally {
      preview.stop();
    }
    assert.deepEqual(preview.seen.map((s) => s.type), [], 'no preview Deployment for the emergency rollback');
    const reasons = (await api().core.listNamespacedEvent({ namespace: ns })).items.filter((e) => e.involvedObject.name === 'web').map((e) => e.reason);
    assert.ok(reasons.includes('RolloutRetried') && reasons.includes('RollbackWithoutCanary'), `Events: ${reasons.join(' ')}`);
  });
});
