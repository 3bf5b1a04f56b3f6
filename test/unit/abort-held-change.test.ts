// skiff.dev/abort on a paused App whose new pod template waits to start (spec.rollout.paused): no
// rollout has begun, so there is nothing to abort. The controller consumes the annotation as it
// consumes every command, and says so with a Warning Event, as it does for an abort that comes
// after a blue-green scale-down delay; the App is not marked aborted and stable keeps running.
import { strict as assert } from 'node:assert';
import { condition } from '../support/apps.js';
import { annotate, heldChange, ignoredCommand, notSaidAgain } from '../support/held-change.js';
import { NS } from '../support/reconciler.js';

for (const strategy of ['Canary', 'BlueGreen'] as const) {
  describe(`skiff.dev/abort on a paused ${strategy} App whose change waits to start`, () => {
    it('is consumed with a Warning Event AbortIgnored that says why and how to drop the change; nothing is aborted', async () => {
      const t = await heldChange(strategy);
      const stableRevision = t.app().status?.stableRevision;
      const message = await ignoredCommand(t, 'abort', 'AbortIgnored');
      assert.match(message, /nothing to abort/);
      assert.match(message, /kubectl skiff undo/);
      assert.equal(condition(t.app(), 'Degraded')?.status, 'False', 'not aborted');
      assert.equal(t.app().status?.abortedRevision, undefined);
      assert.equal(t.app().status?.stableRevision, stableRevision);
      assert.equal(t.cluster.get('Deployment', NS, strategy === 'Canary' ? 'web-canary' : 'web-preview'), undefined, 'no rollout started');

      await notSaidAgain(t, 'AbortIgnored');
    });

    it('resumed afterwards, the change rolls out as it would have', async () => {
      const t = await heldChange(strategy);
      annotate(t, 'abort');
      await t.run();
      t.setSpec((s) => ({ ...s, rollout: { ...s.rollout, paused: false } }));
      await t.run();
      assert.ok(t.cluster.get('Deployment', NS, strategy === 'Canary' ? 'web-canary' : 'web-preview'), 'the rollout starts');
    });
  });
}
