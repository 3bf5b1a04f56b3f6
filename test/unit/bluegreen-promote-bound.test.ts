// skiff.dev/promote is for the pod template the App had when it was given. Kept for a preview
// still to start (a change held by spec.rollout.paused, or one waiting for the pods switched back
// from to go), it is dropped, with a Warning PromoteIgnored, when the pod template changes again
// before that preview switched: the new revision waits for a promotion of its own (autoPromote
// false). reconcile() over the in-memory cluster, injected clock.
import { strict as assert } from 'node:assert';
import type { V1Service } from '@kubernetes/client-node';
import { ANNOTATION_PROMOTE } from '../../shared/labels.js';
import { markAvailable, NS, setup } from '../support/reconciler.js';

const spec = { image: 'web:1', replicas: 2, rollout: { strategy: 'BlueGreen' as const, scaleDownDelaySeconds: 60, blueGreen: { autoPromote: false } } };
type T = ReturnType<typeof setup>;
const annotate = (t: T) => t.cluster.put({ ...t.app(), metadata: { ...t.app().metadata, annotations: { ...t.app().metadata.annotations, [ANNOTATION_PROMOTE]: 'true' } } });
const selected = (t: T) => (t.cluster.get('Service', NS, 'web') as V1Service).spec?.selector?.['skiff.dev/revision'];
const ignored = (t: T) => t.cluster.events.filter((e) => e.reason === 'PromoteIgnored');

async function atRest() {
  const t = setup(spec);
  await t.run();
  markAvailable(t.cluster, 'web');
  await t.run();
  return t;
}

/** Passes until nothing changes, the preview made available each time and the clock moved past any delay. */
async function settle(t: T) {
  for (let i = 0; i < 8; i++) {
    t.later(61_000);
    await t.run();
    if (t.cluster.get('Deployment', NS, 'web-preview')) markAvailable(t.cluster, 'web-preview');
  }
}

/** A new image previewed, promoted and switched to. */
async function switchTo(t: T, image: string) {
  t.setSpec((s) => ({ ...s, image }));
  await t.run();
  markAvailable(t.cluster, 'web-preview');
  annotate(t);
  await t.run();
  assert.equal(t.app().status?.blueGreen?.phase, 'Switched');
}

describe('blue-green: a promotion is the pod template\'s it was given for', () => {
  it('kept for the change waiting on the pods switched back from, dropped when the template changes again: web:7 is not switched to', async () => {
    const t = await atRest();
    await switchTo(t, 'web:5');
    t.setSpec((s) => ({ ...s, image: 'web:6' }));
    await t.run();
    annotate(t);
    await t.run();
    assert.equal(t.app().metadata.annotations?.[ANNOTATION_PROMOTE], 'true', 'kept for web:6\'s preview, which waits for web:5\'s pods');
    t.setSpec((s) => ({ ...s, image: 'web:7' }));
    await t.run();
    assert.equal(t.app().metadata.annotations?.[ANNOTATION_PROMOTE], undefined, 'dropped');
    assert.equal(ignored(t).length, 1);
    assert.match(ignored(t)[0]!.message, /asked for revision \w+, the pod template the App had then, which the pod template's change to web:7/);
    await settle(t);
    const b = t.app().status?.blueGreen;
    assert.deepEqual([b?.phase, b?.image], ['Preview', 'web:7'], 'web:7 waits for its own promotion');
    assert.notEqual(selected(t), b?.previewRevision);
  });

  it('paused: kept for the held change, dropped when the held change is replaced: after resume web:3 waits for its own promotion', async () => {
    const t = await atRest();
    t.setSpec((s) => ({ ...s, image: 'web:2', rollout: { ...s.rollout!, paused: true } }));
    await t.run();
    annotate(t);
    await t.run();
    assert.equal(t.app().metadata.annotations?.[ANNOTATION_PROMOTE], 'true', 'kept for the held change');
    t.setSpec((s) => ({ ...s, image: 'web:3' }));
    await t.run();
    assert.equal(t.app().metadata.annotations?.[ANNOTATION_PROMOTE], undefined);
    assert.equal(ignored(t).length, 1);
    t.setSpec((s) => ({ ...s, rollout: { ...s.rollout!, paused: false } }));
    await settle(t);
    const b = t.app().status?.blueGreen;
    assert.deepEqual([b?.phase, b?.image], ['Preview', 'web:3']);
  });

  it('paused while switched: a promotion with the preview already switched to is dropped with the next template, which waits for its own', async () => {
    const t = await atRest();
    await switchTo(t, 'web:4');
    t.setSpec((s) => ({ ...s, rollout: { ...s.rollout!, paused: true } }));
    await t.run();
    annotate(t);
    await t.run();
    t.setSpec((s) => ({ ...s, image: 'web:5' }));
    await t.run();
    assert.equal(t.app().metadata.annotations?.[ANNOTATION_PROMOTE], undefined);
    t.setSpec((s) => ({ ...s, rollout: { ...s.rollout!, paused: false } }));
    await settle(t);
    const b = t.app().status?.blueGreen;
    assert.deepEqual([b?.phase, b?.image], ['Preview', 'web:5']);
  });
});
