// Writes a pass makes after its status (the revision history, the removal of a consumed
// annotation) fail where the status can still say so: in the status the next pass writes.
import { strict as assert } from 'node:assert';
import { STATUS_COALESCE_MS } from '../../controller/reconcile.js';
import { condition } from '../support/apps.js';
import { apiError } from '../support/fake-cluster.js';
import { markAvailable, setup } from '../support/reconciler.js';

describe('Degraded reports the writes that come after the status', () => {
  it('a history entry the API server keeps refusing makes the App Degraded (ReconcileError), and clears once it is recorded', async () => {
    const t = setup({ image: 'web:1', replicas: 2 }, { history: true });
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    assert.equal(condition(t.app(), 'Degraded')?.status, 'False');
    t.setSpec((s) => ({ ...s, image: 'web:2' }));
    t.cluster.beforeWrite = (w) => {
      if (w.kind === 'ControllerRevision') throw apiError(403, 'exceeded quota: count/controllerrevisions.apps');
    };
    await assert.rejects(t.run(), /ControllerRevision/);
    // The retry (with backoff) reports it: the failure needs a person, and only the status is where they look.
    await assert.rejects(t.run(), /ControllerRevision/);
    const degraded = condition(t.app(), 'Degraded');
    assert.equal(degraded?.status, 'True', `Degraded: ${JSON.stringify(degraded)}`);
    assert.equal(degraded?.reason, 'ReconcileError');
    assert.match(degraded!.message, /creating ControllerRevision shop\/web-2: 403 exceeded quota/);

    t.cluster.beforeWrite = () => {};
    const recorded = await t.run();
    assert.ok(recorded.requeueAfterMs !== undefined && recorded.requeueAfterMs <= STATUS_COALESCE_MS, `comes back soon to clear what it reported: ${JSON.stringify(recorded)}`);
    t.later(recorded.requeueAfterMs);
    await t.run();
    assert.equal(condition(t.app(), 'Degraded')?.status, 'False', JSON.stringify(condition(t.app(), 'Degraded')));
  });

  it('a consumed annotation whose removal keeps failing makes the App Degraded (ReconcileError)', async () => {
    const t = setup({ image: 'web:1', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }] } });
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    t.setSpec((s) => ({ ...s, image: 'web:2' }));
    await t.run();
    const a = t.app();
    t.cluster.put({ ...a, metadata: { ...a.metadata, annotations: { 'skiff.dev/abort': 'true' } } });
    t.cluster.beforeWrite = (w) => {
      if (w.verb === 'annotations') throw apiError(500, 'Internal error occurred: failed calling webhook');
    };
    await assert.rejects(t.run(), /annotations/);
    await assert.rejects(t.run(), /annotations/);
    const degraded = condition(t.app(), 'Degraded');
    // The abort is recorded, and so is the failure to take its annotation off.
    assert.equal(degraded?.reason, 'ReconcileError', JSON.stringify(degraded));
    assert.match(degraded!.message, /removing the annotations skiff\.dev\/abort/);
    assert.equal(condition(t.app(), 'Progressing')?.reason, 'RolloutAborted');

    t.cluster.beforeWrite = () => {};
    const removed = await t.run();
    assert.equal(t.app().metadata.annotations?.['skiff.dev/abort'], undefined);
    assert.ok(removed.requeueAfterMs !== undefined && removed.requeueAfterMs <= STATUS_COALESCE_MS, JSON.stringify(removed));
    t.later(removed.requeueAfterMs);
    await t.run();
    assert.equal(condition(t.app(), 'Degraded')?.reason, 'RolloutAborted', 'the abort holds Degraded again');
  });
});
