// Sharding on a real control plane: two shard controllers and an unsharded one, each told apart
// in the API server's audit log by its User-Agent. Every App converges, each is written to by
// its own shard only, and relabelling an App moves it to the other shard.
import { strict as assert } from 'node:assert';
import { Watch, type V1Deployment } from '@kubernetes/client-node';
import type { App } from '../../shared/app-types.js';
import { condition, createApp, getApp, newNamespace, testLogger } from '../support/apps.js';
import { auditedWrites } from '../support/audit.js';
import { useControllerCluster } from '../support/controller-cluster.js';
import { kubectl } from '../support/kube.js';
import { eventually } from '../../dev/wait.js';

describe('sharding (real control plane)', function () {
  this.timeout(120_000);
  const agent = (shard: string) => `skiff-controller/${shard}`;
  const cluster = useControllerCluster('sharding', {
    cluster: { controllerManager: true, auditPolicy: true },
    controllers: () => ['a', 'b', undefined].map((shard) => ({
      shard, userAgent: agent(shard ?? 'unsharded'), resyncMs: 30_000, log: testLogger('controller'),
      leaderElection: { namespace: 'default', leaseDurationSeconds: 4, renewDeadlineMs: 3_000, retryPeriodMs: 500 },
    })),
  });
  const api = () => cluster.api;

  it('elects a leader per shard, each on its own Lease', async () => {
    const leases = await eventually(async () => {
      const list = await api().coordination.listNamespacedLease({ namespace: 'default' });
      const names = list.items.map((l) => l.metadata!.name!).filter((n) => n.startsWith('skiff-controller-leader')).sort();
      return names.length === 3 && names;
    }, { timeoutMs: 20_000, message: 'three Leases' });
    assert.deepEqual(leases, ['skiff-controller-leader', 'skiff-controller-leader-a', 'skiff-controller-leader-b']);
  });

  it('reconciles each App by its own shard only, and moves an App when it is relabelled', async () => {
    const ns = await newNamespace(api(), 's');
    const since = Date.now();
    const apps = [['alpha', 'a'], ['beta', 'b'], ['plain', undefined]] as const;
    for (const [name, shard] of apps) {
      await createApp(api(), ns, name, { image: 'registry.example/web:1', replicas: 2 }, shard ? { labels: { 'skiff.dev/shard': shard } } : {});
    }
    for (const [name] of apps) {
      await eventually(async () => condition(await getApp(api(), ns, name), 'Ready')?.status === 'True', { timeoutMs: 30_000, message: `${name} Ready` });
    }
    const deployment = (name: string) => api().apps.readNamespacedDeployment({ namespace: ns, name }) as Promise<V1Deployment>;
    assert.equal((await deployment('alpha')).metadata!.labels!['skiff.dev/shard'], 'a', 'owned objects carry the shard');
    assert.equal((await deployment('plain')).metadata!.labels!['skiff.dev/shard'], undefined);
    assert.equal((await deployment('alpha')).spec!.template.metadata!.labels!['skiff.dev/shard'], undefined, 'never on pods');

    const writers = (name: string, sinceMs: number) => new Set(
      (['a', 'b', 'unsharded'] as const).filter((s) => auditedWrites(cluster.cp.auditLogPath!, { agent: agent(s), namespace: ns, sinceMs })
        .some((w) => w.name === name || w.name?.startsWith(`${name}.`))),
    );
    assert.deepEqual([...writers('alpha', since)], ['a']);
    assert.deepEqual([...writers('beta', since)], ['b']);
    assert.deepEqual([...writers('plain', since)], ['unsharded']);

    // Move alpha to shard b, with a change that only b can bring about.
    const moved = Date.now();
    await kubectl(cluster.cp.kubeconfigPath, ['-n', ns, 'label', 'app', 'alpha', 'skiff.dev/shard=b', '--overwrite']);
    await kubectl(cluster.cp.kubeconfigPath, ['-n', ns, 'patch', 'app', 'alpha', '--type=merge', '-p', '{"spec":{"replicas":3}}']);
    await eventually(async () => {
      const d = await deployment('alpha');
      return d.spec!.replicas === 3 && d.metadata!.labels!['skiff.dev/shard'] === 'b';
    }, { timeoutMs: 30_000, message: 'alpha reconciled by shard b' });
    await eventually(async () => {
      const a = await getApp(api(), ns, 'alpha');
      return a.status?.observedGeneration === a.metadata.generation && condition(a, 'Ready')?.status === 'True';
    }, { timeoutMs: 30_000, message: 'alpha Ready again' });
    const after = writers('alpha', moved);
    assert.ok(after.has('b') && !after.has('unsharded'), `writes after the move: ${[...after].join(', ')}`);
    // Shard a stopped at the move: none of its writes come after b's first.
    const firstB = auditedWrites(cluster.cp.auditLogPath!, { agent: agent('b'), namespace: ns, sinceMs: moved }).find((w) => w.name?.startsWith('alpha'))!;
    const lateA = auditedWrites(cluster.cp.auditLogPath!, { agent: agent('a'), namespace: ns, sinceMs: Date.parse(firstB.at) + 1_000 }).filter((w) => w.name?.startsWith('alpha'));
    assert.deepEqual(lateA, [], 'no double owner');
  });

  it('moving an App mid-canary: the new shard takes its objects over and goes on from its status; nothing reaches stable unpromoted (watch-recorded)', async () => {
    const ns = await newNamespace(api(), 's');
    await api().core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'web-cfg' }, data: { greeting: 'hello' } } });
    await createApp(api(), ns, 'web', {
      image: 'registry.example/web:1', replicas: 2, ingress: { host: 'web.example.com' },
      envFrom: [{ configMapRef: { name: 'web-cfg' } }],
      rollout: { strategy: 'Canary', trackConfig: true, scaleDownDelaySeconds: 0, steps: [{ setWeight: 50 }, { pause: {} }] },
    }, { labels: { 'skiff.dev/shard': 'a' } });
    await eventually(async () => condition(await getApp(api(), ns, 'web'), 'Ready')?.status === 'True', { timeoutMs: 30_000, message: 'web Ready' });
    await kubectl(cluster.cp.kubeconfigPath, ['-n', ns, 'patch', 'app', 'web', '--type=merge', '-p', '{"spec":{"image":"registry.example/web:2"}}']);
    const paused = await eventually(async () => {
      const a = await getApp(api(), ns, 'web');
      return a.status?.canary?.stepIndex === 1 && a.status.canary.weight === 50 && a;
    }, { timeoutMs: 30_000, message: 'the canary at its pause, 50%' });

    // Every version of the stable Deployment from now on, as the watch delivers them.
    const images: string[] = [];
    const generations: number[] = [];
    const watch = await new Watch(cluster.kc).watch(`/apis/apps/v1/namespaces/${ns}/deployments`, { fieldSelector: 'metadata.name=web' },
      (_type: string, d: V1Deployment) => { images.push(d.spec!.template.spec!.containers[0].image!); generations.push(d.metadata!.generation!); }, () => {});
    // And every Ready the App reports while it moves.
    const readies: string[] = [];
    const appWatch = await new Watch(cluster.kc).watch(`/apis/skiff.dev/v1alpha1/namespaces/${ns}/apps`, { fieldSelector: 'metadata.name=web' },
      (_type: string, a: App) => { const c = condition(a, 'Ready'); readies.push(`${c?.status} ${c?.reason}`); }, () => {});
    try {
      await kubectl(cluster.cp.kubeconfigPath, ['-n', ns, 'label', 'app', 'web', 'skiff.dev/shard=b', '--overwrite']);
      const owned = async () => {
        const select = { namespace: ns, labelSelector: 'skiff.dev/app=web' };
        const [deployments, services, ingresses, revisions, copies] = await Promise.all([
          api().apps.listNamespacedDeployment(select), api().core.listNamespacedService(select), api().networking.listNamespacedIngress(select),
          api().apps.listNamespacedControllerRevision(select), api().core.listNamespacedConfigMap(select),
        ]);
        return [deployments, services, ingresses, revisions, copies].flatMap((l) => (l.items as { kind?: string; metadata?: { name?: string; labels?: Record<string, string> } }[])
          .map((o) => `${o.metadata!.name} ${o.metadata!.labels?.['skiff.dev/shard']}`));
      };
      const relabelled = await eventually(async () => {
        const all = await owned();
        return all.length > 0 && all.every((o) => o.endsWith(' b')) && all;
      }, { timeoutMs: 30_000, message: 'every object of web relabelled for shard b' });
      assert.ok(relabelled.some((o) => o.startsWith('web-canary ')) && relabelled.some((o) => o.startsWith('web-cfg-')), relabelled.join(', '));
      // Shard b goes on where shard a was: the same canary at its pause, stable as it was.
      await new Promise((r) => setTimeout(r, 3_000));
      const after = await getApp(api(), ns, 'web');
      assert.deepEqual([after.status?.canary?.revision, after.status?.canary?.stepIndex, after.status?.canary?.weight, after.status?.stableRevision],
        [paused.status!.canary!.revision, 1, 50, paused.status!.stableRevision]);
      assert.ok(images.length > 0 && images.every((i) => i === 'registry.example/web:1'), `the stable Deployment ran only web:1 before the promotion: ${images.join(', ')}`);
      // Relabelled, not rewritten: a Deployment's annotation change is a new generation, which
      // the App would report as a rollout (Ready False) until the Deployment controller saw it.
      assert.equal(new Set(generations).size, 1, `the stable Deployment's generations during the move: ${generations.join(', ')}`);
      assert.ok(readies.every((r) => r.startsWith('True')), `Ready during the move: ${readies.join(', ')}`);
      appWatch.abort();

      // Promoted on shard b, by a person.
      await kubectl(cluster.cp.kubeconfigPath, ['-n', ns, 'annotate', 'app', 'web', 'skiff.dev/promote=true']);
      await eventually(async () => {
        const a = await getApp(api(), ns, 'web');
        return a.status?.stableImage === 'registry.example/web:2' && !a.status.canary && condition(a, 'Ready')?.status === 'True';
      }, { timeoutMs: 40_000, message: 'promoted by shard b' });
    } finally {
      watch.abort();
      appWatch.abort();
    }
  });
});
