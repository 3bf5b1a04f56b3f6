// The old pods of a blue-green switch (and the preview's pods after a switch back) keep running
// scaleDownDelaySeconds from the moment the Service actually selects other pods: a write of the
// Service that fails moves no traffic, so it starts no delay (reconcile() over the in-memory
// cluster, injected clock, Service writes made to fail). Its Event is the pass's that switched.
import { strict as assert } from 'node:assert';
import type { V1Service } from '@kubernetes/client-node';
import { apiError } from '../support/fake-cluster.js';
import { containerImageOf, markAvailable, setup, switchedBlueGreenApp, NS } from '../support/reconciler.js';

const selected = (t: ReturnType<typeof setup>) => (t.cluster.get('Service', NS, 'web') as V1Service).spec?.selector?.['skiff.dev/revision'];
const switchedBack = (t: ReturnType<typeof setup>) => t.cluster.events.filter((e) => e.reason === 'BlueGreenSwitchedBack').map(({ type, message }) => ({ type, message }));
const failServiceWrites = (t: ReturnType<typeof setup>, fail: boolean) => {
  t.cluster.beforeWrite = (w) => {
    if (fail && w.kind === 'Service' && w.name === 'web' && w.verb !== 'delete') throw apiError(500, 'etcdserver: request timed out');
  };
};

/**
 * A switched blue-green App whose spec `change` takes the Service off the preview: the first pass's
 * write of the Service fails (and no Event may say it switched back), the next one's succeeds.
 */
async function switchBackWhoseFirstWriteFails(change: Parameters<ReturnType<typeof setup>['setSpec']>[0]) {
  const t = await switchedBlueGreenApp();
  const preview = selected(t);
  t.setSpec(change);
  failServiceWrites(t, true);
  await assert.rejects(t.run());
  assert.equal(selected(t), preview);
  assert.deepEqual(switchedBack(t), [], 'no Event says it switched back while nothing did');
  failServiceWrites(t, false);
  await t.run();
  return { t, preview };
}

/** A blue-green App (30 s delay) on web:1, with web:2's preview available: the next pass switches. */
async function previewReadyToSwitch() {
  const t = setup({ image: 'registry.example/web:1', replicas: 2, rollout: { strategy: 'BlueGreen', scaleDownDelaySeconds: 30 } });
  await t.run();
  markAvailable(t.cluster, 'web');
  await t.run();
  const old = selected(t);
  t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
  await t.run();
  markAvailable(t.cluster, 'web-preview');
  return { t, old };
}

