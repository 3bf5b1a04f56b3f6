import { strict as assert } from 'node:assert';
import { promoteOrAbort } from '../../cli/commands.js';
import { CliError } from '../../cli/errors.js';
import type { CliApp } from '../../cli/model.js';
import { writingContext } from '../support/cli-context.js';

// `kubectl skiff abort` on a paused App whose new pod template waits to start: no rollout of it has
// begun, and the controller does nothing with the annotation but say so (Warning AbortIgnored).
// The plugin refuses it, nothing written, saying why and what drops the change (undo) instead.
// Where the rollout of spec's revision is under way (held by the pause), an abort still acts.
function run(app: CliApp) {
  const { ctx, out, patches } = writingContext(() => app, () => app, { command: 'abort' });
  return { patches, done: promoteOrAbort(ctx).then((code) => ({ code, out: out.join('') })) };
}

type Status = NonNullable<CliApp['status']>;
const app = (strategy: 'Canary' | 'BlueGreen', status: Partial<Status> = {}): CliApp => ({
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop', uid: 'u1', generation: 3 },
  spec: { image: 'web:3', port: 8080, ingress: { host: 'web.example.com' }, rollout: { strategy, paused: true } },
  // Seen by the controller: spec's template is revision r3, stable runs r1.
  status: { observedGeneration: 3, stableRevision: 'r1', stableImage: 'web:1', updateRevision: 'r3', ...status } as Status,
});

async function refused(a: CliApp): Promise<string> {
  const r = run(a);
  let message = '';
  await assert.rejects(r.done, (e: Error) => {
    message = e.message;
    return e instanceof CliError;
  });
  assert.deepEqual(r.patches, [], 'nothing written');
  return message;
}

const held = /^app shop\/web has a pod-template change \(revision r3\) that waits for spec\.rollout\.paused to be false: its rollout has not started, so there is nothing to abort; kubectl skiff undo drops the change \(kubectl skiff resume rolls it out\)$/;

describe('kubectl skiff abort of a change that a pause keeps from starting', () => {
  it('Canary: refused, saying that nothing has started and that undo drops the change', async () => {
    assert.match(await refused(app('Canary')), held);
  });

  it('BlueGreen: the same', async () => {
    assert.match(await refused(app('BlueGreen')), held);
  });

  it('BlueGreen while an earlier preview switched back from waits out its delay: the same (the controller only waits, paused)', async () => {
    assert.match(await refused(app('BlueGreen', { blueGreen: { previewRevision: 'r2', activeRevision: 'r1', phase: 'ScalingDown', scaleDownAt: '2026-11-22T10:00:30Z' } })), held);
  });

  it('a canary of spec\'s revision held by the pause is aborted, as is a blue-green preview of it', async () => {
    const canary = run(app('Canary', { canary: { image: 'web:3', revision: 'r3', weight: 20, stepIndex: 1, stepStartedAt: '2026-11-22T10:00:00Z' } }));
    assert.equal((await canary.done).code, 0);
    assert.deepEqual(canary.patches, [{ metadata: { annotations: { 'skiff.dev/abort': 'true' } } }]);
    const preview = run(app('BlueGreen', { blueGreen: { previewRevision: 'r3', activeRevision: 'r1', phase: 'Preview' } }));
    assert.equal((await preview.done).code, 0);
    assert.equal(preview.patches.length, 1);
  });

  it('a promotion of an earlier canary under way while the change waits can still be aborted', async () => {
    const r = run(app('Canary', { canary: { image: 'web:2', revision: 'r2', weight: 50, stepIndex: 4, stepStartedAt: '2026-11-22T10:00:00Z' } }));
    assert.equal((await r.done).code, 0);
    assert.equal(r.patches.length, 1);
  });

  it('a change the controller has not seen yet is not named: the refusal is that no rollout is in progress', async () => {
    const unseen = { ...app('Canary'), metadata: { ...app('Canary').metadata, generation: 4 } };
    assert.match(await refused(unseen), /^app shop\/web has no canary rollout in progress; there is nothing to abort$/);
  });
});
