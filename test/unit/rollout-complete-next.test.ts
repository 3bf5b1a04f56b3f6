// A rollout that completes after the App asked for another pod template meanwhile (a new image
// set while a blue-green scale-down or a canary's promotion waited for the Deployment `web`): the
// pass that completes it makes the earlier revision stable, and the App's current generation has
// not rolled out. Its status must not say RolloutComplete for that generation, or
// `kubectl skiff status --wait` (which trusts it) ends before the new revision has even started.
// reconcile() over the in-memory cluster, injected clock.
import { strict as assert } from 'node:assert';
import type { V1Deployment } from '@kubernetes/client-node';
import { waitDecision, type CliApp } from '../../cli/model.js';
import { canaryAtWeight, markAvailable, NS, setup, switchedBlueGreenApp } from '../support/reconciler.js';

const condition = (t: ReturnType<typeof setup>, type: string) => t.app().status?.conditions?.find((c) => c.type === type);
const image = (t: ReturnType<typeof setup>, name: string) => (t.cluster.get('Deployment', NS, name) as V1Deployment | undefined)?.spec?.template.spec?.containers[0]!.image;

/** What `status --wait` decides on the App as the API server has it now. */
const waitOn = (t: ReturnType<typeof setup>) => waitDecision(t.app() as unknown as CliApp);

describe('a rollout completed after the pod template changed again', () => {
  it('blue-green: the scale-down to web:2 completes while the App asks for web:3; Progressing stays True and status --wait waits, until web:3 is stable', async () => {
    const t = await switchedBlueGreenApp();
    t.later(31_000);
    await t.run();
    assert.equal(t.app().status?.blueGreen?.phase, 'ScalingDown');
    assert.equal(image(t, 'web'), 'registry.example/web:2', 'web takes the new template; its pods are held (a quota, say)');
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:3' }));
    await t.run();
    assert.equal(t.app().status?.blueGreen?.phase, 'ScalingDown', 'the scale-down finishes first');
    assert.match(condition(t, 'Progressing')!.message, /the Deployment takes revision \w+; the preview goes once it is available; then registry\.example\/web:3 \(revision \w+\) rolls out$/, 'the waiting template said');
    markAvailable(t.cluster, 'web');
    await t.run();
    const status = t.app().status!;
    assert.equal(status.stableImage, 'registry.example/web:2', 'the completing pass makes web:2 stable');
    assert.notEqual(status.updateRevision, status.stableRevision, 'the App asks for web:3');
    assert.equal(status.observedGeneration, t.app().metadata.generation);
    const progressing = condition(t, 'Progressing');
    assert.equal(progressing?.status, 'True', `not rolled out: ${JSON.stringify(progressing)}`);
    assert.equal(progressing?.reason, 'BlueGreenPreview');
    assert.match(progressing!.message, /web:2 \(revision \w+\) is stable; the preview of registry\.example\/web:3 \(revision \w+\) starts next/);
    assert.equal(waitOn(t).done, false, 'status --wait goes on waiting');
    // The next pass starts web:3's preview; its rollout ends as any other.
    await t.run();
    assert.equal(image(t, 'web-preview'), 'registry.example/web:3');
    markAvailable(t.cluster, 'web-preview');
    await t.run();
    assert.equal(t.app().status?.blueGreen?.phase, 'Switched');
    t.later(31_000);
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    await t.run();
    assert.equal(t.app().status?.stableImage, 'registry.example/web:3');
    assert.equal(condition(t, 'Progressing')?.reason, 'RolloutComplete');
    assert.deepEqual(waitOn(t), { done: true, code: 0, message: 'app shop/web: rolled out (registry.example/web:3)' });
  });

  it('canary: the promotion of web:2 completes while the App asks for web:3; Progressing stays True (CanaryStep) and status --wait waits', async () => {
    const t = setup({ image: 'web:1', replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 50 }], scaleDownDelaySeconds: 0 } });
    await canaryAtWeight(t, 'web:2', '50');
    // Promote: the stable Deployment takes web:2; its pods are held.
    for (let i = 0; i < 4 && image(t, 'web') !== 'web:2'; i++) await t.run();
    assert.equal(image(t, 'web'), 'web:2', 'the promotion began');
    t.setSpec((s) => ({ ...s, image: 'web:3' }));
    await t.run();
    assert.equal(t.app().status?.canary?.image, 'web:2', 'the promotion finishes first');
    markAvailable(t.cluster, 'web');
    for (let i = 0; i < 6 && t.app().status?.stableImage !== 'web:2'; i++) await t.run();
    const status = t.app().status!;
    assert.equal(status.stableImage, 'web:2');
    assert.notEqual(status.updateRevision, status.stableRevision);
    const progressing = condition(t, 'Progressing');
    assert.equal(progressing?.status, 'True', `not rolled out: ${JSON.stringify(progressing)}`);
    assert.equal(progressing?.reason, 'CanaryStep');
    assert.match(progressing!.message, /web:2 \(revision \w+\) is stable; the canary of web:3 \(revision \w+\) starts next/);
    assert.equal(waitOn(t).done, false);
  });
});
