// The step engine's parts, each a table of cases: starting or resuming a canary, counting a
// check, a promotion asked for, walking the steps, and winding a finished canary down.
import { strict as assert } from 'node:assert';
import { applyPromotion, countCheck, startOrResume, walkSteps, type Progress } from '../../controller/canary/running.js';
import type { CanaryInput, CanaryObserved } from '../../controller/canary/types.js';
import { windDown } from '../../controller/canary/wind-down.js';
import { planCanary } from '../../controller/canary/plan.js';
import { nextCheckAt } from '../../controller/analysis/schedule.js';
import type { CanaryStatus } from '../../shared/app-types.js';

const NOW = new Date('2026-11-22T10:00:00Z');
const ago = (s: number) => new Date(NOW.getTime() - s * 1000).toISOString();
const STEPS = [{ setWeight: 20 }, { pause: { duration: '60s' } }, { setWeight: 50 }, { pause: {} }];
const input = (over: Partial<CanaryInput> = {}, status: CanaryInput['status'] = {}): CanaryInput => ({
  image: 'web:2', revision: 'r2', replicas: 4, steps: STEPS, progressDeadlineSeconds: 600, scaleDownDelaySeconds: 30, annotations: {},
  ...over, status: { stableRevision: 'r1', stableImage: 'web:1', ...status },
});
const canary = (c: Partial<CanaryStatus> = {}): CanaryStatus => ({ image: 'web:2', revision: 'r2', weight: 0, stepIndex: 0, stepStartedAt: ago(0), ...c });
const progress = (c: Partial<CanaryStatus> = {}): Progress => ({ canary: canary(c), events: [] });
const ready = (replicas: number, routerWeight: number | undefined, extra: Partial<CanaryObserved> = {}): CanaryObserved => ({
  canaryObjectsExist: true, canaryDeployment: { revision: 'r2', replicas, available: true }, routerWeight, ...extra,
});
/** The input of a pass whose status stores the canary as `at` has it. */
const stored = (i: CanaryInput, at: Progress): CanaryInput => ({ ...i, status: { ...i.status, canary: at.canary } });
const analysis = (over: Partial<NonNullable<CanaryInput['analysis']>> = {}) => ({ intervalMs: 10_000, failureLimit: 1, noData: 'Wait' as const, available: true, ...over });
const check = (result: 'Passed' | 'Failed' | 'Inconclusive', weight = 20) => ({ at: ago(0), weight, result: { result, message: `${result.toLowerCase()}`, metrics: [] } });

