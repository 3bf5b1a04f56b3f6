// spec.rollout.paused, skiff.dev/retry and skiff.dev/skip-canary in the canary step engine.
import { strict as assert } from 'node:assert';
import { NOW, ago, canary, input, none, withCanary } from '../support/canary-input.js';
import { planCanary } from '../../controller/canary/plan.js';

const at = (s: number) => new Date(NOW.getTime() + s * 1000);
const reasons = (d: { events: { reason: string }[] }) => d.events.map((e) => e.reason);

describe('canary step engine: pause, retry, skip-canary', () => {
  describe('spec.rollout.paused', () => {
    it('holds a timed pause past its end, stops the clock, and resumes with the time left', () => {
      const observed = withCanary(1, true, 20);
      const running = canary({ weight: 20, stepIndex: 1, stepStartedAt: ago(30) });
      const paused = planCanary(input({ paused: true }, { canary: running }), observed, NOW);
      assert.equal(paused.phase, 'CanaryPaused');
      assert.deepEqual(paused.canary, { revision: 'web:2', replicas: 1, weight: 20 });
      assert.deepEqual(paused.progressing && [paused.progressing.status, paused.progressing.reason], ['Unknown', 'RolloutPaused']);
      assert.equal(paused.status.canary!.pausedAt, NOW.toISOString());
      assert.equal(paused.requeueAfterMs, undefined, 'no timer runs while paused');
      assert.deepEqual(reasons(paused), ['RolloutPaused']);

      // Ten minutes later, still paused: the 60 s pause has not ended, nothing changes.
      const still = planCanary(input({ paused: true }, { canary: paused.status.canary }), observed, at(600));
      assert.deepEqual(still.status.canary, paused.status.canary);
      assert.equal(still.status.canary!.stepIndex, 1);
      assert.deepEqual(reasons(still), []);

      // Resumed 10 min after the pause began: the step started 30 s before the pause, 30 s are left.
      const resumed = planCanary(input({}, { canary: still.status.canary }), observed, at(600));
      assert.equal(resumed.status.canary!.pausedAt, undefined);
      assert.equal(resumed.status.canary!.stepIndex, 1);
      assert.equal(resumed.status.canary!.stepStartedAt, new Date(at(600).getTime() - 30_000).toISOString());
      assert.equal(resumed.requeueAfterMs, 30_000);
      assert.equal(resumed.progressing!.reason, 'CanaryPaused');
      assert.deepEqual(reasons(resumed), ['RolloutResumed']);
      // And the pause then ends 30 s later.
      const next = planCanary(input({}, { canary: resumed.status.canary }), observed, at(630));
      assert.equal(next.status.canary!.stepIndex, 2);
    });

    it('stops the progress deadline: a canary that is not available is not aborted while paused', () => {
      const late = canary({ stepStartedAt: ago(900) });
      const d = planCanary(input({ paused: true }, { canary: { ...late, pausedAt: ago(800) } }), withCanary(1, false, 0), NOW);
      assert.equal(d.phase, 'CanaryPaused');
      assert.equal(d.degraded, undefined);
      // Resumed: 100 s of the 600 s deadline were used before the pause.
      const resumed = planCanary(input({}, { canary: d.status.canary }), withCanary(1, false, 0), NOW);
      assert.equal(resumed.phase, 'CanaryStep');
      assert.equal(resumed.requeueAfterMs, 500_000);
    });

    it('holds the weight the router carries: never raised, never lowered', () => {
      // At a setWeight 50 step the weight was still 20 when paused: it stays 20.
      const d = planCanary(input({ paused: true }, { canary: canary({ weight: 20, stepIndex: 2 }) }), withCanary(2, true, 20), NOW);
      assert.deepEqual(d.canary, { revision: 'web:2', replicas: 2, weight: 20 });
      assert.equal(d.status.canary!.stepIndex, 2);
    });

    it('holds a canary paused on its way down to a lower weight at the size of the weight it still carries', () => {
      // setWeight 20 after 50 with 10 stable replicas: paused before the router took 20%, 5 pods keep the 50%.
      const steps = [{ setWeight: 50 }, { setWeight: 20 }];
      const d = planCanary(input({ paused: true, replicas: 10, steps }, { canary: canary({ weight: 50, stepIndex: 1 }) }), withCanary(5, true, 50), NOW);
      assert.deepEqual(d.canary, { revision: 'web:2', replicas: 5, weight: 50 });
    });

    it('a weight decided before the pause and carried by the router once paused is in force: checks go on', () => {
      // setWeight 50 was decided (no weightChangedAt yet); the pass that sees the router carry it is paused.
      const analysis = { intervalMs: 60_000, failureLimit: 0, noData: 'Wait' as const, available: true };
      const decided = canary({ weight: 50, stepIndex: 2 });
      const d = planCanary(input({ paused: true, analysis }, { canary: decided }), withCanary(2, true, 50), NOW);
      assert.equal(d.status.canary!.weightChangedAt, NOW.toISOString(), 'the interval to the first check at 50% counts from now');
      assert.equal(d.requeueAfterMs, 60_000, 'back for that check');
    });

    it('a weight decided before the pause is not in force while its route is not accepted: no check measures the weight before', () => {
      // setWeight 50 written to the HTTPRoute; the Gateway has not taken that generation when the App is paused.
      const analysis = { intervalMs: 60_000, failureLimit: 0, noData: 'Wait' as const, available: true };
      const decided = canary({ weight: 50, stepIndex: 2 });
      const waiting = { ...withCanary(2, true, 50), routerReadiness: { ready: false, message: 'parent shop/public has not reported Accepted=True for generation 4' } };
      const d = planCanary(input({ paused: true, analysis }, { canary: decided }), waiting, NOW);
      assert.equal(d.status.canary!.weightChangedAt, undefined, 'the data plane may still split 20/80');
      // The route's status change brings the next pass: from then on the weight is in force.
      const accepted = planCanary(input({ paused: true, analysis }, { canary: d.status.canary }), { ...waiting, routerReadiness: { ready: true } }, at(5));
      assert.equal(accepted.status.canary!.weightChangedAt, at(5).toISOString());
    });

    it('counts analysis checks while paused, and a failing one still aborts', () => {
      const analysis = { intervalMs: 60_000, failureLimit: 0, noData: 'Wait' as const, available: true };
      const running = canary({ weight: 20, weightChangedAt: ago(120), stepIndex: 0, pausedAt: ago(60) });
      const passed = planCanary(input({ paused: true, analysis: { ...analysis, check: { at: NOW.toISOString(), weight: 20, result: { result: 'Passed', message: 'ok', metrics: [] } } } }, { canary: running }), withCanary(1, true, 20), NOW);
      assert.equal(passed.phase, 'CanaryPaused');
      assert.equal(passed.status.canary!.analysis!.checks, 1);
      assert.equal(passed.status.canary!.stepIndex, 0, 'a passing check does not move a paused canary on');
      assert.ok(passed.requeueAfterMs !== undefined && passed.requeueAfterMs <= 60_000, 'back for the next check');
      const failed = planCanary(input({ paused: true, analysis: { ...analysis, check: { at: NOW.toISOString(), weight: 20, result: { result: 'Failed', message: 'bad', metrics: [] } } } }, { canary: running }), withCanary(1, true, 20), NOW);
      assert.equal(failed.phase, 'Aborted');
      assert.equal(failed.degraded!.reason, 'AnalysisFailed');
    });

    it('without a Prometheus, a paused canary with analysis is held at 0%, Degraded AnalysisUnavailable: no unchecked traffic while paused either', () => {
      // The controller restarted without --prometheus-url while the App was paused at 20%: no check
      // can run (nor abort), so the held weight would be traffic nobody checks, with nothing said.
      const analysis = { intervalMs: 60_000, failureLimit: 0, noData: 'Wait' as const, available: false };
      const running = canary({ weight: 20, weightChangedAt: ago(120), stepIndex: 0, pausedAt: ago(60) });
      const d = planCanary(input({ paused: true, analysis }, { canary: running }), withCanary(1, true, 20), NOW);
      assert.equal(d.phase, 'CanaryPaused');
      assert.deepEqual([d.canary?.weight, d.status.canary?.weight], [0, 0]);
      assert.equal(d.canary?.replicas, 1, 'the pods keep the size of the weight the router still carries');
      assert.equal(d.degraded?.reason, 'AnalysisUnavailable');
      assert.equal(d.status.canary!.stepIndex, 0, 'still paused at its step');
      // The same Degraded as unpaused: pausing or resuming such a canary writes no new Warning.
      const unpaused = planCanary(input({ analysis }, { canary: running }), withCanary(1, true, 20), NOW);
      assert.deepEqual(d.degraded, unpaused.degraded);
      // Paused at 0% (before the step's weight was set), it stays there, still Degraded.
      const atZero = planCanary(input({ paused: true, analysis }, { canary: d.status.canary }), withCanary(1, true, 0), NOW);
      assert.deepEqual([atZero.canary?.weight, atZero.degraded?.reason], [0, 'AnalysisUnavailable']);
    });

    it('a new pod template on a paused App does not start: stable keeps its template; a running canary is cancelled', () => {
      const d = planCanary(input({ paused: true }), none, NOW);
      assert.deepEqual([d.phase, d.stableRevision, d.canary, d.status.canary], ['Paused', 'web:1', undefined, undefined]);
      assert.deepEqual(d.progressing && [d.progressing.status, d.progressing.reason], ['Unknown', 'RolloutPaused']);
      const replaced = planCanary(input({ paused: true, image: 'web:3' }, { canary: canary({ weight: 20 }) }), withCanary(1, true, 20), NOW);
      assert.equal(replaced.phase, 'CleaningUp');
      assert.equal(replaced.stableRevision, 'web:1');
      assert.equal(replaced.canary!.weight, 0, 'the cancelled canary winds down');
      assert.deepEqual(reasons(replaced), ['CanaryCancelled']);
    });

    it('promote and abort still act while paused', () => {
      const running = canary({ weight: 20, stepIndex: 1, pausedAt: ago(10) });
      const promoted = planCanary(input({ paused: true, annotations: { 'skiff.dev/promote': 'true' } }, { canary: running }), withCanary(1, true, 20), NOW);
      assert.equal(promoted.phase, 'Promoting');
      assert.ok(!reasons(promoted).includes('RolloutResumed'), 'spec.rollout.paused is still true: nothing resumed');
      assert.ok(reasons(promoted).includes('CanaryPromoted'));
      const aborted = planCanary(input({ paused: true, annotations: { 'skiff.dev/abort': 'true' } }, { canary: running }), withCanary(1, true, 20), NOW);
      assert.equal(aborted.phase, 'Aborted');
    });
  });

  describe('skiff.dev/retry', () => {
    const abortedStatus = { abortedRevision: 'web:2', abortedImage: 'web:2', conditions: [{ type: 'Degraded', status: 'True' as const, reason: 'RolloutAborted', message: 'aborted', lastTransitionTime: ago(60) }] };

    it('runs the aborted revision again from step 0, clearing the abort', () => {
      const d = planCanary(input({ annotations: { 'skiff.dev/retry': 'true' } }, abortedStatus), none, NOW);
      assert.equal(d.phase, 'CanaryStep');
      assert.equal(d.retried, true);
      assert.deepEqual(d.status.canary, canary({ stepStartedAt: NOW.toISOString(), step: 'setWeight 20%' }));
      assert.equal(d.status.abortedRevision, undefined);
      assert.equal(d.status.abortedImage, undefined);
      assert.equal(d.degraded, undefined);
      assert.deepEqual(reasons(d), ['RolloutRetried', 'CanaryStarted']);
      assert.deepEqual(d.consumedAnnotations, ['skiff.dev/retry']);
    });

    it('is ignored with a Warning when spec is not the aborted revision, or nothing was aborted', () => {
      for (const [status, image, why] of [[abortedStatus, 'web:3', /not the aborted revision/], [{}, 'web:1', /no rollout was aborted/]] as const) {
        const d = planCanary(input({ image, annotations: { 'skiff.dev/retry': 'true' } }, status), none, NOW);
        assert.equal(d.retried, undefined);
        const warning = d.events.find((e) => e.reason === 'RetryIgnored');
        assert.equal(warning?.type, 'Warning');
        assert.match(warning!.message, why);
        assert.deepEqual(d.consumedAnnotations, ['skiff.dev/retry']);
      }
      // Without the annotation an aborted revision stays aborted.
      assert.equal(planCanary(input({}, abortedStatus), none, NOW).phase, 'Aborted');
    });

    it('seen again after it was acted on (its removal failed), is consumed without a Warning and without starting over', () => {
      const retried = planCanary(input({ annotations: { 'skiff.dev/retry': 'true' } }, abortedStatus), none, NOW);
      // The status was written; the annotation is still on the App.
      const again = planCanary(input({ annotations: { 'skiff.dev/retry': 'true' } }, retried.status), withCanary(1, true, 20), at(5));
      assert.equal(again.retried, undefined);
      assert.deepEqual(again.events.filter((e) => e.reason === 'RetryIgnored' || e.reason === 'RolloutRetried'), []);
      assert.deepEqual(again.consumedAnnotations, ['skiff.dev/retry']);
      // The canary goes on from where it was (its first step done at 20%), not started again.
      assert.deepEqual(reasons(again), ['CanaryStep']);
      assert.equal(again.status.canary!.stepIndex, 1);
    });
  });

  describe('skiff.dev/skip-canary', () => {
    it('takes a revision the history records as promoted straight to stable, without a canary', () => {
      const d = planCanary(input({ image: 'web:0', annotations: { 'skiff.dev/skip-canary': 'web:0' }, promotedRevisions: new Set(['web:0', 'web:1']) }), none, NOW);
      assert.deepEqual([d.phase, d.stableRevision, d.canary, d.status.canary, d.status.stableRevision], ['Stable', 'web:0', undefined, undefined, 'web:0']);
      assert.deepEqual(reasons(d), ['RollbackWithoutCanary']);
      assert.deepEqual(d.consumedAnnotations, ['skiff.dev/skip-canary']);
      // Also while paused, and in place of a canary under way (which winds down).
      const paused = planCanary(input({ image: 'web:0', paused: true, annotations: { 'skiff.dev/skip-canary': 'web:0' }, promotedRevisions: new Set(['web:0']) }, { canary: canary({ weight: 20 }) }), withCanary(1, true, 20), NOW);
      assert.equal(paused.stableRevision, 'web:0');
      assert.equal(paused.canary!.weight, 0);
      assert.deepEqual(reasons(paused), ['RollbackWithoutCanary', 'CanaryCancelled']);
    });

    it('refuses (a Warning) a revision never promoted, or a hash that is not spec\'s; it rolls out as a canary', () => {
      for (const [hash, promoted, why] of [['web:0', new Set<string>(['web:1']), /never promoted/], ['web:9', new Set<string>(['web:9']), /pod template is revision web:0/]] as const) {
        const d = planCanary(input({ image: 'web:0', annotations: { 'skiff.dev/skip-canary': hash }, promotedRevisions: promoted }), none, NOW);
        assert.equal(d.phase, 'CanaryStep');
        assert.equal(d.stableRevision, 'web:1');
        assert.deepEqual(reasons(d), ['SkipCanaryRefused', 'CanaryStarted']);
        assert.match(d.events[0].message, why);
        assert.equal(d.events[0].type, 'Warning');
        assert.deepEqual(d.consumedAnnotations, ['skiff.dev/skip-canary']);
      }
    });
  });
});
