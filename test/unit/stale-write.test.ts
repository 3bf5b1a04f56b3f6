// A write refused with 409 because the object changed after the cache read it (the autoscaler or
// the Deployment controller wrote meanwhile; the replica hand-over carries the cached version as a
// precondition): no error and no Warning, the pass comes back soon and writes from the newer copy.
import { strict as assert } from 'node:assert';
import { STALE_WRITE_RECHECK_MS } from '../../controller/act.js';
import { apiError } from '../support/fake-cluster.js';
import { markAvailable, NS, setup } from '../support/reconciler.js';
import type { V1Deployment } from '@kubernetes/client-node';

describe('a write refused because the object changed since it was read', () => {
  it('comes back soon without an error, a Warning or Degraded, and then writes', async () => {
    const t = setup({ image: 'registry.example/web:1', replicas: 2 });
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    t.setSpec((s) => ({ ...s, replicas: 3 }));
    let refused = 0;
    t.cluster.beforeWrite = (w) => {
      if (w.kind === 'Deployment' && w.verb === 'apply' && refused++ === 0) throw apiError(409, 'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again');
    };
    const outcome = await t.run();
    assert.equal(refused, 1);
    assert.ok(outcome.requeueAfterMs !== undefined && outcome.requeueAfterMs <= STALE_WRITE_RECHECK_MS, `back in ${outcome.requeueAfterMs} ms`);
    assert.deepEqual(t.cluster.events.filter((e) => e.type === 'Warning').map((e) => e.reason), []);
    assert.notEqual(t.app().status?.conditions?.find((c) => c.type === 'Degraded')?.status, 'True');
    await t.run();
    assert.equal((t.cluster.get('Deployment', NS, 'web') as V1Deployment).spec?.replicas, 3);
  });
});
