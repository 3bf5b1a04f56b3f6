// The blue-green engine as a table of situations: each row is what status says and what is
// observed, at an injected time, and what the engine decides. A restarted controller is a row
// like any other: all the engine needs is in status and the cluster.
import { strict as assert } from 'node:assert';
import { planBlueGreen, type BlueGreenInput, type BlueGreenObserved } from '../../controller/bluegreen/plan.js';
import { blueGreenCheckDue, checkTarget, runCheck, type PrometheusClient } from '../../controller/analysis/check.js';
import { checkQueries } from '../../controller/analysis/evaluate.js';
import type { BlueGreenStatus } from '../../shared/app-types.js';
import type { AnalysisSpec, CheckResult } from '../../controller/analysis/types.js';
import { defaultedAppFixture } from '../support/app-fixture.js';

const NOW = new Date('2026-11-22T10:00:00Z');
const at = (s: number) => new Date(NOW.getTime() + s * 1000).toISOString();
const passed: CheckResult = { result: 'Passed', message: 'ok', metrics: [] };
const failed: CheckResult = { result: 'Failed', message: 'successRate 80.00 < min 99', metrics: [] };

function input(over: Partial<BlueGreenInput> = {}, status: Partial<BlueGreenInput['status']> = {}): BlueGreenInput {
  return {
    image: 'web:2', revision: 'r2', replicas: 3, progressDeadlineSeconds: 600, scaleDownDelaySeconds: 30,
    autoPromote: true, paused: false, annotations: {}, ...over,
    status: { stableRevision: 'r1', stableImage: 'web:1', ...status },
  };
}
const bg = (b: Partial<BlueGreenStatus>): BlueGreenStatus => ({ previewRevision: 'r2', activeRevision: 'r1', phase: 'Preview', image: 'web:2', startedAt: at(-60), ...b });
const stable = (revision = 'r1', available = true) => ({ revision, available, labelled: true });
const observed = (o: Partial<BlueGreenObserved> = {}): BlueGreenObserved => ({ stableDeployment: stable(), serviceRevision: 'r1', previewObjectsExist: false, ...o });
const previewUp = (available = true, replicas = 3, revision = 'r2') => observed({ preview: { revision, replicas, available }, previewObjectsExist: true });
const analysis = (check?: { weight: number; result: CheckResult }, over: Partial<NonNullable<BlueGreenInput['analysis']>> = {}) => ({
  intervalMs: 10_000, failureLimit: 0, noData: 'Wait' as const, available: true, ...(check ? { check: { at: at(-1), ...check } } : {}), ...over,
});
const reasons = (d: { events: { reason: string }[] }) => d.events.map((e) => e.reason);

