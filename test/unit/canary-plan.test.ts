import { strict as assert } from 'node:assert';
import { NOW, STEPS, ago, canary, input, none, withCanary } from '../support/canary-input.js';
import { canaryReplicas, planCanary, type CanaryInput, type CanaryObserved } from '../../controller/canary/plan.js';
import { checkDue } from '../../controller/analysis/check.js';
import type { CanaryStatus } from '../../shared/app-types.js';
import { durationMs } from '../../shared/durations.js';
import { defaultedAppFixture } from '../support/app-fixture.js';


describe('canary plan', () => {
  it('sizes the canary as ceil(replicas × weight / 100), at least 1', () => {
    assert.equal(canaryReplicas(4, 20), 1);
    assert.equal(canaryReplicas(4, 50), 2);
    assert.equal(canaryReplicas(3, 50), 2);
    assert.equal(canaryReplicas(10, 0), 1);
    assert.equal(canaryReplicas(0, 50), 1);
  });

  it('parses pause durations', () => {
    assert.equal(durationMs('90s'), 90_000);
    assert.equal(durationMs('5m'), 300_000);
    assert.equal(durationMs('2h'), 7_200_000);
    assert.equal(durationMs('1d'), undefined);
  });

  it('the first deployment is never a canary', () => {
    const d = planCanary(input({}, { stableRevision: undefined, stableImage: undefined }), { canaryObjectsExist: false }, NOW);
    assert.equal(d.phase, 'Stable');
    assert.equal(d.stableRevision, 'web:2');
    assert.equal(d.canary, undefined);
  });

  it('nothing to do when spec.image is the stable image', () => {
    const d = planCanary(input({ image: 'web:1' }), none, NOW);
    assert.deepEqual([d.phase, d.stableRevision, d.canary, d.removeCanary], ['Stable', 'web:1', undefined, false]);
  });

  it('a new image starts a canary at step 0 with weight 0 and the step-0 size', () => {
    const d = planCanary(input(), none, NOW);
    assert.equal(d.phase, 'CanaryStep');
    assert.equal(d.stableRevision, 'web:1');
    assert.deepEqual(d.canary, { revision: 'web:2', replicas: 1, weight: 0 });
    assert.deepEqual(d.status.canary, canary({ stepStartedAt: NOW.toISOString(), step: 'setWeight 20%' }));
    assert.equal(d.events[0].reason, 'CanaryStarted');
    assert.equal(d.requeueAfterMs, 600_000, 'the deadline is checked even without events');
  });

  it('holds the weight at 0 until the canary is available', () => {
    const d = planCanary(input({}, { canary: canary({ stepStartedAt: ago(30) }) }), withCanary(1, false, 0), NOW);
    assert.equal(d.canary!.weight, 0);
    assert.equal(d.requeueAfterMs, 570_000);
  });

  it('says why the canary is not available when its pods cannot be created (a quota, a LimitRange): the weight stays at 0', () => {
    const refused = withCanary(1, false, 0);
    refused.canaryDeployment!.replicaFailure = 'pods "web-canary-x" is forbidden: exceeded quota: q, requested: pods=1, used: pods=3, limited: pods=3';
    const d = planCanary(input({}, { canary: canary({ stepStartedAt: ago(30) }) }), refused, NOW);
    assert.equal(d.canary!.weight, 0);
    assert.match(d.progressing!.message, /waiting for the canary to be available at step 1\/4 \(setWeight 20%\): its pods cannot be created: pods "web-canary-x" is forbidden: exceeded quota/);
    // One of an earlier revision, whose pods are going: not this canary's reason.
    const earlier = withCanary(1, false, 0, 'web:1b');
    earlier.canaryDeployment!.replicaFailure = 'forbidden';
    assert.doesNotMatch(planCanary(input({}, { canary: canary({ stepStartedAt: ago(30) }) }), earlier, NOW).progressing?.message ?? '', /cannot be created/);
    // At the deadline the abort keeps the cause.
    const late = planCanary(input({}, { canary: canary({ stepStartedAt: ago(601) }) }), refused, NOW);
    assert.equal(late.progressing?.reason, 'ProgressDeadlineExceeded');
    assert.match(late.progressing!.message, /was not available within 600s at step 1\/4 \(setWeight 20%\): its pods cannot be created: pods "web-canary-x" is forbidden: exceeded quota/);
  });

  it('holds a step whose weight the router never takes (its write refused: a quota on Services, a name taken) to the step\'s deadline, then aborts', () => {
    const available = withCanary(1, true, 0);
    // The step stored at its weight; the router still carries none of it.
    const stored = canary({ stepStartedAt: ago(30) });
    const held = planCanary(input({}, { canary: stored }), available, NOW);
    assert.equal(held.phase, 'CanaryStep');
    assert.match(held.progressing!.message, /setting the canary weight to 20% at step 1\/4/);
    assert.equal(held.requeueAfterMs, 570_000, 'woken at the deadline, with no event of the router');
    // Available only at the deadline: the weight is decided (the router asked for it), no abort yet.
    const justAvailable = planCanary(input({}, { canary: canary({ stepStartedAt: ago(601) }) }), available, NOW);
    assert.equal(justAvailable.phase, 'CanaryStep');
    assert.equal(justAvailable.canary?.weight, 20);
    assert.equal(justAvailable.status.canary?.weight, 20);
    // The weight decided by a pass before, and still not carried: the abort.
    const late = planCanary(input({}, { canary: justAvailable.status.canary }), available, NOW);
    assert.equal(late.progressing?.reason, 'ProgressDeadlineExceeded');
    assert.match(late.progressing!.message, /the router did not take the weight 20% of the canary of .* within 600s at step 1\/4 \(setWeight 20%\) \(see the Degraded condition and the App's Events for why\)/);
    assert.equal(late.canary?.weight ?? 0, 0, 'an abort: no weight');
  });

  it('raises the weight once the canary is available, and completes the step when the router carries it', () => {
    const available = withCanary(1, true, 0);
    const d1 = planCanary(input({}, { canary: canary({}) }), available, NOW);
    assert.deepEqual(d1.canary, { revision: 'web:2', replicas: 1, weight: 20 });
    assert.equal(d1.status.canary!.stepIndex, 0);
    const d2 = planCanary(input({}, { canary: d1.status.canary }), withCanary(1, true, 20), NOW);
    assert.equal(d2.phase, 'CanaryPaused');
    assert.deepEqual(d2.status.canary, canary({ weight: 20, weightChangedAt: NOW.toISOString(), stepIndex: 1, stepStartedAt: NOW.toISOString(), step: 'pause 60s' }));
    assert.equal(d2.requeueAfterMs, 60_000);
    assert.equal(d2.progressing!.reason, 'CanaryPaused');
  });

  it('a timed pause survives a restart: it is measured from status.stepStartedAt', () => {
    const d = planCanary(input({}, { canary: canary({ weight: 20, stepIndex: 1, stepStartedAt: ago(45) }) }), withCanary(1, true, 20), NOW);
    assert.equal(d.phase, 'CanaryPaused');
    assert.equal(d.requeueAfterMs, 15_000);
    assert.equal(d.status.canary!.stepIndex, 1);
  });

  it('an elapsed pause moves on and scales the canary for the next weight, holding the old weight', () => {
    const d = planCanary(input({}, { canary: canary({ weight: 20, stepIndex: 1, stepStartedAt: ago(61) }) }), withCanary(1, true, 20), NOW);
    assert.equal(d.status.canary!.stepIndex, 2);
    assert.deepEqual(d.canary, { revision: 'web:2', replicas: 2, weight: 20 });
  });

  it('a pause without duration waits for promotion, with no timer', () => {
    const d = planCanary(input({}, { canary: canary({ weight: 50, stepIndex: 3, stepStartedAt: ago(3600) }) }), withCanary(2, true, 50), NOW);
    assert.equal(d.phase, 'CanaryPaused');
    assert.equal(d.requeueAfterMs, undefined);
    assert.match(d.progressing!.message, /skiff.dev\/promote/);
  });

  it('promote skips the remaining steps: stable takes the image, canary keeps its traffic meanwhile', () => {
    const d = planCanary(input({ annotations: { 'skiff.dev/promote': 'true' } }, { canary: canary({ weight: 20, stepIndex: 1 }) }), withCanary(1, true, 20), NOW);
    assert.equal(d.phase, 'Promoting');
    assert.equal(d.stableRevision, 'web:2');
    assert.equal(d.canary!.weight, 20);
    assert.equal(d.status.canary!.stepIndex, STEPS.length);
    assert.equal(d.status.stableImage, 'web:1', 'stable officially changes only at the end');
    assert.deepEqual(d.consumedAnnotations, ['skiff.dev/promote']);
  });

  it('a timed final pause ends with a last check that did not pass: the promotion begins as the steps say, with a Warning saying what the check found; none for a passing one or a promotion asked for', () => {
    const steps = [{ setWeight: 50 }, { pause: { duration: '30s' } }];
    const analysis = { intervalMs: 10_000, failureLimit: 1, noData: 'Wait' as const, available: true };
    const inPause = (lastResult: 'Passed' | 'Inconclusive' | 'Failed', message: string) =>
      canary({ weight: 50, stepIndex: 1, stepStartedAt: ago(31), analysis: { checks: 3, failures: lastResult === 'Failed' ? 1 : 0, lastResult, lastWeight: 50, lastCheckAt: ago(2), message } });
    const over = planCanary(input({ steps, analysis }, { canary: inPause('Inconclusive', 'requests: query failed: Prometheus answered HTTP 503') }), withCanary(2, true, 50), NOW);
    assert.equal(over.phase, 'Promoting');
    const warning = over.events.find((e) => e.reason === 'PromotionUnconfirmed');
    assert.equal(warning?.type, 'Warning');
    assert.equal(warning?.message, 'canary of web:2 (revision web:2) is promoted at the end of its steps, but its last analysis check (at 50%) was inconclusive: requests: query failed: Prometheus answered HTTP 503');
    const failedOnce = planCanary(input({ steps, analysis }, { canary: inPause('Failed', 'successRate 90.00 < min 99') }), withCanary(2, true, 50), NOW);
    assert.match(failedOnce.events.find((e) => e.reason === 'PromotionUnconfirmed')!.message, /\(at 50%\) failed, within failureLimit 1: successRate 90.00 < min 99$/);
    const passed = planCanary(input({ steps, analysis }, { canary: inPause('Passed', 'ok') }), withCanary(2, true, 50), NOW);
    assert.equal(passed.phase, 'Promoting');
    assert.ok(!passed.events.some((e) => e.reason === 'PromotionUnconfirmed'));
    const asPassed = planCanary(input({ steps, analysis: { ...analysis, noData: 'Pass' as const } }, { canary: inPause('Inconclusive', 'no data') }), withCanary(2, true, 50), NOW);
    assert.ok(!asPassed.events.some((e) => e.reason === 'PromotionUnconfirmed'), 'noData: Pass counts it as passed');
    const asked = planCanary(input({ steps, analysis, annotations: { 'skiff.dev/promote': 'true' } }, { canary: { ...inPause('Inconclusive', 'no data'), stepStartedAt: ago(5) } }), withCanary(2, true, 50), NOW);
    assert.deepEqual(asked.events.map((e) => e.reason), ['CanaryPromoted'], 'kubectl skiff promote skips the checks on purpose');
  });

  it('promotion order: stable available → weight 0 → delete canary objects → stableImage', () => {
    const promoting = canary({ weight: 50, stepIndex: 4 });
    const stableRolling = { ...withCanary(2, true, 50), stableDeployment: { revision: 'web:2', available: false } };
    assert.equal(planCanary(input({}, { canary: promoting }), stableRolling, NOW).canary!.weight, 50);
    const stableReady = { ...withCanary(2, true, 50), stableDeployment: { revision: 'web:2', available: true } };
    const d1 = planCanary(input({}, { canary: promoting }), stableReady, NOW);
    assert.deepEqual([d1.canary!.weight, d1.removeCanary], [0, false]);
    const d2 = planCanary(input({}, { canary: d1.status.canary }), { ...stableReady, routerWeight: 0 }, NOW);
    assert.deepEqual([d2.canary, d2.removeCanary, d2.status.stableImage], [undefined, true, 'web:1']);
    const d3 = planCanary(input({}, { canary: d2.status.canary }), { canaryObjectsExist: false, stableDeployment: { revision: 'web:2', available: true } }, NOW);
    assert.deepEqual([d3.phase, d3.status.stableImage, d3.status.canary, d3.progressing!.reason], ['Stable', 'web:2', undefined, 'RolloutComplete']);
  });

  it('abort: weight to 0 first, then the canary objects go; Degraded until spec.image changes', () => {
    const d1 = planCanary(input({ annotations: { 'skiff.dev/abort': 'true' } }, { canary: canary({ weight: 20, stepIndex: 1 }) }), withCanary(1, true, 20), NOW);
    assert.deepEqual([d1.phase, d1.canary!.weight, d1.removeCanary, d1.stableRevision], ['Aborted', 0, false, 'web:1']);
    assert.deepEqual(d1.status, { stableRevision: 'web:1', stableImage: 'web:1', abortedRevision: 'web:2', abortedImage: 'web:2', canary: undefined });
    assert.equal(d1.degraded!.reason, 'RolloutAborted');
    const d2 = planCanary(input({}, d1.status), withCanary(1, true, 0), NOW);
    assert.deepEqual([d2.removeCanary, d2.canary], [true, undefined]);
    assert.equal(d2.degraded!.reason, 'RolloutAborted');
    const d3 = planCanary(input({}, d1.status), none, NOW);
    assert.deepEqual([d3.phase, d3.degraded!.reason], ['Aborted', 'RolloutAborted']);
    const d4 = planCanary(input({ image: 'web:3' }, d1.status), none, NOW);
    assert.deepEqual([d4.phase, d4.degraded], ['CanaryStep', undefined]);
  });

  it('the progress deadline aborts a canary that never becomes available', () => {
    const d = planCanary(input({ progressDeadlineSeconds: 30 }, { canary: canary({ stepStartedAt: ago(31) }) }), withCanary(1, false, 0), NOW);
    assert.equal(d.phase, 'Aborted');
    assert.equal(d.degraded!.reason, 'ProgressDeadlineExceeded');
    assert.equal(d.status.abortedImage, 'web:2');
    const later = planCanary(input({}, { ...d.status, conditions: [{ type: 'Degraded', status: 'True', reason: 'ProgressDeadlineExceeded', message: 'm', lastTransitionTime: ago(0) }] }), none, NOW);
    assert.equal(later.degraded!.reason, 'ProgressDeadlineExceeded');
  });

  it('a new image mid-rollout restarts at step 0: the earlier pods lose their traffic first, then take the new template', () => {
    const d = planCanary(input({ image: 'web:3' }, { canary: canary({ weight: 50, stepIndex: 3 }) }), withCanary(2, true, 50), NOW);
    assert.deepEqual(d.status.canary, { image: 'web:3', revision: 'web:3', weight: 0, stepIndex: 0, stepStartedAt: NOW.toISOString(), step: 'setWeight 20%' });
    assert.deepEqual(d.canary, { revision: 'web:2', replicas: 2, weight: 0 }, 'the web:2 pods stay as they are while the router still sends them traffic');
    assert.equal(d.events[0].reason, 'CanaryRestarted');
    // The router has taken 0%: now the canary Deployment takes web:3.
    const next = planCanary(input({ image: 'web:3' }, d.status), withCanary(2, true, 0), NOW);
    assert.deepEqual(next.canary, { revision: 'web:3', replicas: 1, weight: 0 });
    assert.deepEqual(next.events, []);
  });

  describe('the earlier canary\'s pods before they take a new pod template', () => {
    const later = (s: number) => new Date(NOW.getTime() + s * 1000);
    const web3 = (status: CanaryInput['status']) => input({ image: 'web:3', scaleDownDelaySeconds: 30 }, status);
    // The canary routing of web:2 removed: its Deployment and Service are left.
    const unrouted = (): CanaryObserved => ({ ...withCanary(2, true, 0), routerWeight: undefined });

    it('keep running scaleDownDelaySeconds once their traffic is back on stable, as a finished canary\'s do (routers that take a change late still send to them)', () => {
      const drain = planCanary(web3({ canary: canary({ weight: 50, stepIndex: 3 }) }), withCanary(2, true, 50), NOW);
      assert.deepEqual(drain.canary, { revision: 'web:2', replicas: 2, weight: 0 });
      const at0 = planCanary(web3(drain.status), withCanary(2, true, 0), later(1));
      assert.equal(at0.canary, undefined, 'no canary routing, the objects left as they are');
      assert.equal(at0.removeCanary, false);
      assert.deepEqual(at0.status.scaleDown, { revision: 'web:2', deleteAt: later(31).toISOString() });
      assert.equal(at0.requeueAfterMs, 30_000);
      assert.match(at0.progressing!.message, /web:3.*the earlier canary's pods \(revision web:2\) keep running until .* before they take the new pod template/);
      const waiting = planCanary(web3(at0.status), unrouted(), later(20));
      assert.equal(waiting.canary, undefined);
      // A promotion meanwhile: nothing of web:3 runs yet, so nothing is promoted, and a Warning says so.
      const promoted = planCanary({ ...web3(at0.status), annotations: { 'skiff.dev/promote': 'true' } }, unrouted(), later(20));
      assert.deepEqual([promoted.consumedAnnotations, promoted.status.canary?.stepIndex, promoted.status.scaleDown], [['skiff.dev/promote'], 0, at0.status.scaleDown]);
      assert.deepEqual(promoted.events.map((e) => [e.reason, e.type]), [['PromoteIgnored', 'Warning']]);
      assert.match(promoted.events[0]!.message, /the canary of web:3 \(revision web:3\) has not started \(the earlier canary's pods, revision web:2, go first\); promote it once it runs/);
      assert.deepEqual(waiting.status.scaleDown, at0.status.scaleDown, 'the delay counted once');
      assert.equal(waiting.requeueAfterMs, 11_000);
      const over = planCanary(web3(waiting.status), unrouted(), later(31));
      assert.deepEqual(over.canary, { revision: 'web:3', replicas: 1, weight: 0 });
      assert.equal(over.status.scaleDown, undefined);
      assert.equal(over.status.canary?.stepStartedAt, later(31).toISOString(), 'its first step starts when they were due to go: the wait takes nothing of its deadline');
      assert.equal(over.status.canary?.revision, 'web:3');
    });

    it('an aborted canary\'s pods keep the delay the abort gave them when a new pod template comes', () => {
      const aborted = { abortedRevision: 'web:2', abortedImage: 'web:2', scaleDown: { revision: 'web:2', deleteAt: later(55).toISOString() } };
      const d = planCanary(web3(aborted), unrouted(), NOW);
      assert.notEqual(d.canary?.revision, 'web:3');
      assert.equal(d.removeCanary, false);
      assert.deepEqual(d.status.scaleDown, aborted.scaleDown);
      assert.equal(d.requeueAfterMs, 55_000);
      assert.equal(d.status.canary?.revision, 'web:3', 'the new canary is under way, waiting');
      assert.equal(d.events[0]?.reason, 'CanaryStarted');
      const over = planCanary(web3(d.status), unrouted(), later(55));
      assert.deepEqual(over.canary, { revision: 'web:3', replicas: 1, weight: 0 });
    });

    it('through a route: the wait begins once its Gateway has accepted the route without the canary backend, and no drain starts over meanwhile', () => {
      const routeAt = (weight: number | undefined, ready: boolean): CanaryObserved => ({ ...withCanary(2, true, 0), routerWeight: weight, routerReadiness: ready ? { ready: true } : { ready: false, message: 'parent infra/public has not reported Accepted=True for generation 7' } });
      const drain = planCanary(web3({ canary: canary({ weight: 50, stepIndex: 3 }) }), routeAt(50, true), NOW);
      assert.deepEqual(drain.canary, { revision: 'web:2', replicas: 2, weight: 0 });
      const at0 = planCanary(web3(drain.status), routeAt(0, true), later(1));
      assert.equal(at0.canary, undefined, 'the canary backend goes');
      // The route without it, not yet accepted: still waiting, not the drain again (which would put the backend back).
      const taking = planCanary(web3(at0.status), routeAt(undefined, false), later(2));
      assert.equal(taking.canary, undefined);
      assert.equal(taking.removeCanary, false);
      const accepted = planCanary(web3(taking.status), routeAt(undefined, true), later(3));
      assert.ok(accepted.status.scaleDown, 'the delay is recorded');
      const over = planCanary(web3(accepted.status), routeAt(undefined, true), new Date(Date.parse(accepted.status.scaleDown!.deleteAt)));
      assert.deepEqual(over.canary, { revision: 'web:3', replicas: 1, weight: 0 });
    });

    it('with scaleDownDelaySeconds 0, take it at once', () => {
      const d = planCanary(input({ image: 'web:3' }, { canary: canary({ weight: 50, stepIndex: 3 }) }), withCanary(2, true, 0), NOW);
      assert.deepEqual(d.canary, { revision: 'web:3', replicas: 1, weight: 0 });
    });
  });

  it('a new image mid-canary through a route: the earlier pods take the new template only once the Gateway accepted the route at 0%', () => {
    const d = planCanary(input({ image: 'web:3' }, { canary: canary({ weight: 50, stepIndex: 3 }) }), { ...withCanary(2, true, 50), routerReadiness: { ready: true } }, NOW);
    assert.deepEqual(d.canary, { revision: 'web:2', replicas: 2, weight: 0 });
    // The route says 0%, but its Gateway has not accepted that generation: it still sends 50% to the web:2 pods.
    const notYet = { ...withCanary(2, true, 0), routerReadiness: { ready: false, message: 'parent infra/public has not reported Accepted=True for generation 5' } };
    const waiting = planCanary(input({ image: 'web:3' }, d.status), notYet, NOW);
    assert.deepEqual(waiting.canary, { revision: 'web:2', replicas: 2, weight: 0 }, 'no web:3 pod before the Gateway sends them nothing');
    assert.equal(waiting.requeueAfterMs, 600_000, 'held to the deadline of the first step');
    const neverServed = planCanary(input({ image: 'web:3' }, d.status), { ...notYet, routerReadiness: { ...notYet.routerReadiness, served: false } }, NOW);
    assert.deepEqual(neverServed.canary, { revision: 'web:3', replicas: 1, weight: 0 }, 'a route no Gateway ever accepted sends nothing: nothing to wait for');
    const accepted = planCanary(input({ image: 'web:3' }, d.status), { ...withCanary(2, true, 0), routerReadiness: { ready: true } }, NOW);
    assert.deepEqual(accepted.canary, { revision: 'web:3', replicas: 1, weight: 0 });
    // A Gateway that never accepts it: the new revision is aborted at its first step's deadline, not held for ever.
    const late = planCanary(input({ image: 'web:3' }, d.status), notYet, new Date(NOW.getTime() + 601_000));
    assert.deepEqual([late.phase, late.degraded?.reason, late.status.abortedImage, late.canary?.weight ?? 0], ['Aborted', 'ProgressDeadlineExceeded', 'web:3', 0]);
    assert.match(late.degraded!.message, /did not go back to stable within 600s.*has not reported Accepted=True/);
  });

  it('a promote given as the template changed mid-canary is for the canary it replaced: not carried over, and said so', () => {
    const d = planCanary(input({ image: 'web:3', annotations: { 'skiff.dev/promote': 'true' } }, { canary: canary({ weight: 50, stepIndex: 3 }) }), withCanary(2, true, 50), NOW);
    assert.deepEqual(d.consumedAnnotations, ['skiff.dev/promote']);
    assert.deepEqual(d.events.map((e) => [e.type, e.reason]), [[undefined, 'CanaryRestarted'], ['Warning', 'PromoteIgnored']]);
    assert.match(d.events[1].message, /skiff\.dev\/promote was for the canary of revision web:2, which the new pod template replaced: .*web:3.* is not promoted by it/);
    assert.equal(d.status.canary?.stepIndex, 0);
  });

  it('a new image while an earlier revision is being promoted: that promotion ends first, stable never goes back', () => {
    // Promoting web:2: stable runs it already, the router still sends the canary 50%.
    const promoting = { ...withCanary(2, true, 50), stableDeployment: { revision: 'web:2', available: true } };
    const status = { canary: canary({ weight: 50, stepIndex: 4 }) };
    const d1 = planCanary(input({ image: 'web:3' }, status), promoting, NOW);
    assert.deepEqual([d1.phase, d1.stableRevision, d1.canary?.revision, d1.canary?.weight], ['Promoting', 'web:2', 'web:2', 0]);
    const d2 = planCanary(input({ image: 'web:3', scaleDownDelaySeconds: 0 }, d1.status), { ...promoting, routerWeight: 0 }, NOW);
    assert.deepEqual([d2.stableRevision, d2.removeCanary], ['web:2', true]);
    const d3 = planCanary(input({ image: 'web:3' }, d2.status), { canaryObjectsExist: false, routerWeight: 0, stableDeployment: { revision: 'web:2', available: true } }, NOW);
    assert.deepEqual([d3.status.stableRevision, d3.status.stableImage, d3.status.canary], ['web:2', 'web:2', undefined]);
    assert.ok(d3.events.some((e) => e.reason === 'CanaryComplete'));
    // Then web:3 starts against web:2.
    const d4 = planCanary(input({ image: 'web:3' }, d3.status), { canaryObjectsExist: false, routerWeight: 0, stableDeployment: { revision: 'web:2', available: true } }, NOW);
    assert.deepEqual([d4.stableRevision, d4.status.canary?.revision, d4.events[0]?.reason], ['web:2', 'web:3', 'CanaryStarted']);
  });

  it('a pause with analysis that cannot run (no Prometheus) holds the canary at 0%, as a setWeight step does', () => {
    const analysis = { intervalMs: 60_000, failureLimit: 1, noData: 'Wait' as const, available: false };
    for (const stepIndex of [1, 3]) {
      const d = planCanary(input({ analysis }, { canary: canary({ weight: 20, stepIndex }) }), withCanary(1, true, 20), NOW);
      assert.equal(d.canary?.weight, 0, `step ${stepIndex + 1}`);
      assert.equal(d.degraded?.reason, 'AnalysisUnavailable');
    }
  });

  describe('a pause held at 0% for want of a Prometheus', () => {
    // Steps [setWeight 20, pause {}, setWeight 50, pause {}]: the canary reached the first pause at
    // 20%, then a controller without --prometheus-url held it at 0% (status weight 0, and the
    // weight it was held from).
    const steps = [{ setWeight: 20 }, { pause: {} }, { setWeight: 50 }, { pause: {} }];
    const analysis = (available: boolean) => ({ intervalMs: 60_000, failureLimit: 1, noData: 'Wait' as const, available });
    const heldAtZero = canary({ weight: 0, weightChangedAt: ago(3000), stepIndex: 1, stepStartedAt: ago(3600), step: 'pause until promoted', heldFromWeight: 20 });

    it('a pause held so records the weight it was held from, and forgets it once it has a weight again', () => {
      const at20 = canary({ weight: 20, weightChangedAt: ago(3000), stepIndex: 1, stepStartedAt: ago(3600), step: 'pause until promoted' });
      const held = planCanary(input({ steps, analysis: analysis(false) }, { canary: at20 }), withCanary(1, true, 20), NOW);
      assert.deepEqual([held.canary?.weight, held.status.canary?.weight, held.status.canary?.heldFromWeight, held.degraded?.reason], [0, 0, 20, 'AnalysisUnavailable']);
      const still = planCanary(input({ steps, analysis: analysis(false) }, { canary: held.status.canary }), withCanary(1, true, 0), NOW);
      assert.equal(still.status.canary?.heldFromWeight, 20, 'kept while held');
      const back = planCanary(input({ steps, analysis: analysis(true) }, { canary: held.status.canary }), withCanary(1, true, 0), NOW);
      assert.deepEqual([back.status.canary?.weight, back.status.canary?.heldFromWeight], [20, undefined]);
    });

    it('a pause at 0% for another reason (a setWeight 0 before it, edited higher since) stays at 0%: no weight rises but by a running step', () => {
      const atZero = canary({ weight: 0, weightChangedAt: ago(3000), stepIndex: 1, stepStartedAt: ago(3600), step: 'pause until promoted' });
      const edited = [{ setWeight: 50 }, { pause: {} }];
      for (const a of [undefined, analysis(true)]) {
        const d = planCanary(input({ steps: edited, ...(a ? { analysis: a } : {}) }, { canary: atZero }), withCanary(1, true, 0), NOW);
        assert.deepEqual([d.phase, d.canary?.weight, d.status.canary?.weight, d.degraded], ['CanaryPaused', 0, 0, undefined], `analysis: ${a !== undefined}`);
      }
    });

    it('gets the weight of the setWeight before it back once the controller has a Prometheus, then pauses there', () => {
      const setting = planCanary(input({ steps, analysis: analysis(true) }, { canary: heldAtZero }), withCanary(1, true, 0), NOW);
      assert.deepEqual([setting.phase, setting.canary?.weight, setting.status.canary?.weight, setting.status.canary?.stepIndex, setting.degraded], ['CanaryStep', 20, 20, 1, undefined]);
      assert.equal(setting.status.canary?.weightChangedAt, undefined, 'not in force before the router has it');
      assert.equal(setting.status.canary?.stepStartedAt, heldAtZero.stepStartedAt, 'the pause keeps its start');
      const paused = planCanary(input({ steps, analysis: analysis(true) }, { canary: setting.status.canary }), withCanary(1, true, 20), NOW);
      assert.deepEqual([paused.phase, paused.canary?.weight, paused.status.canary?.weight, paused.status.canary?.stepIndex, paused.degraded], ['CanaryPaused', 20, 20, 1, undefined]);
      assert.equal(paused.status.canary?.weightChangedAt, NOW.toISOString(), 'in force: checks are due from now');
      // Without analysis in spec any more, the same.
      assert.equal(planCanary(input({ steps }, { canary: heldAtZero }), withCanary(1, true, 0), NOW).canary?.weight, 20);
    });

    it('gets its weight back through the gates of a setWeight step (the canary available at its size, the route accepted), held to no deadline from the pause\'s start', () => {
      const big = (over: Partial<CanaryInput>, c: CanaryStatus) => input({ steps, replicas: 10, analysis: analysis(true), ...over }, { canary: c });
      const small = planCanary(big({}, { ...heldAtZero, stepStartedAt: ago(30) }), withCanary(1, true, 0), NOW);
      assert.deepEqual([small.phase, small.canary?.weight, small.canary?.replicas], ['CanaryStep', 0, 2], 'one pod of 10 replicas is not 20%: grown first');
      assert.match(small.progressing!.message, /waiting for the canary to be available at step 2\/4/);
      // A pause that began an hour ago, past progressDeadlineSeconds: the wait for its weight is
      // not counted from then, so it is not aborted; it waits (a promote or an abort ends it).
      const late = planCanary(big({}, heldAtZero), withCanary(1, true, 0), NOW);
      assert.deepEqual([late.phase, late.canary?.weight, late.canary?.replicas, late.degraded], ['CanaryStep', 0, 2, undefined]);
      assert.match(late.progressing!.message, /waiting for the canary to be available at step 2\/4/);
      for (const startedAt of [ago(30), ago(3600)]) {
        const route = planCanary(big({}, { ...heldAtZero, stepStartedAt: startedAt }), { ...withCanary(2, true, 0), routerReadiness: { ready: false, message: 'not accepted' } }, NOW);
        assert.deepEqual([route.phase, route.canary?.weight, route.progressing?.reason, route.degraded], ['CanaryStep', 0, 'WaitingForRoute', undefined]);
      }
      // Its weight written, the route not accepted yet: paused at it, not aborted.
      const written = planCanary(big({}, { ...heldAtZero, weight: 20, weightChangedAt: undefined }), { ...withCanary(2, true, 20), routerReadiness: { ready: false, message: 'not accepted' } }, NOW);
      assert.deepEqual([written.phase, written.canary?.weight, written.degraded], ['CanaryPaused', 20, undefined]);
    });

    it('a setWeight step held longer than progressDeadlineSeconds gets its weight and its checks from a controller with a Prometheus: its deadline counts from then', () => {
      const two = [{ setWeight: 20 }, { setWeight: 50 }];
      const unavailable = [{ type: 'Degraded', status: 'True' as const, reason: 'AnalysisUnavailable', message: 'no Prometheus', lastTransitionTime: ago(3600) }];
      const held = canary({ weight: 0, weightChangedAt: ago(3500), stepIndex: 0, stepStartedAt: ago(3600), step: 'setWeight 20%' });
      const setting = planCanary(input({ steps: two, analysis: analysis(true) }, { canary: held, conditions: unavailable }), withCanary(1, true, 0), NOW);
      assert.deepEqual([setting.phase, setting.canary?.weight, setting.degraded], ['CanaryStep', 20, undefined]);
      assert.equal(setting.status.canary?.stepStartedAt, NOW.toISOString(), 'the step starts again, for its deadline');
      // The next pass: the router has 20%, no check yet; waiting for one, not aborted.
      const later = new Date(NOW.getTime() + 5_000);
      const waiting = planCanary(input({ steps: two, analysis: analysis(true) }, { canary: setting.status.canary }), withCanary(1, true, 20), later);
      assert.deepEqual([waiting.phase, waiting.canary?.weight, waiting.degraded], ['CanaryStep', 20, undefined]);
      assert.match(waiting.progressing!.message, /waiting for a passing analysis check/);
      // Still without a Prometheus: held, its start unchanged.
      const still = planCanary(input({ steps: two, analysis: analysis(false) }, { canary: held, conditions: unavailable }), withCanary(1, true, 0), NOW);
      assert.deepEqual([still.canary?.weight, still.degraded?.reason, still.status.canary?.stepStartedAt], [0, 'AnalysisUnavailable', held.stepStartedAt]);
      // A pause keeps its start (its timer): it gets its weight back with no deadline instead.
      const pause = planCanary(input({ steps, analysis: analysis(true) }, { canary: heldAtZero, conditions: unavailable }), withCanary(1, true, 0), NOW);
      assert.equal(pause.status.canary?.stepStartedAt, heldAtZero.stepStartedAt);
    });

    it('a pause at a weight above 0 keeps it, and its size, when the setWeight before it is edited higher: only a pause held at 0 gets that weight', () => {
      const edited = [{ setWeight: 50 }, { pause: {} }, { setWeight: 80 }];
      const at20 = canary({ weight: 20, weightChangedAt: ago(3000), stepIndex: 1, stepStartedAt: ago(3000), step: 'pause until promoted' });
      for (const available of [true, false]) {
        const d = planCanary(input({ steps: edited, replicas: 10, analysis: analysis(available) }, { canary: at20 }), withCanary(2, true, 20), NOW);
        if (available) assert.deepEqual([d.phase, d.canary?.weight, d.canary?.replicas, d.degraded], ['CanaryPaused', 20, 2, undefined], 'paused at 20 on 2 pods of 10');
        else assert.deepEqual([d.canary?.weight, d.canary?.replicas, d.degraded?.reason], [0, 2, 'AnalysisUnavailable']);
      }
    });

    it('a timed pause whose time is over moves on as it did', () => {
      const timed = [{ setWeight: 20 }, { pause: { duration: '60s' } }, { setWeight: 50 }];
      const d = planCanary(input({ steps: timed, analysis: analysis(true) }, { canary: { ...heldAtZero, stepStartedAt: ago(61), step: 'pause 60s' } }), withCanary(2, true, 0), NOW);
      // The step is recorded first, at the weight the router has; its weight follows in the next pass.
      assert.deepEqual([d.status.canary?.stepIndex, d.canary?.weight], [2, 0]);
      const next = planCanary(input({ steps: timed, analysis: analysis(true) }, { canary: d.status.canary }), withCanary(2, true, 0), NOW);
      assert.deepEqual([next.status.canary?.stepIndex, next.canary?.weight], [2, 50]);
      const running = planCanary(input({ steps: timed, analysis: analysis(true) }, { canary: { ...heldAtZero, stepStartedAt: ago(30), step: 'pause 60s' } }), withCanary(1, true, 0), NOW);
      assert.deepEqual([running.status.canary?.stepIndex, running.canary?.weight], [1, 20]);
    });

    it('stays at 0%, Degraded AnalysisUnavailable, while the controller still has no Prometheus', () => {
      const d = planCanary(input({ steps, analysis: analysis(false) }, { canary: heldAtZero }), withCanary(1, true, 0), NOW);
      assert.deepEqual([d.canary?.weight, d.status.canary?.weight, d.status.canary?.stepIndex, d.degraded?.reason], [0, 0, 1, 'AnalysisUnavailable']);
    });

    it('keeps its canary at the size of its weight also while spec.rollout.paused holds it', () => {
      for (const available of [false, true]) {
        const running = planCanary(input({ steps, replicas: 10, analysis: analysis(available) }, { canary: heldAtZero }), withCanary(2, true, 0), NOW);
        const paused = planCanary(input({ steps, replicas: 10, paused: true, analysis: analysis(available) }, { canary: heldAtZero }), withCanary(2, true, 0), NOW);
        assert.deepEqual([running.canary?.replicas, paused.phase, paused.canary?.weight, paused.canary?.replicas], [2, 'CanaryPaused', 0, 2], `Prometheus ${available}`);
      }
    });

    it('a pause with no weight before it (none, or setWeight 0) stays at 0%, not Degraded', () => {
      const cases = [
        { name: 'first step', steps: [{ pause: {} }, { setWeight: 20 }], stepIndex: 0 },
        { name: 'after setWeight 0', steps: [{ setWeight: 20 }, { setWeight: 0 }, { pause: {} }, { setWeight: 50 }], stepIndex: 2 },
      ];
      for (const { name, steps: s, stepIndex } of cases) {
        for (const available of [true, false]) {
          const d = planCanary(input({ steps: s, analysis: analysis(available) }, { canary: canary({ stepIndex, stepStartedAt: ago(3600) }) }), withCanary(1, true, 0), NOW);
          assert.deepEqual([d.phase, d.canary?.weight, d.degraded], ['CanaryPaused', 0, undefined], `${name}, Prometheus ${available}`);
        }
      }
    });
  });

  it('stable unavailable for a moment while the promoted canary\'s pods wait out the delay: the wait goes on as it was', () => {
    const scaleDown = { revision: 'web:2', deleteAt: new Date(NOW.getTime() + 20_000).toISOString() };
    const observed = { ...withCanary(2, true, 0), stableDeployment: { revision: 'web:2', available: false } };
    const d = planCanary(input({ scaleDownDelaySeconds: 30 }, { canary: canary({ weight: 0, stepIndex: 4 }), scaleDown }), observed, NOW);
    assert.deepEqual([d.phase, d.canary, d.removeCanary, d.status.scaleDown], ['Promoting', undefined, false, scaleDown], 'no canary objects made again, the same deleteAt');
  });

  it('steps added once the promotion has begun do not raise the weight again: the promotion goes on', () => {
    const promoting = { ...withCanary(2, true, 0), stableDeployment: { revision: 'web:2', available: true } };
    // The promotion had stepped past the two steps; a third is added.
    const d = planCanary(input({ steps: [{ setWeight: 20 }, { pause: {} }, { setWeight: 80 }] }, { canary: canary({ weight: 0, stepIndex: 2 }) }), promoting, NOW);
    assert.equal(d.phase, 'Promoting');
    assert.equal(d.canary?.weight ?? 0, 0);
    assert.equal(d.stableRevision, 'web:2');
  });

  it('going back to the stable image removes the canary, weight first', () => {
    const d1 = planCanary(input({ image: 'web:1' }, { canary: canary({ weight: 20, stepIndex: 1 }) }), withCanary(1, true, 20), NOW);
    assert.deepEqual([d1.phase, d1.canary!.weight, d1.removeCanary, d1.status.canary], ['CleaningUp', 0, false, undefined]);
    const d2 = planCanary(input({ image: 'web:1' }), withCanary(1, true, 0), NOW);
    assert.equal(d2.removeCanary, true);
  });

  it('waits for the route before any weight above 0, and completes a step only once the route took it', () => {
    const notAccepted = { ...withCanary(1, true, 0), routerReadiness: { ready: false, message: 'parent infra/public has not reported Accepted=True for generation 4' } };
    const d1 = planCanary(input({}, { canary: canary({ stepStartedAt: ago(30) }) }), notAccepted, NOW);
    assert.deepEqual(d1.canary, { revision: 'web:2', replicas: 1, weight: 0 });
    assert.equal(d1.progressing!.reason, 'WaitingForRoute');
    assert.match(d1.progressing!.message, /Accepted=True/);
    assert.equal(d1.requeueAfterMs, 570_000);
    const d2 = planCanary(input({}, { canary: canary({}) }), { ...withCanary(1, true, 0), routerReadiness: { ready: true } }, NOW);
    assert.equal(d2.canary!.weight, 20);
    const d3 = planCanary(input({}, { canary: d2.status.canary }), { ...withCanary(1, true, 20), routerReadiness: { ready: false } }, NOW);
    assert.deepEqual([d3.status.canary!.stepIndex, d3.progressing!.reason], [0, 'WaitingForRoute'], 'weight 20 written but not yet taken');
    const d4 = planCanary(input({}, { canary: d2.status.canary }), { ...withCanary(1, true, 20), routerReadiness: { ready: true } }, NOW);
    assert.equal(d4.status.canary!.stepIndex, 1);
    const late = planCanary(input({ progressDeadlineSeconds: 30 }, { canary: canary({ stepStartedAt: ago(31) }) }), notAccepted, NOW);
    assert.deepEqual([late.phase, late.degraded!.reason, late.removeCanary], ['Aborted', 'ProgressDeadlineExceeded', true], 'no traffic ever reached it: removed at once');
  });

  describe('with analysis', () => {
    const analysis = (over: Partial<NonNullable<CanaryInput['analysis']>> = {}): CanaryInput['analysis'] => ({ intervalMs: 10_000, failureLimit: 1, noData: 'Wait', available: true, ...over });
    const result = (r: 'Passed' | 'Failed' | 'Inconclusive', message = `successRate ${r}`) => ({ result: r, message, metrics: [{ name: 'successRate', value: r === 'Failed' ? 80 : 99.5, min: 99, result: r, message }] });
    const check = (r: 'Passed' | 'Failed' | 'Inconclusive', weight = 20) => ({ at: NOW.toISOString(), weight, result: result(r) });
    // Weight 20 in force for 15 s (the router has carried it since weightChangedAt).
    const atWeight20 = canary({ weight: 20, weightChangedAt: ago(15), stepStartedAt: ago(15) });

    it('completes a setWeight step only after a passing check at its weight', () => {
      const waiting = planCanary(input({ analysis: analysis() }, { canary: atWeight20 }), withCanary(1, true, 20), NOW);
      assert.equal(waiting.status.canary!.stepIndex, 0);
      assert.match(waiting.progressing!.message, /waiting for a passing analysis check.*no check at this weight yet/);
      assert.ok(waiting.requeueAfterMs! <= 100, 'a check is due at once');
      const passed = planCanary(input({ analysis: analysis({ check: check('Passed') }) }, { canary: atWeight20 }), withCanary(1, true, 20), NOW);
      assert.equal(passed.status.canary!.stepIndex, 1);
      assert.deepEqual([passed.status.canary!.analysis!.checks, passed.status.canary!.analysis!.failures, passed.status.canary!.analysis!.lastResult], [1, 0, 'Passed']);
      assert.equal(passed.status.canary!.analysis!.metrics![0].value, 99.5);
      const elsewhere = planCanary(input({ analysis: analysis({ check: check('Passed', 5) }) }, { canary: atWeight20 }), withCanary(1, true, 20), NOW);
      assert.equal(elsewhere.status.canary!.stepIndex, 0, 'a check at another weight does not count');
    });

    it('aborts after more than failureLimit failed checks, weight 0 first, naming the metric and its value', () => {
      const first = planCanary(input({ analysis: analysis({ check: check('Failed') }) }, { canary: atWeight20 }), withCanary(1, true, 20), NOW);
      assert.equal(first.phase, 'CanaryStep');
      assert.equal(first.status.canary!.analysis!.failures, 1);
      assert.equal(first.events.find((e) => e.reason === 'AnalysisCheckFailed')?.type, 'Warning');
      const second = planCanary(input({ analysis: analysis({ check: { ...check('Failed'), result: result('Failed', 'successRate 80.00 < min 99') } }) }, { canary: first.status.canary }), withCanary(1, true, 20), NOW);
      assert.equal(second.phase, 'Aborted');
      assert.equal(second.degraded!.reason, 'AnalysisFailed');
      assert.match(second.degraded!.message, /failed 2 checks \(failureLimit 1\): successRate 80\.00 < min 99/);
      assert.deepEqual([second.canary!.weight, second.removeCanary], [0, false], 'traffic back to stable before anything is deleted');
      assert.ok(second.events.some((e) => e.reason === 'AnalysisFailed' && e.type === 'Warning'));
      const degraded = { type: 'Degraded', status: 'True' as const, ...second.degraded!, lastTransitionTime: ago(0) };
      const after = planCanary(input({}, { ...second.status, conditions: [degraded] }), withCanary(1, true, 0), NOW);
      assert.deepEqual([after.removeCanary, after.degraded!.reason], [true, 'AnalysisFailed'], 'stays AnalysisFailed while the canary is removed');
    });

    it('a failed check during a pause aborts too', () => {
      const paused = canary({ weight: 20, stepIndex: 1, stepStartedAt: ago(5), analysis: { checks: 3, failures: 1, lastResult: 'Failed', lastWeight: 20 } });
      const d = planCanary(input({ analysis: analysis({ check: check('Failed') }) }, { canary: paused }), withCanary(1, true, 20), NOW);
      assert.equal(d.degraded!.reason, 'AnalysisFailed');
    });

    it('a new pod template during the promotion of an earlier revision: that promotion\'s checks still count, and an abort still takes stable back', () => {
      // Promoting web:2 (stable runs it, not yet available; the router still sends the canary 50%); spec asks for web:3.
      const promoting = { ...withCanary(2, true, 50), stableDeployment: { revision: 'web:2', available: false } };
      const status = { canary: canary({ weight: 50, weightChangedAt: ago(120), stepIndex: 4, analysis: { checks: 3, failures: 1, lastResult: 'Failed' as const, lastWeight: 50 } }) };
      const failed = planCanary(input({ image: 'web:3', analysis: analysis({ check: check('Failed', 50) }) }, status), promoting, NOW);
      assert.deepEqual([failed.phase, failed.degraded?.reason, failed.stableRevision, failed.canary?.weight], ['Aborted', 'AnalysisFailed', 'web:1', 0], 'the second failed check (failureLimit 1) aborts web:2');
      assert.equal(failed.status.abortedRevision, 'web:2');
      const asked = planCanary(input({ image: 'web:3', annotations: { 'skiff.dev/abort': 'true' } }, status), promoting, NOW);
      assert.deepEqual([asked.phase, asked.degraded?.reason, asked.stableRevision, asked.canary?.weight], ['Aborted', 'RolloutAborted', 'web:1', 0], 'the abort asked for is not dropped');
      assert.deepEqual(asked.consumedAnnotations, ['skiff.dev/abort']);
    });

    it('noData: Wait holds on inconclusive checks without counting them, and aborts at the deadline', () => {
      const d = planCanary(input({ analysis: analysis({ check: check('Inconclusive') }) }, { canary: atWeight20 }), withCanary(1, true, 20), NOW);
      assert.deepEqual([d.status.canary!.stepIndex, d.status.canary!.analysis!.failures], [0, 0]);
      assert.match(d.progressing!.message, /last check Inconclusive/);
      const late = planCanary(input({ progressDeadlineSeconds: 60, analysis: analysis({ check: check('Inconclusive') }) }, { canary: canary({ weight: 20, stepStartedAt: ago(61) }) }), withCanary(1, true, 20), NOW);
      assert.deepEqual([late.phase, late.degraded!.reason], ['Aborted', 'AnalysisInconclusive']);
      assert.equal(late.canary!.weight, 0);
    });

    it('noData: Fail counts an inconclusive check as failed; Pass as passed', () => {
      const fail = planCanary(input({ analysis: analysis({ noData: 'Fail', failureLimit: 0, check: check('Inconclusive') }) }, { canary: atWeight20 }), withCanary(1, true, 20), NOW);
      assert.equal(fail.degraded!.reason, 'AnalysisFailed');
      // The abort and the check's Event say the check was inconclusive, failed by the policy.
      assert.match(fail.degraded!.message, /\(failureLimit 0; inconclusive, counted as failed by noData: Fail\): successRate Inconclusive$/);
      assert.match(fail.events.find((e) => e.reason === 'AnalysisCheckFailed')?.message ?? '', /failureLimit 0; inconclusive, counted as failed by noData: Fail\): successRate Inconclusive$/);
      const pass = planCanary(input({ analysis: analysis({ noData: 'Pass', check: check('Inconclusive') }) }, { canary: atWeight20 }), withCanary(1, true, 20), NOW);
      assert.equal(pass.status.canary!.stepIndex, 1);
    });

    it('without a Prometheus, takes a canary that had traffic back to weight 0', () => {
      const d = planCanary(input({ analysis: analysis({ available: false }) }, { canary: canary({ weight: 20, stepIndex: 2 }) }), withCanary(2, true, 20), NOW);
      assert.deepEqual([d.canary!.weight, d.status.canary!.weight, d.degraded!.reason], [0, 0, 'AnalysisUnavailable']);
    });

    it('without a Prometheus, takes a canary that had traffic back to weight 0 also while it is not available at its step, or its route not accepted', () => {
      // A restart without --prometheus-url while the canary's pods are not all ready (a pod
      // restarting, a step to 50% growing the Deployment) or its HTTPRoute not yet accepted: the
      // traffic it has would go on unchecked until then; it goes back to stable meanwhile.
      const at20 = canary({ weight: 20, weightChangedAt: ago(100), stepStartedAt: ago(100) });
      const cases = [
        { name: 'not available', c: at20, observed: withCanary(1, false, 20) },
        { name: 'growing for 50%', c: { ...at20, stepIndex: 2 }, observed: withCanary(1, true, 20) },
        { name: 'route not accepted', c: at20, observed: { ...withCanary(1, true, 20), routerReadiness: { ready: false, message: 'not accepted' } } },
      ];
      for (const { name, c, observed } of cases) {
        const d = planCanary(input({ analysis: analysis({ available: false }) }, { canary: c }), observed, NOW);
        assert.deepEqual([d.phase, d.canary!.weight, d.status.canary!.weight, d.degraded?.reason], ['CanaryStep', 0, 0, 'AnalysisUnavailable'], name);
        assert.equal(d.requeueAfterMs, 500_000, `${name}: the progress deadline still runs`);
      }
      // Past the deadline, a canary that is not available is aborted as without analysis.
      const late = planCanary(input({ analysis: analysis({ available: false }) }, { canary: { ...at20, stepStartedAt: ago(700) } }), withCanary(1, false, 20), NOW);
      assert.equal(late.degraded?.reason, 'ProgressDeadlineExceeded');
    });

    it('without a Prometheus, holds the canary at weight 0, Degraded AnalysisUnavailable', () => {
      const d = planCanary(input({ analysis: analysis({ available: false }) }, { canary: canary({}) }), withCanary(1, true, 0), NOW);
      assert.equal(d.canary!.weight, 0);
      assert.equal(d.degraded!.reason, 'AnalysisUnavailable');
      assert.equal(d.progressing!.reason, 'AnalysisUnavailable');
    });

    it('a check at a new weight waits until the canary has had it for a whole interval', () => {
      // Weight 20 set 4 s ago, interval 10 s: a check now would measure mostly time before it.
      const fresh = canary({ weight: 20, weightChangedAt: ago(4), stepStartedAt: ago(30) });
      const app = (c: CanaryStatus) => defaultedAppFixture({ namespace: 'ns', spec: { image: 'web:2', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: STEPS, analysis: { interval: '10s', successRate: { min: 99 } } } }, status: { canary: c } });
      assert.equal(checkDue(app(fresh), 20, NOW), false);
      assert.equal(checkDue(app(fresh), 20, new Date(NOW.getTime() + 6_000)), true);
      const waiting = planCanary(input({ analysis: analysis() }, { canary: fresh }), withCanary(1, true, 20), NOW);
      assert.equal(waiting.requeueAfterMs, 6_000, 'back when the check is due');
      // An interval after the last check, and not before a whole interval at the weight.
      const checked = { ...fresh, analysis: { checks: 1, failures: 0, lastCheckAt: ago(9), lastResult: 'Inconclusive' as const, lastWeight: 20 } };
      assert.equal(checkDue(app(checked), 20, NOW), false);
      assert.equal(planCanary(input({ analysis: analysis() }, { canary: checked }), withCanary(1, true, 20), NOW).requeueAfterMs, 6_000);
      assert.equal(checkDue(app({ ...checked, weightChangedAt: ago(30) }), 20, NOW), false, 'the last check 9 s ago');
      assert.equal(checkDue(app({ ...checked, weightChangedAt: ago(30), analysis: { ...checked.analysis, lastCheckAt: ago(10) } }), 20, NOW), true);
      // Raising the weight records when the router carries it, not when it was decided; staying
      // at it does not move the time.
      const raised = planCanary(input({ analysis: analysis() }, { canary: canary({ weight: 0, stepStartedAt: ago(3) }) }), withCanary(1, true, 0), NOW);
      assert.deepEqual([raised.canary!.weight, raised.status.canary!.weight, raised.status.canary!.weightChangedAt], [20, 20, undefined]);
      const carried = planCanary(input({ analysis: analysis() }, { canary: raised.status.canary }), withCanary(1, true, 20), new Date(NOW.getTime() + 50));
      assert.equal(carried.status.canary!.weightChangedAt, new Date(NOW.getTime() + 50).toISOString());
      const kept = planCanary(input({ analysis: analysis() }, { canary: fresh }), withCanary(1, true, 20), NOW);
      assert.equal(kept.status.canary!.weightChangedAt, ago(4));
    });

    it('no check measures a weight the router does not carry yet: its interval counts from the pass that sees it carried', () => {
      const app = (c: CanaryStatus) => defaultedAppFixture({ namespace: 'ns', spec: { image: 'web:2', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: STEPS, analysis: { interval: '10s', successRate: { min: 99 } } } }, status: { canary: c } });
      const at = (s: number) => new Date(NOW.getTime() + s * 1000);
      // Step 1 sets 20%; the router's write fails and is retried (or the Gateway has not accepted
      // the route): for 40 s the data plane keeps 0%.
      const decided = planCanary(input({ analysis: analysis() }, { canary: canary({ weight: 0, stepStartedAt: ago(1) }) }), withCanary(1, true, 0), NOW).status.canary!;
      for (const s of [10, 20, 39]) {
        const still = planCanary(input({ analysis: analysis() }, { canary: decided }), withCanary(1, true, 0), at(s));
        assert.equal(still.status.canary!.weightChangedAt, undefined);
        assert.equal(checkDue(app(still.status.canary!), 0, at(s)), false);
      }
      // A route written with weight 20 that the Gateway has not accepted yet: held, and still no check.
      const waiting = planCanary(input({ analysis: analysis() }, { canary: decided }), { ...withCanary(1, true, 20), routerReadiness: { ready: false, message: 'not accepted' } }, at(30));
      assert.equal(waiting.progressing!.reason, 'WaitingForRoute');
      assert.equal(checkDue(app(waiting.status.canary!), 20, at(30)), false, 'the router\'s spec has 20%, the data plane not yet');
      assert.ok((waiting.requeueAfterMs ?? Infinity) > 1_000, 'no busy requeue for a check that cannot be due');
      // At 40 s the router carries 20%: the first check is due a whole interval later.
      const carried = planCanary(input({ analysis: analysis() }, { canary: waiting.status.canary }), withCanary(1, true, 20), at(40));
      assert.equal(carried.status.canary!.weightChangedAt, at(40).toISOString());
      assert.equal(checkDue(app(carried.status.canary!), 20, at(45)), false);
      assert.equal(checkDue(app(carried.status.canary!), 20, at(50)), true);
      assert.equal(carried.requeueAfterMs, 10_000);
    });

    it('ignores a check of a canary that just restarted with another template', () => {
      const d = planCanary(input({ image: 'web:3', analysis: analysis({ check: check('Failed') }) }, { canary: atWeight20 }), withCanary(1, true, 20), NOW);
      assert.equal(d.status.canary!.revision, 'web:3');
      assert.equal(d.status.canary!.analysis, undefined);
    });

    it('a step at a weight the canary had before (back from 0) needs a check passed since the weight came back', () => {
      // Steps 20, 0, 20: at the third, the last check is the one that passed at the first step,
      // before the weight went to 0 (where no check runs).
      const steps = [{ setWeight: 20 }, { setWeight: 0 }, { setWeight: 20 }, { pause: {} }];
      const earlier = { checks: 1, failures: 0, lastResult: 'Passed' as const, lastWeight: 20, lastCheckAt: ago(100) };
      const back = canary({ weight: 20, weightChangedAt: ago(2), stepIndex: 2, stepStartedAt: ago(30), analysis: earlier });
      const d = planCanary(input({ steps, analysis: analysis() }, { canary: back }), withCanary(1, true, 20), NOW);
      assert.deepEqual([d.phase, d.status.canary!.stepIndex], ['CanaryStep', 2]);
      assert.match(d.progressing!.message, /waiting for a passing analysis check/);
      // A check a whole interval after the weight came back passes the step.
      const checked = canary({ ...back, weightChangedAt: ago(12), analysis: { ...earlier, checks: 2, lastCheckAt: ago(1) } });
      const done = planCanary(input({ steps, analysis: analysis() }, { canary: checked }), withCanary(1, true, 20), NOW);
      assert.deepEqual([done.phase, done.status.canary!.stepIndex], ['CanaryPaused', 3]);
    });

    it('comes back when the next check is due', () => {
      const recent = canary({ weight: 20, weightChangedAt: ago(30), stepIndex: 1, stepStartedAt: ago(5), analysis: { checks: 1, failures: 0, lastResult: 'Passed', lastWeight: 20, lastCheckAt: ago(4) } });
      const d = planCanary(input({ analysis: analysis() }, { canary: recent }), withCanary(1, true, 20), NOW);
      assert.equal(d.phase, 'CanaryPaused');
      assert.equal(d.requeueAfterMs, 6_000);
    });
  });

  it('a new pod template with the same image starts a canary too', () => {
    const d = planCanary(input({ image: 'web:1', revision: 'web:1+env' }), none, NOW);
    assert.equal(d.phase, 'CanaryStep');
    assert.equal(d.stableRevision, 'web:1');
    assert.deepEqual(d.canary, { revision: 'web:1+env', replicas: 1, weight: 0 });
    assert.equal(d.status.canary!.revision, 'web:1+env');
    assert.equal(d.events[0].reason, 'CanaryStarted');
  });

  it('the canary follows the stable replicas now, in a step and in a pause', () => {
    const step = planCanary(input({ replicas: 10 }, { canary: canary({}) }), withCanary(1, true, 0), NOW);
    assert.deepEqual(step.canary, { revision: 'web:2', replicas: 2, weight: 0 }, 'ceil(10 × 20 / 100): the 1-pod canary is resized before any traffic');
    const paused = planCanary(input({ replicas: 6 }, { canary: canary({ weight: 50, stepIndex: 3 }) }), withCanary(1, true, 50), NOW);
    assert.equal(paused.phase, 'CanaryPaused');
    assert.deepEqual(paused.canary, { revision: 'web:2', replicas: 3, weight: 50 }, 'ceil(6 × 50 / 100)');
  });

  it('a promotion keeps the canary sized for its last weight while traffic leaves it', () => {
    const promoting = canary({ weight: 50, stepIndex: 4 });
    const d = planCanary(input({}, { canary: promoting }), { ...withCanary(2, true, 50), stableDeployment: { revision: 'web:2', available: true } }, NOW);
    assert.deepEqual(d.canary, { revision: 'web:2', replicas: 2, weight: 0 });
  });

  describe('steps edited mid-rollout: the rollout goes on at the same index of the new list', () => {
    const LONG = [{ setWeight: 20 }, { pause: { duration: '1h' } }, { setWeight: 50 }, { pause: {} }];
    // 30 minutes into the 1h pause at index 1, the person removes the first step: index 1 is now setWeight 50.
    const inPause = canary({ weight: 20, weightChangedAt: ago(1900), stepIndex: 1, stepStartedAt: ago(1800) });
    const edited = LONG.slice(1);

    it('a setWeight step that comes to the current index gets its own progress deadline, not the time the pause had run', () => {
      const started = planCanary(input({ steps: LONG }, { canary: inPause }), withCanary(1, true, 20), NOW);
      assert.equal(started.phase, 'CanaryPaused');
      const d = planCanary(input({ steps: edited }, { canary: started.status.canary }), withCanary(1, true, 20), NOW);
      assert.equal(d.phase, 'CanaryStep', d.degraded?.message);
      assert.deepEqual(d.canary, { revision: 'web:2', replicas: 2, weight: 20 }, 'scaled for 50% before the weight rises');
      assert.equal(d.requeueAfterMs, 600_000, 'its deadline counts from now');
      // Scaling takes a minute: the step goes on, and its deadline is 9 minutes away.
      const later = new Date(NOW.getTime() + 60_000);
      const d2 = planCanary(input({ steps: edited }, { canary: d.status.canary }), withCanary(1, false, 20), later);
      assert.equal(d2.phase, 'CanaryStep', d2.degraded?.message);
      assert.equal(d2.requeueAfterMs, 540_000);
    });

    it('with analysis, the new setWeight step waits for its check within its own deadline', () => {
      const analysis = { intervalMs: 60_000, failureLimit: 1, noData: 'Wait' as const, available: true };
      const started = planCanary(input({ steps: LONG, analysis }, { canary: inPause }), withCanary(1, true, 20), NOW);
      const d = planCanary(input({ steps: edited, analysis }, { canary: started.status.canary }), withCanary(2, true, 20), NOW);
      assert.equal(d.canary!.weight, 50);
      const carried = planCanary(input({ steps: edited, analysis }, { canary: d.status.canary }), withCanary(2, true, 50), NOW);
      assert.equal(carried.phase, 'CanaryStep', carried.degraded?.message);
      assert.match(carried.progressing!.message, /waiting for a passing analysis check/);
    });

    it('a pause whose duration is edited keeps counting from its start', () => {
      const started = planCanary(input({ steps: LONG }, { canary: inPause }), withCanary(1, true, 20), NOW);
      const shorter = [{ setWeight: 20 }, { pause: { duration: '20m' } }, { setWeight: 50 }, { pause: {} }];
      const d = planCanary(input({ steps: shorter }, { canary: started.status.canary }), withCanary(1, true, 20), NOW);
      assert.equal(d.status.canary!.stepIndex, 2, 'the 20m pause had run 30m: done');
      const longer = [{ setWeight: 20 }, { pause: { duration: '2h' } }, { setWeight: 50 }, { pause: {} }];
      const d2 = planCanary(input({ steps: longer }, { canary: started.status.canary }), withCanary(1, true, 20), NOW);
      assert.equal(d2.requeueAfterMs, 90 * 60_000, '1h30 left of the 2h pause');
    });

    it('edited while spec.rollout.paused holds the canary: the new step\'s clock starts on resume', () => {
      const started = planCanary(input({ steps: LONG }, { canary: inPause }), withCanary(1, true, 20), NOW);
      const held = planCanary(input({ steps: LONG, paused: true }, { canary: started.status.canary }), withCanary(1, true, 20), NOW);
      const later = new Date(NOW.getTime() + 3_600_000);
      const stillHeld = planCanary(input({ steps: edited, paused: true }, { canary: held.status.canary }), withCanary(1, true, 20), later);
      const resumedAt = new Date(later.getTime() + 60_000);
      const resumed = planCanary(input({ steps: edited }, { canary: stillHeld.status.canary }), withCanary(1, true, 20), resumedAt);
      assert.equal(resumed.phase, 'CanaryStep', resumed.degraded?.message);
      assert.equal(resumed.status.canary!.stepStartedAt, resumedAt.toISOString());
      assert.equal(resumed.requeueAfterMs, 600_000);
    });

    it('cut short below the current index while spec.rollout.paused holds the canary: it holds, and promotes on resume', () => {
      const started = planCanary(input({ steps: LONG }, { canary: inPause }), withCanary(1, true, 20), NOW);
      const held = planCanary(input({ steps: LONG, paused: true }, { canary: started.status.canary }), withCanary(1, true, 20), NOW);
      const cut = [{ setWeight: 20 }];
      const still = planCanary(input({ steps: cut, paused: true }, { canary: held.status.canary }), withCanary(1, true, 20), NOW);
      assert.equal(still.phase, 'CanaryPaused', 'a paused rollout does not start its promotion');
      assert.equal(still.stableRevision, 'web:1', 'stable keeps its template');
      // The next pass reads the status that pass wrote: still held, however many passes come.
      let again = still;
      for (let i = 0; i < 3; i++) {
        again = planCanary(input({ steps: cut, paused: true }, { canary: again.status.canary }), withCanary(1, true, 20), NOW);
        assert.deepEqual([again.phase, again.stableRevision], ['CanaryPaused', 'web:1'], `pass ${i + 2} after the cut`);
      }
      assert.ok(!again.events.some((e) => e.reason === 'CanaryStep'), 'nothing reached while paused');
      const resumed = planCanary(input({ steps: cut }, { canary: again.status.canary }), withCanary(1, true, 20), NOW);
      assert.equal(resumed.phase, 'Promoting');
      assert.deepEqual(resumed.events.filter((e) => e.reason === 'CanaryStep').map((e) => e.message), ['canary of web:2 (revision web:2): now at promotion (spec.rollout.steps now end before step 2)'], 'the promotion reached is said once resumed');
      const next = planCanary(input({ steps: cut }, { canary: resumed.status.canary }), withCanary(1, true, 20), NOW);
      assert.ok(!next.events.some((e) => e.reason === 'CanaryStep'), 'and not again');
      // A promotion that had begun before the pause (the last step done) goes on while paused.
      const promoting = planCanary(input({ steps: cut }, { canary: canary({ weight: 20, weightChangedAt: ago(100), stepIndex: 0, stepStartedAt: ago(100) }) }), withCanary(1, true, 20), NOW);
      assert.equal(promoting.phase, 'Promoting');
      const pausedThen = planCanary(input({ steps: cut, paused: true }, { canary: promoting.status.canary }), withCanary(1, true, 20), NOW);
      assert.equal(pausedThen.phase, 'Promoting');
    });

    it('a status written before the step was recorded keeps the step\'s clock as it is', () => {
      const d = planCanary(input({ steps: LONG }, { canary: inPause }), withCanary(1, true, 20), NOW);
      assert.equal(d.requeueAfterMs, 30 * 60_000);
      assert.equal(d.status.canary!.stepStartedAt, ago(1800));
    });
  });

  it('steps that are already complete run through in one pass (zero pauses)', () => {
    const steps = [{ setWeight: 20 }, { pause: { duration: '0s' } }, { setWeight: 20 }];
    const d = planCanary(input({ steps }, { canary: canary({}) }), withCanary(1, true, 20), NOW);
    assert.equal(d.phase, 'Promoting');
    assert.equal(d.status.canary!.stepIndex, 3);
  });

  for (const [i, step] of STEPS.entries()) {
    it(`a restart in step ${i} (${JSON.stringify(step)}) gives the same decision from status alone`, () => {
      const status = { canary: canary({ weight: i >= 2 ? 50 : 20, stepIndex: i, stepStartedAt: ago(10) }) };
      const obs = withCanary(i >= 2 ? 2 : 1, true, i >= 2 ? 50 : 20);
      const a = planCanary(input({}, structuredClone(status)), obs, NOW);
      const b = planCanary(input({}, JSON.parse(JSON.stringify(status))), structuredClone(obs), NOW);
      assert.deepEqual(a, b);
      assert.equal(a.status.canary!.stepIndex >= i, true);
    });
  }

  describe('scaleDownDelaySeconds: the pods of a finished canary outlive its traffic', () => {
    const delayed = (over: Partial<CanaryInput> = {}, status: CanaryInput['status'] = {}) => input({ scaleDownDelaySeconds: 30, ...over }, status);
    const later = (s: number) => new Date(NOW.getTime() + s * 1000);

    it('an abort: weight 0 first, then the delay starts, the pods stay until deleteAt, then go; the time survives a restart', () => {
      const d1 = planCanary(delayed({ annotations: { 'skiff.dev/abort': 'true' } }, { canary: canary({ weight: 50, stepIndex: 1 }) }), withCanary(2, true, 50), NOW);
      assert.deepEqual([d1.canary?.weight, d1.removeCanary, d1.status.scaleDown], [0, false, undefined], 'no delay while traffic still reaches the canary');
      const d2 = planCanary(delayed({}, d1.status), withCanary(2, true, 0), NOW);
      assert.deepEqual(d2.status.scaleDown, { revision: 'web:2', deleteAt: later(30).toISOString() });
      assert.deepEqual([d2.removeCanary, d2.canary, d2.requeueAfterMs, d2.phase], [false, undefined, 30_000, 'CleaningUp']);
      // A restarted controller reads the time from status: the delay is neither repeated nor shortened.
      const d3 = planCanary(delayed({}, d2.status), withCanary(2, true, 0), later(20));
      assert.deepEqual([d3.removeCanary, d3.status.scaleDown, d3.requeueAfterMs], [false, d2.status.scaleDown, 10_000]);
      const d4 = planCanary(delayed({}, d2.status), withCanary(2, true, 0), later(30));
      assert.deepEqual([d4.removeCanary, d4.status.scaleDown], [true, d2.status.scaleDown], 'kept in status until the objects are gone');
      const d5 = planCanary(delayed({}, d4.status), none, later(31));
      assert.deepEqual([d5.phase, d5.status.scaleDown, d5.removeCanary], ['Aborted', undefined, false]);
    });

    it('a promotion keeps the canary at 0% and its pods until deleteAt, and completes once they are gone', () => {
      const promoted = { ...withCanary(2, true, 0), stableDeployment: { revision: 'web:2', available: true } };
      const d1 = planCanary(delayed({}, { canary: canary({ weight: 50, stepIndex: 4 }) }), promoted, NOW);
      assert.deepEqual([d1.phase, d1.removeCanary, d1.status.stableImage, d1.status.canary?.weight], ['Promoting', false, 'web:1', 0]);
      assert.match(d1.progressing!.message, /keeping the canary's pods until /);
      const d2 = planCanary(delayed({}, d1.status), promoted, later(30));
      assert.equal(d2.removeCanary, true);
      const d3 = planCanary(delayed({}, d2.status), { canaryObjectsExist: false, stableDeployment: { revision: 'web:2', available: true } }, later(31));
      assert.deepEqual([d3.phase, d3.status.stableImage, d3.status.scaleDown], ['Stable', 'web:2', undefined]);
    });

    it('a cancellation (the template back to stable) winds down the same way', () => {
      const d1 = planCanary(delayed({ image: 'web:1' }, { canary: canary({ weight: 50, stepIndex: 3 }) }), withCanary(2, true, 50), NOW);
      assert.deepEqual([d1.canary?.weight, d1.events[0].reason], [0, 'CanaryCancelled']);
      const d2 = planCanary(delayed({ image: 'web:1' }, d1.status), withCanary(2, true, 0), NOW);
      assert.deepEqual([d2.status.scaleDown?.revision, d2.removeCanary, d2.phase], ['web:2', false, 'CleaningUp']);
    });

    it('a new revision during the delay waits it out, then takes the canary objects over and clears the record', () => {
      const kept = { stableRevision: 'web:1', stableImage: 'web:1', abortedRevision: 'web:2', abortedImage: 'web:2', scaleDown: { revision: 'web:2', deleteAt: later(20).toISOString() } };
      const d = planCanary(delayed({ image: 'web:3' }, kept), withCanary(2, true, 0), NOW);
      assert.deepEqual([d.phase, d.canary?.revision, d.status.scaleDown, d.requeueAfterMs], ['CanaryStep', undefined, kept.scaleDown, 20_000]);
      const over = planCanary(delayed({ image: 'web:3' }, d.status), withCanary(2, true, 0), later(20));
      assert.deepEqual([over.phase, over.canary?.revision, over.canary?.weight, over.status.scaleDown], ['CanaryStep', 'web:3', 0, undefined]);
    });
  });

  describe('the weight only rises in a running step, to that step\'s weight', () => {
    it('a stale paused canary whose router weight went to 0 keeps what the pause holds; promotion and aborts never raise', () => {
      // Promoting while waiting for stable: the plan keeps the canary weight, never above the router's.
      const promoting = planCanary(input({}, { canary: canary({ weight: 50, stepIndex: 4 }) }), { ...withCanary(2, true, 20), stableDeployment: { revision: 'web:2', available: false } }, NOW);
      assert.equal(promoting.canary!.weight, 20, 'not raised from 20 to 50 while promoting');
      const step = planCanary(input({}, { canary: canary({ weight: 0, stepIndex: 0 }) }), withCanary(1, true, 0), NOW);
      assert.equal(step.canary!.weight, 20, 'a setWeight step raises to its weight');
    });
  });

  describe('a canary that loses its availability while it has traffic', () => {
    const TWO = [{ setWeight: 20 }, { pause: {} }];
    const lost = withCanary(1, false, 20);
    const paused = (c: Partial<CanaryStatus> = {}, over: Partial<CanaryInput> = {}) =>
      input({ steps: TWO, progressDeadlineSeconds: 60, ...over }, { canary: canary({ weight: 20, weightChangedAt: ago(3600), stepIndex: 1, stepStartedAt: ago(3600), step: 'pause until promoted', ...c }) });

    it('an indefinite pause holds the weight and records since when; aborts after progressDeadlineSeconds unavailable', () => {
      const first = planCanary(paused(), lost, NOW);
      assert.deepEqual([first.phase, first.canary?.weight, first.degraded, first.status.canary?.unavailableSince], ['CanaryPaused', 20, undefined, NOW.toISOString()]);
      assert.match(first.progressing!.message, /^waiting for the canary to be available again at step 2\/2 \(pause until promoted\): unavailable since 2026-11-22T10:00:00Z; aborting at 2026-11-22T10:01:00Z/);
      assert.equal(first.requeueAfterMs, 60_000, 'comes back when the deadline runs out');
      // A restarted controller reads the time from status: 59 s is within the deadline, 61 s is not.
      const at59 = planCanary(paused({ unavailableSince: ago(59) }), lost, NOW);
      assert.deepEqual([at59.phase, at59.canary?.weight, at59.degraded, at59.status.canary?.unavailableSince, at59.requeueAfterMs], ['CanaryPaused', 20, undefined, ago(59), 1_000]);
      const at61 = planCanary(paused({ unavailableSince: ago(61) }), lost, NOW);
      assert.deepEqual([at61.phase, at61.canary?.weight, at61.degraded?.reason, at61.progressing?.reason, at61.status.abortedRevision], ['Aborted', 0, 'ProgressDeadlineExceeded', 'ProgressDeadlineExceeded', 'web:2']);
      assert.match(at61.degraded!.message, /canary of web:2 \(revision web:2\) was not available for 60s at step 2\/2 \(pause until promoted\)/);
    });

    it('available again: the record is cleared, and a later loss gets the whole deadline again', () => {
      const back = planCanary(paused({ unavailableSince: ago(59) }), withCanary(1, true, 20), NOW);
      assert.equal(back.phase, 'CanaryPaused');
      assert.equal('unavailableSince' in back.status.canary!, false);
      assert.match(back.progressing!.message, /^paused at step 2\/2/);
      const again = planCanary(input({ steps: TWO, progressDeadlineSeconds: 60 }, { canary: back.status.canary }), lost, NOW);
      assert.deepEqual([again.phase, again.status.canary?.unavailableSince, again.requeueAfterMs], ['CanaryPaused', NOW.toISOString(), 60_000]);
      const promoted = planCanary(paused({ unavailableSince: ago(30) }, { annotations: { 'skiff.dev/promote': 'true' } }), lost, NOW);
      assert.deepEqual([promoted.phase, promoted.status.canary?.unavailableSince], ['Promoting', undefined], 'a promotion keeps no record it does not watch');
    });

    it('a timed pause that has elapsed does not move on while the canary is unavailable, and does once it is back', () => {
      const timed = { weight: 20, weightChangedAt: ago(3600), stepIndex: 1, stepStartedAt: ago(61), step: 'pause 60s' };
      const held = planCanary(input({ progressDeadlineSeconds: 60 }, { canary: canary({ ...timed, unavailableSince: ago(10) }) }), lost, NOW);
      assert.deepEqual([held.phase, held.status.canary?.stepIndex, held.canary?.weight, held.status.canary?.unavailableSince, held.requeueAfterMs], ['CanaryPaused', 1, 20, ago(10), 50_000]);
      assert.match(held.progressing!.message, /waiting for the canary to be available again at step 2\/4 \(pause 60s\)/);
      const on = planCanary(input({ progressDeadlineSeconds: 60 }, { canary: canary({ ...timed, unavailableSince: ago(10) }) }), withCanary(1, true, 20), NOW);
      assert.deepEqual([on.phase, on.status.canary?.stepIndex, on.status.canary?.unavailableSince], ['CanaryStep', 2, undefined]);
    });

    it('a setWeight step whose canary already has traffic waits for it the same way; one coming up at 0% does not change', () => {
      const rising = canary({ weight: 20, weightChangedAt: ago(100), stepIndex: 2, stepStartedAt: ago(10), step: 'setWeight 50%' });
      const d = planCanary(input({ progressDeadlineSeconds: 60 }, { canary: rising }), withCanary(2, false, 20), NOW);
      assert.deepEqual([d.phase, d.canary?.weight, d.status.canary?.unavailableSince, d.requeueAfterMs], ['CanaryStep', 20, NOW.toISOString(), 50_000], 'the step deadline comes first');
      assert.match(d.progressing!.message, /waiting for the canary to be available again at step 3\/4 \(setWeight 50%\)/);
      const gone = planCanary(input({ progressDeadlineSeconds: 60 }, { canary: { ...rising, stepStartedAt: ago(30), unavailableSince: ago(61) } }), withCanary(2, false, 20), NOW);
      assert.deepEqual([gone.phase, gone.degraded?.reason, gone.canary?.weight], ['Aborted', 'ProgressDeadlineExceeded', 0]);
      const comingUp = planCanary(input({ progressDeadlineSeconds: 60 }, { canary: canary({ stepStartedAt: ago(10) }) }), withCanary(1, false, 0), NOW);
      assert.deepEqual([comingUp.phase, comingUp.canary?.weight, comingUp.status.canary?.unavailableSince, comingUp.requeueAfterMs], ['CanaryStep', 0, undefined, 50_000]);
      assert.match(comingUp.progressing!.message, /^waiting for the canary to be available at step 1\/4/);
    });

    it('spec.rollout.paused stops the clock: no abort while paused, and on resume the time paused does not count', () => {
      const held = planCanary(paused({ unavailableSince: ago(3000), pausedAt: ago(2000) }, { paused: true }), lost, NOW);
      assert.deepEqual([held.phase, held.degraded, held.canary?.weight, held.status.canary?.unavailableSince], ['CanaryPaused', undefined, 20, ago(3000)]);
      const resumed = planCanary(paused({ unavailableSince: ago(3000), pausedAt: ago(2970) }), lost, NOW);
      assert.deepEqual([resumed.phase, resumed.degraded, resumed.status.canary?.unavailableSince, resumed.requeueAfterMs], ['CanaryPaused', undefined, ago(30), 30_000]);
    });
  });
});
