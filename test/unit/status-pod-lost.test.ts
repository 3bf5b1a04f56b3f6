// A pod lost after a rollout completed (a crash, an eviction, a node gone) makes the App not
// Ready, but it is no rollout: Progressing stays False RolloutComplete, as the Deployment's own
// Progressing condition stays NewReplicaSetAvailable.
import { strict as assert } from 'node:assert';
import type { V1Deployment } from '@kubernetes/client-node';
import { condition } from '../support/apps.js';
import { markAvailable, NS, setup } from '../support/reconciler.js';

/** An App of `replicas` rolled out, a minute ago: the reconciler, and its Progressing condition then. */
async function rolledOut(replicas: number) {
  const t = setup({ image: 'web:1', replicas });
  await t.run();
  markAvailable(t.cluster, 'web');
  await t.run();
  const complete = condition(t.app(), 'Progressing');
  assert.equal(complete?.reason, 'RolloutComplete');
  t.later(60_000);
  return { t, complete };
}

describe('Progressing when a pod is lost after the rollout', () => {
  it('stays False RolloutComplete (its lastTransitionTime kept) while Ready goes False; a new template still rolls out', async () => {
    const { t, complete } = await rolledOut(2);
    // One of the two pods crashes: the Deployment controller keeps its condition, only the counts drop.
    const d = t.cluster.get('Deployment', NS, 'web') as V1Deployment;
    d.status = { ...d.status, readyReplicas: 1, availableReplicas: 1 };
    await t.run();
    assert.equal(condition(t.app(), 'Ready')?.reason, 'Unavailable');
    assert.deepEqual(condition(t.app(), 'Progressing'), complete, 'no rollout is under way');

    t.later(60_000);
    t.setSpec((s) => ({ ...s, image: 'web:2' }));
    await t.run();
    assert.equal(condition(t.app(), 'Progressing')?.status, 'True');
    assert.equal(condition(t.app(), 'Progressing')?.reason, 'RollingOut');
  });

  it('a pod deleted and not replaced yet (the ReplicaSet counts one fewer, all of the current template): no rollout, Ready Unavailable saying what is available', async () => {
    const { t, complete } = await rolledOut(5);
    // As the Deployment controller reports it: the lost pod is gone from every count, its
    // replacement not created yet (or refused), and its Progressing condition kept.
    const d = t.cluster.get('Deployment', NS, 'web') as V1Deployment;
    d.status = { ...d.status, replicas: 4, updatedReplicas: 4, readyReplicas: 4, availableReplicas: 4 };
    await t.run();
    assert.deepEqual(condition(t.app(), 'Progressing'), complete, 'no rollout is under way');
    assert.deepEqual([condition(t.app(), 'Ready')?.reason, condition(t.app(), 'Ready')?.message], ['Unavailable', `Deployment ${NS}/web: 4 of 5 replicas available`]);
  });

  it('a rollout whose new pods are all created but not yet available is still under way', async () => {
    const t = setup({ image: 'web:1', replicas: 2 });
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    t.setSpec((s) => ({ ...s, image: 'web:2' }));
    await t.run();
    const d = t.cluster.get('Deployment', NS, 'web') as V1Deployment;
    d.status = {
      observedGeneration: d.metadata!.generation, replicas: 2, updatedReplicas: 2, readyReplicas: 1, availableReplicas: 1,
      conditions: [{ type: 'Available', status: 'True' }, { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' }] as never,
    };
    await t.run();
    assert.equal(condition(t.app(), 'Progressing')?.reason, 'RollingOut');
  });
});