describe('canary step engine, function by function', () => {
  it('startOrResume: resumes the canary of the same revision, starts one, restarts on another', () => {
    const rows: [CanaryInput['status'], string | undefined, number][] = [
      [{}, 'CanaryStarted', 0],
      [{ canary: canary({ stepIndex: 2, weight: 50 }) }, undefined, 2],
      [{ canary: canary({ revision: 'r9', stepIndex: 2, weight: 50 }) }, 'CanaryRestarted', 0],
    ];
    for (const [status, event, stepIndex] of rows) {
      const p = startOrResume(input({}, status), 'r1', NOW);
      assert.equal(p.events[0]?.reason, event, JSON.stringify(status));
      assert.equal(p.canary.stepIndex, stepIndex);
      assert.equal(p.canary.revision, 'r2');
    }
  });

  it('countCheck: counts a check of this canary, says when the failures pass failureLimit, ignores one of another canary', () => {
    const rows: { name: string; in: CanaryInput; before: Progress; checks?: number; failures?: number; abort: boolean }[] = [
      { name: 'no check', in: input({ analysis: analysis() }, { canary: canary() }), before: progress(), abort: false },
      { name: 'a pass', in: input({ analysis: analysis({ check: check('Passed') }) }, { canary: canary() }), before: progress(), checks: 1, failures: 0, abort: false },
      { name: 'first failure of limit 1', in: input({ analysis: analysis({ check: check('Failed') }) }, { canary: canary() }), before: progress(), checks: 1, failures: 1, abort: false },
      { name: 'second failure of limit 1', in: input({ analysis: analysis({ check: check('Failed') }) }, { canary: canary() }), before: progress({ analysis: { checks: 1, failures: 1 } }), checks: 2, failures: 2, abort: true },
      { name: 'inconclusive, noData Fail', in: input({ analysis: analysis({ noData: 'Fail', failureLimit: 0, check: check('Inconclusive') }) }, { canary: canary() }), before: progress(), checks: 1, failures: 1, abort: true },
      { name: 'a check of another canary', in: input({ analysis: analysis({ check: check('Failed') }) }, { canary: canary({ revision: 'r9' }) }), before: progress(), abort: false },
    ];
    for (const row of rows) {
      const out = countCheck(row.in, row.before);
      assert.equal(out.canary.analysis?.checks, row.checks, row.name);
      assert.equal(out.canary.analysis?.failures, row.failures, row.name);
      assert.equal(out.abort !== undefined, row.abort, row.name);
      if (row.abort) assert.match(out.abort!.message, new RegExp(`failed ${row.failures} ${row.failures === 1 ? 'check' : 'checks'} \\(`));
    }
  });

  it('applyPromotion: skips to the end once, only when asked with true', () => {
    const rows: [Record<string, string>, number, number][] = [
      [{}, 1, 1],
      [{ 'skiff.dev/promote': 'true' }, 1, 4],
      [{ 'skiff.dev/promote': 'TRUE' }, 1, 4],
      [{ 'skiff.dev/promote': 'yes' }, 1, 1],
      [{ 'skiff.dev/promote': 'true' }, 4, 4],
    ];
    for (const [annotations, from, to] of rows) assert.equal(applyPromotion(input({ annotations }), progress({ stepIndex: from }), NOW).canary.stepIndex, to, JSON.stringify([annotations, from]));
  });

  it('walkSteps: holds, advances or aborts at each kind of step', () => {
    const rows: { name: string; in: CanaryInput; at: Progress; observed: CanaryObserved; kind: string; weight?: number; stepIndex?: number; reason?: string }[] = [
      { name: 'canary not available yet', in: input(), at: progress(), observed: { canaryObjectsExist: true, canaryDeployment: { revision: 'r2', replicas: 1, available: false }, routerWeight: 0 }, kind: 'hold', weight: 0 },
      { name: 'not available past the deadline', in: input({ progressDeadlineSeconds: 30 }), at: progress({ stepStartedAt: ago(31) }), observed: { canaryObjectsExist: true, canaryDeployment: { revision: 'r2', replicas: 1, available: false } }, kind: 'abort', reason: 'ProgressDeadlineExceeded' },
      { name: 'available: raise to the step weight', in: input(), at: progress(), observed: ready(1, 0), kind: 'hold', weight: 20 },
      { name: 'route not accepted', in: input(), at: progress(), observed: ready(1, 0, { routerReadiness: { ready: false, message: 'pending' } }), kind: 'hold', weight: 0, reason: 'WaitingForRoute' },
      { name: 'at the weight: on to the timed pause', in: input(), at: progress(), observed: ready(1, 20), kind: 'hold', weight: 20, stepIndex: 1 },
      // A step taken is recorded first, at the router's weight; the next pass (its status at the step) sets its weight.
      { name: 'the pause elapsed: on to setWeight 50, recorded at 20 first', in: input(), at: progress({ weight: 20, stepIndex: 1, stepStartedAt: ago(60) }), observed: ready(2, 20), kind: 'hold', weight: 20, stepIndex: 2 },
      { name: 'setWeight 50 recorded: the weight follows', in: input(), at: progress({ weight: 20, stepIndex: 2 }), observed: ready(2, 20), kind: 'hold', weight: 50, stepIndex: 2 },
      { name: 'an indefinite pause holds', in: input(), at: progress({ weight: 50, stepIndex: 3 }), observed: ready(2, 50), kind: 'hold', weight: 50, stepIndex: 3 },
      { name: 'past the last step: promote', in: input(), at: progress({ weight: 50, stepIndex: 4 }), observed: ready(2, 50), kind: 'promote' },
      { name: 'analysis: no passing check yet', in: input({ analysis: analysis() }), at: progress({ weight: 20 }), observed: ready(1, 20), kind: 'hold', weight: 20, stepIndex: 0 },
      { name: 'analysis: no Prometheus', in: input({ analysis: analysis({ available: false }) }), at: progress(), observed: ready(1, 0), kind: 'hold', weight: 0, reason: 'AnalysisUnavailable' },
      { name: 'analysis: no pass within the deadline', in: input({ progressDeadlineSeconds: 60, analysis: analysis() }), at: progress({ weight: 20, stepStartedAt: ago(61) }), observed: ready(1, 20), kind: 'abort', reason: 'AnalysisInconclusive' },
    ];
    for (const row of rows) {
      // The pass starts from its status: the canary as stored is where it walks from.
      const out = walkSteps(stored(row.in, row.at), row.observed, row.at, NOW);
      assert.equal(out.kind, row.kind, row.name);
      if (out.kind === 'hold') {
        assert.equal(out.weight, row.weight, row.name);
        if (row.stepIndex !== undefined) assert.equal(out.progress.canary.stepIndex, row.stepIndex, row.name);
        if (row.reason) assert.equal(out.reason, row.reason, row.name);
      }
      if (out.kind === 'abort') assert.equal(out.reason, row.reason, row.name);
    }
  });

  it('walkSteps: a setWeight lower than the router carries lowers the weight first, then shrinks the canary', () => {
    // 10 stable replicas: 5 canary pods carry 50%; the next step is setWeight 20 (2 pods).
    const down = input({ replicas: 10, steps: [{ setWeight: 50 }, { setWeight: 20 }] });
    const at = progress({ weight: 50, stepIndex: 1, weightChangedAt: ago(100) });
    const first = walkSteps(stored(down, at), ready(5, 50), at, NOW);
    assert.equal(first.kind, 'hold');
    if (first.kind !== 'hold') return;
    assert.deepEqual([first.weight, first.replicas], [20, 5], 'the 5 pods keep serving until the router carries 20%: never 50% on 2 pods');
    // The router carries 20%: now the canary goes to 2 pods, and the step is done once they are.
    const second = walkSteps(stored(down, first.progress), ready(5, 20), first.progress, NOW);
    assert.equal(second.kind, 'hold');
    if (second.kind !== 'hold') return;
    assert.deepEqual([second.weight, second.replicas], [20, 2]);
    assert.equal(walkSteps(stored(down, second.progress), ready(2, 20), second.progress, NOW).kind, 'promote');
  });

  it('walkSteps: through a route, the canary shrinks only once the Gateway accepted the lower weight (written is not carried)', () => {
    // 10 stable replicas: all 10 canary pods carry 100%; the next step is setWeight 10 (1 pod).
    const down = input({ replicas: 10, steps: [{ setWeight: 100 }, { setWeight: 10 }, { pause: {} }] });
    const at = progress({ weight: 100, stepIndex: 1, weightChangedAt: ago(100) });
    const accepted = { routerReadiness: { ready: true } };
    const notYet = { routerReadiness: { ready: false, message: 'parent infra/public has not reported Accepted=True for generation 5' } };
    const first = walkSteps(stored(down, at), ready(10, 100, accepted), at, NOW);
    assert.ok(first.kind === 'hold');
    assert.deepEqual([first.weight, first.replicas], [10, 10]);
    // The route has 10% in its spec, not yet accepted: its data plane may still send 100%.
    const written = walkSteps(stored(down, first.progress), ready(10, 10, notYet), first.progress, NOW);
    assert.ok(written.kind === 'hold');
    assert.deepEqual([written.weight, written.replicas], [10, 10], 'never 100% on 1 pod');
    assert.equal(written.reason, 'WaitingForRoute');
    // Accepted: now 1 pod; the step is done once the canary has shrunk.
    const taken = walkSteps(stored(down, written.progress), ready(10, 10, accepted), written.progress, NOW);
    assert.ok(taken.kind === 'hold');
    assert.deepEqual([taken.weight, taken.replicas], [10, 1]);
    const paused = walkSteps(stored(down, taken.progress), ready(1, 10, accepted), taken.progress, NOW);
    assert.ok(paused.kind === 'hold');
    assert.deepEqual([paused.phase, paused.progress.canary.stepIndex, paused.replicas], ['CanaryPaused', 2, 1], 'on to the pause, at 1 pod');
    // A rising weight through a route not accepted yet sizes the canary for it as before.
    const up = input({ replicas: 10, steps: [{ setWeight: 10 }, { setWeight: 50 }] });
    const low = progress({ weight: 10, stepIndex: 1, weightChangedAt: ago(100) });
    const rising = walkSteps(stored(up, low), ready(1, 10, notYet), low, NOW);
    assert.ok(rising.kind === 'hold');
    assert.deepEqual([rising.weight, rising.replicas], [10, 5]);
  });

  it('walkSteps: a canary being resized with the pods its weight needs up is not unavailable; one short of them is', () => {
    const growing = input({ replicas: 10, steps: [{ setWeight: 20 }, { setWeight: 50 }] });
    const at = progress({ weight: 20, stepIndex: 1, weightChangedAt: ago(100) });
    // Grown from 2 to 5 pods for 50%: the 2 that carry 20% are up, 3 still coming.
    const coming = walkSteps(stored(growing, at), { canaryObjectsExist: true, canaryDeployment: { revision: 'r2', replicas: 5, available: false, serving: 2 }, routerWeight: 20 }, at, NOW);
    assert.ok(coming.kind === 'hold');
    assert.match(coming.message, /^waiting for the canary to be available at step 2\/2 \(setWeight 50%\)$/);
    assert.equal(coming.progress.canary.unavailableSince, undefined);
    assert.equal(coming.weight, 20);
    // One of the 2 crashed meanwhile: its 20% is on fewer pods than it needs: unavailable, with the abort's countdown.
    const crashed = walkSteps(stored(growing, at), { canaryObjectsExist: true, canaryDeployment: { revision: 'r2', replicas: 5, available: false, serving: 1 }, routerWeight: 20 }, at, NOW);
    assert.ok(crashed.kind === 'hold');
    assert.match(crashed.message, /^waiting for the canary to be available again at step 2\/2 \(setWeight 50%\): unavailable since /);
    assert.equal(crashed.progress.canary.unavailableSince, NOW.toISOString());
    // Just resized, before the Deployment controller has seen it: no count starts; one under way goes on.
    const settling = { canaryObjectsExist: true, canaryDeployment: { revision: 'r2', replicas: 5, available: false, serving: 0, settling: true }, routerWeight: 20 };
    const fresh = walkSteps(stored(growing, at), settling, at, NOW);
    assert.ok(fresh.kind === 'hold');
    assert.equal(fresh.progress.canary.unavailableSince, undefined);
    const counting = progress({ weight: 20, stepIndex: 1, weightChangedAt: ago(100), unavailableSince: ago(30) });
    const goesOn = walkSteps(stored(growing, counting), settling, counting, NOW);
    assert.ok(goesOn.kind === 'hold');
    assert.equal(goesOn.progress.canary.unavailableSince, ago(30));
    // Grown for the next step while the route has not accepted the weight before: not unavailable either.
    const route = { routerReadiness: { ready: false, message: 'not accepted' } };
    const notAccepted = walkSteps(stored(growing, at), { canaryObjectsExist: true, canaryDeployment: { revision: 'r2', replicas: 5, available: false, serving: 2 }, routerWeight: 20, ...route }, at, NOW);
    assert.ok(notAccepted.kind === 'hold');
    assert.equal(notAccepted.progress.canary.unavailableSince, undefined);
  });

  it('a pause taken while a route has not accepted a lower weight keeps the canary\'s pods too', () => {
    const down = input({ replicas: 10, steps: [{ setWeight: 100 }, { setWeight: 10 }, { pause: {} }], paused: true });
    const at = progress({ weight: 10, stepIndex: 1, weightChangedAt: ago(100) });
    const d = planCanary(stored(down, at), { ...ready(10, 10), routerReadiness: { ready: false, message: 'not accepted' } }, NOW);
    assert.deepEqual([d.phase, d.canary?.replicas], ['CanaryPaused', 10]);
    const accepted = planCanary(stored(down, at), { ...ready(10, 10), routerReadiness: { ready: true } }, NOW);
    assert.deepEqual([accepted.phase, accepted.canary?.replicas], ['CanaryPaused', 1]);
  });

  it('a status time the API server takes and JavaScript cannot read counts as now, never throws', () => {
    // RFC 3339 with a comma before the fraction: valid for the CRD's date-time, NaN for Date.parse.
    const odd = '2026-11-22T09:59:00,5Z';
    assert.ok(Number.isNaN(Date.parse(odd)));
    const paused = walkSteps(input(), ready(2, 20), progress({ weight: 20, stepIndex: 1, stepStartedAt: odd }), NOW);
    assert.equal(paused.kind, 'hold');
    assert.equal(paused.kind === 'hold' && paused.requeueAfterMs, 60_000, 'the pause counts from now');
    assert.match(paused.kind === 'hold' ? paused.message : '', /until 2026-11-22T10:01:00Z/);
    const drained = windDown(input({}, { scaleDown: { revision: 'r2', deleteAt: odd } }), ready(2, 0), NOW);
    assert.equal(drained.removeCanary, true, 'a delay whose end cannot be read is over');
    assert.equal(nextCheckAt({ weightChangedAt: ago(30), analysis: { checks: 1, failures: 0, lastCheckAt: odd } }, 10_000), NOW.getTime() - 20_000);
  });

  it('windDown: weight 0 first, then the delay from status, then removal', () => {
    const later = (s: number) => new Date(NOW.getTime() + s * 1000);
    const kept = { revision: 'r2', deleteAt: later(30).toISOString() };
    const rows: { name: string; in: CanaryInput; observed: CanaryObserved; at?: Date; weight?: number; remove: boolean; scaleDown?: object; requeue?: number }[] = [
      { name: 'nothing left', in: input(), observed: { canaryObjectsExist: false }, remove: false },
      { name: 'traffic still on the canary', in: input(), observed: ready(2, 50), weight: 0, remove: false },
      { name: 'traffic back: the delay starts', in: input(), observed: ready(2, 0), remove: false, scaleDown: kept, requeue: 30_000 },
      { name: 'the delay runs from status', in: input({}, { scaleDown: kept }), observed: ready(2, 0), at: later(10), remove: false, scaleDown: kept, requeue: 20_000 },
      { name: 'the delay is over', in: input({}, { scaleDown: kept }), observed: ready(2, 0), at: later(30), remove: true, scaleDown: kept },
      { name: 'no delay', in: input({ scaleDownDelaySeconds: 0 }), observed: ready(2, 0), remove: true },
      { name: 'weight 0 not taken by the Gateway yet: no delay starts', in: input(), observed: { ...ready(2, 0), routerReadiness: { ready: false } }, remove: false },
      { name: 'a delay begun runs on whatever the Gateway says later', in: input({}, { scaleDown: kept }), observed: { ...ready(2, 0), routerReadiness: { ready: false } }, at: later(10), remove: false, scaleDown: kept, requeue: 20_000 },
      { name: 'another revision kept: a new delay', in: input({}, { scaleDown: { revision: 'r9', deleteAt: NOW.toISOString() } }), observed: ready(2, 0), remove: false, scaleDown: kept, requeue: 30_000 },
    ];
    for (const row of rows) {
      const out = windDown(row.in, row.observed, row.at ?? NOW);
      assert.equal(out.canary?.weight, row.weight, row.name);
      assert.equal(out.removeCanary, row.remove, row.name);
      assert.deepEqual(out.scaleDown, row.scaleDown, row.name);
      assert.equal(out.requeueAfterMs, row.requeue, row.name);
    }
  });
});