describe('blue-green plan', () => {
  it('the first deployment is never a rollout; the Service selects by revision from its first write, or once stable runs it labelled', () => {
    const d = planBlueGreen(input({}, { stableRevision: undefined, stableImage: undefined }), observed({ stableDeployment: undefined, serviceRevision: undefined }), NOW);
    assert.deepEqual([d.phase, d.stableRevision, d.blueGreen?.activeRevision, d.status.blueGreen], ['Stable', 'r2', 'r2', undefined], 'a new App: the Deployment created with it labels every pod');
    const starting = planBlueGreen(input({}, { stableRevision: undefined, stableImage: undefined }), observed({ stableDeployment: { revision: 'r2', available: false, labelled: true }, serviceRevision: 'r2' }), NOW);
    assert.equal(starting.blueGreen?.activeRevision, 'r2', 'kept while its pods start');
    const settled = planBlueGreen(input({ revision: 'r1' }), observed(), NOW);
    assert.equal(settled.blueGreen?.activeRevision, 'r1');
    const unlabelled = planBlueGreen(input({ revision: 'r1' }), observed({ stableDeployment: { revision: 'r1', available: true, labelled: false } }), NOW);
    assert.equal(unlabelled.blueGreen?.activeRevision, undefined, 'pods from before the strategy change carry no revision label: the track selects them');
  });

  it('a preview whose pods cannot be created (a quota, a LimitRange): waiting says why', () => {
    const refused = observed({ preview: { revision: 'r2', replicas: 3, available: false, replicaFailure: 'pods "web-preview-x" is forbidden: maximum cpu usage per Container is 500m, but limit is 1' }, previewObjectsExist: true });
    const d = planBlueGreen(input({}, { blueGreen: bg({}) }), refused, NOW);
    assert.equal(d.blueGreen?.activeRevision, 'r1');
    assert.match(d.progressing!.message, /waiting for the preview Deployment to be available at 3 replicas: its pods cannot be created: pods "web-preview-x" is forbidden/);
    const late = planBlueGreen(input({}, { blueGreen: bg({ startedAt: new Date(NOW.getTime() - 601_000).toISOString() }) }), refused, NOW);
    assert.equal(late.progressing?.reason, 'ProgressDeadlineExceeded');
    assert.match(late.progressing!.message, /was not available within 600s: its pods cannot be created: pods "web-preview-x" is forbidden/);
  });

  it('a new revision starts a full-size preview while stable serves', () => {
    const d = planBlueGreen(input(), observed(), NOW);
    assert.deepEqual(d.blueGreen, { preview: { revision: 'r2', replicas: 3 }, removePreview: false, activeRevision: 'r1' });
    assert.equal(d.stableRevision, 'r1');
    assert.deepEqual(d.status.blueGreen, { previewRevision: 'r2', activeRevision: 'r1', phase: 'Preview', image: 'web:2', startedAt: NOW.toISOString() });
    assert.deepEqual(reasons(d), ['BlueGreenStarted']);
    assert.equal(d.requeueAfterMs, 600_000, 'the progress deadline');
  });

  it('no switch before the preview is available at the stable replica count (an autoscaler\'s too)', () => {
    for (const o of [observed({ previewObjectsExist: true }), previewUp(false), previewUp(true, 2), previewUp(true, 3, 'r3')]) {
      const d = planBlueGreen(input({}, { blueGreen: bg({}) }), o, NOW);
      assert.equal(d.blueGreen?.activeRevision, 'r1');
      assert.equal(d.status.blueGreen?.phase, 'Preview');
    }
  });

  it('switches once the preview is available (autoPromote at once), in the pass that sees it', () => {
    const d = planBlueGreen(input({}, { blueGreen: bg({}) }), previewUp(), NOW);
    assert.equal(d.blueGreen?.activeRevision, 'r2');
    assert.deepEqual(reasons(d), ['BlueGreenPreviewReady', 'BlueGreenSwitched']);
    assert.deepEqual(d.status.blueGreen, bg({ phase: 'Switched', activeRevision: 'r2', previewReadyAt: NOW.toISOString(), switchedAt: NOW.toISOString(), scaleDownAt: at(30) }));
    assert.equal(d.stableRevision, 'r1', 'the old pods stay');
    assert.equal(d.requeueAfterMs, 30_000);
  });

  describe('a switch whose status was lost (its write refused as stale after the Service\'s, or the controller stopped between them)', () => {
    // The status still says Preview; the Service already selects the preview's revision: all traffic is on it.
    const lost = (over: Partial<BlueGreenInput> = {}) => input(over, { blueGreen: bg({}) });
    const servedByPreview = (revision = 'r2') => ({ ...previewUp(true, 3, revision), serviceRevision: 'r2', serviceRevisionWritten: 'r2' });

    it('is taken as switched from now on: the old pods wait out their delay from this pass', () => {
      const d = planBlueGreen(lost(), servedByPreview(), NOW);
      assert.equal(d.blueGreen?.activeRevision, 'r2');
      assert.equal(d.status.blueGreen?.phase, 'Switched');
      assert.equal(d.status.blueGreen?.scaleDownAt, at(30));
      assert.deepEqual(reasons(d), ['BlueGreenSwitched'], 'the Event the lost pass could not send');
      assert.equal(d.stableRevision, 'r1', 'the old pods stay');
    });

    it('paused meanwhile: stays switched (a pause holds a rollout where it is; it never switches back)', () => {
      const d = planBlueGreen(lost({ paused: true }), servedByPreview(), NOW);
      assert.equal(d.blueGreen?.activeRevision, 'r2', 'the Service is not switched back');
      assert.equal(d.status.blueGreen?.phase, 'Switched');
    });

    it('a new pod template meanwhile: the pods that have the traffic are switched back from and kept for their delay, not replaced at once', () => {
      const d = planBlueGreen(lost({ revision: 'r3', image: 'web:3' }), servedByPreview(), NOW);
      assert.equal(d.blueGreen?.activeRevision, 'r1', 'back to stable');
      assert.equal(d.blueGreen?.preview, undefined, 'the preview Deployment that served is left as it is (no new template)');
      assert.equal(d.blueGreen?.removePreview, false);
      assert.deepEqual(reasons(d), ['BlueGreenSwitched', 'BlueGreenSwitchedBack'], 'both moves of the traffic said');
      assert.equal(d.status.blueGreen?.scaleDownAt, at(30), 'its pods wait out the delay');
    });

    it('not while the Service selects stable (the switch not written), nor for a preview of another revision', () => {
      const notWritten = planBlueGreen(lost({ paused: true }), previewUp(), NOW);
      assert.equal(notWritten.blueGreen?.activeRevision, 'r1');
      assert.equal(notWritten.status.blueGreen?.phase, 'Preview');
      const other = planBlueGreen(lost({ paused: true }), { ...previewUp(true, 3, 'r9'), serviceRevision: 'r2', serviceRevisionWritten: 'r2' }, NOW);
      assert.equal(other.status.blueGreen?.phase, 'Preview');
    });

    it('not for a selector edited by hand to the preview\'s revision (Skiff\'s write selected stable): drift, put back, no promotion', () => {
      for (const written of ['r1', undefined]) {
        const edited = { ...previewUp(), serviceRevision: 'r2', ...(written ? { serviceRevisionWritten: written } : {}) };
        const d = planBlueGreen(lost({ autoPromote: false }), edited, NOW);
        assert.equal(d.blueGreen?.activeRevision, 'r1', `the Service selects stable again (written: ${written})`);
        assert.equal(d.status.blueGreen?.phase, 'Preview');
        assert.equal(d.status.blueGreen?.switchedAt, undefined);
        assert.deepEqual(reasons(d).filter((r) => r.startsWith('BlueGreenSwitched')), [], 'no switch said');
      }
    });
  });

  it('autoPromoteAfter: holds until the preview has been ready that long (injected clock)', () => {
    const i = input({ autoPromoteAfterMs: 60_000 }, { blueGreen: bg({ previewReadyAt: at(-20) }) });
    const early = planBlueGreen(i, previewUp(), NOW);
    assert.equal(early.blueGreen?.activeRevision, 'r1');
    assert.equal(early.requeueAfterMs, 40_000);
    assert.match(early.progressing!.message, /switching at 2026-11-22T10:00:40Z/);
    const later = planBlueGreen(i, previewUp(), new Date(NOW.getTime() + 40_000));
    assert.equal(later.blueGreen?.activeRevision, 'r2');
  });

  it('autoPromote false waits for skiff.dev/promote, which it consumes', () => {
    const i = input({ autoPromote: false }, { blueGreen: bg({ previewReadyAt: at(-600) }) });
    const waiting = planBlueGreen(i, previewUp(), NOW);
    assert.equal(waiting.blueGreen?.activeRevision, 'r1');
    assert.match(waiting.progressing!.message, /skiff.dev\/promote/);
    const promoted = planBlueGreen({ ...i, annotations: { 'skiff.dev/promote': 'true' } }, previewUp(), NOW);
    assert.equal(promoted.blueGreen?.activeRevision, 'r2');
    assert.deepEqual(promoted.consumedAnnotations, ['skiff.dev/promote']);
  });

  it('paused: holds before the switch (Progressing Unknown, RolloutPaused), a promotion kept for later', () => {
    const i = input({ paused: true, annotations: { 'skiff.dev/promote': 'true' } }, { blueGreen: bg({ previewReadyAt: at(-600) }) });
    const d = planBlueGreen(i, previewUp(), NOW);
    assert.equal(d.blueGreen?.activeRevision, 'r1');
    assert.deepEqual([d.progressing?.status, d.progressing?.reason], ['Unknown', 'RolloutPaused']);
    assert.deepEqual(d.consumedAnnotations, []);
  });

  it('paused: the progress deadline stops, as a paused Deployment\'s does, and goes on where it stopped on resume', () => {
    // Paused 100 s after the rollout started; the preview never came up. 700 s later: still no abort.
    const notUp = previewUp(false);
    const p1 = planBlueGreen(input({ paused: true }, { blueGreen: bg({ startedAt: at(-800) }) }), notUp, new Date(NOW.getTime() - 700_000));
    const p2 = planBlueGreen(input({ paused: true }, { blueGreen: p1.status.blueGreen }), notUp, NOW);
    assert.deepEqual([p2.phase, p2.degraded, p2.progressing?.status, p2.progressing?.reason], ['Promoting', undefined, 'Unknown', 'RolloutPaused'], 'not aborted while paused');
    // Resumed: 100 s of the 600 s were used; 500 s are left.
    const resumed = planBlueGreen(input({}, { blueGreen: p2.status.blueGreen }), notUp, NOW);
    assert.deepEqual([resumed.phase, resumed.degraded, resumed.requeueAfterMs, resumed.status.blueGreen?.pausedAt], ['Promoting', undefined, 500_000, undefined]);
    // With analysis: a preview ready 10 s before the pause and no passing check is not aborted while paused either.
    const up = previewUp();
    const checking = bg({ startedAt: at(-1500), previewReadyAt: at(-1400) });
    const q1 = planBlueGreen(input({ paused: true, analysis: analysis() }, { blueGreen: checking }), up, new Date(NOW.getTime() - 1_390_000));
    const q2 = planBlueGreen(input({ paused: true, analysis: analysis() }, { blueGreen: q1.status.blueGreen }), up, NOW);
    assert.deepEqual([q2.phase, q2.degraded], ['Promoting', undefined]);
    const q3 = planBlueGreen(input({ analysis: analysis() }, { blueGreen: q2.status.blueGreen }), up, NOW);
    assert.deepEqual([q3.phase, q3.degraded], ['Promoting', undefined], 'resumed with 590 s left for a passing check');
  });

  it('a preview ready once and lost since counts its readiness anew: autoPromoteAfter needs an unbroken time, and the deadline runs from the loss', () => {
    // Ready 600 s ago, then unavailable: no switch the moment it comes back, though 600 s > autoPromoteAfter.
    const wasReady = bg({ startedAt: at(-700), previewReadyAt: at(-600) });
    const lost = planBlueGreen(input({ autoPromoteAfterMs: 300_000 }, { blueGreen: wasReady }), previewUp(false), NOW);
    assert.deepEqual([lost.status.blueGreen?.phase, lost.status.blueGreen?.previewReadyAt, lost.status.blueGreen?.startedAt, lost.requeueAfterMs], ['Preview', undefined, NOW.toISOString(), 600_000]);
    const back = planBlueGreen(input({ autoPromoteAfterMs: 300_000 }, { blueGreen: lost.status.blueGreen }), previewUp(), new Date(NOW.getTime() + 10_000));
    assert.deepEqual([back.status.blueGreen?.phase, back.blueGreen?.activeRevision, back.requeueAfterMs], ['Preview', 'r1', 300_000]);
    assert.deepEqual(reasons(back), ['BlueGreenPreviewReady']);
    // Not back within the progress deadline from the loss: aborted, where it used to wait for ever.
    const gone = planBlueGreen(input({}, { blueGreen: lost.status.blueGreen }), previewUp(false), new Date(NOW.getTime() + 600_000));
    assert.deepEqual([gone.degraded?.reason, gone.status.blueGreen], ['ProgressDeadlineExceeded', undefined]);
  });

  it('a preview lost while paused counts its readiness anew too: resumed, it switches on neither a check of the lost pods nor their time', () => {
    const checked = bg({ startedAt: at(-700), previewReadyAt: at(-600), pausedAt: at(-300), analysis: { checks: 1, failures: 0, lastCheckAt: at(-500), lastResult: 'Passed', lastWeight: 0, message: 'ok', metrics: [] } });
    const lost = planBlueGreen(input({ paused: true, analysis: analysis(), autoPromoteAfterMs: 300_000 }, { blueGreen: checked }), previewUp(false), NOW);
    assert.deepEqual([lost.status.blueGreen?.previewReadyAt, lost.status.blueGreen?.analysis?.lastResult, lost.status.blueGreen?.analysis?.checks], [undefined, undefined, 1]);
    assert.deepEqual([lost.progressing?.status, lost.progressing?.reason], ['Unknown', 'RolloutPaused']);
    // Back, and resumed 100 s later: the pods that came back have had no check and no autoPromoteAfter.
    const resumed = planBlueGreen(input({ analysis: analysis(), autoPromoteAfterMs: 300_000 }, { blueGreen: lost.status.blueGreen }), previewUp(), new Date(NOW.getTime() + 100_000));
    assert.deepEqual([resumed.blueGreen?.activeRevision, resumed.status.blueGreen?.phase, resumed.degraded], ['r1', 'Preview', undefined]);
    assert.match(resumed.progressing!.message, /waiting for a passing analysis check of the preview/);
    // The progress deadline stood still while paused: it runs from the resume, not from the loss.
    const stillDown = planBlueGreen(input({}, { blueGreen: lost.status.blueGreen }), previewUp(false), new Date(NOW.getTime() + 700_000));
    assert.deepEqual([stillDown.degraded, stillDown.requeueAfterMs], [undefined, 600_000]);
  });

  it('paused: a new revision waits to start, no preview; one of another revision under way is cancelled', () => {
    const waiting = planBlueGreen(input({ paused: true }), observed(), NOW);
    assert.deepEqual([waiting.phase, waiting.stableRevision, waiting.blueGreen, waiting.status.blueGreen, waiting.events], ['Paused', 'r1', { removePreview: false, activeRevision: 'r1' }, undefined, []]);
    assert.deepEqual([waiting.progressing?.status, waiting.progressing?.reason], ['Unknown', 'RolloutPaused']);
    assert.match(waiting.progressing!.message, /starts once spec\.rollout\.paused is false/);
    // Before the switch, the preview of r2 goes at once; after it, the Service is back on stable first.
    const before = planBlueGreen(input({ paused: true, revision: 'r3', image: 'web:3' }, { blueGreen: bg({}) }), previewUp(), NOW);
    assert.deepEqual([before.blueGreen?.preview, before.blueGreen?.removePreview, reasons(before)], [undefined, true, ['BlueGreenCancelled']]);
    const after = planBlueGreen(input({ paused: true, revision: 'r3', image: 'web:3' }, { blueGreen: switched }), afterSwitch(), NOW);
    assert.deepEqual([after.blueGreen?.activeRevision, after.blueGreen?.removePreview, after.status.blueGreen?.phase, reasons(after)], ['r1', false, 'ScalingDown', ['BlueGreenSwitchedBack']]);
    // The pods of a preview switched back from are no rollout under way: spec's revision again waits.
    const again = planBlueGreen(input({ paused: true }, { blueGreen: after.status.blueGreen }), observed({ preview: { revision: 'r2', replicas: 3, available: true }, previewObjectsExist: true }), NOW);
    assert.deepEqual([again.phase, again.blueGreen?.preview, again.status.blueGreen?.phase], ['CleaningUp', undefined, 'ScalingDown']);
  });

  it('a promotion given for a newer template while the old pods go stays on the App for that template\'s preview; one for the revision scaling down is consumed', () => {
    const scalingDown = bg({ activeRevision: 'r2', phase: 'ScalingDown', switchedAt: at(-60), scaleDownAt: at(-30) });
    const going = observed({ stableDeployment: { revision: 'r2', available: false, labelled: true }, serviceRevision: 'r2', preview: { revision: 'r2', replicas: 3, available: true }, previewObjectsExist: true });
    const promote = { 'skiff.dev/promote': 'true' };
    const newer = input({ revision: 'r3', image: 'web:3', autoPromote: false, annotations: promote }, { updateRevision: 'r3', blueGreen: scalingDown });
    const held = planBlueGreen(newer, going, NOW);
    assert.equal(held.status.blueGreen?.phase, 'ScalingDown');
    assert.deepEqual(held.consumedAnnotations, [], 'kept while the old pods go');
    const done = planBlueGreen(newer, observed({ ...going, stableDeployment: { revision: 'r2', available: true, labelled: true } }), NOW);
    assert.deepEqual([done.status.stableRevision, done.consumedAnnotations], ['r2', []], 'kept past the end of the rollout');
    // The next pass starts r3's preview: the promotion kept switches it once it is ready.
    const next = planBlueGreen({ ...newer, status: done.status as BlueGreenInput['status'] }, observed({ stableDeployment: stable('r2'), serviceRevision: 'r2', preview: { revision: 'r3', replicas: 3, available: true }, previewObjectsExist: true }), NOW);
    assert.equal(next.status.blueGreen?.previewRevision, 'r3');
    const switchedToNext = planBlueGreen({ ...newer, status: { ...newer.status, ...next.status } as BlueGreenInput['status'] }, observed({ stableDeployment: stable('r2'), serviceRevision: 'r2', preview: { revision: 'r3', replicas: 3, available: true }, previewObjectsExist: true }), NOW);
    assert.equal(switchedToNext.blueGreen?.activeRevision, 'r3', 'the preview of r3 is switched to, as promoted');
    assert.deepEqual(switchedToNext.consumedAnnotations, ['skiff.dev/promote']);
    const same = planBlueGreen(input({ autoPromote: false, annotations: promote }, { blueGreen: scalingDown }), going, NOW);
    assert.deepEqual(same.consumedAnnotations, ['skiff.dev/promote'], 'the revision scaling down needs no promotion');
    // The template changed again (r4) since the promotion was kept for r3: not r4's, dropped with a word.
    const again = planBlueGreen({ ...newer, revision: 'r4', image: 'web:4' }, going, NOW);
    assert.deepEqual([again.consumedAnnotations, reasons(again)], [['skiff.dev/promote'], ['PromoteIgnored']]);
    assert.match(again.events[0]!.message, /was asked for revision r3, the pod template the App had then/);
    // Given in the same moment as the change (the last pass saw r2): counted for the template before, as in any phase.
    const together = planBlueGreen({ ...newer, status: { ...newer.status, updateRevision: 'r2' } }, going, NOW);
    assert.deepEqual([together.consumedAnnotations, reasons(together)], [['skiff.dev/promote'], ['PromoteIgnored']]);
  });

  it('a check begun before the preview was last ready (lost and back while it ran) counts, and switches nothing', () => {
    const back = input({ analysis: analysis({ weight: 0, result: passed }, {}) }, { blueGreen: bg({ previewReadyAt: at(-5) }) });
    back.analysis!.check!.at = at(-20);
    const d = planBlueGreen(back, previewUp(), NOW);
    assert.deepEqual([d.blueGreen?.activeRevision, d.status.blueGreen?.phase, d.status.blueGreen?.analysis?.checks, d.status.blueGreen?.analysis?.lastResult], ['r1', 'Preview', 1, undefined]);
    // A failed one still counts as failed.
    const failing = input({ analysis: analysis({ weight: 0, result: failed }, {}) }, { blueGreen: bg({ previewReadyAt: at(-5) }) });
    failing.analysis!.check!.at = at(-20);
    assert.deepEqual([planBlueGreen(failing, previewUp(), NOW).degraded?.reason], ['AnalysisFailed']);
    // One begun once the preview was back decides.
    back.analysis!.check!.at = at(-1);
    assert.equal(planBlueGreen(back, previewUp(), NOW).blueGreen?.activeRevision, 'r2');
  });

  it('with analysis: no switch before a check of the preview passed; a failed one aborts and deletes the preview', () => {
    const i = (check?: { weight: number; result: CheckResult }) => input({ analysis: analysis(check) }, { blueGreen: bg({ previewReadyAt: at(-30) }) });
    assert.equal(planBlueGreen(i(), previewUp(), NOW).blueGreen?.activeRevision, 'r1');
    assert.equal(planBlueGreen(i({ weight: 0, result: passed }), previewUp(), NOW).blueGreen?.activeRevision, 'r2');
    const aborted = planBlueGreen(i({ weight: 0, result: failed }), previewUp(), NOW);
    assert.deepEqual([aborted.phase, aborted.degraded?.reason, aborted.blueGreen?.removePreview, aborted.blueGreen?.activeRevision], ['Aborted', 'AnalysisFailed', true, 'r1']);
    assert.equal(aborted.status.abortedRevision, 'r2');
    assert.equal(aborted.status.blueGreen, undefined, 'the preview never had the Service\'s traffic: it goes at once');
  });

  it('with analysis, a checked preview waiting for its promotion (or paused) comes back at each check\'s interval: a failing check aborts it before a promotion could switch to it', () => {
    const checked = bg({ previewReadyAt: at(-30), analysis: { checks: 1, failures: 0, lastCheckAt: at(-4), lastResult: 'Passed', lastWeight: 0, message: 'ok', metrics: [] } });
    const waiting = planBlueGreen(input({ autoPromote: false, analysis: analysis() }, { blueGreen: checked }), previewUp(), NOW);
    assert.match(waiting.progressing!.message, /kubectl skiff promote/);
    assert.equal(waiting.requeueAfterMs, 6_000, 'the next check is due 10 s after the last');
    const paused = planBlueGreen(input({ paused: true, analysis: analysis() }, { blueGreen: checked }), previewUp(), NOW);
    assert.equal(paused.requeueAfterMs, 6_000);
    const later = planBlueGreen(input({ autoPromoteAfterMs: 600_000, analysis: analysis() }, { blueGreen: checked }), previewUp(), NOW);
    assert.match(later.progressing!.message, /switching at/);
    assert.equal(later.requeueAfterMs, 6_000, 'the check before the automatic promotion');
    // No analysis: nothing to come back for before the promotion.
    assert.equal(planBlueGreen(input({ autoPromote: false }, { blueGreen: bg({ previewReadyAt: at(-30) }) }), previewUp(), NOW).requeueAfterMs, undefined);
  });

  it('a preview that passed its check and waits for its promotion past the deadline is not aborted by a later inconclusive check; the switch rests on the last check that decided', () => {
    const inconclusive: CheckResult = { result: 'Inconclusive', message: '2 requests of the preview in the window, fewer than minRequests 10', metrics: [] };
    const t = (s: number) => new Date(NOW.getTime() + s * 1000);
    const checkAt = (s: number, result: CheckResult) => analysis(undefined, { failureLimit: 1, check: { at: t(s).toISOString(), weight: 0, result } });
    const step = (blueGreen: BlueGreenStatus | undefined, s: number, a: ReturnType<typeof analysis>, over: Partial<BlueGreenInput> = {}) =>
      planBlueGreen(input({ autoPromote: false, analysis: a, ...over }, { blueGreen }), previewUp(), t(s));
    const ready = step(bg({}), 0, analysis(undefined, { failureLimit: 1 })).status.blueGreen;
    const first = step(ready, 10, checkAt(10, passed)).status.blueGreen;
    assert.deepEqual(first?.previewVerdict, { result: 'Passed', at: t(10).toISOString() });
    // Long past progressDeadlineSeconds (600) from readiness, the next check is inconclusive.
    const later = step(first, 900, checkAt(900, inconclusive));
    assert.notEqual(later.phase, 'Aborted', `still waiting for its promotion (${later.degraded?.message})`);
    assert.match(later.progressing!.message, /kubectl skiff promote/);
    assert.deepEqual([later.status.blueGreen?.analysis?.lastResult, later.status.blueGreen?.previewVerdict?.result], ['Inconclusive', 'Passed']);
    const promoted = step(later.status.blueGreen, 905, analysis(undefined, { failureLimit: 1 }), { annotations: { 'skiff.dev/promote': 'true' } });
    assert.deepEqual([promoted.status.blueGreen?.phase, promoted.blueGreen?.activeRevision], ['Switched', 'r2']);
    // A failed check (within failureLimit 1) after the pass: no switch until a newer one passes,
    // which is due within the deadline of the failed check; an inconclusive one in between changes nothing.
    const failedCheck = step(later.status.blueGreen, 910, checkAt(910, failed));
    assert.deepEqual([failedCheck.status.blueGreen?.phase, failedCheck.blueGreen?.activeRevision, failedCheck.status.blueGreen?.previewVerdict?.result], ['Preview', 'r1', 'Failed']);
    const stillFailed = step(failedCheck.status.blueGreen, 920, checkAt(920, inconclusive), { annotations: { 'skiff.dev/promote': 'true' } });
    assert.deepEqual([stillFailed.blueGreen?.activeRevision, stillFailed.status.blueGreen?.previewVerdict?.result], ['r1', 'Failed']);
    assert.match(stillFailed.progressing!.message, /waiting for a passing analysis check of the preview/);
    assert.notEqual(step(stillFailed.status.blueGreen, 1509, analysis(undefined, { failureLimit: 1 })).phase, 'Aborted', 'within 600 s of the failed check');
    const timedOut = step(stillFailed.status.blueGreen, 1510, analysis(undefined, { failureLimit: 1 }));
    assert.deepEqual([timedOut.degraded?.reason, timedOut.blueGreen?.removePreview], ['AnalysisInconclusive', true]);
    const passedAgain = step(stillFailed.status.blueGreen, 930, checkAt(930, passed), { annotations: { 'skiff.dev/promote': 'true' } });
    assert.deepEqual([passedAgain.status.blueGreen?.phase, passedAgain.status.blueGreen?.previewVerdict?.result], ['Switched', 'Passed']);
  });

  it('a pause moves the time of a failed verdict forward with the other clocks, and a lost preview loses its verdict', () => {
    const failedVerdict = bg({ previewReadyAt: at(-100), pausedAt: at(-300), previewVerdict: { result: 'Failed', at: at(-400) } });
    const resumed = planBlueGreen(input({ analysis: analysis(undefined, { failureLimit: 1 }) }, { blueGreen: failedVerdict }), previewUp(), NOW);
    assert.equal(resumed.status.blueGreen?.previewVerdict?.at, at(-100), 'the 300 s paused do not count against the deadline');
    const lost = planBlueGreen(input({ analysis: analysis() }, { blueGreen: bg({ previewReadyAt: at(-100), previewVerdict: { result: 'Passed', at: at(-50) } }) }), previewUp(false), NOW);
    assert.equal(lost.status.blueGreen?.previewVerdict, undefined);
  });

  it('with analysis, a preview lost and back needs a check passed since it is back: one from before the loss switches nothing', () => {
    const checked = bg({ startedAt: at(-700), previewReadyAt: at(-600), analysis: { checks: 1, failures: 0, lastCheckAt: at(-500), lastResult: 'Passed', lastWeight: 0, message: 'ok', metrics: [] } });
    const lost = planBlueGreen(input({ analysis: analysis() }, { blueGreen: checked }), previewUp(false), NOW);
    assert.equal(lost.status.blueGreen?.previewReadyAt, undefined);
    assert.deepEqual([lost.status.blueGreen?.analysis?.checks, lost.status.blueGreen?.analysis?.lastCheckAt, lost.status.blueGreen?.analysis?.message], [1, at(-500), 'ok'], 'the counts and the last check kept');
    const back = planBlueGreen(input({ analysis: analysis() }, { blueGreen: lost.status.blueGreen }), previewUp(), new Date(NOW.getTime() + 10_000));
    assert.deepEqual([back.status.blueGreen?.phase, back.blueGreen?.activeRevision], ['Preview', 'r1']);
    assert.match(back.progressing!.message, /waiting for a passing analysis check of the preview/);
    // A check of the lost pods still under way when they went, passed: counted, and still no switch.
    const late = planBlueGreen(input({ analysis: { ...analysis(), check: { at: at(-5), weight: 0, result: passed } } }, { blueGreen: lost.status.blueGreen }), previewUp(false), new Date(NOW.getTime() + 5_000));
    assert.equal(late.status.blueGreen?.analysis?.checks, 2);
    const backLate = planBlueGreen(input({ analysis: analysis() }, { blueGreen: late.status.blueGreen }), previewUp(), new Date(NOW.getTime() + 10_000));
    assert.deepEqual([backLate.status.blueGreen?.phase, backLate.blueGreen?.activeRevision], ['Preview', 'r1']);
    // A check an interval after it is back, passed: the switch.
    const check = { at: at(20), weight: 0, result: passed };
    const rechecked = planBlueGreen(input({ analysis: { ...analysis(), check } }, { blueGreen: back.status.blueGreen }), previewUp(), new Date(NOW.getTime() + 21_000));
    assert.equal(rechecked.blueGreen?.activeRevision, 'r2');
  });

  it('with analysis, a check passed before a pause still switches on resume', () => {
    const checked = bg({ startedAt: at(-700), previewReadyAt: at(-600), pausedAt: at(-300), analysis: { checks: 1, failures: 0, lastCheckAt: at(-500), lastResult: 'Passed', lastWeight: 0, message: 'ok', metrics: [] } });
    const resumed = planBlueGreen(input({ analysis: analysis() }, { blueGreen: checked }), previewUp(), NOW);
    assert.equal(resumed.blueGreen?.activeRevision, 'r2');
  });

  it('with analysis and no Prometheus: holds before the switch, Degraded AnalysisUnavailable', () => {
    const d = planBlueGreen(input({ analysis: analysis(undefined, { available: false }) }, { blueGreen: bg({ previewReadyAt: at(-30) }) }), previewUp(), NOW);
    assert.deepEqual([d.blueGreen?.activeRevision, d.degraded?.reason], ['r1', 'AnalysisUnavailable']);
  });

  it('abort before the switch: the preview objects are deleted at once, Degraded RolloutAborted', () => {
    const d = planBlueGreen(input({ annotations: { 'skiff.dev/abort': 'true' } }, { blueGreen: bg({}) }), previewUp(false), NOW);
    assert.deepEqual([d.phase, d.degraded?.reason, d.blueGreen?.removePreview, d.blueGreen?.preview], ['Aborted', 'RolloutAborted', true, undefined]);
    assert.deepEqual(d.consumedAnnotations, ['skiff.dev/abort']);
    const after = planBlueGreen(input({}, { abortedRevision: 'r2', conditions: [{ type: 'Degraded', status: 'True', reason: 'RolloutAborted', message: 'm', lastTransitionTime: at(0) }] }), observed(), NOW);
    assert.deepEqual([after.phase, after.degraded?.reason, after.blueGreen?.preview], ['Aborted', 'RolloutAborted', undefined]);
  });

  it("an aborted revision keeps its abort's reason and message when a passing error has taken Degraded", () => {
    const abort = { reason: 'AnalysisFailed', message: 'analysis of the preview failed 1 check (failureLimit 0): successRate 80.00 < min 99' };
    const conditions = [
      { type: 'Progressing', status: 'False' as const, ...abort, lastTransitionTime: at(-5) },
      { type: 'Degraded', status: 'True' as const, reason: 'ReconcileError', message: 'applying Deployment shop/web: connection refused', lastTransitionTime: at(-1) },
    ];
    const d = planBlueGreen(input({}, { abortedRevision: 'r2', conditions }), observed(), NOW);
    assert.deepEqual(d.degraded, abort);
    assert.deepEqual(d.progressing, { status: 'False', ...abort });
  });

  it('the preview not available within the progress deadline aborts', () => {
    const d = planBlueGreen(input({}, { blueGreen: bg({ startedAt: at(-600) }) }), previewUp(false), NOW);
    assert.deepEqual([d.degraded?.reason, d.blueGreen?.removePreview], ['ProgressDeadlineExceeded', true]);
  });

  const switched = bg({ phase: 'Switched', activeRevision: 'r2', previewReadyAt: at(-40), switchedAt: at(-10), scaleDownAt: at(20) });
  const afterSwitch = () => observed({ preview: { revision: 'r2', replicas: 3, available: true }, previewObjectsExist: true, serviceRevision: 'r2' });

  it('a controller restarted mid-delay resumes: the Service stays switched, nothing written again, the old pods kept until scaleDownAt', () => {
    const d = planBlueGreen(input({}, { blueGreen: switched }), afterSwitch(), NOW);
    assert.deepEqual([d.blueGreen?.activeRevision, d.stableRevision, d.blueGreen?.removePreview], ['r2', 'r1', false]);
    assert.deepEqual(d.status.blueGreen, switched, 'status unchanged: no second switch, no new delay');
    assert.deepEqual(d.events, []);
    assert.equal(d.requeueAfterMs, 20_000);
  });

  it('a failed check under full traffic switches back at once; the preview goes after the delay', () => {
    const d = planBlueGreen(input({ analysis: analysis({ weight: 100, result: failed }) }, { blueGreen: switched }), afterSwitch(), NOW);
    assert.deepEqual([d.phase, d.degraded?.reason, d.blueGreen?.activeRevision, d.blueGreen?.removePreview, d.stableRevision], ['Aborted', 'AnalysisFailed', 'r1', false, 'r1']);
    assert.deepEqual({ ...d.status.blueGreen, analysis: undefined }, { previewRevision: 'r2', activeRevision: 'r1', phase: 'ScalingDown', image: 'web:2', switchedAt: NOW.toISOString(), scaleDownAt: at(30), analysis: undefined });
    assert.equal(d.status.blueGreen?.analysis?.failures, 1, 'the failed check stays in view');
    assert.deepEqual(reasons(d), ['AnalysisCheckFailed', 'BlueGreenSwitchedBack', 'AnalysisFailed']);
    // Restarted before the delay is over: still waiting; after it: the preview goes.
    const retired = { ...input({}, { abortedRevision: 'r2', blueGreen: d.status.blueGreen }) };
    const o = observed({ preview: { revision: 'r2', replicas: 3, available: true }, previewObjectsExist: true });
    assert.deepEqual([planBlueGreen(retired, o, NOW).blueGreen?.removePreview, planBlueGreen(retired, o, NOW).requeueAfterMs], [false, 30_000]);
    const gone = planBlueGreen(retired, o, new Date(NOW.getTime() + 30_000));
    assert.deepEqual([gone.blueGreen?.removePreview, gone.blueGreen?.activeRevision], [true, 'r1']);
    assert.equal(planBlueGreen(retired, observed(), NOW).status.blueGreen, undefined, 'once the preview is gone, status forgets it');
  });

  it('the scale-down after a last check under full traffic that did not pass goes ahead, with a Warning that says so', () => {
    const late = new Date(NOW.getTime() + 25_000);
    const inconclusive: CheckResult = { result: 'Inconclusive', message: 'requests: query failed: Prometheus answered HTTP 503', metrics: [] };
    // The check counted in this pass (an interval after the switch), then the delay is over.
    const counted = planBlueGreen(input({ analysis: analysis({ weight: 100, result: inconclusive }) }, { blueGreen: switched }), afterSwitch(), late);
    assert.equal(counted.status.blueGreen?.phase, 'ScalingDown');
    assert.deepEqual(counted.events.map((e) => [e.reason, e.type]), [['ScaleDownUnconfirmed', 'Warning']]);
    assert.match(counted.events[0]!.message, /^the old pods go after the scale-down delay, but the last analysis check of web:2 \(revision r2\) under full traffic was inconclusive: .*HTTP 503/);
    // Counted in an earlier pass of the delay: the same.
    const earlier = { ...switched, analysis: { checks: 2, failures: 0, lastResult: 'Inconclusive' as const, lastWeight: 100, lastCheckAt: at(-1), message: 'no data' } };
    assert.deepEqual(reasons(planBlueGreen(input({ analysis: analysis() }, { blueGreen: earlier }), afterSwitch(), late)), ['ScaleDownUnconfirmed']);
    const withinLimit = { ...earlier, analysis: { ...earlier.analysis, failures: 1, lastResult: 'Failed' as const, message: 'successRate 80.00 < min 99' } };
    const failedOnce = planBlueGreen(input({ analysis: analysis(undefined, { failureLimit: 1 }) }, { blueGreen: withinLimit }), afterSwitch(), late);
    assert.match(failedOnce.events[0]!.message, /under full traffic failed, within failureLimit 1: successRate 80.00 < min 99/);
    // No Warning: the last check passed, noData: Pass counts it as passed, no check ran after the switch (the preview's was the last).
    assert.deepEqual(reasons(planBlueGreen(input({ analysis: analysis({ weight: 100, result: passed }) }, { blueGreen: switched }), afterSwitch(), late)), []);
    assert.deepEqual(reasons(planBlueGreen(input({ analysis: analysis(undefined, { noData: 'Pass' }) }, { blueGreen: earlier }), afterSwitch(), late)), []);
    const previewOnly = { ...switched, analysis: { checks: 1, failures: 0, lastResult: 'Passed' as const, lastWeight: 0, lastCheckAt: at(-45), message: 'ok' } };
    assert.deepEqual(reasons(planBlueGreen(input({ analysis: analysis() }, { blueGreen: previewOnly }), afterSwitch(), late)), []);
  });

  it('a check under full traffic still running when the delay ends holds the scale-down until it is counted; failed, it switches back', () => {
    const late = new Date(NOW.getTime() + 25_000);
    const waiting = planBlueGreen(input({ analysis: analysis(undefined, { running: true }) }, { blueGreen: switched }), afterSwitch(), late);
    assert.deepEqual([waiting.status.blueGreen?.phase, waiting.blueGreen?.activeRevision, waiting.stableRevision, waiting.blueGreen?.removePreview], ['Switched', 'r2', 'r1', false]);
    assert.match(waiting.progressing!.message, /the old pods stay until .* and the analysis check under full traffic that is running now is counted/);
    assert.equal(waiting.requeueAfterMs, undefined, 'its completion reconciles the App');
    const counted = planBlueGreen(input({ analysis: analysis({ weight: 100, result: failed }) }, { blueGreen: switched }), afterSwitch(), late);
    assert.deepEqual([counted.degraded?.reason, counted.blueGreen?.activeRevision, counted.status.blueGreen?.phase, counted.stableRevision], ['AnalysisFailed', 'r1', 'ScalingDown', 'r1']);
    const none = planBlueGreen(input({ analysis: analysis() }, { blueGreen: switched }), afterSwitch(), late);
    assert.equal(none.status.blueGreen?.phase, 'ScalingDown', 'no check running: the scale-down begins');
  });

  it('a promoted preview waits for the check of it that is running to be counted before the switch; failed, it aborts', () => {
    const checked = bg({ previewReadyAt: at(-30), analysis: { checks: 1, failures: 0, lastCheckAt: at(-15), lastResult: 'Passed', lastWeight: 0 } });
    const waiting = planBlueGreen(input({ analysis: analysis(undefined, { running: true }) }, { blueGreen: checked }), previewUp(), NOW);
    assert.deepEqual([waiting.status.blueGreen?.phase, waiting.blueGreen?.activeRevision], ['Preview', 'r1']);
    assert.match(waiting.progressing!.message, /switching once the analysis check of the preview that is running now is counted/);
    const promoted = planBlueGreen(input({ autoPromote: false, annotations: { 'skiff.dev/promote': 'true' }, analysis: analysis(undefined, { running: true }) }, { blueGreen: checked }), previewUp(), NOW);
    assert.deepEqual([promoted.blueGreen?.activeRevision, promoted.consumedAnnotations], ['r1', []], 'the promotion waits on the App');
    const failedNow = planBlueGreen(input({ analysis: analysis({ weight: 0, result: failed }) }, { blueGreen: checked }), previewUp(), NOW);
    assert.deepEqual([failedNow.degraded?.reason, failedNow.blueGreen?.activeRevision, failedNow.blueGreen?.removePreview], ['AnalysisFailed', 'r1', true]);
  });

  it('failureLimit lowered below the failures counted aborts at once, before the switch or after it, without waiting for another check', () => {
    const counted = { checks: 2, failures: 1, lastResult: 'Passed' as const, lastWeight: 0 };
    const before = planBlueGreen(input({ analysis: analysis(undefined, { failureLimit: 0 }) }, { blueGreen: bg({ previewReadyAt: at(-30), analysis: counted }) }), previewUp(), NOW);
    assert.deepEqual([before.phase, before.degraded?.reason, before.blueGreen?.activeRevision, before.blueGreen?.removePreview], ['Aborted', 'AnalysisFailed', 'r1', true]);
    assert.match(before.degraded!.message, /analysis of the preview of web:2 \(revision r2\) failed 1 check, more than spec\.rollout\.analysis\.failureLimit \(0\) now allows/);
    const after = planBlueGreen(input({ analysis: analysis(undefined, { failureLimit: 0 }) }, { blueGreen: { ...switched, analysis: { ...counted, lastWeight: 100 } } }), afterSwitch(), NOW);
    assert.deepEqual([after.degraded?.reason, after.blueGreen?.activeRevision, after.status.blueGreen?.phase], ['AnalysisFailed', 'r1', 'ScalingDown']);
    assert.match(after.degraded!.message, /analysis of full traffic of web:2 \(revision r2\) failed 1 check/);
    const within = planBlueGreen(input({ analysis: analysis(undefined, { failureLimit: 1 }) }, { blueGreen: bg({ previewReadyAt: at(-30), analysis: counted }) }), previewUp(), NOW);
    assert.notEqual(within.phase, 'Aborted', 'failures within the limit go on');
  });

  it('abort after the switch switches back at once', () => {
    const d = planBlueGreen(input({ annotations: { 'skiff.dev/abort': 'true' } }, { blueGreen: switched }), afterSwitch(), NOW);
    assert.deepEqual([d.degraded?.reason, d.blueGreen?.activeRevision, d.status.blueGreen?.phase], ['RolloutAborted', 'r1', 'ScalingDown']);
  });

  it('a switch back keeps what the preview changed in view while its pods wait out the delay, and the scale-down keeps the changes of the start', () => {
    const changed = { ...switched, changes: ['configMap web-cfg'] };
    const back = planBlueGreen(input({ annotations: { 'skiff.dev/abort': 'true' } }, { blueGreen: changed }), afterSwitch(), NOW);
    assert.deepEqual([back.status.blueGreen?.phase, back.status.blueGreen?.changes], ['ScalingDown', ['configMap web-cfg']]);
    const forward = planBlueGreen(input({}, { blueGreen: changed }), afterSwitch(), new Date(NOW.getTime() + 20_000));
    assert.deepEqual([forward.status.blueGreen?.phase, forward.status.blueGreen?.changes], ['ScalingDown', ['configMap web-cfg']]);
  });

  it('a passing or inconclusive check within the delay changes nothing but the counts', () => {
    const d = planBlueGreen(input({ analysis: analysis({ weight: 100, result: passed }) }, { blueGreen: switched }), afterSwitch(), NOW);
    assert.deepEqual([d.blueGreen?.activeRevision, d.status.blueGreen?.analysis?.checks], ['r2', 1]);
    const stale = planBlueGreen(input({ analysis: analysis({ weight: 0, result: failed }) }, { blueGreen: switched }), afterSwitch(), NOW);
    assert.equal(stale.status.blueGreen?.analysis, undefined, 'a check of the preview that completes after the switch is dropped');
  });

  it('after the delay the Deployment takes the new template; once it is available the preview goes and the rollout is complete', () => {
    const over = new Date(NOW.getTime() + 20_000);
    const d = planBlueGreen(input({}, { blueGreen: switched }), afterSwitch(), over);
    assert.deepEqual([d.stableRevision, d.status.stableRevision, d.status.blueGreen?.phase, d.blueGreen?.activeRevision], ['r2', 'r1', 'ScalingDown', 'r2']);
    // A restart in the middle of the scale-down: the same decision, nothing repeated.
    const scaling = d.status.blueGreen!;
    const again = planBlueGreen(input({}, { blueGreen: scaling }), { ...afterSwitch(), stableDeployment: stable('r2', false) }, over);
    assert.deepEqual([again.stableRevision, again.status.blueGreen, again.events], ['r2', scaling, []]);
    const done = planBlueGreen(input({}, { blueGreen: scaling }), { ...afterSwitch(), stableDeployment: stable('r2', true) }, over);
    assert.deepEqual([done.blueGreen?.removePreview, done.status.stableRevision, done.status.stableImage, done.status.blueGreen, done.progressing?.reason], [true, 'r2', 'web:2', undefined, 'RolloutComplete']);
    assert.deepEqual(reasons(done), ['BlueGreenComplete']);
    const settled = planBlueGreen(input({}, { stableRevision: 'r2', stableImage: 'web:2' }), { ...afterSwitch(), stableDeployment: stable('r2', true) }, over);
    assert.deepEqual([settled.blueGreen?.removePreview, settled.blueGreen?.activeRevision], [true, 'r2'], 'a delete that failed is tried again');
  });

  it('with an autoscaler: once switched, the preview has the traffic and is not shrunk to the count the autoscaler measures on the idle old pods', () => {
    // The autoscaler targets the Deployment `web`, whose pods get no traffic after the switch: it scales them down.
    const scaledDown = { autoscaled: true, replicas: 2 };
    const big = () => observed({ preview: { revision: 'r2', replicas: 6, available: true }, previewObjectsExist: true, serviceRevision: 'r2' });
    const within = planBlueGreen(input(scaledDown, { blueGreen: switched }), big(), NOW);
    assert.deepEqual([within.blueGreen?.activeRevision, within.blueGreen?.preview], ['r2', { revision: 'r2', replicas: 6 }]);
    const scaling = planBlueGreen(input(scaledDown, { blueGreen: { ...switched, phase: 'ScalingDown', scaleDownAt: at(-1) } }), big(), NOW);
    assert.deepEqual(scaling.blueGreen?.preview, { revision: 'r2', replicas: 6 });
    const up = planBlueGreen(input({ autoscaled: true, replicas: 8 }, { blueGreen: switched }), big(), NOW);
    assert.deepEqual(up.blueGreen?.preview, { revision: 'r2', replicas: 8 }, 'it still follows the autoscaler up');
    const before = planBlueGreen(input(scaledDown, { blueGreen: bg({}) }), previewUp(true, 6), NOW);
    assert.deepEqual(before.blueGreen?.preview, { revision: 'r2', replicas: 2 }, 'before the switch the preview follows it both ways');
  });

  it('with an autoscaler: the Deployment taking the traffic back from the preview (the scale-down, a switch back) is given the preview\'s count first, never less than it has', () => {
    // The autoscaler shrank the idle old pods of `web` to 2 during the delay; the preview carries all traffic on 6.
    const shrunk = (replicas = 2) => observed({ stableDeployment: { ...stable(), replicas }, preview: { revision: 'r2', replicas: 6, available: true }, previewObjectsExist: true, serviceRevision: 'r2' });
    const scaling = planBlueGreen(input({ autoscaled: true, replicas: 2 }, { blueGreen: { ...switched, phase: 'ScalingDown', scaleDownAt: at(-1) } }), shrunk(), NOW);
    assert.equal(scaling.blueGreen?.stableReplicas, 6, 'web takes the new template at the preview\'s count');
    assert.equal(scaling.blueGreen?.removePreview, false, 'the preview stays until web is available at that count');
    const more = planBlueGreen(input({ autoscaled: true, replicas: 9 }, { blueGreen: { ...switched, phase: 'ScalingDown', scaleDownAt: at(-1) } }), shrunk(9), NOW);
    assert.equal(more.blueGreen?.stableReplicas, 9, 'never less than the autoscaler gave it');
    const back = planBlueGreen(input({ autoscaled: true, replicas: 2, annotations: { 'skiff.dev/abort': 'true' } }, { blueGreen: switched }), shrunk(), NOW);
    assert.deepEqual([back.blueGreen?.activeRevision, back.blueGreen?.stableReplicas], ['r1', 6], 'switched back: web gets the traffic and the preview\'s count');
    const replaced = planBlueGreen(input({ autoscaled: true, replicas: 2, revision: 'r3', image: 'web:3' }, { blueGreen: switched }), shrunk(), NOW);
    assert.deepEqual([replaced.blueGreen?.activeRevision, replaced.blueGreen?.stableReplicas], ['r1', 6], 'a new template after the switch: back to web, at the preview\'s count');
    const fixed = planBlueGreen(input({ replicas: 6 }, { blueGreen: { ...switched, phase: 'ScalingDown', scaleDownAt: at(-1) } }), shrunk(6), NOW);
    assert.equal(fixed.blueGreen?.stableReplicas, undefined, 'without an autoscaler spec.replicas holds');
  });

  it('a scale-down whose status write was lost (the Deployment already on the preview\'s revision): an abort or a new template arriving then is too late too, nothing switches back', () => {
    const begun = () => observed({ stableDeployment: { revision: 'r2', available: false, labelled: true }, preview: { revision: 'r2', replicas: 3, available: true }, previewObjectsExist: true, serviceRevision: 'r2' });
    const over = new Date(NOW.getTime() + 21_000);
    const aborted = planBlueGreen(input({ annotations: { 'skiff.dev/abort': 'true' } }, { blueGreen: switched }), begun(), over);
    assert.deepEqual([aborted.degraded?.reason, aborted.blueGreen?.activeRevision, aborted.status.blueGreen?.phase, aborted.blueGreen?.removePreview], [undefined, 'r2', 'ScalingDown', false]);
    assert.deepEqual(reasons(aborted), ['AbortIgnored']);
    const replaced = planBlueGreen(input({ revision: 'r3', image: 'web:3' }, { blueGreen: switched }), begun(), over);
    assert.deepEqual([replaced.blueGreen?.activeRevision, replaced.status.blueGreen?.phase], ['r2', 'ScalingDown'], 'the scale-down finishes first');
    const within = planBlueGreen(input({ annotations: { 'skiff.dev/abort': 'true' } }, { blueGreen: switched }), afterSwitch(), NOW);
    assert.equal(within.blueGreen?.activeRevision, 'r1', 'within the delay, with web on the old revision, an abort still switches back');
  });

  it('abort once the old pods are going is too late: ignored with a Warning', () => {
    const scaling = { ...switched, phase: 'ScalingDown' as const, scaleDownAt: at(-1) };
    const d = planBlueGreen(input({ annotations: { 'skiff.dev/abort': 'true' } }, { blueGreen: scaling }), afterSwitch(), NOW);
    assert.deepEqual([d.stableRevision, reasons(d), d.consumedAnnotations], ['r2', ['AbortIgnored'], ['skiff.dev/abort']]);
  });

  it('a new pod template: before the switch a new preview; after it, back to stable first', () => {
    const before = planBlueGreen(input({ revision: 'r3', image: 'web:3' }, { blueGreen: bg({}) }), previewUp(), NOW);
    assert.deepEqual([before.blueGreen?.preview?.revision, before.status.blueGreen?.previewRevision, reasons(before)], ['r3', 'r3', ['BlueGreenRestarted']]);
    const after = planBlueGreen(input({ revision: 'r3', image: 'web:3' }, { blueGreen: switched }), afterSwitch(), NOW);
    assert.deepEqual([after.blueGreen?.activeRevision, reasons(after)], ['r1', ['BlueGreenSwitchedBack']]);
    // The r2 pods that had all the traffic keep the preview's name for their delay: no r3 preview yet.
    assert.deepEqual([after.blueGreen?.preview, after.blueGreen?.removePreview, after.status.blueGreen?.previewRevision, after.status.blueGreen?.phase, after.status.blueGreen?.scaleDownAt], [undefined, false, 'r2', 'ScalingDown', at(30)]);
    const backOnStable = observed({ preview: { revision: 'r2', replicas: 3, available: true }, previewObjectsExist: true, serviceRevision: 'r1' });
    const draining = planBlueGreen(input({ revision: 'r3', image: 'web:3' }, after.status), backOnStable, NOW);
    assert.deepEqual([draining.blueGreen?.preview, draining.blueGreen?.removePreview, draining.events], [undefined, false, []]);
    // The delay over: the r2 preview goes; once it is gone, r3's preview starts.
    const gone = planBlueGreen(input({ revision: 'r3', image: 'web:3' }, after.status), backOnStable, new Date(NOW.getTime() + 31_000));
    assert.equal(gone.blueGreen?.removePreview, true);
    const started = planBlueGreen(input({ revision: 'r3', image: 'web:3' }, gone.status), observed(), new Date(NOW.getTime() + 32_000));
    assert.deepEqual([started.blueGreen?.preview?.revision, reasons(started)], ['r3', ['BlueGreenStarted']]);
  });

  it('kubectl skiff promote before the preview is ready stays on the App and switches once it is', () => {
    const promote = { annotations: { 'skiff.dev/promote': 'true' }, autoPromote: false };
    const early = planBlueGreen(input(promote, { blueGreen: bg({}) }), previewUp(false), NOW);
    assert.deepEqual([early.consumedAnnotations, early.blueGreen?.activeRevision], [[], 'r1']);
    const ready = planBlueGreen(input(promote, early.status), previewUp(), NOW);
    assert.deepEqual([ready.blueGreen?.activeRevision, ready.consumedAnnotations], ['r2', ['skiff.dev/promote']]);
  });

  it('a promotion waiting for one preview does not switch to the revision that replaces it', () => {
    const promote = { annotations: { 'skiff.dev/promote': 'true' }, autoPromote: false };
    const early = planBlueGreen(input(promote, { blueGreen: bg({}) }), previewUp(false), NOW);
    assert.deepEqual(early.consumedAnnotations, [], 'kept for r2 while its preview starts');
    // The pod template moves on to r3 before r2's preview was ready.
    const r3 = { ...promote, revision: 'r3', image: 'web:3' };
    const replaced = planBlueGreen(input(r3, early.status), previewUp(false), NOW);
    assert.deepEqual(replaced.consumedAnnotations, ['skiff.dev/promote'], 'consumed without effect');
    assert.deepEqual(replaced.events.filter((e) => e.type === 'Warning').map((e) => [e.reason, /revision r2/.test(e.message)]), [['PromoteIgnored', true]]);
    assert.equal(replaced.status.blueGreen?.previewRevision, 'r3');
    // Once r3's preview is ready nothing switches: only a promotion asked for while r3 is in
    // preview does.
    const ready = planBlueGreen(input({ ...r3, annotations: {} }, replaced.status), previewUp(true, 3, 'r3'), NOW);
    assert.deepEqual([ready.blueGreen?.activeRevision, ready.status.blueGreen?.phase], ['r1', 'Preview']);
    const promoted = planBlueGreen(input(r3, replaced.status), previewUp(true, 3, 'r3'), NOW);
    assert.deepEqual([promoted.blueGreen?.activeRevision, promoted.status.blueGreen?.phase], ['r3', 'Switched'], 'a promotion given for r3 switches to it');
  });

  it('a paused App: a promotion waiting for a preview a new template cancels is consumed too', () => {
    const i = input({ paused: true, revision: 'r3', image: 'web:3', annotations: { 'skiff.dev/promote': 'true' } }, { blueGreen: bg({ previewReadyAt: at(-60) }) });
    const d = planBlueGreen(i, previewUp(), NOW);
    assert.deepEqual([d.phase, d.blueGreen?.activeRevision], ['CleaningUp', 'r1']);
    assert.deepEqual(d.consumedAnnotations, ['skiff.dev/promote']);
    assert.ok(d.events.some((e) => e.reason === 'PromoteIgnored'));
  });

  it('a paused App: a promotion waiting for a preview that is aborted (by analysis, or asked) goes with it, and switches no later revision', () => {
    const promote = { 'skiff.dev/promote': 'true' };
    const waiting = bg({ previewReadyAt: at(-60) });
    for (const [annotations, a] of [[promote, analysis({ weight: 0, result: failed })], [{ ...promote, 'skiff.dev/abort': 'true' }, undefined]] as const) {
      const d = planBlueGreen(input({ paused: true, autoPromote: false, annotations, analysis: a }, { blueGreen: waiting }), previewUp(), NOW);
      assert.equal(d.phase, 'Aborted');
      assert.ok(d.consumedAnnotations.includes('skiff.dev/promote'), `the promotion of the aborted preview is consumed (${d.consumedAnnotations})`);
      // Resumed with a fixed template r3: its preview ready, nothing promoted it.
      const left = Object.fromEntries(Object.entries(annotations).filter(([k]) => !d.consumedAnnotations.includes(k)));
      const r3 = { autoPromote: false, annotations: left, revision: 'r3', image: 'web:3' };
      const started = planBlueGreen(input(r3, d.status), observed(), NOW);
      const ready = planBlueGreen(input(r3, started.status), previewUp(true, 3, 'r3'), NOW);
      assert.deepEqual([ready.blueGreen?.activeRevision, ready.status.blueGreen?.phase], ['r1', 'Preview']);
    }
  });

  it('a promotion given with a new template, no preview under way, is that template\'s', () => {
    const d = planBlueGreen(input({ annotations: { 'skiff.dev/promote': 'true' }, autoPromote: false }), observed(), NOW);
    assert.deepEqual(d.consumedAnnotations, [], 'kept until the preview of r2 is ready');
    assert.ok(!d.events.some((e) => e.reason === 'PromoteIgnored'));
  });

  it('a promotion given with a new template while the pods switched back from wait out their delay is that template\'s', () => {
    const r3 = { annotations: { 'skiff.dev/promote': 'true' }, autoPromote: false, revision: 'r3', image: 'web:3' };
    const drain = planBlueGreen(input(r3, { blueGreen: switched }), afterSwitch(), NOW);
    assert.deepEqual([drain.blueGreen?.activeRevision, drain.status.blueGreen?.phase, drain.consumedAnnotations], ['r1', 'ScalingDown', []], 'kept for r3, whose preview starts after the delay');
    const backOnStable = observed({ preview: { revision: 'r2', replicas: 3, available: true }, previewObjectsExist: true, serviceRevision: 'r1' });
    const draining = planBlueGreen(input(r3, drain.status), backOnStable, NOW);
    assert.deepEqual(draining.consumedAnnotations, []);
    const started = planBlueGreen(input(r3, drain.status), observed(), new Date(NOW.getTime() + 31_000));
    assert.deepEqual([started.status.blueGreen?.previewRevision, started.consumedAnnotations], ['r3', []]);
    const ready = planBlueGreen(input(r3, started.status), previewUp(true, 3, 'r3'), new Date(NOW.getTime() + 40_000));
    assert.deepEqual([ready.blueGreen?.activeRevision, ready.consumedAnnotations], ['r3', ['skiff.dev/promote']]);
  });

  it('an abort given with a new template while the pods switched back from wait out their delay is that template\'s: it is aborted, not dropped', () => {
    const r3 = { annotations: { 'skiff.dev/abort': 'true' }, revision: 'r3', image: 'web:3' };
    const backOnStable = observed({ preview: { revision: 'r2', replicas: 3, available: true }, previewObjectsExist: true, serviceRevision: 'r1' });
    const drain = planBlueGreen(input({ revision: 'r3', image: 'web:3' }, { blueGreen: switched }), afterSwitch(), NOW);
    for (const [status, o] of [[{ blueGreen: switched }, afterSwitch()], [drain.status, backOnStable]] as const) {
      const d = planBlueGreen(input(r3, status), o, NOW);
      assert.deepEqual([d.status.abortedRevision, d.degraded?.reason, d.consumedAnnotations], ['r3', 'RolloutAborted', ['skiff.dev/abort']]);
      assert.deepEqual([d.blueGreen?.activeRevision, d.blueGreen?.preview, d.blueGreen?.removePreview], ['r1', undefined, false], 'the r2 pods keep their delay');
      assert.deepEqual([d.status.blueGreen?.previewRevision, d.status.blueGreen?.scaleDownAt], ['r2', at(30)]);
      // After the delay no preview of r3 starts: it stays aborted until the template changes.
      const gone = planBlueGreen(input({ revision: 'r3', image: 'web:3' }, d.status), backOnStable, new Date(NOW.getTime() + 31_000));
      const after = planBlueGreen(input({ revision: 'r3', image: 'web:3' }, gone.status), observed(), new Date(NOW.getTime() + 32_000));
      assert.deepEqual([gone.blueGreen?.removePreview, after.blueGreen?.preview, after.degraded?.reason], [true, undefined, 'RolloutAborted']);
      // kubectl skiff retry within the delay: r3 is no longer aborted, and its preview still waits for the r2 pods to go.
      const retried = planBlueGreen(input({ revision: 'r3', image: 'web:3', annotations: { 'skiff.dev/retry': 'true' } }, d.status), backOnStable, NOW);
      assert.deepEqual([retried.status.abortedRevision, retried.degraded, retried.blueGreen?.preview, retried.blueGreen?.removePreview, retried.blueGreen?.activeRevision], [undefined, undefined, undefined, false, 'r1']);
      assert.deepEqual([retried.status.blueGreen?.previewRevision, retried.status.blueGreen?.scaleDownAt], ['r2', at(30)]);
    }
  });

  it('a Service still on the stable track (the strategy just became BlueGreen) stays there until stable\'s pods are all labelled and available', () => {
    const rolling = observed({ stableDeployment: { revision: 'r1', available: false, labelled: true }, serviceRevision: undefined });
    const aborted = planBlueGreen(input({ annotations: { 'skiff.dev/abort': 'true' } }, {}), rolling, NOW);
    assert.equal(aborted.blueGreen?.activeRevision, undefined, 'no selector that matches only pods still starting');
    const waiting = planBlueGreen(input({ paused: true }, {}), rolling, NOW);
    assert.equal(waiting.blueGreen?.activeRevision, undefined);
    const ready = planBlueGreen(input({ paused: true }, {}), observed({ serviceRevision: undefined }), NOW);
    assert.equal(ready.blueGreen?.activeRevision, 'r1');
  });

  it('a Service that selects stable\'s revision keeps it while the Deployment is briefly not available (a pod lost, the autoscaler adding pods): no write back to the track', () => {
    const unavailable = observed({ stableDeployment: stable('r1', false), serviceRevision: 'r1' });
    assert.equal(planBlueGreen(input({ revision: 'r1' }), unavailable, NOW).blueGreen?.activeRevision, 'r1', 'settled');
    assert.equal(planBlueGreen(input(), unavailable, NOW).blueGreen?.activeRevision, 'r1', 'a preview starting');
    assert.equal(planBlueGreen(input({}, { blueGreen: bg({}) }), { ...unavailable, preview: { revision: 'r2', replicas: 3, available: false }, previewObjectsExist: true }, NOW).blueGreen?.activeRevision, 'r1', 'in preview');
    const onTrack = observed({ stableDeployment: stable('r1', false), serviceRevision: undefined });
    assert.equal(planBlueGreen(input({ revision: 'r1' }), onTrack, NOW).blueGreen?.activeRevision, undefined, 'one still on the track waits for them all available');
  });

  it('a switch back while stable\'s pods are not all labelled and available (the strategy just became BlueGreen, its pods still rolling for the label) goes to the track, which selects them all', () => {
    const rolling = () => ({ ...afterSwitch(), stableDeployment: { revision: 'r1', available: false, labelled: true } });
    const aborted = planBlueGreen(input({ annotations: { 'skiff.dev/abort': 'true' } }, { blueGreen: switched }), rolling(), NOW);
    const failedCheck = planBlueGreen(input({ analysis: analysis({ weight: 100, result: failed }) }, { blueGreen: switched }), rolling(), NOW);
    const replaced = planBlueGreen(input({ revision: 'r3', image: 'web:3' }, { blueGreen: switched }), rolling(), NOW);
    const pausedReplaced = planBlueGreen(input({ paused: true, revision: 'r3', image: 'web:3' }, { blueGreen: switched }), rolling(), NOW);
    for (const d of [aborted, failedCheck, replaced, pausedReplaced]) {
      assert.equal(d.status.blueGreen?.phase, 'ScalingDown', 'switched back');
      assert.equal(d.blueGreen?.activeRevision, undefined, 'no selector that matches only the pods relabelled so far');
    }
  });

  it('the template back to stable cancels the preview (at once before the switch, after the delay after it)', () => {
    const cancelled = planBlueGreen(input({ revision: 'r1' }, { blueGreen: bg({}) }), previewUp(), NOW);
    assert.deepEqual([cancelled.blueGreen?.removePreview, reasons(cancelled)], [true, ['BlueGreenCancelled']]);
    const back = planBlueGreen(input({ revision: 'r1' }, { blueGreen: switched }), afterSwitch(), NOW);
    assert.deepEqual([back.blueGreen?.activeRevision, back.blueGreen?.removePreview, back.status.blueGreen?.scaleDownAt, reasons(back)], ['r1', false, at(30), ['BlueGreenSwitchedBack']]);
  });

  describe('skiff.dev/retry', () => {
    const degraded = [{ type: 'Degraded', status: 'True' as const, reason: 'AnalysisFailed', message: 'failed', lastTransitionTime: at(-60) }];
    const aborted = { abortedRevision: 'r2', abortedImage: 'web:2', conditions: degraded };

    it('starts the aborted revision again with a new preview, clearing the abort', () => {
      const d = planBlueGreen(input({ annotations: { 'skiff.dev/retry': 'true' } }, aborted), observed(), NOW);
      assert.deepEqual([d.phase, d.retried, d.status.abortedRevision, d.status.abortedImage, d.degraded], ['Promoting', true, undefined, undefined, undefined]);
      assert.deepEqual(d.blueGreen, { preview: { revision: 'r2', replicas: 3 }, removePreview: false, activeRevision: 'r1' });
      assert.deepEqual(d.status.blueGreen, { previewRevision: 'r2', activeRevision: 'r1', phase: 'Preview', image: 'web:2', startedAt: NOW.toISOString() });
      assert.deepEqual(reasons(d), ['RolloutRetried', 'BlueGreenStarted']);
      assert.deepEqual(d.consumedAnnotations, ['skiff.dev/retry']);
    });

    it('while the switched-back preview waits out its delay: a fresh rollout, the failed checks not carried over', () => {
      const retiring = bg({ phase: 'ScalingDown', activeRevision: 'r1', switchedAt: at(-5), scaleDownAt: at(25), analysis: { checks: 1, failures: 1, lastResult: 'Failed', lastWeight: 100, message: 'failed' } });
      const d = planBlueGreen(input({ autoPromote: false, annotations: { 'skiff.dev/retry': 'true' } }, { ...aborted, blueGreen: retiring }), previewUp(), NOW);
      assert.deepEqual([d.status.blueGreen?.phase, d.status.blueGreen?.activeRevision, d.status.blueGreen?.analysis, d.blueGreen?.activeRevision], ['Preview', 'r1', undefined, 'r1']);
      assert.deepEqual(reasons(d), ['RolloutRetried', 'BlueGreenStarted', 'BlueGreenPreviewReady']);
    });

    it('is ignored with a Warning when spec is not the aborted revision, or nothing was aborted', () => {
      for (const [over, status, why] of [[{ revision: 'r3', image: 'web:3' }, aborted, /not the aborted revision/], [{}, {}, /no rollout was aborted/]] as const) {
        const d = planBlueGreen(input({ ...over, annotations: { 'skiff.dev/retry': 'true' } }, status), observed(), NOW);
        assert.equal(d.retried, undefined);
        const warning = d.events.find((e) => e.reason === 'RetryIgnored');
        assert.equal(warning?.type, 'Warning');
        assert.match(warning!.message, why);
        assert.deepEqual(d.consumedAnnotations, ['skiff.dev/retry']);
      }
      // Without the annotation an aborted revision stays aborted.
      assert.equal(planBlueGreen(input({}, aborted), observed(), NOW).phase, 'Aborted');
    });

    it('seen again after it was acted on (its removal failed), is consumed without a Warning and without a new preview', () => {
      const retried = planBlueGreen(input({ annotations: { 'skiff.dev/retry': 'true' } }, aborted), observed(), NOW);
      // The status was written; the annotation is still on the App.
      const again = planBlueGreen(input({ annotations: { 'skiff.dev/retry': 'true' } }, retried.status), observed(), NOW);
      assert.equal(again.retried, undefined);
      assert.deepEqual(again.events.filter((e) => e.reason === 'RetryIgnored' || e.reason === 'RolloutRetried'), []);
      assert.deepEqual(again.consumedAnnotations, ['skiff.dev/retry']);
      assert.equal(again.status.blueGreen?.startedAt, retried.status.blueGreen?.startedAt);
    });
  });

  describe('skiff.dev/skip-canary', () => {
    const back = (over: Partial<BlueGreenInput> = {}, status: Partial<BlueGreenInput['status']> = {}) =>
      input({ revision: 'r0', image: 'web:0', annotations: { 'skiff.dev/skip-canary': 'r0' }, promotedRevisions: new Set(['r0', 'r1']), ...over }, status);

    it('a revision the history records as promoted goes straight to stable: no preview, no switch, no analysis', () => {
      const d = planBlueGreen(back({ analysis: analysis() }), observed(), NOW);
      assert.deepEqual([d.phase, d.stableRevision, d.status.stableRevision, d.status.stableImage, d.status.blueGreen], ['Stable', 'r0', 'r0', 'web:0', undefined]);
      assert.deepEqual(d.blueGreen, { removePreview: false, activeRevision: undefined }, 'the Service selects the Deployment\'s pods while it rolls back');
      assert.deepEqual(reasons(d), ['RollbackWithoutCanary']);
      assert.deepEqual(d.consumedAnnotations, ['skiff.dev/skip-canary']);
      // Also while paused.
      assert.equal(planBlueGreen(back({ paused: true }), observed(), NOW).stableRevision, 'r0');
    });

    it('in place of a rollout under way: before the switch the preview goes at once; after it, the Service is back on the Deployment first', () => {
      const preview = planBlueGreen(back(), previewUp(), NOW);
      assert.deepEqual([preview.stableRevision, preview.blueGreen?.removePreview, reasons(preview)], ['r0', true, ['RollbackWithoutCanary']]);
      const afterSwitch = planBlueGreen(back({}), observed({ preview: { revision: 'r2', replicas: 3, available: true }, previewObjectsExist: true, serviceRevision: 'r2' }), NOW);
      assert.deepEqual([afterSwitch.stableRevision, afterSwitch.blueGreen?.activeRevision, afterSwitch.blueGreen?.removePreview, afterSwitch.status.blueGreen?.phase], ['r0', undefined, false, 'ScalingDown']);
      // Switched to r2 (stable r1), rolled back to r0: the Event says so, not that r0 is the stable revision.
      const switched = bg({ phase: 'Switched', activeRevision: 'r2', previewReadyAt: at(-40), switchedAt: at(-30), scaleDownAt: at(30) });
      const rolledBack = planBlueGreen(back({}, { blueGreen: switched }), observed({ preview: { revision: 'r2', replicas: 3, available: true }, previewObjectsExist: true, serviceRevision: 'r2', serviceRevisionWritten: 'r2' }), NOW);
      const said = rolledBack.events.find((e) => e.reason === 'BlueGreenSwitchedBack');
      assert.equal(said?.message, 'rolled back to revision r0 without a preview (skiff.dev/skip-canary); the Service leaves the preview of revision r2 for the Deployment, which takes revision r0');
    });

    it('once the old pods are going, waits for the scale-down to finish, left on the App; then acts', () => {
      const scaling = bg({ phase: 'ScalingDown', activeRevision: 'r2', previewReadyAt: at(-40), switchedAt: at(-30), scaleDownAt: at(-1) });
      const o = observed({ preview: { revision: 'r2', replicas: 3, available: true }, previewObjectsExist: true, serviceRevision: 'r2', stableDeployment: stable('r2', false) });
      const waiting = planBlueGreen(back({}, { blueGreen: scaling }), o, NOW);
      assert.deepEqual([waiting.stableRevision, waiting.status.blueGreen?.phase, waiting.blueGreen?.activeRevision, waiting.events, waiting.consumedAnnotations], ['r2', 'ScalingDown', 'r2', [], []]);
      const complete = planBlueGreen(back({}, { blueGreen: scaling }), { ...o, stableDeployment: stable('r2', true) }, NOW);
      assert.deepEqual([complete.status.stableRevision, reasons(complete), complete.consumedAnnotations], ['r2', ['BlueGreenComplete'], []]);
      const then = planBlueGreen(back({}, { stableRevision: 'r2', stableImage: 'web:2' }), observed({ stableDeployment: stable('r2', true), serviceRevision: 'r2' }), NOW);
      assert.deepEqual([then.stableRevision, reasons(then), then.consumedAnnotations], ['r0', ['RollbackWithoutCanary'], ['skiff.dev/skip-canary']]);
    });

    it('refuses (a Warning) a revision never promoted, or a hash that is not spec\'s; it rolls out with a preview', () => {
      for (const [hash, promoted, why] of [['r0', new Set(['r1']), /never promoted/], ['r9', new Set(['r9']), /pod template is revision r0/]] as const) {
        const d = planBlueGreen(back({ annotations: { 'skiff.dev/skip-canary': hash }, promotedRevisions: promoted }), observed(), NOW);
        assert.deepEqual([d.stableRevision, d.status.blueGreen?.phase, d.blueGreen?.preview?.revision], ['r1', 'Preview', 'r0']);
        assert.deepEqual(reasons(d), ['SkipCanaryRefused', 'BlueGreenStarted']);
        assert.equal(d.events[0].type, 'Warning');
        assert.match(d.events[0].message, why);
        assert.deepEqual(d.consumedAnnotations, ['skiff.dev/skip-canary']);
      }
    });
  });
});

