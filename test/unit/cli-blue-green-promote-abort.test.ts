import { strict as assert } from 'node:assert';
import { promoteOrAbort } from '../../cli/commands.js';
import type { CliApp } from '../../cli/model.js';
import { writingContext } from '../support/cli-context.js';

// A blue-green preview is not switched while spec.rollout.paused holds the App: the promotion
// stays on the App and acts on resume (docs/api.md, blue-green). `kubectl skiff promote` said only
// "promoting IMAGE", and nothing happened; it says now that the switch waits for resume. After the
// switch, `abort` switches the Service back (there is no preview left to abort): it says so.
function run(app: CliApp, command: 'promote' | 'abort' = 'promote') {
  const { ctx, out, patches } = writingContext(() => app, () => app, { command });
  return promoteOrAbort(ctx).then((code) => ({ code, out: out.join(''), patches }));
}

const blueGreen = (paused: boolean, phase: 'Preview' | 'Switched' = 'Preview'): CliApp => ({
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop', uid: 'u1', generation: 2 },
  spec: { image: 'web:2', port: 8080, rollout: { strategy: 'BlueGreen', paused } },
  status: { observedGeneration: 2, stableRevision: 'aaaaaaaaaa', updateRevision: 'bbbbbbbbbb', blueGreen: { previewRevision: 'bbbbbbbbbb', activeRevision: phase === 'Switched' ? 'bbbbbbbbbb' : 'aaaaaaaaaa', phase } },
});

describe('kubectl skiff promote on a paused blue-green App', () => {
  it('writes the promotion and says that the switch waits for resume', async () => {
    const r = await run(blueGreen(true));
    assert.equal(r.code, 0);
    assert.deepEqual(r.patches, [{ metadata: { annotations: { 'skiff.dev/promote': 'true' } } }]);
    assert.match(r.out, /promoting web:2; the switch waits until the App is resumed \(kubectl skiff resume\)/);
  });

  it('says nothing of the kind when the App is not paused', async () => {
    assert.equal((await run(blueGreen(false))).out, 'app shop/web: promoting web:2\n');
  });
});

describe('kubectl skiff abort of a blue-green App', () => {
  it('before the switch: aborts the preview', async () => {
    const r = await run(blueGreen(false), 'abort');
    assert.deepEqual(r.patches, [{ metadata: { annotations: { 'skiff.dev/abort': 'true' } } }]);
    assert.equal(r.out, 'app shop/web: aborting the preview of web:2\n');
  });

  it('after the switch: says that the Service goes back to the stable revision', async () => {
    const r = await run(blueGreen(false, 'Switched'), 'abort');
    assert.equal(r.code, 0);
    assert.deepEqual(r.patches, [{ metadata: { annotations: { 'skiff.dev/abort': 'true' } } }]);
    assert.equal(r.out, 'app shop/web: aborting web:2: switching the Service back to the stable revision\n');
  });
});

// A newer pod template whose preview has not started: held by a pause (no rollout in status), or
// waiting for the pods of web:2, switched to and now switched back from. promote and abort act on
// that template (the controller keeps a promotion for it only), and say so, naming its image.
describe('kubectl skiff promote and abort of a blue-green change whose preview has not started', () => {
  const held: CliApp = {
    apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
    metadata: { name: 'web', namespace: 'shop', uid: 'u1', generation: 3 },
    spec: { image: 'web:3', port: 8080, rollout: { strategy: 'BlueGreen', paused: true } },
    status: { observedGeneration: 3, stableRevision: 'aaaaaaaaaa', updateRevision: 'cccccccccc' },
  };
  const draining: CliApp = {
    ...held,
    spec: { ...held.spec, rollout: { strategy: 'BlueGreen' } },
    status: { ...held.status, blueGreen: { previewRevision: 'bbbbbbbbbb', activeRevision: 'aaaaaaaaaa', phase: 'ScalingDown', image: 'web:2', scaleDownAt: '2026-11-22T10:00:30Z' } },
  };

  it('paused: promote is taken for the held change\'s preview (the controller keeps it), abort is refused', async () => {
    const r = await run(held);
    assert.equal(r.code, 0);
    assert.deepEqual(r.patches, [{ metadata: { annotations: { 'skiff.dev/promote': 'true' } } }]);
    assert.match(r.out, /promoting web:3; the switch waits until the App is resumed/);
    await assert.rejects(run(held, 'abort'), /nothing to abort/);
  });

  it('while the old pods go after a switch: promote is taken for the new template\'s preview (the controller keeps it for it), abort is refused', async () => {
    const goingForward: CliApp = { ...draining, status: { ...draining.status, blueGreen: { ...draining.status!.blueGreen!, activeRevision: 'bbbbbbbbbb' } } };
    const r = await run(goingForward);
    assert.equal(r.code, 0);
    assert.deepEqual(r.patches, [{ metadata: { annotations: { 'skiff.dev/promote': 'true' } } }]);
    assert.equal(r.out, 'app shop/web: promoting web:3\n');
    await assert.rejects(run(goingForward, 'abort'), /has switched to revision bbbbbbbbbb and its old pods are going; there is nothing to abort/);
    // No new template: the revision scaling down needs no promotion.
    const noChange: CliApp = { ...goingForward, spec: { ...goingForward.spec, image: 'web:2' }, status: { ...goingForward.status, updateRevision: 'bbbbbbbbbb' } };
    await assert.rejects(run(noChange), /has switched to revision bbbbbbbbbb and its old pods are going; there is nothing to promote/);
  });

  it('while the pods switched back from drain: both name the new template\'s image, not the drained preview\'s', async () => {
    assert.equal((await run(draining)).out, 'app shop/web: promoting web:3\n');
    assert.equal((await run(draining, 'abort')).out, 'app shop/web: aborting web:3 before its preview starts\n');
  });
});
