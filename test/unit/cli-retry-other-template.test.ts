import { strict as assert } from 'node:assert';
import type { Api } from '../../cli/api.js';
import type { CommandLine } from '../../cli/args.js';
import { retry, type Context } from '../../cli/commands.js';
import { CliError } from '../../cli/errors.js';
import type { CliApp } from '../../cli/model.js';
import { plainStyle } from '../../cli/style.js';

// `kubectl skiff retry` runs the aborted revision's rollout again only while the App's pod template
// is that revision: the controller ignores skiff.dev/retry otherwise (Warning RetryIgnored). On a
// paused App whose template changed since the abort, status still names the aborted revision; the
// plugin wrote the annotation and said "retrying" (exit 0) for a retry that never happens.
function context(app: CliApp, patches: unknown[], out: string[]): Context {
  const api = {
    connection: { server: 'https://127.0.0.1:6443' },
    get: async () => app,
    mergePatch: async (_path: string, patch: unknown) => { patches.push(patch); return app; },
    watchOnce: async () => {},
  } as unknown as Api;
  const cmd = { command: 'retry', app: 'web', skipCanary: false, allNamespaces: false, color: false, watch: false, wait: false } as CommandLine;
  return { cmd, api, namespace: 'shop', style: plainStyle, out: (t) => void out.push(t), err: () => {}, now: () => new Date(), isTTY: false, columns: () => 80, rows: () => 24 };
}

const app = (status: CliApp['status'], generation: number): CliApp => ({
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop', uid: 'u1', generation },
  spec: { image: 'web:3', port: 8080, rollout: { strategy: 'Canary', paused: true } },
  status,
});
const aborted = { stableRevision: 'aaaaaaaaaa', stableImage: 'web:1', abortedRevision: 'bbbbbbbbbb', abortedImage: 'web:2' };

describe('kubectl skiff retry: the App\'s template is no longer the aborted revision', () => {
  it('is refused with why, and nothing is written', async () => {
    const patches: unknown[] = [];
    const err = await retry(context(app({ ...aborted, observedGeneration: 4, updateRevision: 'cccccccccc' }, 4), patches, [])).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof CliError, 'refused');
    assert.match(err.message, /app shop\/web: the pod template \(revision cccccccccc\) is not the aborted revision bbbbbbbbbb/);
    assert.deepEqual(patches, [], 'nothing written');
  });

  it('is written when the template is the aborted revision, or when the controller has not seen the App\'s generation yet', async () => {
    for (const a of [app({ ...aborted, observedGeneration: 4, updateRevision: 'bbbbbbbbbb' }, 4), app({ ...aborted, observedGeneration: 3, updateRevision: 'cccccccccc' }, 4)]) {
      const patches: unknown[] = [];
      const out: string[] = [];
      assert.equal(await retry(context(a, patches, out)), 0);
      assert.deepEqual(patches, [{ metadata: { annotations: { 'skiff.dev/retry': 'true' } } }]);
      assert.match(out.join(''), /retrying the rollout of revision bbbbbbbbbb/);
    }
  });
});
