// A hand edit of the Service `web`'s selector to the preview's revision, during the preview of a
// blue-green App that waits for its promotion (autoPromote false): no promotion. The next pass
// puts the selector back on stable and the rollout stays in Preview; `kubectl skiff promote` then
// switches as it would have. reconcile() over the in-memory cluster, injected clock.
import { strict as assert } from 'node:assert';
import type { V1Service } from '@kubernetes/client-node';
import { ANNOTATION_SELECTED_REVISION } from '../../shared/labels.js';
import { markAvailable, NS, setup, switchedBlueGreenApp } from '../support/reconciler.js';

const REVISION = 'skiff.dev/revision';

describe('blue-green: a Service selector edited by hand is not a switch', () => {
  it('put back to stable by the next pass, the rollout still in Preview; the promotion switches later, in a write Skiff marks as its own', async () => {
    const t = setup({ image: 'registry.example/web:1', replicas: 2, rollout: { strategy: 'BlueGreen', scaleDownDelaySeconds: 30, blueGreen: { autoPromote: false } } });
    const service = () => t.cluster.get('Service', NS, 'web') as V1Service;
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    const r1 = service().spec!.selector![REVISION];
    assert.equal(service().metadata!.annotations![ANNOTATION_SELECTED_REVISION], r1, 'Skiff\'s write says what it selected');
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
    await t.run();
    markAvailable(t.cluster, 'web-preview');
    await t.run();
    const bg = t.app().status!.blueGreen!;
    assert.deepEqual([bg.phase, bg.previewReadyAt !== undefined], ['Preview', true], 'the preview is ready and waits for its promotion');
    // kubectl edit service web: the selector to the preview's revision, nothing else.
    const s = service();
    t.cluster.put({ ...s, spec: { ...s.spec, selector: { ...s.spec!.selector, [REVISION]: bg.previewRevision } } } as V1Service);
    await t.run();
    assert.equal(service().spec!.selector![REVISION], r1, 'the selector is put back on stable');
    assert.equal(t.app().status?.blueGreen?.phase, 'Preview', 'no promotion');
    assert.deepEqual(t.cluster.events.filter((e) => e.reason.startsWith('BlueGreenSwitched')), [], 'no switch said');
    t.later(60_000);
    await t.run();
    assert.equal(t.app().status?.blueGreen?.phase, 'Preview', 'still waiting for its promotion');
    t.cluster.put({ ...t.app(), metadata: { ...t.app().metadata, annotations: { 'skiff.dev/promote': 'true' } } });
    await t.run();
    assert.equal(t.app().status?.blueGreen?.phase, 'Switched');
    assert.deepEqual([service().spec!.selector![REVISION], service().metadata!.annotations![ANNOTATION_SELECTED_REVISION]], [bg.previewRevision, bg.previewRevision]);
  });
});

describe('blue-green: a Service selector edited by hand after the switch', () => {
  it('is put back on the preview; the switch keeps its time, its delay and its one Event', async () => {
    const t = await switchedBlueGreenApp();
    const service = () => t.cluster.get('Service', NS, 'web') as V1Service;
    const before = t.app().status!.blueGreen!;
    t.later(5_000);
    const s = service();
    t.cluster.put({ ...s, spec: { ...s.spec, selector: { ...s.spec!.selector, [REVISION]: t.app().status!.stableRevision! } } } as V1Service);
    await t.run();
    assert.equal(service().spec!.selector![REVISION], before.previewRevision, 'put back on the preview');
    const after = t.app().status!.blueGreen!;
    assert.deepEqual([after.phase, after.switchedAt, after.scaleDownAt], ['Switched', before.switchedAt, before.scaleDownAt]);
    assert.equal(t.cluster.events.filter((e) => e.reason === 'BlueGreenSwitched').length, 1);
  });
});
