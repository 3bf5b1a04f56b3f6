// A preview the Service sent traffic to, left behind when the App's strategy changes away from
// BlueGreen: it goes only after spec.rollout.scaleDownDelaySeconds from the moment the Service
// left it, in every pass until then (reconcile() over the in-memory cluster, injected clock).
import { strict as assert } from 'node:assert';
import type { V1Service } from '@kubernetes/client-node';
import type { AppSpec } from '../../shared/app-types.js';
import { markAvailable, setup, NS } from '../support/reconciler.js';

const SPEC: AppSpec = { image: 'registry.example/web:1', replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy: 'BlueGreen', scaleDownDelaySeconds: 30 } };

function switchedApp() {
  const t = setup(SPEC);
  return (async () => {
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
    await t.run();
    markAvailable(t.cluster, 'web-preview');
    await t.run();
    assert.equal(t.app().status?.blueGreen?.phase, 'Switched');
    return t;
  })();
}

const selector = (t: ReturnType<typeof setup>) => (t.cluster.get('Service', NS, 'web') as V1Service).spec?.selector;
const previewExists = (t: ReturnType<typeof setup>) => t.cluster.get('Deployment', NS, 'web-preview') !== undefined;

describe('a switched-to preview after a strategy change', () => {
  for (const strategy of ['RollingUpdate', 'Canary'] as const) {
    it(`${strategy}: the Service leaves the preview at once; the preview stays for the delay from then, every pass`, async () => {
      const t = await switchedApp();
      assert.ok(selector(t)?.['skiff.dev/revision'], 'switched: the Service selects the preview revision');
      t.setSpec((s) => ({ ...s, rollout: { strategy } }));
      await t.run();
      assert.equal(selector(t)?.['skiff.dev/revision'], undefined, 'the Service is on the stable track');
      for (const ms of [1_000, 10_000, 18_000]) {
        t.later(ms);
        await t.run();
        assert.ok(previewExists(t), `the preview stays within the delay (after ${ms} ms more)`);
      }
      t.later(1_001);
      await t.run();
      assert.ok(!previewExists(t), 'gone after the delay');
    });
  }

  it('RollingUpdate during the forward scale-down (the Service on the new revision\'s pods, the preview\'s among them): the preview stays for the delay from the change', async () => {
    const t = await switchedApp();
    const revision = selector(t)?.['skiff.dev/revision'];
    t.later(30_001);
    await t.run();
    assert.equal(t.app().status?.blueGreen?.phase, 'ScalingDown', 'the Deployment takes the new template');
    assert.equal(selector(t)?.['skiff.dev/revision'], revision);
    t.setSpec((s) => ({ ...s, rollout: { strategy: 'RollingUpdate' } }));
    await t.run();
    assert.equal(selector(t)?.['skiff.dev/revision'], undefined, 'the Service is on the stable track');
    for (const ms of [0, 29_000]) {
      t.later(ms);
      await t.run();
      assert.ok(previewExists(t), `the preview stays within the delay (after ${ms} ms more)`);
    }
    t.later(1_001);
    await t.run();
    assert.ok(!previewExists(t), 'gone after the delay');
  });
});
