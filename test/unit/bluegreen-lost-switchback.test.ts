// An abort's switch back whose status write is lost (the controller stopped between the Service's
// write and the status's; an abort by a failed check lives only in the memory of that process):
// the next pass must not take the Service's selector for a switch whose write failed and switch
// forward again to the revision the abort took the traffic from (reconcile() over the in-memory
// cluster, injected clock, the App's status write made to fail once).
import { strict as assert } from 'node:assert';
import type { KubernetesObject, V1Service } from '@kubernetes/client-node';
import type { App } from '../../shared/app-types.js';
import { apiError } from '../support/fake-cluster.js';
import { NS, switchedBlueGreenApp } from '../support/reconciler.js';

type T = Awaited<ReturnType<typeof switchedBlueGreenApp>>;
const service = (t: T) => t.cluster.get('Service', NS, 'web') as V1Service;
const selected = (t: T) => service(t).spec?.selector?.['skiff.dev/revision'];

describe('blue-green: a switch back whose status was lost', () => {
  it('stays switched back, aborted, and says why it cannot say more; no switch forward, no BlueGreenSwitched', async () => {
    const t = await switchedBlueGreenApp();
    const preview = selected(t)!;
    const stable = t.app().status!.stableRevision!;
    assert.notEqual(preview, stable);
    // The abort (here by annotation; by a failed check it would leave no trace on the App).
    t.cluster.put({ ...t.app(), metadata: { ...t.app().metadata, annotations: { 'skiff.dev/abort': 'true' } } } as App & KubernetesObject);
    t.cluster.beforeWrite = (w) => {
      if (w.kind === 'App' && w.verb === 'status') throw apiError(500, 'etcdserver: request timed out');
    };
    await assert.rejects(t.run());
    assert.equal(selected(t), stable, 'the Service was switched back');
    assert.equal(service(t).metadata?.annotations?.['skiff.dev/switched-back-from'], preview, 'and says from what');
    assert.equal(t.app().status?.blueGreen?.phase, 'Switched', 'the status write was lost');
    // What a failed check leaves after a restart: nothing on the App.
    t.cluster.beforeWrite = () => {};
    t.cluster.put({ ...t.app(), metadata: { ...t.app().metadata, annotations: {} } } as App & KubernetesObject);
    const switchedBefore = t.cluster.events.filter((e) => e.reason === 'BlueGreenSwitched').length;
    await t.run();
    await t.run();
    assert.equal(selected(t), stable, 'not switched forward again');
    assert.equal(t.cluster.events.filter((e) => e.reason === 'BlueGreenSwitched').length, switchedBefore, 'no Event says it switched');
    assert.equal(t.app().status?.abortedRevision, preview);
    const degraded = t.app().status?.conditions?.find((c) => c.type === 'Degraded');
    assert.equal(degraded?.reason, 'RolloutAborted');
    assert.match(degraded!.message, new RegExp(`switched back from revision ${preview} by a pass whose status was not recorded`));
    assert.equal(service(t).metadata?.annotations?.['skiff.dev/switched-back-from'], undefined, 'recorded in the status now: the Service no longer needs to say it');
  });
});
