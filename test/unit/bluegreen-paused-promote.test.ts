// skiff.dev/promote on a paused blue-green App (autoPromote false) with nothing to promote: spec's
// revision stable (the App at rest, or a held change undone back to it). Consumed by the pass that
// sees it, paused or not: kept, it would switch the next preview after resume with nobody having
// promoted it. A promotion for a change the pause holds stays for that change's preview (as
// documented). reconcile() over the in-memory cluster, injected clock.
import { strict as assert } from 'node:assert';
import type { V1Service } from '@kubernetes/client-node';
import { ANNOTATION_PROMOTE } from '../../shared/labels.js';
import { markAvailable, NS, setup } from '../support/reconciler.js';

const spec = { image: 'registry.example/web:1', replicas: 2, rollout: { strategy: 'BlueGreen' as const, scaleDownDelaySeconds: 30, blueGreen: { autoPromote: false } } };

async function pausedAtRest() {
  const t = setup(spec);
  await t.run();
  markAvailable(t.cluster, 'web');
  await t.run();
  t.setSpec((s) => ({ ...s, rollout: { ...s.rollout!, paused: true } }));
  await t.run();
  return t;
}
const annotate = (t: ReturnType<typeof setup>, annotations: Record<string, string>) => t.cluster.put({ ...t.app(), metadata: { ...t.app().metadata, annotations: { ...t.app().metadata.annotations, ...annotations } } });
const promoteLeft = (t: ReturnType<typeof setup>) => t.app().metadata.annotations?.[ANNOTATION_PROMOTE];
const selected = (t: ReturnType<typeof setup>) => (t.cluster.get('Service', NS, 'web') as V1Service).spec?.selector?.['skiff.dev/revision'];

/** Resumed with a new image in the same edit; its preview made available: it must wait for its own promotion. */
async function resumeWithNewImage(t: ReturnType<typeof setup>) {
  const stable = selected(t);
  t.setSpec((s) => ({ ...s, image: 'registry.example/web:3', rollout: { ...s.rollout!, paused: false } }));
  await t.run();
  markAvailable(t.cluster, 'web-preview');
  await t.run();
  t.later(10_000);
  await t.run();
  assert.equal(t.app().status?.blueGreen?.phase, 'Preview', 'the new preview waits for its own promotion');
  assert.equal(selected(t), stable, 'the Service still selects stable');
  assert.match(t.app().status!.conditions!.find((c) => c.type === 'Progressing')!.message, /annotate skiff\.dev\/promote=true/);
}

describe('blue-green, paused: a promotion with nothing to promote', () => {
  it('at rest: consumed by the next pass; after resume with a new image, its preview is not switched to', async () => {
    const t = await pausedAtRest();
    annotate(t, { [ANNOTATION_PROMOTE]: 'true' });
    await t.run();
    assert.equal(promoteLeft(t), undefined, 'nothing to promote: consumed');
    await resumeWithNewImage(t);
  });

  it('a held change promoted, then undone back to stable: the promotion goes with the change', async () => {
    const t = await pausedAtRest();
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
    await t.run();
    annotate(t, { [ANNOTATION_PROMOTE]: 'true' });
    await t.run();
    assert.equal(promoteLeft(t), 'true', 'kept for the held change\'s preview');
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:1' }));
    await t.run();
    assert.equal(promoteLeft(t), undefined, 'the change undone: consumed');
    await resumeWithNewImage(t);
  });
});
