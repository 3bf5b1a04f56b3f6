// Analysis checks counted through reconcile() with the controller's own CheckRunner, over the fake
// cluster (docs/api.md, "Traffic safety": checks count right). Prometheus is a stand-in whose
// canary answers 70% success, so that every check fails.
import { strict as assert } from 'node:assert';
import { CheckRunner, type CheckRunnerOptions } from '../../controller/analysis/runner.js';
import type { PrometheusClient } from '../../controller/analysis/check.js';
import type { AppSpec } from '../../shared/app-types.js';
import { defaulted } from '../../shared/defaults.js';
import { apiError } from '../support/fake-cluster.js';
import { condition, testLogger } from '../support/apps.js';
import { containerImageOf, KEY, markAvailable, NS, setup, weightOf } from '../support/reconciler.js';

const INTERVAL_MS = 10_000;

/** Lets a check that was started run to its end (the stand-in Prometheus answers at once). */
const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

type Setup = ReturnType<typeof setup>;

/**
 * The controller's CheckRunner over `query` (a stand-in Prometheus) for the setup's App, and a
 * pass that lets each check it starts run to its end; `ran` counts the checks that completed.
 */
function withChecks(s: Setup, query: PrometheusClient['query'], options: Partial<CheckRunnerOptions> = {}) {
  let ran = 0;
  s.deps.checks = new CheckRunner({
    prometheus: { url: 'http://prometheus.test', query },
    onDone: () => undefined,
    onCheck: () => void ran++,
    log: testLogger('checks'),
    now: () => s.deps.now!(),
    ...options,
  });
  const run = async () => {
    const outcome = await s.run();
    await settle();
    return outcome;
  };
  return { run, ran: () => ran, checks: s.deps.checks };
}

/** web:1 made available, then web:2 with its canary Deployment available, each change followed by a pass of run. */
async function startCanary(s: Setup, run: () => Promise<unknown>) {
  await run();
  markAvailable(s.cluster, 'web');
  await run();
  s.setSpec((x) => ({ ...x, image: 'web:2' }));
  await run();
  markAvailable(s.cluster, 'web-canary');
  await run();
}

/** startCanary, then weight 50 in force, its first check run and passed: the timed pause has begun. */
async function pausedAfterFirstCheck(s: Setup, run: () => Promise<unknown>) {
  await startCanary(s, run);
  s.later(1_000);
  await run(); // 50% in force
  s.later(INTERVAL_MS);
  await run(); // the first check at 50 runs
  await run(); // it passed: the timed pause starts
  assert.equal(s.app().status?.canary?.step, 'pause 12s');
}

/** A canary at weight 50, then a 12 s pause, checked every 10 s against a 95 % success rate. */
const canaryAt50 = ({ scaleDownDelaySeconds, failureLimit }: { scaleDownDelaySeconds: number; failureLimit: number }): AppSpec => ({
  image: 'web:1', replicas: 2, ingress: { host: 'web.example.com' },
  rollout: {
    strategy: 'Canary', scaleDownDelaySeconds, steps: [{ setWeight: 50 }, { pause: { duration: '12s' } }],
    analysis: { interval: '10s', failureLimit, minRequests: 5, successRate: { min: 95 } },
  },
});

/** The canary: weight 50, then a 12 s pause; failureLimit 1; every check fails. */
async function failingCanaryAt50() {
  const s = setup(canaryAt50({ scaleDownDelaySeconds: 30, failureLimit: 1 }), { readYourWrites: true });
  const { run, ran } = withChecks(s, async () => ({ ok: true, value: 70 }));
  await startCanary(s, run);
  assert.equal(weightOf(s.cluster), '50');
  // The pass that sees the router carry 50 puts it in force.
  s.later(1_000);
  await run();
  const risenAt = s.app().status?.canary?.weightChangedAt;
  assert.ok(risenAt, 'weight 50 in force');
  return { ...s, run, ran, risenAt: Date.parse(risenAt) };
}

