// skiff.dev/promote on a paused Canary App whose new pod template waits to start
// (spec.rollout.paused): no canary of it has begun, so there is nothing to promote. Kept for resume
// it would promote at once a revision nobody has seen run (a canary's promotion skips its steps
// and analysis), so it is consumed as every command is, and a Warning Event says so, as
// AbortIgnored does for an abort of the same held change. Once resumed, the change rolls out as a
// canary from its first step.
import { strict as assert } from 'node:assert';
import type { AppSpec } from '../../shared/app-types.js';
import { markAvailable, NS, setup } from '../support/reconciler.js';

const condition = (t: ReturnType<typeof setup>, type: string) => t.app().status?.conditions?.find((c) => c.type === type);

async function heldChange() {
  const spec: AppSpec = { image: 'registry.example/web:1', replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary' } };
  const t = setup(spec);
  await t.run();
  markAvailable(t.cluster, 'web');
  await t.run();
  t.setSpec((s) => ({ ...s, image: 'registry.example/web:2', rollout: { ...s.rollout, paused: true } }));
  await t.run();
  assert.equal(condition(t, 'Progressing')?.reason, 'RolloutPaused', 'the change waits to start');
  return t;
}

const promote = (t: ReturnType<typeof setup>) => t.cluster.put({ ...t.app(), metadata: { ...t.app().metadata, annotations: { 'skiff.dev/promote': 'true' } } });

describe('skiff.dev/promote on a paused Canary App whose change waits to start', () => {
  it('is consumed with a Warning Event PromoteIgnored that says why and what rolls it out; nothing is promoted', async () => {
    const t = await heldChange();
    const stableRevision = t.app().status?.stableRevision;
    promote(t);
    const events = t.cluster.events.length;
    await t.run();

    assert.equal(t.app().metadata.annotations?.['skiff.dev/promote'], undefined, 'the annotation is consumed');
    const said = t.cluster.events.slice(events);
    assert.deepEqual(said.map((e) => `${e.type} ${e.reason}`), ['Warning PromoteIgnored']);
    assert.match(said[0].message, /registry\.example\/web:2/);
    assert.match(said[0].message, /waits for spec\.rollout\.paused/);
    assert.match(said[0].message, /nothing to promote/);
    assert.match(said[0].message, /kubectl skiff resume/);
    assert.equal(t.app().status?.stableRevision, stableRevision, 'stable keeps its revision');
    assert.equal(t.cluster.get('Deployment', NS, 'web-canary'), undefined, 'no rollout started');

    // Said once: the next pass has no annotation and no Event.
    const after = t.cluster.events.length;
    await t.run();
    assert.deepEqual(t.cluster.events.slice(after).filter((e) => e.reason === 'PromoteIgnored'), []);
  });

  it('resumed afterwards, the change starts a canary at its first step, not a promotion', async () => {
    const t = await heldChange();
    const stableRevision = t.app().status?.stableRevision;
    promote(t);
    await t.run();
    t.setSpec((s) => ({ ...s, rollout: { ...s.rollout, paused: false } }));
    await t.run();
    assert.ok(t.cluster.get('Deployment', NS, 'web-canary'), 'the rollout starts');
    assert.equal(t.app().status?.canary?.stepIndex, 0);
    assert.equal(t.app().status?.stableRevision, stableRevision);
  });
});
