import { strict as assert } from 'node:assert';
import type { App } from '../../shared/app-types.js';
import { formatStatus } from '../../cli/format-status.js';
import { appFixture } from '../support/app-fixture.js';

/** The App of four steps whose status is shown. */
const app = (status: App['status']): App => appFixture({
  spec: { image: 'web:2', replicas: 4, rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: { duration: '60s' } }, { setWeight: 50 }, { pause: {} }] } },
  status,
});

describe('kubectl skiff status text', () => {
  const now = new Date('2026-11-22T10:01:00Z');
  it('shows step, weight, time left in a pause and both images', () => {
    const out = formatStatus(app({ stableImage: 'web:1', readyReplicas: 4, replicas: 4, canary: { image: 'web:2', weight: 20, stepIndex: 1, stepStartedAt: '2026-11-22T10:00:18Z' } }), now);
    assert.match(out, /Stable image: +web:1/);
    assert.match(out, /Canary image: +web:2/);
    assert.match(out, /Step: +2\/4 pause 60s, 18s left/);
    assert.match(out, /Canary weight: +20%/);
    assert.match(out, /Replicas: +4\/4 ready/);
  });
  it("a paused rollout's pause timer stands still: the time left when it was paused", () => {
    // Paused 30 s into the 60 s pause; shown a minute later and an hour later alike.
    const paused = { image: 'web:2', weight: 20, stepIndex: 1, stepStartedAt: '2026-11-22T09:59:30Z', pausedAt: '2026-11-22T10:00:00Z' };
    for (const at of [now, new Date(now.getTime() + 3_600_000)]) {
      assert.match(formatStatus(app({ stableImage: 'web:1', canary: paused }), at), /Step: +2\/4 pause 60s, 30s left once resumed \(rollout paused\)/);
    }
  });
  it('lines the conditions up in columns, an Unknown status too', () => {
    const c = (type: string, status: 'True' | 'False' | 'Unknown', reason: string) => ({ type, status, reason, message: `${reason} says`, lastTransitionTime: '2026-11-22T10:00:00Z' });
    const out = formatStatus(app({ stableImage: 'web:1', conditions: [c('Ready', 'True', 'Available'), c('Progressing', 'Unknown', 'RolloutPaused'), c('Degraded', 'False', 'AsExpected')] }), now);
    const rows = out.split('\n').slice(out.split('\n').indexOf('Conditions:') + 1, -1);
    assert.deepEqual(rows, [
      '  Ready        True     Available      Available says',
      '  Progressing  Unknown  RolloutPaused  RolloutPaused says',
      '  Degraded     False    AsExpected     AsExpected says',
    ]);
  });

  it('says what the canary changes, and both revisions', () => {
    const out = formatStatus(app({ stableImage: 'web:1', stableRevision: 'a1b2c3d4e5', canary: { image: 'web:1', revision: 'f6e5d4c3b2', changes: ['env MODE', 'probes.liveness'], weight: 20, stepIndex: 1, stepStartedAt: '2026-11-22T10:00:18Z' } }), now);
    assert.match(out, /Stable revision: +a1b2c3d4e5/);
    assert.match(out, /Canary revision: +f6e5d4c3b2/);
    assert.match(out, /Changes: +env MODE, probes\.liveness/);
  });

  it('shows the analysis: checks, failures, and each metric with its value, bound and result', () => {
    const analysis = {
      checks: 3, failures: 1, lastResult: 'Failed' as const, lastWeight: 20, lastCheckAt: '2026-11-22T10:00:50Z',
      metrics: [
        { name: 'successRate', value: 80, min: 99, result: 'Failed' as const, message: 'successRate 80.00 < min 99' },
        { name: 'latency', value: 120.5, max: 500, result: 'Passed' as const, message: 'latency 120.50 ms <= max 500' },
      ],
    };
    const out = formatStatus(app({ stableImage: 'web:1', canary: { image: 'web:2', weight: 20, stepIndex: 0, stepStartedAt: '2026-11-22T10:00:00Z', analysis } }), now);
    assert.match(out, /Analysis: +3 checks, 1 failed; last Failed at 20% \(2026-11-22T10:00:50Z\)/);
    assert.match(out, /successRate +80 +min 99 +Failed +successRate 80\.00 < min 99/);
    assert.match(out, /latency +120\.5 +max 500 +Passed/);
  });

  it('says how to continue an indefinite pause', () => {
    const out = formatStatus(app({ stableImage: 'web:1', canary: { image: 'web:2', weight: 50, stepIndex: 3, stepStartedAt: '2026-11-22T09:00:00Z' } }), now);
    assert.match(out, /4\/4 pause until promoted \(kubectl skiff promote to continue\)/);
  });
  it('shows conditions and an aborted canary', () => {
    const out = formatStatus(app({ stableImage: 'web:1', abortedImage: 'web:2', conditions: [{ type: 'Degraded', status: 'True', reason: 'RolloutAborted', message: 'aborted', lastTransitionTime: '' }] }), now);
    assert.match(out, /Canary: +aborted \(web:2\)/);
    assert.match(out, /Degraded +True +RolloutAborted +aborted/);
  });

  it('says when the pods of a finished canary go', () => {
    const deleteAt = new Date(now.getTime() + 25_000).toISOString();
    const out = formatStatus(app({ stableImage: 'web:1', abortedImage: 'web:2', scaleDown: { revision: 'f6e5d4c3b2', deleteAt } }), now);
    assert.match(out, new RegExp(`Scale-down: +the finished canary's pods \\(revision f6e5d4c3b2\\) get no traffic and go at ${deleteAt.replace(/\./g, '\\.')} \\(25s left\\)`));
    assert.doesNotMatch(formatStatus(app({ stableImage: 'web:1' }), now), /Scale-down/);
    // A new pod template's canary waits for them: they take its template then, they do not go.
    const waiting = formatStatus(app({ stableImage: 'web:1', canary: { image: 'web:3', revision: 'a1b2c3d4e5', weight: 0, stepIndex: 0, stepStartedAt: now.toISOString() }, scaleDown: { revision: 'f6e5d4c3b2', deleteAt } }), now);
    assert.match(waiting, new RegExp(`Scale-down: +the earlier canary's pods \\(revision f6e5d4c3b2\\) get no traffic and take the pod template of revision a1b2c3d4e5 \\(web:3\\) at ${deleteAt.replace(/\./g, '\\.')} \\(25s left\\); its canary starts then`));
    // A change of configuration keeps the image: the row names what changed, not the image.
    const config = formatStatus(app({ stableImage: 'web:1', canary: { image: 'web:1', revision: 'a1b2c3d4e5', changes: ['configMap web-cfg'], weight: 0, stepIndex: 0, stepStartedAt: now.toISOString() }, scaleDown: { revision: 'f6e5d4c3b2', deleteAt } }), now);
    assert.match(config, /take the pod template of revision a1b2c3d4e5 \(configMap web-cfg\) at/);
  });

  it('shows a blue-green rollout: phase, revisions, the Service\'s revision, when the old pods go, the analysis', () => {
    const bg = (blueGreen: NonNullable<App['status']>['blueGreen']) => appFixture({ spec: { image: 'web:2', rollout: { strategy: 'BlueGreen', blueGreen: { autoPromote: false } } }, status: { stableImage: 'web:1', stableRevision: 'r1', blueGreen } });
    const preview = formatStatus(bg({ previewRevision: 'r2', activeRevision: 'r1', phase: 'Preview', image: 'web:2', previewReadyAt: '2026-11-22T10:00:30Z' }), now);
    assert.match(preview, /Blue-green: +Preview/);
    assert.match(preview, /Service selects: +revision r1/);
    assert.match(preview, /kubectl skiff promote to switch/);
    const promotedApp = bg({ previewRevision: 'r2', activeRevision: 'r1', phase: 'Preview', image: 'web:2', previewReadyAt: '2026-11-22T10:00:30Z' });
    promotedApp.metadata.annotations = { 'skiff.dev/promote': 'true' };
    const promoted = formatStatus(promotedApp, now);
    assert.match(promoted, /Preview: +ready since 2026-11-22T10:00:30Z \(promoted: switches once the controller can \(see Progressing\)\)/);
    assert.doesNotMatch(promoted, /kubectl skiff promote to switch/, 'not asked for again');
    assert.doesNotMatch(preview, /Paused:/);
    const pausedPreview = formatStatus(bg({ previewRevision: 'r2', activeRevision: 'r1', phase: 'Preview', image: 'web:2', previewReadyAt: '2026-11-22T10:00:30Z', pausedAt: '2026-11-22T10:00:45Z' }), now);
    assert.match(pausedPreview, /Paused: +since 2026-11-22T10:00:45Z: no switch until kubectl skiff resume/, 'spec.rollout.paused holds the preview before the switch');
    assert.doesNotMatch(preview, /Changes:/, 'no row for a status without changes (written before they were recorded)');
    const passedBefore = formatStatus(bg({
      previewRevision: 'r2', activeRevision: 'r1', phase: 'Preview', image: 'web:2', previewReadyAt: '2026-11-22T10:00:30Z', previewVerdict: { result: 'Passed', at: '2026-11-22T10:00:40Z' },
      analysis: { checks: 2, failures: 0, lastResult: 'Inconclusive', lastWeight: 0, lastCheckAt: '2026-11-22T10:00:50Z' },
    }), now);
    assert.match(passedBefore, /Analysis: +2 checks, 0 failed; last Inconclusive of the preview/);
    assert.match(passedBefore, /Preview verdict: +Passed \(the check at 2026-11-22T10:00:40Z; the switch needs Passed\)/, 'what the switch rests on, not the last check');
    const config = formatStatus(bg({ previewRevision: 'r2', activeRevision: 'r1', phase: 'Preview', image: 'web:1', changes: ['configMap web-cfg'] }), now);
    assert.match(config, /Changes: +configMap web-cfg/, 'a config change names its source: the preview image is stable\'s');
    const switched = formatStatus(bg({
      previewRevision: 'r2', activeRevision: 'r2', phase: 'Switched', image: 'web:2', switchedAt: '2026-11-22T10:00:50Z', scaleDownAt: '2026-11-22T10:01:20Z',
      analysis: { checks: 2, failures: 0, lastResult: 'Passed', lastWeight: 100, lastCheckAt: '2026-11-22T10:00:59Z', metrics: [{ name: 'successRate', value: 100, min: 99, result: 'Passed', message: 'ok' }] },
    }), now);
    assert.match(switched, /Blue-green: +Switched/);
    assert.match(switched, /Scale-down: +the old pods get no traffic and go at 2026-11-22T10:01:20Z \(20s left\)/);
    assert.match(switched, /Analysis: +2 checks, 0 failed; last Passed under full traffic/);
    assert.match(switched, /successRate +100/);
    const scalingDown = formatStatus(bg({ previewRevision: 'r2', activeRevision: 'r2', phase: 'ScalingDown', image: 'web:2', changes: ['image', 'env MODE'], switchedAt: '2026-11-22T10:00:50Z', scaleDownAt: '2026-11-22T10:00:55Z' }), now);
    assert.match(scalingDown, /Changes: +image, env MODE/);
    const back = formatStatus(bg({ previewRevision: 'r2', activeRevision: 'r1', phase: 'ScalingDown', switchedAt: '2026-11-22T10:00:50Z', scaleDownAt: '2026-11-22T10:01:20Z' }), now);
    assert.match(back, /Blue-green: +switched back/);
    assert.match(back, /the preview's pods get no traffic/);
  });
});