describe('blue-green analysis checks', () => {
  const spec: AnalysisSpec = { interval: '10s', failureLimit: 0, minRequests: 5, noData: 'Wait', successRate: { min: 99, maxDropFromStable: 1 }, latency: { maxMs: 500 } };
  const app = (status: BlueGreenStatus) => defaultedAppFixture({ spec: { ingress: { host: 'web.example.com' }, rollout: { strategy: 'BlueGreen', analysis: spec } }, status: { stableRevision: 'r1', blueGreen: status } });

  it('checks the preview a whole interval after it is ready, and full traffic a whole interval after the switch, until the old pods go', () => {
    assert.equal(blueGreenCheckDue(app(bg({})), NOW), undefined, 'not ready yet');
    assert.equal(blueGreenCheckDue(app(bg({ previewReadyAt: at(-5) })), NOW), undefined);
    assert.equal(blueGreenCheckDue(app(bg({ previewReadyAt: at(-10) })), NOW), 0);
    assert.equal(blueGreenCheckDue(app(switched(-5, 25)), NOW), undefined);
    assert.equal(blueGreenCheckDue(app(switched(-10, 20)), NOW), 100);
    assert.equal(blueGreenCheckDue(app(switched(-40, -10)), NOW), undefined, 'the delay is over');
  });

  it('reads the preview Ingress before the switch (stable compared), the App\'s own under full traffic (nothing to compare with)', () => {
    const preview = checkTarget(app(bg({})), spec, 0);
    const q = checkQueries(preview.spec, preview.target).map((x) => x.query).join('\n');
    assert.match(q, /ingress="web-preview",canary=""/);
    assert.match(q, /ingress="web",canary=""/, 'maxDropFromStable compares with stable');
    const full = checkTarget(app(bg({})), spec, 100);
    const f = checkQueries(full.spec, full.target).map((x) => x.query);
    assert.ok(f.every((x) => x.includes('ingress="web",canary=""')), f.join('\n'));
    assert.equal(f.length, 3, 'requests, successRate, latency: no stable comparison');
  });

  it('says in its messages whose requests it counted: the preview\'s, or the new revision\'s under full traffic, never a canary\'s', async () => {
    const answer = (count: number): PrometheusClient => ({ url: 'http://prometheus.test', query: async (_u, q) => ({ ok: true, value: q.includes('_bucket') || q.includes('duration') ? 0.05 : q.includes('status') ? 100 : count }) });
    const preview = await runCheck(answer(3), app(bg({})), 0);
    assert.match(preview.message, /^the preview served 3 requests in the last 10s, fewer than minRequests 5/);
    const full = await runCheck(answer(3), app(switched(-10, 20)), 100);
    assert.match(full.message, /^the new revision under full traffic served 3 requests/);
  });
});

function switched(switchedS: number, scaleDownS: number): BlueGreenStatus {
  return bg({ phase: 'Switched', activeRevision: 'r2', previewReadyAt: at(-60), switchedAt: at(switchedS), scaleDownAt: at(scaleDownS) });
}
