// What an undo does in the App's phase, as the dashboard's confirmation says it before anything
// is written: a rollout of its own (held while paused), none when it is the stable revision, and
// with the canary skipped.
import { strict as assert } from 'node:assert';
import type { CliApp } from '../../cli/model.js';
import { undoMeans } from '../../cli/undo.js';

const app = (strategy: 'RollingUpdate' | 'Canary' | 'BlueGreen', paused = false): CliApp => ({
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop', uid: 'u', generation: 3 },
  spec: { image: 'web:3', rollout: { strategy, paused } },
  status: { observedGeneration: 3, stableRevision: 'aaaaaaaaaa', updateRevision: 'cccccccccc' },
});

describe('undoMeans: what an undo to a revision does now', () => {
  it('a canary App: a canary of its own, or straight to stable with the canary skipped', () => {
    assert.deepEqual(undoMeans(app('Canary'), 'bbbbbbbbbb'), {
      rollout: 'It rolls out as a canary, like any change.',
      skipCanary: 'It goes straight to stable at once, without the canary: no steps and no analysis.',
    });
  });

  it('a paused App: the rollout waits for resume; a skip to stable goes at once', () => {
    const means = undoMeans(app('BlueGreen', true), 'bbbbbbbbbb');
    assert.equal(means.rollout, 'It rolls out through a blue-green preview, like any change, once the App is resumed (it is paused now).');
    assert.equal(means.skipCanary, 'It goes straight to stable at once, without a preview: no steps and no analysis.');
  });

  it('the stable revision: nothing rolls out, what the App asks for beyond it is dropped (paused or not)', () => {
    for (const paused of [false, true]) {
      const means = undoMeans(app('Canary', paused), 'aaaaaaaaaa');
      assert.match(means.rollout, /^It is the stable revision: nothing new rolls out/);
      assert.equal(means.skipCanary, undefined, 'no canary to skip: the page does not offer it');
    }
  });

  it('RollingUpdate: the Deployment rolls it out; there is no canary to skip', () => {
    const means = undoMeans(app('RollingUpdate'), 'bbbbbbbbbb');
    assert.equal(means.rollout, 'The Deployment rolls it out, like any change.');
    assert.equal(means.skipCanary, undefined);
  });
});
