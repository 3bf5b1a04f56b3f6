import { strict as assert } from 'node:assert';
import { retry } from '../../cli/commands.js';
import { CliError } from '../../cli/errors.js';
import type { CliApp } from '../../cli/model.js';
import { writingContext } from '../support/cli-context.js';

// `kubectl skiff retry` runs the aborted revision's rollout again only while the App's pod template
// is that revision: the controller ignores skiff.dev/retry otherwise (Warning RetryIgnored). On a
// paused App whose template changed since the abort, status still names the aborted revision; the
// plugin wrote the annotation and said "retrying" (exit 0) for a retry that never happens.
const context = (app: CliApp) => writingContext(() => app, () => app, { command: 'retry' });

const app = (status: CliApp['status'], generation: number): CliApp => ({
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop', uid: 'u1', generation },
  spec: { image: 'web:3', port: 8080, rollout: { strategy: 'Canary', paused: true } },
  status,
});
const aborted = { stableRevision: 'aaaaaaaaaa', stableImage: 'web:1', abortedRevision: 'bbbbbbbbbb', abortedImage: 'web:2' };

describe('kubectl skiff retry: the App\'s template is no longer the aborted revision', () => {
  it('is refused with why, and nothing is written', async () => {
    const { ctx, patches } = context(app({ ...aborted, observedGeneration: 4, updateRevision: 'cccccccccc' }, 4));
    const err = await retry(ctx).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof CliError, 'refused');
    assert.match(err.message, /app shop\/web: the pod template \(revision cccccccccc\) is not the aborted revision bbbbbbbbbb/);
    assert.deepEqual(patches, [], 'nothing written');
  });

  it('is written when the template is the aborted revision, or when the controller has not seen the App\'s generation yet', async () => {
    for (const a of [app({ ...aborted, observedGeneration: 4, updateRevision: 'bbbbbbbbbb' }, 4), app({ ...aborted, observedGeneration: 3, updateRevision: 'cccccccccc' }, 4)]) {
      const { ctx, out, patches } = context(a);
      assert.equal(await retry(ctx), 0);
      assert.deepEqual(patches, [{ metadata: { annotations: { 'skiff.dev/retry': 'true' } } }]);
      assert.match(out.join(''), /retrying the rollout of revision bbbbbbbbbb/);
    }
  });
});
