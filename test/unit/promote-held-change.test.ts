// skiff.dev/promote on a paused Canary App whose new pod template waits to start
// (spec.rollout.paused): no canary of it has begun, so there is nothing to promote. Kept for resume
// it would promote at once a revision nobody has seen run (a canary's promotion skips its steps
// and analysis), so it is consumed as every command is, and a Warning Event says so, as
// AbortIgnored does for an abort of the same held change. Once resumed, the change rolls out as a
// canary from its first step.
import { strict as assert } from 'node:assert';
import { annotate, heldChange, ignoredCommand, notSaidAgain } from '../support/held-change.js';
import { NS } from '../support/reconciler.js';

describe('skiff.dev/promote on a paused Canary App whose change waits to start', () => {
  it('is consumed with a Warning Event PromoteIgnored that says why and what rolls it out; nothing is promoted', async () => {
    const t = await heldChange('Canary');
    const stableRevision = t.app().status?.stableRevision;
    const message = await ignoredCommand(t, 'promote', 'PromoteIgnored');
    assert.match(message, /nothing to promote/);
    assert.match(message, /kubectl skiff resume/);
    assert.equal(t.app().status?.stableRevision, stableRevision, 'stable keeps its revision');
    assert.equal(t.cluster.get('Deployment', NS, 'web-canary'), undefined, 'no rollout started');

    await notSaidAgain(t, 'PromoteIgnored');
  });

  it('resumed afterwards, the change starts a canary at its first step, not a promotion', async () => {
    const t = await heldChange('Canary');
    const stableRevision = t.app().status?.stableRevision;
    annotate(t, 'promote');
    await t.run();
    t.setSpec((s) => ({ ...s, rollout: { ...s.rollout, paused: false } }));
    await t.run();
    assert.ok(t.cluster.get('Deployment', NS, 'web-canary'), 'the rollout starts');
    assert.equal(t.app().status?.canary?.stepIndex, 0);
    assert.equal(t.app().status?.stableRevision, stableRevision);
  });
});
