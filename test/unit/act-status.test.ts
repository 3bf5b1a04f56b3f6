// What the status says when a write of an owned object fails: the object as it still runs.
import { strict as assert } from 'node:assert';
import { condition } from '../support/apps.js';
import { apiError } from '../support/fake-cluster.js';
import { markAvailable, setup } from '../support/reconciler.js';

describe('status when a write of the stable Deployment fails', () => {
  it('a failed update of a running Deployment reports the pods that run, not a Deployment that does not exist', async () => {
    const { cluster, run, app, setSpec } = setup({ image: 'web:1', replicas: 3 });
    await run();
    markAvailable(cluster, 'web');
    await run();
    assert.equal(condition(app(), 'Ready')?.status, 'True');
    const readySince = condition(app(), 'Ready')?.lastTransitionTime;
    setSpec((s) => ({ ...s, replicas: 4 }));
    cluster.beforeWrite = (w) => {
      if (w.verb === 'apply' && w.kind === 'Deployment') throw apiError(500, 'etcdserver: request timed out');
    };
    await assert.rejects(run());
    assert.equal(condition(app(), 'Degraded')?.reason, 'ReconcileError');
    assert.equal(app().status?.readyReplicas, 3, 'the three pods still run and are ready');
    assert.doesNotMatch(condition(app(), 'Ready')!.message, /does not exist/);
    assert.equal(condition(app(), 'Ready')?.lastTransitionTime, readySince);
  });
});
