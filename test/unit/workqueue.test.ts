import { strict as assert } from 'node:assert';
import { WorkQueue } from '../../controller/runtime/workqueue.js';
import { ExponentialBackoff, MaxOf, NamespaceBuckets, TokenBucket, defaultRateLimiter } from '../../controller/runtime/rate-limiter.js';
import { MAX_TIMER_DELAY_MS } from '../../controller/runtime/timer-delay.js';
import { ManualClock } from '../support/manual-clock.js';
import { FAILED_PASS_MIN_REQUEUE_MS, runWorker } from '../../controller/runtime/worker.js';
import { createMetrics } from '../../controller/runtime/metrics.js';
import { eventually } from '../../dev/wait.js';
import { testLogger } from '../support/apps.js';

const tick = () => new Promise((r) => setImmediate(r));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A get() whose result can be looked at without waiting. */
function pendingGet(q: WorkQueue) {
  const p = { key: undefined as string | undefined, settled: false, promise: undefined as unknown as Promise<string | undefined> };
  p.promise = q.get().then((k) => { p.key = k; p.settled = true; return k; });
  return p;
}

describe('work queue', () => {
  it('hands out keys in order and de-duplicates waiting keys', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.length, 2);
    assert.equal(await q.get(), 'a');
    assert.equal(await q.get(), 'b');
    assert.equal(q.length, 0);
  });

  it('hands out keys in turns by namespace: a tenant\'s burst of 500 keys holds another namespace\'s key up by one of its keys, not by all', async () => {
    const q = new WorkQueue();
    for (let i = 0; i < 500; i++) q.add(`busy/app-${i}`);
    q.add('quiet/probe');
    q.add('other/a');
    q.add('other/b');
    const order: string[] = [];
    for (let i = 0; i < 7; i++) order.push((await q.get())!);
    assert.deepEqual(order, ['busy/app-0', 'quiet/probe', 'other/a', 'busy/app-1', 'other/b', 'busy/app-2', 'busy/app-3']);
    assert.equal(q.length, 496);
    // First in, first out within a namespace, and a key re-added while processed joins its namespace's turn again.
    q.add('busy/app-0');
    q.done('busy/app-0');
    q.add('quiet/late');
    const rest: string[] = [];
    while (q.length > 0) rest.push((await q.get())!);
    assert.deepEqual(rest.slice(0, 3), ['busy/app-4', 'quiet/late', 'busy/app-5']);
    assert.equal(rest.at(-1), 'busy/app-0');
    assert.equal(rest.length, 498);
  });

  it('never hands a key to two workers at once; a key added while processing comes back after done', async () => {
    const q = new WorkQueue();
    q.add('a');
    const first = await q.get();
    assert.equal(first, 'a');
    q.add('a');
    q.add('a');
    const second = pendingGet(q);
    await sleep(20);
    assert.equal(second.settled, false, 'a is being processed: nobody else gets it');
    q.done('a');
    assert.equal(await second.promise, 'a', 'queued once more after done');
    q.done('a');
    const third = pendingGet(q);
    await sleep(20);
    assert.equal(third.settled, false, 'added twice while processing, queued once');
    await q.shutDown();
    assert.equal(await third.promise, undefined);
  });

  it('with concurrent workers, processes each key by one worker at a time', async () => {
    const q = new WorkQueue();
    const active = new Set<string>();
    let overlaps = 0;
    let processed = 0;
    const worker = async () => {
      for (;;) {
        const key = await q.get();
        if (key === undefined) return;
        if (active.has(key)) overlaps++;
        active.add(key);
        await sleep(1);
        active.delete(key);
        processed++;
        q.done(key);
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    for (let i = 0; i < 200; i++) {
      q.add(`k${i % 3}`);
      if (i % 10 === 0) await sleep(1);
    }
    // Drained: nothing waiting and no worker holding a key.
    while (q.length > 0 || active.size > 0) await sleep(2);
    await q.shutDown();
    await Promise.all(workers);
    assert.equal(overlaps, 0);
    assert.ok(processed >= 3 && processed < 200, `coalesced: ${processed} reconciles for 200 adds`);
  });

  it('wakes a waiting worker when a key is added', async () => {
    const q = new WorkQueue();
    const next = q.get();
    await tick();
    q.add('x');
    assert.equal(await next, 'x');
  });

  it('addAfter delays a key; the earliest of several delays wins', async () => {
    const q = new WorkQueue();
    const start = Date.now();
    q.addAfter('a', 200);
    q.addAfter('a', 40);
    q.addAfter('a', 300);
    assert.equal(await q.get(), 'a');
    const waited = Date.now() - start;
    assert.ok(waited >= 35 && waited < 180, `waited ${waited}ms`);
    q.done('a');
    const later = pendingGet(q);
    await sleep(250);
    assert.equal(later.settled, false, 'the later timers were dropped');
    await q.shutDown();
  });

  it('keeps the earliest addAfter when the wall clock steps back between two (delays are measured on the monotonic clock)', async () => {
    const q = new WorkQueue();
    const wallNow = Date.now;
    try {
      q.addAfter('a', 50);
      // NTP (or an operator) sets the clock back an hour: a pause that asks to come back in 30
      // minutes must not replace the timer that fires in 50 ms.
      Date.now = () => wallNow() - 3_600_000;
      q.addAfter('a', 1_800_000);
    } finally {
      Date.now = wallNow;
    }
    const next = pendingGet(q);
    await sleep(300);
    assert.equal(next.key, 'a', 'the key came after 50 ms, not half an hour');
    q.done('a');
    await q.shutDown();
  });

  it('holds a delay longer than a timer holds until that much has passed, then adds the key once', async () => {
    const clock = new ManualClock();
    const q = new WorkQueue({ clock });
    const thousandHours = 1000 * 3_600_000;
    q.addAfter('a', thousandHours);
    assert.deepEqual(clock.pendingDelays(), [MAX_TIMER_DELAY_MS], 'no timer is asked for more than it holds');
    const next = pendingGet(q);
    clock.advance(60_000);
    await tick();
    assert.equal(next.settled, false, 'still waiting a minute later: the delay did not overflow to 1 ms');
    clock.advance(MAX_TIMER_DELAY_MS - 60_000 - 1);
    await tick();
    assert.equal(next.settled, false);
    clock.advance(1);
    assert.equal(await next.promise, 'a', 'looked at again when the timer fires; its reconcile asks for the rest');
    assert.deepEqual(clock.pendingDelays(), []);
    q.done('a');
    await q.shutDown();
  });

  it('takes NaN, Infinity and negative delays without a timer that fires at once', async () => {
    const clock = new ManualClock();
    const q = new WorkQueue({ clock });
    q.addAfter('nan', Number.NaN);
    q.addAfter('inf', Number.POSITIVE_INFINITY);
    assert.deepEqual(clock.pendingDelays(), [MAX_TIMER_DELAY_MS, MAX_TIMER_DELAY_MS]);
    assert.equal(q.length, 0);
    q.addAfter('past', -5);
    q.addAfter('minusInf', Number.NEGATIVE_INFINITY);
    assert.equal(q.length, 2, 'a delay below 0 adds the key now');
    assert.equal(await q.get(), 'past');
    assert.equal(await q.get(), 'minusInf');
    // An earlier delay still wins over a clamped one.
    q.addAfter('nan', 10);
    assert.deepEqual(clock.pendingDelays(), [MAX_TIMER_DELAY_MS, 10]);
    clock.advance(10);
    assert.equal(await q.get(), 'nan');
    for (const key of ['past', 'minusInf', 'nan']) q.done(key);
    await q.shutDown();
    assert.deepEqual(clock.pendingDelays(), [], 'shutDown clears the timers');
  });

  it('cancel drops a key\'s pending delay and its backoff, and leaves a key already queued alone', async () => {
    const clock = new ManualClock();
    const q = new WorkQueue({ clock, rateLimiter: new ExponentialBackoff(10, 1000) });
    q.addAfter('paused', 3_600_000);
    q.addRateLimited('failing');
    q.addRateLimited('failing');
    q.add('queued');
    q.addAfter('queued', 60_000);
    assert.equal(q.delayed, 3);
    for (const key of ['paused', 'failing', 'queued']) q.cancel(key);
    assert.equal(q.delayed, 0);
    assert.deepEqual(clock.pendingDelays(), [], 'no timer left');
    assert.equal(q.numRequeues('failing'), 0, 'the backoff starts over');
    assert.equal(q.length, 1);
    assert.equal(await q.get(), 'queued');
    q.done('queued');
    clock.advance(3_600_000);
    await tick();
    assert.equal(q.length, 0, 'nothing comes back');
    await q.shutDown();
  });

  it('a worker whose pass finds the key\'s object gone drops the key\'s pending delay: Apps that come and go under new names leave no timers', async () => {
    const clock = new ManualClock();
    const q = new WorkQueue({ clock });
    const present = new Set<string>();
    const worker = runWorker({
      queue: q,
      reconcile: async (key) => (present.has(key) ? { requeueAfterMs: 24 * 3_600_000 } : { gone: true }),
      metrics: createMetrics({ queueDepth: () => q.length }),
      log: testLogger('controller'),
    });
    for (let i = 0; i < 100; i++) present.add(`pr/app-${i}`), q.add(`pr/app-${i}`);
    await eventually(async () => q.delayed === 100, { timeoutMs: 2_000, message: 'each paused App waits a day' });
    for (let i = 0; i < 100; i++) present.delete(`pr/app-${i}`), q.add(`pr/app-${i}`);
    await eventually(async () => q.delayed === 0, { timeoutMs: 2_000, message: 'deleted Apps keep no delay' });
    assert.deepEqual(clock.pendingDelays(), []);
    await q.shutDown();
    await worker;
  });

  it('a failing pass that wanted to come back at a time of its own (a deadline) comes back then, not at a longer backoff', async () => {
    const clock = new ManualClock();
    const q = new WorkQueue({ clock, rateLimiter: new ExponentialBackoff(300_000, 300_000) });
    const worker = runWorker({
      queue: q,
      reconcile: async (key) => { throw Object.assign(new Error('applying Service web-canary: 403 exceeded quota'), { requeueAfterMs: key === 'shop/web' ? 70_000 : 0 }); },
      metrics: createMetrics({ queueDepth: () => q.length }),
      log: testLogger('controller'),
    });
    q.add('shop/web');
    await eventually(async () => q.delayed === 1, { timeoutMs: 2_000, message: 'the failed key waiting' });
    assert.deepEqual(clock.pendingDelays(), [70_000]);
    // One that asks to come back at once still backs off: not sooner than the floor.
    q.add('shop/now');
    await eventually(async () => q.delayed === 2, { timeoutMs: 2_000, message: 'the second failed key waiting' });
    assert.deepEqual(clock.pendingDelays().sort((a, b) => a - b), [FAILED_PASS_MIN_REQUEUE_MS, 70_000]);
    await q.shutDown();
    await worker;
  });

  it('backs off failing keys exponentially and forget resets it', async () => {
    const q = new WorkQueue({ rateLimiter: new ExponentialBackoff(10, 1000) });
    const delays: number[] = [];
    q.add('a');
    for (let i = 0; i < 4; i++) {
      const key = (await q.get())!;
      const start = Date.now();
      q.addRateLimited(key);
      q.done(key);
      assert.equal(await q.get(), 'a');
      delays.push(Date.now() - start);
      q.done('a');
      q.add('a');
    }
    assert.equal(q.numRequeues('a'), 4);
    for (const [i, d] of delays.entries()) assert.ok(d >= 10 * 2 ** i - 3, `retry ${i} waited ${d}ms`);
    assert.ok(delays[3] > delays[0]);
    q.forget('a');
    assert.equal(q.numRequeues('a'), 0);
    await q.shutDown();
  });

  it('shutDown releases waiting workers and waits for keys in flight', async () => {
    const q = new WorkQueue();
    q.add('a');
    const key = await q.get();
    const waiting = q.get();
    let drained = false;
    const stopped = q.shutDown().then(() => (drained = true));
    assert.equal(await waiting, undefined);
    await tick();
    assert.equal(drained, false, 'a is still being processed');
    q.done(key!);
    await stopped;
    q.add('b');
    assert.equal(await q.get(), undefined);
  });
});

