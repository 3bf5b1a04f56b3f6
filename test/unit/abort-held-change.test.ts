// skiff.dev/abort on a paused App whose new pod template waits to start (spec.rollout.paused): no
// rollout has begun, so there is nothing to abort. The controller consumes the annotation as it
// consumes every command, and says so with a Warning Event, as it does for an abort that comes
// after a blue-green scale-down delay; the App is not marked aborted and stable keeps running.
import { strict as assert } from 'node:assert';
import type { AppSpec } from '../../shared/app-types.js';
import { markAvailable, NS, setup } from '../support/reconciler.js';

const condition = (t: ReturnType<typeof setup>, type: string) => t.app().status?.conditions?.find((c) => c.type === type);

async function heldChange(strategy: 'Canary' | 'BlueGreen') {
  const spec: AppSpec = { image: 'registry.example/web:1', replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy } };
  const t = setup(spec);
  await t.run();
  markAvailable(t.cluster, 'web');
  await t.run();
  t.setSpec((s) => ({ ...s, image: 'registry.example/web:2', rollout: { ...s.rollout, paused: true } }));
  await t.run();
  assert.equal(condition(t, 'Progressing')?.reason, 'RolloutPaused', 'the change waits to start');
  return t;
}

for (const strategy of ['Canary', 'BlueGreen'] as const) {
  describe(`skiff.dev/abort on a paused ${strategy} App whose change waits to start`, () => {
    it('is consumed with a Warning Event AbortIgnored that says why and how to drop the change; nothing is aborted', async () => {
      const t = await heldChange(strategy);
      const stableRevision = t.app().status?.stableRevision;
      t.cluster.put({ ...t.app(), metadata: { ...t.app().metadata, annotations: { 'skiff.dev/abort': 'true' } } });
      const events = t.cluster.events.length;
      await t.run();

      assert.equal(t.app().metadata.annotations?.['skiff.dev/abort'], undefined, 'the annotation is consumed');
      const said = t.cluster.events.slice(events);
      assert.deepEqual(said.map((e) => `${e.type} ${e.reason}`), ['Warning AbortIgnored']);
      assert.match(said[0].message, /registry\.example\/web:2/);
      assert.match(said[0].message, /waits for spec\.rollout\.paused/);
      assert.match(said[0].message, /nothing to abort/);
      assert.match(said[0].message, /kubectl skiff undo/);
      assert.equal(condition(t, 'Degraded')?.status, 'False', 'not aborted');
      assert.equal(t.app().status?.abortedRevision, undefined);
      assert.equal(t.app().status?.stableRevision, stableRevision);
      assert.equal(t.cluster.get('Deployment', NS, strategy === 'Canary' ? 'web-canary' : 'web-preview'), undefined, 'no rollout started');

      // Said once: the next pass has no annotation and no Event.
      const after = t.cluster.events.length;
      await t.run();
      assert.deepEqual(t.cluster.events.slice(after).filter((e) => e.reason === 'AbortIgnored'), []);
    });

    it('resumed afterwards, the change rolls out as it would have', async () => {
      const t = await heldChange(strategy);
      t.cluster.put({ ...t.app(), metadata: { ...t.app().metadata, annotations: { 'skiff.dev/abort': 'true' } } });
      await t.run();
      t.setSpec((s) => ({ ...s, rollout: { ...s.rollout, paused: false } }));
      await t.run();
      assert.ok(t.cluster.get('Deployment', NS, strategy === 'Canary' ? 'web-canary' : 'web-preview'), 'the rollout starts');
    });
  });
}
