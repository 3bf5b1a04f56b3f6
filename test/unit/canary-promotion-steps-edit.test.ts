// A canary whose promotion has begun (the stable Deployment `web` took the canary's template; its
// pods not available yet), with spec.rollout.steps edited to have more steps: the promotion is
// not reopened, and the status keeps saying promotion, not one of the new steps; `kubectl skiff`
// and the dashboard show it as promoting. An abort then says that stable goes back, which it does.
// reconcile() over the in-memory cluster, injected clock.
import { strict as assert } from 'node:assert';
import { stepDetail, stepText, type CliApp } from '../../cli/model.js';
import { stepsView } from '../../cli/dashboard/views.js';
import { canaryAtWeight, containerImageOf, setup } from '../support/reconciler.js';

async function promotionBegun() {
  const t = setup({ image: 'web:1', replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 40 }], scaleDownDelaySeconds: 0 } });
  await canaryAtWeight(t, 'web:2', '40');
  for (let i = 0; i < 4 && containerImageOf(t.cluster, 'web') !== 'web:2'; i++) await t.run();
  assert.equal(containerImageOf(t.cluster, 'web'), 'web:2', 'the promotion began');
  const recorded = t.app().status!.canary!;
  assert.deepEqual([recorded.step, recorded.stepIndex], ['promotion', 1]);
  t.setSpec((s) => ({ ...s, rollout: { ...s.rollout!, steps: [{ setWeight: 40 }, { pause: {} }, { setWeight: 80 }, { pause: {} }] } }));
  await t.run();
  return { t, recorded };
}

describe('a canary promotion under way, its steps edited', () => {
  it('keeps its status at the promotion (step, index, start), and reads as promoting in the plugin and the dashboard', async () => {
    const { t, recorded } = await promotionBegun();
    const c = t.app().status!.canary!;
    assert.deepEqual([c.step, c.stepIndex, c.stepStartedAt, c.weight], [recorded.step, recorded.stepIndex, recorded.stepStartedAt, recorded.weight]);
    assert.match(t.app().status!.conditions!.find((x) => x.type === 'Progressing')!.message, /^promoting web:2/);
    const app = t.app() as unknown as CliApp;
    assert.deepEqual([stepText(app), stepDetail(app)], ['4/4', 'promoting']);
    const view = stepsView(app);
    assert.deepEqual(view.steps.map((s) => [s.current, s.done]), [[false, true], [false, true], [false, true], [false, true]]);
    assert.equal(view.pauseEndsAt, undefined);
  });

  it('an abort then says stable goes back to its revision, as it does', async () => {
    const { t, recorded } = await promotionBegun();
    const stable = t.app().status!.stableRevision;
    t.cluster.put({ ...t.app(), metadata: { ...t.app().metadata, annotations: { 'skiff.dev/abort': 'true' } } });
    await t.run();
    const degraded = t.app().status!.conditions!.find((x) => x.type === 'Degraded')!;
    assert.equal(degraded.reason, 'RolloutAborted');
    assert.equal(degraded.message, `promotion of web:2 (revision ${recorded.revision}) aborted by annotation skiff.dev/abort; stable goes back to revision ${stable}`);
    assert.equal(containerImageOf(t.cluster, 'web'), 'web:1', 'stable back on its template');
  });
});
