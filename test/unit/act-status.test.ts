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

  it('a new template the API server refuses is not reported as rolled out: Progressing says the Deployment was not updated until it is', async () => {
    const { cluster, run, app, setSpec } = setup({ image: 'web:1', replicas: 3 });
    await run();
    markAvailable(cluster, 'web');
    await run();
    assert.equal(condition(app(), 'Progressing')?.reason, 'RolloutComplete');
    setSpec((s) => ({ ...s, image: 'web:2' }));
    cluster.beforeWrite = (w) => {
      if (w.verb === 'apply' && w.kind === 'Deployment') throw apiError(403, 'deployments.apps "web" is forbidden: exceeded quota: compute, requested: requests.cpu=1, used: requests.cpu=4, limited: requests.cpu=4');
    };
    await assert.rejects(run());
    const progressing = condition(app(), 'Progressing')!;
    assert.equal(progressing.observedGeneration, app().metadata.generation);
    assert.deepEqual([progressing.status, progressing.reason], ['False', 'DeploymentUpdateFailed'], 'the Deployment still runs web:1: generation 2 is not rolled out');
    assert.match(progressing.message, /exceeded quota/);
    assert.equal(condition(app(), 'Degraded')?.reason, 'ReconcileError');
    assert.equal(condition(app(), 'Ready')?.status, 'True', 'web:1 still serves');
    // Once the API server takes it, the rollout of the new template is reported as any other.
    cluster.beforeWrite = () => {};
    await run();
    assert.deepEqual([condition(app(), 'Progressing')?.status, condition(app(), 'Progressing')?.reason], ['True', 'RollingOut']);
    assert.equal(condition(app(), 'Degraded')?.reason, 'AsExpected');
  });
});
