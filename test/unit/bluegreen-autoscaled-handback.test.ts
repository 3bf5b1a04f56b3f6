// Blue-green with an autoscaler, through reconcile() over the in-memory cluster: during the delay
// after the switch the autoscaler scales the idle old pods of `web` down (to minReplicas), while
// the preview carries all the traffic. The Deployment taking the traffic back is written with the
// preview's count before the preview goes, so the App never drops to the count the idle pods had.
import { strict as assert } from 'node:assert';
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import { condition } from '../support/apps.js';
import { markAvailable, NS, setup } from '../support/reconciler.js';

const spec = {
  image: 'web:1', replicas: 6, resources: { requests: { cpu: '100m' } }, ingress: { host: 'web.example.com' },
  autoscaling: { minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 70 },
  rollout: { strategy: 'BlueGreen' as const, scaleDownDelaySeconds: 1800 },
};

describe('blue-green with an autoscaler: the count handed back', () => {
  it('after the delay, web takes the new template at the preview\'s count (6), not the 2 the autoscaler left its idle pods at; the preview goes once web is available at 6', async () => {
    const t = setup(spec);
    const dep = (name: string) => t.cluster.get('Deployment', NS, name) as V1Deployment | undefined;
    // The autoscaler's write of the count (an update of spec.replicas, which Skiff's apply leaves out once it exists).
    const scaleTo = (n: number) => {
      const d = dep('web')!;
      t.cluster.put({ ...d, spec: { ...d.spec!, replicas: n } } as KubernetesObject);
      markAvailable(t.cluster, 'web');
    };
    await t.run();
    scaleTo(6);
    await t.run();
    t.setSpec((s) => ({ ...s, image: 'web:2' }));
    await t.run();
    markAvailable(t.cluster, 'web-preview');
    await t.run();
    await t.run();
    assert.equal(t.app().status?.blueGreen?.phase, 'Switched');
    assert.equal(dep('web-preview')?.spec?.replicas, 6);
    t.later(600_000);
    scaleTo(2);
    await t.run();
    t.later(1_200_001);
    await t.run();
    assert.equal(t.app().status?.blueGreen?.phase, 'ScalingDown');
    const taking = dep('web')!;
    assert.deepEqual([taking.spec?.template.spec?.containers[0]!.image, taking.spec?.replicas], ['web:2', 6], 'the new template at the preview\'s count');
    assert.ok(dep('web-preview'), 'the preview stays meanwhile');
    markAvailable(t.cluster, 'web');
    await t.run();
    await t.run();
    assert.equal(dep('web-preview'), undefined, 'the preview goes once web is available at 6');
    assert.equal(t.app().status?.blueGreen, undefined, 'complete');
  });

  it('completing hands spec.replicas to the autoscaler without a new generation of web: Progressing goes from BlueGreenScalingDown to RolloutComplete, with no RollingOut between', async () => {
    const t = setup({ ...spec, rollout: { strategy: 'BlueGreen' as const, scaleDownDelaySeconds: 0 } });
    const progressing: string[] = [];
    const pass = async () => {
      await t.run();
      const c = condition(t.app(), 'Progressing');
      if (progressing.at(-1) !== `${c?.status}/${c?.reason}`) progressing.push(`${c?.status}/${c?.reason}`);
    };
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    t.setSpec((s) => ({ ...s, image: 'web:2' }));
    await pass();
    markAvailable(t.cluster, 'web-preview');
    await pass();
    t.later(1_000);
    await pass();
    assert.equal(t.app().status?.blueGreen?.phase, 'ScalingDown');
    const taking = t.cluster.get('Deployment', NS, 'web')!;
    markAvailable(t.cluster, 'web');
    // The completing pass, and the ones after while the Deployment controller sees nothing new.
    for (let i = 0; i < 3; i++) await pass();
    assert.equal(t.app().status?.blueGreen, undefined, 'complete');
    assert.equal(t.cluster.get('Deployment', NS, 'web')!.metadata!.generation, taking.metadata!.generation, 'no new generation of web once it took the new template');
    assert.deepEqual(progressing, ['True/BlueGreenPreview', 'True/BlueGreenSwitched', 'True/BlueGreenScalingDown', 'False/RolloutComplete']);
  });
});