describe('analysis checks counted through the reconciler', () => {
  it('failureLimit 1: no check before a whole interval at the weight, one failure counted, the abort at exactly the second', async () => {
    const s = await failingCanaryAt50();
    s.later(INTERVAL_MS - 1);
    await s.run();
    assert.equal(s.ran(), 0, 'no check before the weight has been in force for a whole interval');
    s.later(1);
    await s.run(); // starts the first check
    await s.run(); // counts it
    const analysis = s.app().status?.canary?.analysis;
    assert.deepEqual([analysis?.checks, analysis?.failures], [1, 1]);
    assert.ok(Date.parse(analysis!.lastCheckAt!) - s.risenAt >= INTERVAL_MS, 'the first check a whole interval after the weight rose');
    assert.equal(weightOf(s.cluster), '50', 'one failure is within failureLimit 1');
    s.later(INTERVAL_MS);
    await s.run();
    await s.run();
    assert.equal(condition(s.app(), 'Degraded')?.reason, 'AnalysisFailed');
    assert.match(condition(s.app(), 'Degraded')!.message, /failed 2 checks \(failureLimit 1\)/);
    assert.equal(weightOf(s.cluster), '0', 'weight 0 first');
    for (let i = 0; i < 5; i++) {
      s.later(INTERVAL_MS);
      await s.run();
    }
    assert.equal(s.ran(), 2, 'exactly two checks ran');
  });

  it('failureLimit lowered below the failures counted aborts in the next pass, without waiting for (or running) another check', async () => {
    const s = await failingCanaryAt50();
    s.later(INTERVAL_MS);
    await s.run();
    await s.run();
    assert.deepEqual([s.app().status?.canary?.analysis?.failures, weightOf(s.cluster)], [1, '50']);
    s.setSpec((x) => ({ ...x, rollout: { ...x.rollout!, analysis: { ...x.rollout!.analysis!, failureLimit: 0 } } }));
    await s.run();
    assert.equal(condition(s.app(), 'Degraded')?.reason, 'AnalysisFailed');
    assert.match(condition(s.app(), 'Degraded')!.message, /failed 1 check, more than spec\.rollout\.analysis\.failureLimit \(0\) now allows/);
    assert.equal(weightOf(s.cluster), '0', 'weight 0 first');
    assert.equal(s.ran(), 1, 'no other check ran');
  });

  it('a check whose status write failed is counted by the next pass: once, never lost and never run again', async () => {
    const s = await failingCanaryAt50();
    s.later(INTERVAL_MS);
    await s.run(); // starts the first check
    assert.equal(s.ran(), 1);
    // The pass that counts it cannot write the status (the App changed meanwhile).
    s.cluster.beforeWrite = (w) => {
      if (w.verb === 'status') throw apiError(409, 'the object has been modified');
    };
    await assert.rejects(s.run());
    s.cluster.beforeWrite = () => {};
    assert.equal(s.app().status?.canary?.analysis, undefined, 'not counted yet');
    await s.run();
    await s.run();
    const analysis = s.app().status?.canary?.analysis;
    assert.deepEqual([analysis?.checks, analysis?.failures], [1, 1], 'counted once by the pass after');
    assert.equal(s.ran(), 1, 'the check was not run again');
  });

  it('a check of an aborted canary still running when it is retried is not counted against the new attempt', async () => {
    const spec: AppSpec = {
      image: 'web:1', replicas: 2, ingress: { host: 'web.example.com' },
      rollout: {
        strategy: 'Canary', scaleDownDelaySeconds: 0, steps: [{ setWeight: 50 }, { pause: {} }],
        analysis: { interval: '10s', failureLimit: 0, minRequests: 5, successRate: { min: 95 } },
      },
    };
    const s = setup(spec, { readYourWrites: true });
    // The aborted attempt's pods fail; the queries of its check hang until the test answers them.
    const held: (() => void)[] = [];
    const { run, ran, checks } = withChecks(s, () => new Promise((r) => held.push(() => r({ ok: true, value: 70 }))));
    const annotate = (annotations: Record<string, string>) => s.cluster.put({ ...s.app(), metadata: { ...s.app().metadata, annotations: { ...s.app().metadata.annotations, ...annotations } } });
    await startCanary(s, run);
    s.later(1_000);
    await run(); // 50% in force
    s.later(INTERVAL_MS);
    await run(); // a check starts, and hangs
    assert.equal(checks.busy(KEY), true);
    annotate({ 'skiff.dev/abort': 'true' });
    await run();
    assert.equal(condition(s.app(), 'Degraded')?.reason, 'RolloutAborted');
    for (let i = 0; i < 3 && s.cluster.get('Deployment', 'shop', 'web-canary'); i++) await run();
    annotate({ 'skiff.dev/retry': 'true' });
    await run();
    assert.equal(s.app().status?.abortedRevision, undefined, 'retried');
    markAvailable(s.cluster, 'web-canary');
    await run();
    // The aborted attempt's check completes now, failed: cancelled by the retry, it is not even counted.
    assert.ok(held.length > 0, 'its queries were sent');
    held.splice(0).forEach((answer) => answer());
    await settle();
    assert.equal(ran(), 0);
    await run();
    await run();
    const canary = s.app().status?.canary;
    assert.equal(condition(s.app(), 'Degraded')?.status, 'False', `the retried canary goes on (${condition(s.app(), 'Degraded')?.message})`);
    assert.equal(canary?.analysis?.checks ?? 0, 0, 'no check of the retried canary has run yet');
    assert.equal(weightOf(s.cluster), '50');
  });

  it('blue-green: a check under full traffic still running when the delay ends is counted before the old pods go; failed, it switches back', async () => {
    const spec: AppSpec = {
      image: 'web:1', replicas: 2, ingress: { host: 'web.example.com' },
      rollout: {
        strategy: 'BlueGreen', scaleDownDelaySeconds: 15, blueGreen: { previewHost: 'preview.web.example.com' },
        analysis: { interval: '10s', failureLimit: 0, minRequests: 5, successRate: { min: 95 } },
      },
    };
    const s = setup(spec, { readYourWrites: true });
    // The preview is healthy; under full traffic the new revision fails, and that check's queries
    // hang until the test answers them.
    let hang = false;
    const held: (() => void)[] = [];
    const { run, checks } = withChecks(s, () => (hang ? new Promise((r) => held.push(() => r({ ok: true, value: 70 }))) : Promise.resolve({ ok: true, value: 100 })));
    await run();
    markAvailable(s.cluster, 'web');
    await run();
    s.setSpec((x) => ({ ...x, image: 'web:2' }));
    await run();
    markAvailable(s.cluster, 'web-preview');
    await run(); // the preview is ready
    s.later(INTERVAL_MS);
    await run(); // its check runs, and passes
    await run(); // counted: the switch
    assert.equal(s.app().status?.blueGreen?.phase, 'Switched');
    hang = true;
    s.later(INTERVAL_MS);
    await run(); // the check under full traffic starts, and hangs
    assert.equal(checks.busy(KEY), true);
    s.later(6_000); // the delay is over
    await run();
    await run();
    const b = s.app().status?.blueGreen;
    assert.deepEqual([b?.phase, s.app().status?.stableRevision === b?.previewRevision], ['Switched', false], 'the old pods stay while the check runs');
    held.splice(0).forEach((answer) => answer());
    await settle();
    await run();
    assert.equal(condition(s.app(), 'Degraded')?.reason, 'AnalysisFailed');
    assert.deepEqual([s.app().status?.blueGreen?.phase, s.app().status?.blueGreen?.activeRevision === s.app().status?.stableRevision], ['ScalingDown', true], 'switched back to stable');
  });

  it('canary: a check still running when the promotion reaches its end is counted before the canary is stable; failed, stable goes back', async () => {
    const s = setup(canaryAt50({ scaleDownDelaySeconds: 0, failureLimit: 0 }), { readYourWrites: true });
    // The first check passes; the second measures a failing canary, and its queries hang until the
    // test answers them.
    let hang = false;
    const held: (() => void)[] = [];
    const { run, checks } = withChecks(s, () => (hang ? new Promise((r) => held.push(() => r({ ok: true, value: 70 }))) : Promise.resolve({ ok: true, value: 100 })));
    await pausedAfterFirstCheck(s, run);
    hang = true;
    s.later(INTERVAL_MS);
    await run(); // the second check at 50 starts, and hangs
    assert.equal(checks.busy(KEY), true);
    s.later(2_000); // the pause is over: the promotion
    for (let i = 0; i < 6 && s.cluster.get('Deployment', NS, 'web-canary'); i++) {
      markAvailable(s.cluster, 'web');
      await run();
    }
    await run(); // the canary objects are gone: the promotion's end
    assert.equal(containerImageOf(s.cluster, 'web'), 'web:2', 'the stable Deployment runs the canary\'s revision');
    assert.equal(s.cluster.get('Deployment', NS, 'web-canary'), undefined, 'the canary objects are gone (no delay)');
    assert.ok(s.app().status?.canary, `not stable while the check runs (${condition(s.app(), 'Progressing')?.message})`);
    assert.match(condition(s.app(), 'Progressing')!.message, /analysis check .* running/);
    assert.deepEqual(s.cluster.events.filter((e) => e.reason === 'CanaryComplete'), []);
    held.splice(0).forEach((answer) => answer());
    await settle();
    await run();
    assert.equal(condition(s.app(), 'Degraded')?.reason, 'AnalysisFailed');
    markAvailable(s.cluster, 'web');
    await run();
    assert.equal(containerImageOf(s.cluster, 'web'), 'web:1', 'stable goes back to the revision it ran');
    assert.deepEqual(s.cluster.events.filter((e) => e.reason === 'CanaryComplete'), []);
  });

  it('a check queued behind --analysis-concurrency measures the weight it was started at, even when its slot comes after the weight rose', async () => {
    const spec: AppSpec = {
      image: 'web:1', replicas: 2, ingress: { host: 'web.example.com' },
      rollout: {
        strategy: 'Canary', scaleDownDelaySeconds: 30, steps: [{ setWeight: 50 }, { pause: { duration: '12s' } }, { setWeight: 80 }],
        analysis: { interval: '10s', failureLimit: 0, minRequests: 5, noData: 'Fail', successRate: { min: 95 } },
      },
    };
    const s = setup(spec, { readYourWrites: true });
    // Traffic at 50% is healthy; from the moment the router carries 80%, the canary fails.
    let failingFrom = Infinity;
    // Another namespace's check holds the one slot until the test releases it.
    const held: (() => void)[] = [];
    const { run, checks } = withChecks(s, async (_url, query, time) => {
      if (query.includes('ingress="other"')) return new Promise((r) => held.push(() => r({ ok: true, value: 100 })));
      return { ok: true, value: (time?.getTime() ?? Infinity) >= failingFrom ? 70 : 100 };
    }, { concurrency: 1 });
    await pausedAfterFirstCheck(s, run);
    const other = s.app();
    checks.start('elsewhere/other', defaulted({ ...other, metadata: { ...other.metadata, name: 'other', namespace: 'elsewhere' } }), 50);
    await settle();
    s.later(INTERVAL_MS);
    await run(); // the second check at 50 is started, and waits for the slot
    const startedAt = s.deps.now!().toISOString();
    assert.equal(checks.busy(KEY), true);
    s.later(2_000);
    await run(); // the pause is over: 80% decided
    markAvailable(s.cluster, 'web-canary');
    await run();
    await run();
    assert.equal(weightOf(s.cluster), '80');
    failingFrom = Date.parse(s.app().status!.canary!.weightChangedAt!);
    s.later(1_000);
    held.splice(0).forEach((answer) => answer()); // the slot comes free: the queued check runs now
    await settle();
    await run(); // counts it
    const canary = s.app().status?.canary;
    assert.ok(canary, `the canary goes on (${condition(s.app(), 'Degraded')?.message})`);
    assert.deepEqual(
      [canary.analysis?.checks, canary.analysis?.failures, canary.analysis?.lastResult, canary.analysis?.lastWeight, canary.analysis?.lastCheckAt],
      [2, 0, 'Passed', 50, startedAt],
      'recorded at 50 and measured while 50 was in force',
    );
    assert.equal(weightOf(s.cluster), '80');
    assert.match(condition(s.app(), 'Progressing')!.message, /no check at this weight yet/, 'a check at 50 completes no step at 80');
  });
});
