// A canary's step is recorded in the App's status before the router takes its weight: were the
// status write of the pass that took the step to fail (a 409, the controller stopping between the
// two writes), the next pass would read the step before from the status and set its weight back.
// Over the rollout the weights follow the steps and nothing else (docs/api.md, "Traffic safety").
import { strict as assert } from 'node:assert';
import type { AppSpec } from '../../shared/app-types.js';
import { canaryAtWeight, markAvailable, setup, weightOf } from '../support/reconciler.js';

// One replica: the canary keeps its size from step to step, so a step's weight is set in the pass
// that takes the step when nothing keeps them apart.
const spec: AppSpec = {
  image: 'web:1', replicas: 1, ingress: { host: 'web.example.com' },
  rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { setWeight: 50 }, { pause: { duration: '1h' } }], scaleDownDelaySeconds: 0 },
};

/** A canary of web:2 at 20% on an App of one replica; every weight the canary Ingress takes is recorded. */
async function canaryAt20() {
  const s = setup(spec, { readYourWrites: false });
  await canaryAtWeight(s, 'web:2', '20');
  assert.equal(weightOf(s.cluster), '20');
  const weights = ['20'];
  const follow = async () => {
    await s.run().catch(() => undefined);
    markAvailable(s.cluster, 'web-canary');
    const w = weightOf(s.cluster) ?? '0';
    if (weights.at(-1) !== w) weights.push(w);
  };
  return { ...s, weights, follow };
}

describe('a canary step recorded before its weight', () => {
  it('a status write refused (409) in the pass that takes the step: the weight goes up once, never back', async () => {
    const s = await canaryAt20();
    // Someone else writes the App while the pass runs: its status write is refused once.
    let refused = 0;
    s.cluster.beforeWrite = (w) => {
      if (w.verb === 'status' && refused === 0 && s.app().status?.canary?.stepIndex === 0) {
        refused++;
        s.cluster.put({ ...s.app(), metadata: { ...s.app().metadata, labels: { team: 'web' } } });
      }
    };
    for (let i = 0; i < 6; i++) {
      await s.follow();
      s.later(1_000);
    }
    assert.equal(refused, 1, 'the write was refused once');
    assert.deepEqual(s.weights, ['20', '50']);
    assert.equal(s.app().status?.canary?.stepIndex, 2, 'on to the pause');
  });

  it('the controller stopping between the step and its status: a new one resumes from the status, without setting the weight back', async () => {
    const s = await canaryAt20();
    // The pass that takes the step dies after the router writes, before the status: every write
    // after the first one of the Ingress fails.
    let ingressWrites = 0;
    let dead = false;
    s.cluster.beforeWrite = (w) => {
      if (dead) throw new Error('the controller stopped');
      if (w.kind === 'Ingress') ingressWrites++;
      if (ingressWrites > 0 && w.verb === 'status') {
        dead = true;
        throw new Error('the controller stopped');
      }
    };
    await s.follow();
    s.cluster.beforeWrite = () => {};
    for (let i = 0; i < 6; i++) {
      await s.follow();
      s.later(1_000);
    }
    assert.deepEqual(s.weights, ['20', '50']);
  });
});
