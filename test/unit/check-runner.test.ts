// Analysis checks outside the reconcile workers: a bounded number at a time, one per App, and a
// completed check held until the status has counted it. Prometheus is a stand-in whose answers
// the test releases one by one.
import { strict as assert } from 'node:assert';
import { CheckRunner } from '../../controller/analysis/runner.js';
import type { QueryOutcome } from '../../controller/analysis/types.js';
import { testLogger } from '../support/apps.js';
import { defaultedAppFixture } from '../support/app-fixture.js';

/** An App of namespace ns in the first step of a canary with analysis. */
const app = (name: string) => defaultedAppFixture({
  name, namespace: 'ns',
  spec: { image: 'web:2', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', analysis: { interval: '10s', successRate: { min: 99 } } } },
  status: { canary: { image: 'web:2', revision: 'r2', weight: 20, stepIndex: 0, stepStartedAt: '2026-11-22T10:00:00Z' } },
});

/** A Prometheus whose queries wait until the test answers them. */
function heldPrometheus() {
  const pending: { query: string; answer: (o: QueryOutcome) => void }[] = [];
  return {
    pending,
    client: { url: 'http://prometheus.test', query: (_url: string, query: string) => new Promise<QueryOutcome>((answer) => pending.push({ query, answer })) },
    answerAll: (o: QueryOutcome) => pending.splice(0).forEach((p) => p.answer(o)),
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('analysis checks outside the reconcile workers', () => {
  it('runs at most `concurrency` checks at once; the others wait for a slot', async () => {
    const prom = heldPrometheus();
    const done: string[] = [];
    const runner = new CheckRunner({ prometheus: prom.client, concurrency: 2, onDone: (k) => done.push(k), log: testLogger('controller') });
    for (const n of ['a', 'b', 'c', 'd']) runner.start(`ns/${n}`, app(n), 20);
    await tick();
    const apps = () => new Set(prom.pending.map((p) => /ingress="([a-z])"/.exec(p.query)?.[1]));
    assert.deepEqual([...apps()].sort(), ['a', 'b'], 'two Apps query, two wait');
    assert.equal(runner.inFlight, 4);
    prom.answerAll({ ok: true, value: 100 });
    await tick(); await tick();
    assert.deepEqual(done.sort(), ['ns/a', 'ns/b']);
    assert.deepEqual([...apps()].sort(), ['c', 'd'], 'the waiting ones take the freed slots');
    prom.answerAll({ ok: true, value: 100 });
    await tick(); await tick();
    assert.deepEqual(done.sort(), ['ns/a', 'ns/b', 'ns/c', 'ns/d']);
    assert.equal(runner.inFlight, 0);
  });

  it('one check per App: a second start while one is running or unrecorded does nothing; settle frees the App', async () => {
    const prom = heldPrometheus();
    const runner = new CheckRunner({ prometheus: prom.client, onDone: () => {}, log: testLogger('controller'), now: () => new Date('2026-11-22T10:00:10.250Z') });
    runner.start('ns/a', app('a'), 20);
    runner.start('ns/a', app('a'), 20);
    await tick();
    const queries = prom.pending.length;
    assert.ok(queries > 0);
    runner.start('ns/a', app('a'), 20);
    await tick();
    assert.equal(prom.pending.length, queries, 'no second check while one runs');
    prom.answerAll({ ok: true, value: 90 });
    await tick(); await tick();
    const check = runner.completed('ns/a');
    assert.deepEqual([check?.result.result, check?.weight, check?.revision, check?.at], ['Failed', 20, 'r2', '2026-11-22T10:00:10.250Z']);
    // A status write failed: the same check is still there for the next pass.
    runner.start('ns/a', app('a'), 20);
    await tick();
    assert.equal(prom.pending.length, 0, 'no new check while the last one is not recorded');
    assert.equal(runner.completed('ns/a'), check);
    runner.settle('ns/a', check!);
    assert.equal(runner.busy('ns/a'), false);
    runner.start('ns/a', app('a'), 20);
    await tick();
    assert.ok(prom.pending.length > 0, 'the next check runs once the last is recorded');
  });

  it('a check of an App deleted meanwhile is dropped when it completes', async () => {
    const prom = heldPrometheus();
    const done: string[] = [];
    const runner = new CheckRunner({ prometheus: prom.client, onDone: (k) => done.push(k), log: testLogger('controller') });
    runner.start('ns/a', app('a'), 20);
    await tick();
    runner.forget('ns/a');
    prom.answerAll({ ok: true, value: 100 });
    await tick(); await tick();
    assert.deepEqual(done, []);
    assert.equal(runner.completed('ns/a'), undefined);
  });

  it('an App deleted while its check runs: its queries in flight are cancelled, no more are sent, and its slot goes to the next check at once', async () => {
    // Queries that answer only when cancelled, as a Prometheus busy with a heavy query would not for 10 s each.
    const sent: { app: string; signal?: AbortSignal }[] = [];
    const outcomes: QueryOutcome[] = [];
    const client = {
      url: 'http://prometheus.test',
      query: (_url: string, query: string, _time?: Date, signal?: AbortSignal) => {
        sent.push({ app: /ingress="([a-z])"/.exec(query)?.[1] ?? '?', signal });
        return new Promise<QueryOutcome>((answer) => signal?.addEventListener('abort', () => answer({ ok: false, reason: 'error', message: 'cancelled' })));
      },
    };
    const many = (name: string) => {
      const a = app(name);
      a.spec.rollout.analysis = { ...a.spec.rollout.analysis!, metrics: Array.from({ length: 10 }, (_, i) => ({ name: `m${i}`, query: 'sum(x)', max: 1 })) };
      return a;
    };
    const runner = new CheckRunner({ prometheus: client, concurrency: 1, onDone: () => {}, onCheck: (r) => outcomes.push(...r.metrics.map(() => ({ ok: true, value: 0 }) as QueryOutcome)), log: testLogger('controller') });
    runner.start('ns/a', many('a'), 20);
    runner.start('ns/b', app('b'), 20);
    await tick();
    assert.deepEqual(sent.map((q) => q.app), ['a', 'a'], 'a holds the one slot, two queries at a time');
    runner.forget('ns/a');
    await tick(); await tick(); await tick();
    assert.ok(sent.slice(0, 2).every((q) => q.signal?.aborted), 'the queries in flight are cancelled');
    assert.equal(sent.filter((q) => q.app === 'a').length, 2, 'none of its other eleven queries is sent');
    assert.ok(sent.some((q) => q.app === 'b'), 'b\'s check has the slot');
    assert.deepEqual(outcomes, [], 'a cancelled check counts no outcome');
  });

  it('an App deleted while its check waits for a slot asks nothing, and one created again under its name gets its own check', async () => {
    const prom = heldPrometheus();
    const done: string[] = [];
    const runner = new CheckRunner({ prometheus: prom.client, concurrency: 1, onDone: (k) => done.push(k), log: testLogger('controller') });
    const old = app('a');
    old.metadata.uid = 'uid-old';
    runner.start('ns/b', app('b'), 20); // takes the one slot
    runner.start('ns/a', old, 20); // waits
    await tick();
    runner.forget('ns/a');
    const created = app('a');
    created.metadata.uid = 'uid-new';
    created.status!.canary!.weight = 50;
    runner.start('ns/a', created, 50); // waits too
    prom.answerAll({ ok: true, value: 100 });
    await tick(); await tick();
    // The deleted App's turn came first: it asked nothing, and the created one ran.
    assert.deepEqual(prom.pending.map((p) => /ingress="([a-z])"/.exec(p.query)?.[1]).filter((n) => n !== undefined).every((n) => n === 'a'), true);
    const asked = prom.pending.length;
    assert.ok(asked > 0);
    prom.answerAll({ ok: true, value: 90 });
    await tick(); await tick();
    const check = runner.completed('ns/a');
    assert.deepEqual([check?.uid, check?.weight, check?.result.result], ['uid-new', 50, 'Failed']);
    assert.deepEqual(done, ['ns/b', 'ns/a']);
  });

  it('a check sends two queries at a time, however many metrics it has', async () => {
    const prom = heldPrometheus();
    const many = app('a');
    many.spec.rollout.analysis!.metrics = Array.from({ length: 10 }, (_, i) => ({ name: `m${i}`, query: `sum(up{job="j${i}"})`, max: 1 }));
    const runner = new CheckRunner({ prometheus: prom.client, onDone: () => {}, log: testLogger('controller') });
    runner.start('ns/a', many, 20);
    let asked = 0;
    for (let i = 0; i < 20 && runner.completed('ns/a') === undefined; i++) {
      await tick();
      assert.ok(prom.pending.length <= 2, `${prom.pending.length} queries at once`);
      asked += prom.pending.length;
      prom.answerAll({ ok: true, value: 1 });
      await tick();
    }
    assert.equal(asked, 12, 'the request count (minRequests), the successRate and the 10 metrics');
    assert.equal(runner.completed('ns/a')?.result.metrics.length, 12);
  });

  it('slots go round the namespaces: a namespace with many checks waiting does not keep another\'s behind all of them', async () => {
    const prom = heldPrometheus();
    const order: string[] = [];
    const runner = new CheckRunner({ prometheus: prom.client, concurrency: 1, onDone: (k) => order.push(k), log: testLogger('controller') });
    const inNs = (ns: string, name: string) => {
      const a = app(name);
      a.metadata.namespace = ns;
      return a;
    };
    for (const name of ['a', 'b', 'c', 'd']) runner.start(`busy/${name}`, inNs('busy', name), 20);
    runner.start('quiet/e', inNs('quiet', 'e'), 20);
    runner.start('busy/f', inNs('busy', 'f'), 20);
    for (let i = 0; i < 40 && order.length < 6; i++) {
      await tick();
      prom.answerAll({ ok: true, value: 100 });
      await tick();
    }
    assert.deepEqual(order, ['busy/a', 'busy/b', 'quiet/e', 'busy/c', 'busy/d', 'busy/f']);
  });

  it('a check that waits for a slot is evaluated and recorded at the time it was started, not when its slot came', async () => {
    const prom = heldPrometheus();
    const times: (string | undefined)[] = [];
    const client = { url: prom.client.url, query: (url: string, query: string, time?: Date) => {
      if (query.includes('ingress="a"')) times.push(time?.toISOString());
      return prom.client.query(url, query);
    } };
    let now = new Date('2026-11-22T10:00:10.000Z');
    const runner = new CheckRunner({ prometheus: client, concurrency: 1, onDone: () => {}, log: testLogger('controller'), now: () => now });
    runner.start('ns/b', app('b'), 20); // takes the one slot
    runner.start('ns/a', app('a'), 20); // started at 10:00:10 at weight 20, waits
    await tick();
    // The weight may change while it waits; its slot comes 30 s later.
    now = new Date('2026-11-22T10:00:40.000Z');
    for (let i = 0; i < 20 && runner.completed('ns/a') === undefined; i++) {
      prom.answerAll({ ok: true, value: 100 });
      await tick();
    }
    assert.ok(times.length > 0, 'a asked Prometheus');
    assert.deepEqual(new Set(times), new Set(['2026-11-22T10:00:10.000Z']), 'the window ends when the check was started at weight 20');
    assert.equal(runner.completed('ns/a')?.at, '2026-11-22T10:00:10.000Z');
  });

  it('every query of a check is evaluated at the check\'s time, however long it waited for its turn', async () => {
    const times: (string | undefined)[] = [];
    let answered = 0;
    const prometheus = {
      url: 'http://prometheus.test',
      // Each answer takes a while: the last queries of the check are sent well after the first.
      query: (_url: string, _query: string, time?: Date) => {
        times.push(time?.toISOString());
        return new Promise<QueryOutcome>((r) => setTimeout(() => r({ ok: true, value: 100 + answered++ }), 5));
      },
    };
    const runner = new CheckRunner({ prometheus, onDone: () => {}, log: testLogger('controller'), now: () => new Date('2026-11-22T10:00:10.250Z') });
    const many = defaultedAppFixture({
      name: 'm', namespace: 'ns',
      spec: { image: 'web:2', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', analysis: { interval: '10s', successRate: { min: 99, maxDropFromStable: 1 }, latency: { maxMs: 500 } } } },
      status: { canary: { image: 'web:2', revision: 'r2', weight: 20, stepIndex: 0, stepStartedAt: '2026-11-22T10:00:00Z' } },
    });
    runner.start('ns/m', many, 20);
    while (!runner.completed('ns/m')) await new Promise((r) => setTimeout(r, 5));
    assert.equal(runner.completed('ns/m')!.at, '2026-11-22T10:00:10.250Z');
    assert.equal(times.length, 4);
    assert.deepEqual(new Set(times), new Set(['2026-11-22T10:00:10.250Z']));
  });
});