describe('rate limiters', () => {
  it('exponential: 5ms doubling up to the cap, per key', () => {
    const r = new ExponentialBackoff(5, 1000);
    assert.deepEqual([1, 2, 3, 4, 5].map(() => r.whenMs('a')), [5, 10, 20, 40, 80]);
    assert.equal(r.whenMs('b'), 5);
    for (let i = 0; i < 20; i++) r.whenMs('a');
    assert.equal(r.whenMs('a'), 1000);
    r.forget('a');
    assert.equal(r.whenMs('a'), 5);
  });

  it('token bucket: a burst passes at once, then one per 1/qps', () => {
    let now = 0;
    const b = new TokenBucket(10, 3, () => now);
    assert.deepEqual([b.whenMs(), b.whenMs(), b.whenMs()], [0, 0, 0]);
    assert.equal(b.whenMs(), 100);
    assert.equal(b.whenMs(), 200);
    now = 1000;
    assert.equal(b.whenMs(), 0);
  });

  it('token bucket: the wall clock stepping back does not take tokens away', () => {
    const wallNow = Date.now;
    let stepMs = 0;
    Date.now = () => wallNow() - stepMs;
    try {
      const b = new TokenBucket(10, 100);
      assert.equal(b.whenMs(), 0);
      // Set back ten minutes: with the wall clock the bucket was 6,000 tokens short, and every
      // failed reconcile of every App waited ten minutes before its retry.
      stepMs = 600_000;
      assert.equal(b.whenMs(), 0);
    } finally {
      Date.now = wallNow;
    }
    let now = 5000;
    const manual = new TokenBucket(10, 1, () => now);
    assert.equal(manual.whenMs(), 0);
    now = 0;
    assert.equal(manual.whenMs(), 100, 'a clock that goes back counts as no time passing');
  });

  const buckets = (now: () => number) => new NamespaceBuckets({ qps: 5, burst: 50 }, { qps: 10, burst: 100 }, { qps: 5, burst: 50 }, now);

  it('per namespace: a tenant whose Apps fail faster than its own rate does not hold up another namespace\'s retry', () => {
    let now = 0;
    const limiter = buckets(() => now);
    // A tenant's 28 Apps fail on every pass while it keeps editing them: 15 failures a second for a minute.
    let tenantWaitMs = 0;
    for (let ms = 0; ms < 60_000; ms += 1000 / 15) {
      now = ms;
      tenantWaitMs = limiter.whenMs(`tenant/app-${Math.floor(ms) % 28}`);
    }
    assert.ok(tenantWaitMs > 60_000, `the tenant waits on its own debt (${tenantWaitMs} ms)`);
    now = 60_000;
    assert.equal(limiter.whenMs('victim/web'), 0, 'another namespace\'s retry goes at once');
    // With one bucket for all (client-go's), the same failures held the victim's retry for seconds.
    now = 0;
    const single = new TokenBucket(10, 100, () => now);
    for (let ms = 0; ms < 60_000; ms += 1000 / 15) {
      now = ms;
      single.whenMs();
    }
    now = 60_000;
    assert.ok(single.whenMs() > 5_000);
  });

  it('per namespace: a storm across namespaces (the API server down) stays within the shared rates, 15 retries a second, never piling up at one moment', () => {
    const limiter = buckets(() => 0);
    // 20 namespaces of 1,000 Apps each, every App failing at once, handed out in turns by namespace.
    const at: number[] = [];
    for (let i = 0; i < 1000; i++) for (let n = 0; n < 20; n++) at.push(limiter.whenMs(`ns-${n}/app-${i}`));
    at.sort((a, b) => a - b);
    // The shared burst at once, the second bucket's within the first second (each after its
    // namespace's own token), then no second holds more than the two rates give.
    assert.equal(at.filter((t) => t === 0).length, 100);
    const perSecond = new Map<number, number>();
    for (const t of at) if (t > 0) perSecond.set(Math.ceil(t / 1000), (perSecond.get(Math.ceil(t / 1000)) ?? 0) + 1);
    assert.ok(perSecond.get(1)! <= 15 + 50, `first second: ${perSecond.get(1)}`);
    const later = [...perSecond].filter(([second]) => second > 1).map(([, n]) => n);
    assert.ok(Math.max(...later) <= 15, `busiest second after the first: ${Math.max(...later)}`);
    assert.ok(at.at(-1)! >= ((20_000 - 150) / 15) * 1000, `the last retry at ${at.at(-1)} ms`);
  });

  it('per namespace: its own debt stops growing at the longest backoff; what the shared buckets owe stays owed', () => {
    let now = 0;
    const limiter = new NamespaceBuckets({ qps: 5, burst: 50 }, { qps: 10, burst: 100 }, { qps: 1000, burst: 1000 }, () => now, 300_000);
    // 20 failures a second for ten minutes: 1,790 s of its own debt uncapped.
    for (let ms = 0; ms < 600_000; ms += 50) {
      now = ms;
      limiter.whenMs(`tenant/app-${ms % 7}`);
    }
    assert.ok(limiter.whenMs('tenant/other') <= 300_000);
  });

  it('per namespace: forgets a namespace once its bucket has refilled', () => {
    let now = 0;
    const limiter = buckets(() => now);
    for (let i = 0; i < 300; i++) limiter.whenMs(`ns-${i}/web`);
    assert.equal(limiter.namespaces, 300);
    now = 30_000;
    limiter.whenMs('ns-0/web');
    assert.equal(limiter.namespaces, 300, 'swept at most once a minute');
    now = 61_000;
    limiter.whenMs('ns-0/web');
    assert.equal(limiter.namespaces, 1, 'only the namespace that failed again is left');
  });

  it('the default: per-key backoff, namespaces sharing the overall rate', () => {
    const limiter = defaultRateLimiter();
    assert.equal(limiter.whenMs('shop/web'), 5);
    assert.equal(limiter.whenMs('shop/web'), 10);
    for (let i = 0; i < 200; i++) limiter.whenMs(`tenant/app-${i}`);
    assert.equal(limiter.whenMs('shop/api'), 5, 'another namespace\'s first retry is not held by the tenant\'s 200');
  });

  it('max of both', () => {
    let now = 0;
    const r = new MaxOf(new ExponentialBackoff(5, 1000), new TokenBucket(10, 1, () => now));
    assert.equal(r.whenMs('a'), 5);
    assert.equal(r.whenMs('b'), 100);
    assert.equal(r.retries('a'), 1);
  });
});
