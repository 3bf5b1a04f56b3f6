// A preview the Service sent traffic to, left behind when the App's strategy changes away from
// BlueGreen: it goes only after spec.rollout.scaleDownDelaySeconds from the moment the Service
// left it, in every pass until then (reconcile() over the in-memory cluster, injected clock).
import { strict as assert } from 'node:assert';
import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import { markAvailable, setup, switchedBlueGreenApp, NS } from '../support/reconciler.js';

const switchedApp = () => switchedBlueGreenApp();

const selector = (t: ReturnType<typeof setup>) => (t.cluster.get('Service', NS, 'web') as V1Service).spec?.selector;
const previewExists = (t: ReturnType<typeof setup>) => t.cluster.get('Deployment', NS, 'web-preview') !== undefined;

/** The strategy changes to `strategy`: the Service leaves the preview in that pass, and the preview goes only once `delayMs` has passed from then. */
async function leavesThenWaits(t: ReturnType<typeof setup>, strategy: 'RollingUpdate' | 'Canary', delayMs: number, passesAfterMs: number[]) {
  t.setSpec((s) => ({ ...s, rollout: { strategy } }));
  await t.run();
  assert.equal(selector(t)?.['skiff.dev/revision'], undefined, 'the Service is on the stable track');
  let waited = 0;
  for (const ms of passesAfterMs) {
    t.later(ms);
    waited += ms;
    await t.run();
    assert.ok(previewExists(t), `the preview stays within the delay (${waited} ms after the change)`);
  }
  t.later(delayMs - waited + 1);
  await t.run();
  assert.ok(!previewExists(t), 'gone after the delay');
}

describe('a switched-to preview after a strategy change', () => {
  for (const strategy of ['RollingUpdate', 'Canary'] as const) {
    it(`${strategy}: the Service leaves the preview at once; the preview stays for the delay from then, every pass`, async () => {
      const t = await switchedApp();
      assert.ok(selector(t)?.['skiff.dev/revision'], 'switched: the Service selects the preview revision');
      await leavesThenWaits(t, strategy, 30_000, [1_000, 10_000, 18_000]);
    });
  }

  it('RollingUpdate during the forward scale-down (the Service on the new revision\'s pods, the preview\'s among them): the preview stays for the delay from the change', async () => {
    const t = await switchedApp();
    const revision = selector(t)?.['skiff.dev/revision'];
    t.later(30_001);
    await t.run();
    assert.equal(t.app().status?.blueGreen?.phase, 'ScalingDown', 'the Deployment takes the new template');
    assert.equal(selector(t)?.['skiff.dev/revision'], revision);
    await leavesThenWaits(t, 'RollingUpdate', 30_000, [0, 29_000]);
  });
  it('BlueGreen again within the delay after RollingUpdate: the Service keeps the track and the preview stays until the Deployment\'s pods carry the revision label and are available', async () => {
    const t = await switchedApp();
    const revision = selector(t)?.['skiff.dev/revision'];
    t.setSpec((s) => ({ ...s, rollout: { strategy: 'RollingUpdate' } }));
    await t.run();
    markAvailable(t.cluster, 'web');
    t.later(1_000);
    await t.run();
    const template = () => (t.cluster.get('Deployment', NS, 'web') as V1Deployment).spec?.template;
    assert.equal(template()?.metadata?.labels?.['skiff.dev/revision'], undefined, 'RollingUpdate: the pods carry no revision label');
    t.setSpec((s) => ({ ...s, rollout: { strategy: 'BlueGreen', scaleDownDelaySeconds: 30 } }));
    t.later(1_000);
    await t.run();
    // The Deployment's pods are being rolled for the label: none of them is selected by revision yet.
    assert.equal(template()?.metadata?.labels?.['skiff.dev/revision'], revision);
    assert.equal(selector(t)?.['skiff.dev/revision'], undefined, 'the track selects the Deployment\'s pods, labelled or not');
    assert.ok(previewExists(t), 'the preview is not deleted while the Deployment rolls');
    await t.run();
    assert.ok(previewExists(t));
    markAvailable(t.cluster, 'web');
    t.later(30_000);
    await t.run();
    await t.run();
    assert.equal(selector(t)?.['skiff.dev/revision'], revision, 'labelled and available: selected by revision');
    assert.ok(!previewExists(t), 'then the preview goes');
    assert.equal(t.app().status?.blueGreen, undefined);
  });
});

describe('a canary left running when the strategy changes to BlueGreen', () => {
  it('keeps its pods as they are (no revision label), so the switch to the same revision never selects the pods being wound down', async () => {
    const t = setup({ image: 'registry.example/web:1', replicas: 3, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary' } });
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
    await t.run();
    markAvailable(t.cluster, 'web-canary');
    await t.run();
    await t.run();
    const canaryTemplate = () => (t.cluster.get('Deployment', NS, 'web-canary') as V1Deployment).spec?.template;
    const before = JSON.stringify(canaryTemplate());
    t.setSpec((s) => ({ ...s, rollout: { strategy: 'BlueGreen' } }));
    await t.run();
    assert.equal(JSON.stringify(canaryTemplate()), before, 'the canary being wound down is not rolled');
    markAvailable(t.cluster, 'web-preview');
    await t.run();
    const revision = selector(t)?.['skiff.dev/revision'];
    assert.ok(revision, 'switched to the preview');
    assert.equal(canaryTemplate()?.metadata?.labels?.['skiff.dev/revision'], undefined, 'the Service of the switch does not select the canary pods that go after their delay');
  });
});
