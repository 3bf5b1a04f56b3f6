// An App deleted while a pass runs: its status write answers 404, which is the App being gone
// (its objects go with it through their ownerReferences), not a failure to retry and report.
import { strict as assert } from 'node:assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import { markAvailable, NS, setup } from '../support/reconciler.js';

describe('a status write for an App deleted during the pass', () => {
  it('ends the pass quietly: no failure, no retry, no ReconcileError Event, nothing written after', async () => {
    const t = setup({ image: 'web:1', replicas: 2 }, { history: true });
    await t.run();
    markAvailable(t.cluster, 'web');
    t.cluster.beforeWrite = (w) => {
      if (w.verb === 'status') t.cluster.objects.delete(`App/${NS}/web`);
    };
    const writes = t.cluster.writes.length;
    const result = await t.run();
    assert.deepEqual(result, { gone: true });
    assert.deepEqual(t.cluster.writes.slice(writes).map((w) => `${w.verb} ${w.kind}`), ['status App'], 'no history written for a deleted App');
    assert.deepEqual(t.cluster.events.filter((e) => e.type === 'Warning'), []);
  });

  it('the same when the App is refused as invalid', async () => {
    const t = setup({ image: 'web:1', replicas: 2 }, { validate: () => 'spec.image: must be a valid image reference' });
    t.cluster.beforeWrite = (w) => {
      if (w.verb === 'status') t.cluster.objects.delete(`App/${NS}/web`);
    };
    assert.deepEqual(await t.run(), { gone: true });
    assert.equal(t.cluster.get('App', NS, 'web') as KubernetesObject | undefined, undefined);
  });
});