describe('blue-green delays and a Service write that fails', () => {
  it('the switch: the old pods are not replaced while the Service still selects them, and get the whole delay from the write that switched it', async () => {
    const { t, old } = await previewReadyToSwitch();
    failServiceWrites(t, true);
    await assert.rejects(t.run());
    assert.equal(selected(t), old, 'the write failed: the Service still selects the old pods');
    t.later(31_000);
    await assert.rejects(t.run());
    assert.equal(containerImageOf(t.cluster, 'web'), 'registry.example/web:1', 'the old pods, which have all the traffic, are not replaced');
    const switchedEvents = () => t.cluster.events.filter((e) => e.reason === 'BlueGreenSwitched');
    assert.deepEqual(switchedEvents(), [], 'no Event says it switched while nothing did');
    failServiceWrites(t, false);
    await t.run();
    assert.notEqual(selected(t), old, 'switched now');
    assert.deepEqual(switchedEvents().map((e) => e.message), [`switched: the Service selects revision ${selected(t)} (registry.example/web:2); the old pods stay until ${t.app().status?.blueGreen?.scaleDownAt}`], 'one, from the pass that switched, with the delay it began');
    t.later(29_000);
    await t.run();
    assert.equal(containerImageOf(t.cluster, 'web'), 'registry.example/web:1', 'within the delay from the switch that took place');
    t.later(2_000);
    await t.run();
    assert.equal(containerImageOf(t.cluster, 'web'), 'registry.example/web:2', 'then the Deployment takes the new template');
  });

  it('the switch back: the preview is not deleted while the Service still selects it, and its pods get the whole delay from the write that switched back', async () => {
    const t = await switchedBlueGreenApp();
    const preview = selected(t);
    t.cluster.put({ ...t.app(), metadata: { ...t.app().metadata, annotations: { 'skiff.dev/abort': 'true' } } });
    failServiceWrites(t, true);
    await assert.rejects(t.run());
    assert.equal(selected(t), preview, 'the write failed: the Service still selects the preview');
    assert.deepEqual(switchedBack(t), [], 'no Event says it switched back while nothing did');
    t.later(31_000);
    await assert.rejects(t.run());
    assert.deepEqual(switchedBack(t), [], 'nor does the next pass whose write fails');
    failServiceWrites(t, false);
    await t.run();
    assert.notEqual(selected(t), preview, 'switched back now');
    assert.deepEqual(switchedBack(t), [{ type: 'Warning', message: `switched back: the Service selects stable revision ${selected(t)} again; the preview's pods go at ${t.app().status?.blueGreen?.scaleDownAt}` }], 'one, from the pass that switched back, with the delay it began');
    assert.ok(t.cluster.get('Deployment', NS, 'web-preview'), 'the preview\'s pods had the traffic until this pass: they stay for the delay');
    t.later(29_000);
    await t.run();
    assert.ok(t.cluster.get('Deployment', NS, 'web-preview'));
    t.later(2_000);
    await t.run();
    assert.equal(t.cluster.get('Deployment', NS, 'web-preview'), undefined, 'gone after the delay');
    assert.equal(switchedBack(t).length, 1, 'and told once');
  });

  it('the pod template back to stable after the switch: the switch back is told by the pass that writes it', async () => {
    const { t, preview } = await switchBackWhoseFirstWriteFails((s) => ({ ...s, image: 'registry.example/web:1' }));
    assert.notEqual(selected(t), preview, 'switched back now');
    assert.deepEqual(switchedBack(t), [{ type: 'Normal', message: `switched back: the Service selects stable revision ${selected(t)} again; the preview's pods go at ${t.app().status?.blueGreen?.scaleDownAt}` }]);
    await t.run();
    assert.equal(switchedBack(t).length, 1, 'told once');
  });

  it('the strategy changed to Canary after the switch: the Service leaving the preview is told as a switch back, by the pass that writes it', async () => {
    const { t, preview } = await switchBackWhoseFirstWriteFails((s) => ({ ...s, rollout: { strategy: 'Canary', scaleDownDelaySeconds: 30, steps: [{ setWeight: 20 }] } }));
    const service = t.cluster.get('Service', NS, 'web') as V1Service;
    assert.deepEqual(service.spec?.selector, { 'skiff.dev/app': 'web', 'skiff.dev/track': 'stable' }, 'the stable track, as the canary strategy has it');
    assert.deepEqual(switchedBack(t), [{ type: 'Normal', message: `the strategy is Canary now: the Service selects the stable track again instead of the blue-green preview (revision ${preview}), whose pods go at ${t.app().status?.blueGreen?.scaleDownAt}` }]);
    await t.run();
    assert.equal(switchedBack(t).length, 1, 'told once');
  });

  it('a switch whose status write is refused as stale (the App paused meanwhile) stays switched: the next pass neither switches back unsaid nor restarts the delay twice', async () => {
    const { t, old } = await previewReadyToSwitch();
    // The switch pass: the Service is written, then its status is refused (409), as when
    // `kubectl skiff pause` changed the App between the pass's read and its status write.
    t.cluster.beforeWrite = (w) => {
      if (w.verb === 'status') throw apiError(409, 'the object has been modified; please apply your changes to the latest version and try again');
    };
    await assert.rejects(t.run());
    const preview = selected(t);
    assert.notEqual(preview, old, 'the Service was switched');
    assert.equal(t.app().status?.blueGreen?.phase, 'Preview', 'its status lost');
    t.cluster.beforeWrite = () => {};
    t.setSpec((s) => ({ ...s, rollout: { ...s.rollout, paused: true } }));
    const watched: (string | undefined)[] = [];
    for (let i = 0; i < 3; i++) {
      t.later(1_000);
      await t.run();
      watched.push(selected(t));
    }
    assert.deepEqual(watched, [preview, preview, preview], 'never switched back');
    assert.equal(t.app().status?.blueGreen?.phase, 'Switched');
    assert.equal(t.cluster.events.filter((e) => e.reason === 'BlueGreenSwitched').length, 1, 'the switch said once, by the pass that recorded it');
    assert.equal(t.cluster.events.filter((e) => e.reason === 'BlueGreenSwitchedBack').length, 0);
    assert.equal(containerImageOf(t.cluster, 'web'), 'registry.example/web:1', 'the old pods wait out their delay');
  });
});
