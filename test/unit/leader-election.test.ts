import { strict as assert } from 'node:assert';
import { pino } from 'pino';
import type { Lease, LeaseClient } from '../../controller/runtime/leases.js';
import { createLogger } from '../../shared/logger.js';
import { canAcquire, heldRecord, LeaderElector, leaderElectionTimingProblem, releasedRecord } from '../../controller/runtime/leader-election.js';
import { eventually } from '../../dev/wait.js';

const log = createLogger('test');
log.level = 'silent';

describe('leader election: lease records', () => {
  const now = 100_000;

  it('a free Lease (none, or no holder) can be taken at once', () => {
    assert.ok(canAcquire(undefined, 'a', now, now));
    assert.ok(canAcquire({ holderIdentity: '' , leaseDurationSeconds: 15 }, 'a', now, now));
  });

  it("another holder's Lease only once its record has not changed for the lease duration", () => {
    const spec = { holderIdentity: 'b', leaseDurationSeconds: 15 };
    assert.ok(!canAcquire(spec, 'a', now - 14_000, now));
    assert.ok(canAcquire(spec, 'a', now - 15_001, now));
    assert.ok(canAcquire(spec, 'b', now, now), 'the holder renews');
  });

  it('acquiring counts a transition and sets both times; renewing keeps acquireTime', () => {
    const t0 = new Date('2026-11-22T10:00:00Z');
    const t1 = new Date('2026-11-22T10:00:02Z');
    const acquired = heldRecord({ holderIdentity: 'b', leaseTransitions: 3 }, 'a', 15, t0);
    assert.equal(acquired.holderIdentity, 'a');
    assert.equal(acquired.leaseTransitions, 4);
    assert.equal(acquired.leaseDurationSeconds, 15);
    assert.equal(new Date(acquired.acquireTime!).toISOString(), t0.toISOString());
    const renewed = heldRecord(acquired, 'a', 15, t1);
    assert.equal(renewed.leaseTransitions, 4);
    assert.equal(renewed.acquireTime, acquired.acquireTime);
    assert.equal(new Date(renewed.renewTime!).toISOString(), t1.toISOString());
    assert.equal(heldRecord(undefined, 'a', 15, t0).leaseTransitions, 0);
    assert.match(JSON.stringify(renewed.renewTime), /"2026-11-22T10:00:02\.000000Z"/, 'MicroTime serializes with microseconds');
  });

  it('releasing clears the holder and shortens the duration', () => {
    const r = releasedRecord({ holderIdentity: 'a', leaseTransitions: 2 }, new Date());
    assert.equal(r.holderIdentity, undefined);
    assert.equal(r.leaseDurationSeconds, 1);
    assert.equal(r.leaseTransitions, 2);
  });
});

/** An in-memory Lease API with resourceVersion compare-and-swap, like the API server's. */
function fakeCoordination() {
  let lease: Lease | undefined;
  let rv = 0;
  /** Identities whose requests fail, as if the API server were out of their reach. */
  const cutOff = new Set<string>();
  const check = (body?: Lease) => {
    if (body?.spec?.holderIdentity && cutOff.has(body.spec.holderIdentity)) throw new TypeError('fetch failed');
  };
  const conflict = () => Object.assign(new Error('conflict'), { code: 409 });
  const api = {
    async readNamespacedLease() {
      if (!lease) throw Object.assign(new Error('not found'), { code: 404 });
      return structuredClone(lease);
    },
    async createNamespacedLease({ body }: { body: Lease }) {
      if (lease) throw conflict();
      lease = { ...structuredClone(body), metadata: { ...body.metadata, resourceVersion: String(++rv) } };
      return lease;
    },
    async replaceNamespacedLease({ body }: { body: Lease }) {
      check(body);
      if (!lease || body.metadata?.resourceVersion !== lease.metadata?.resourceVersion) throw conflict();
      lease = { ...JSON.parse(JSON.stringify(body)), metadata: { ...body.metadata, resourceVersion: String(++rv) } };
      return lease;
    },
  };
  return { api: api as unknown as LeaseClient, holder: () => lease?.spec?.holderIdentity, cutOff };
}

describe('leader election: periods', () => {
  it('refuses what client-go refuses: a retry period of 0 (a loop without pause against the API server), renew deadline not below the lease duration', () => {
    assert.equal(leaderElectionTimingProblem(15_000, 10_000, 2_000), undefined);
    assert.match(leaderElectionTimingProblem(15_000, 10_000, 0) ?? '', /retry period above 0/);
    assert.match(leaderElectionTimingProblem(15_000, 20_000, 2_000) ?? '', /retry period < renew deadline < lease duration/);
    assert.match(leaderElectionTimingProblem(15_000, 2_000, 2_000) ?? '', /retry period < renew deadline < lease duration/);
    // The Lease's leaseDurationSeconds is an int32: a longer one is refused at every write, and
    // the candidate would never lead.
    assert.match(leaderElectionTimingProblem(2 ** 31 * 1000, 10_000, 2_000) ?? '', /lease duration of at most 2147483647s/);
    assert.equal(leaderElectionTimingProblem((2 ** 31 - 1) * 1000, 10_000, 2_000), undefined);
    const api = {} as LeaseClient;
    const opts = { coordination: api, namespace: 'ns', name: 'lease', identity: 'a', log, onStartedLeading: () => undefined, onStoppedLeading: () => undefined };
    assert.throws(() => new LeaderElector({ ...opts, leaseDurationSeconds: 15, renewDeadlineMs: 10_000, retryPeriodMs: 0 }), /retry period above 0/);
  });
});

describe('leader election: elector', () => {
  // Polled often: the tests measure when leadership changed to within a few milliseconds.
  const soon = (cond: () => boolean, what: string) => eventually(cond, { timeoutMs: 3000, intervalMs: 5, message: what });
  const elector = (api: LeaseClient, identity: string, events: string[]) =>
    new LeaderElector({
      coordination: api, namespace: 'ns', name: 'lease', identity, log,
      leaseDurationSeconds: 1, renewDeadlineMs: 500, retryPeriodMs: 50,
      onStartedLeading: () => events.push(`${identity} leads`),
      onStoppedLeading: () => events.push(`${identity} lost`),
    });

  it('one of two candidates leads; on release the other takes over at once', async () => {
    const { api, holder } = fakeCoordination();
    const events: string[] = [];
    const a = elector(api, 'a', events);
    const b = elector(api, 'b', events);
    a.start();
    await soon(() => a.isLeader, 'a leads');
    b.start();
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(!b.isLeader, 'b waits while a renews');
    const released = Date.now();
    await a.release();
    await soon(() => b.isLeader, 'b leads');
    assert.ok(Date.now() - released < 500, 'no wait for expiry after a release');
    assert.equal(holder(), 'b');
    assert.deepEqual(events, ['a leads', 'b leads']);
    await b.release();
    assert.equal(holder(), undefined);
  });

  /** Holds the whole process for `ms`, as SIGSTOP or a paused VM would: no timer, no I/O meanwhile. */
  const freeze = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

  it('a leader stopped past its renew deadline holds no lease the moment it runs again, before its renew timer fires', async () => {
    const { api } = fakeCoordination();
    const events: string[] = [];
    const a = elector(api, 'a', events);
    a.start();
    await soon(() => a.isLeader, 'a leads');
    assert.ok(a.holdsLease(), 'a leader that has just renewed may write');
    freeze(600);
    // What runs first after the freeze (the answer a reconcile waited for) must not write as the leader.
    assert.ok(a.isLeader, 'the renew loop has not run yet');
    assert.ok(!a.holdsLease(), 'past the renew deadline: its writes are refused');
    await a.release();
  });

  it('a leader stopped past its renew deadline says so when it steps down, not that it holds the Lease itself (the holder it last read)', async () => {
    const { api } = fakeCoordination();
    const lines: Record<string, unknown>[] = [];
    const logged = pino({ level: 'error' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const events: string[] = [];
    const a = new LeaderElector({
      coordination: api, namespace: 'ns', name: 'lease', identity: 'a', log: logged,
      leaseDurationSeconds: 1, renewDeadlineMs: 500, retryPeriodMs: 50,
      onStartedLeading: () => events.push('a leads'),
      onStoppedLeading: () => events.push('a lost'),
    });
    a.start();
    await soon(() => a.isLeader, 'a leads');
    freeze(600);
    await soon(() => !a.isLeader, 'a steps down');
    const line = lines.find((l) => String(l.msg).startsWith('lost the leader lease'));
    assert.ok(line, JSON.stringify(lines));
    assert.equal(line.holder, undefined, 'the holder it last read is itself, from before the stop: not who holds the Lease now');
    assert.equal(line.msg, 'lost the leader lease: not renewed within the renew deadline (0.5 s); another replica may hold it by now');
    await a.release();
  });

  it('no renewal is sent once the renew deadline has passed (it would be given up at once, yet could keep the Lease for a replica that steps down)', async () => {
    const { api } = fakeCoordination();
    const events: string[] = [];
    let frozen = false;
    let replacesAfter = 0;
    const slowA = {
      readNamespacedLease: async (...args: Parameters<LeaseClient['readNamespacedLease']>) => {
        const lease = await api.readNamespacedLease(...args);
        // The process stops while the read's answer is on its way, past the deadline.
        if (frozen) freeze(600);
        return lease;
      },
      createNamespacedLease: (...args: Parameters<LeaseClient['createNamespacedLease']>) => api.createNamespacedLease(...args),
      replaceNamespacedLease: (...args: Parameters<LeaseClient['replaceNamespacedLease']>) => {
        if (frozen) replacesAfter++;
        return api.replaceNamespacedLease(...args);
      },
    } as unknown as LeaseClient;
    const a = elector(slowA, 'a', events);
    a.start();
    await soon(() => a.isLeader, 'a leads');
    frozen = true;
    await soon(() => !a.isLeader, 'a steps down');
    assert.equal(replacesAfter, 0, 'no renewal sent after the deadline');
    assert.deepEqual(events, ['a leads', 'a lost']);
    await a.release();
  });

  it('a leader whose renewals each take longer than a retry period (a busy API server) but end within its deadline keeps leading', async () => {
    const { api, holder } = fakeCoordination();
    const events: string[] = [];
    let slow = false;
    const busy = {
      readNamespacedLease: (...args: Parameters<LeaseClient['readNamespacedLease']>) => api.readNamespacedLease(...args),
      createNamespacedLease: (...args: Parameters<LeaseClient['createNamespacedLease']>) => api.createNamespacedLease(...args),
      // Stored at once, answered 1.1 s later: over the 1 s a candidate's request is given.
      replaceNamespacedLease: async (...args: Parameters<LeaseClient['replaceNamespacedLease']>) => {
        const stored = await api.replaceNamespacedLease(...args);
        if (slow) await new Promise((r) => setTimeout(r, 1100));
        return stored;
      },
    } as unknown as LeaseClient;
    const a = new LeaderElector({
      coordination: busy, namespace: 'ns', name: 'lease', identity: 'a', log,
      leaseDurationSeconds: 5, renewDeadlineMs: 3500, retryPeriodMs: 200,
      onStartedLeading: () => events.push('a leads'),
      onStoppedLeading: () => events.push('a lost'),
    });
    a.start();
    await soon(() => a.isLeader, 'a leads');
    slow = true;
    await new Promise((r) => setTimeout(r, 4000));
    assert.deepEqual(events, ['a leads'], 'still leading past the renew deadline of its first renewal');
    assert.ok(a.holdsLease());
    assert.equal(holder(), 'a');
    slow = false;
    await a.release();
  });

  it('a leader whose API calls turn slow steps down within the renew deadline of its last renewal: never two leaders', async () => {
    const { api, holder } = fakeCoordination();
    const events: string[] = [];
    // From `trouble` on, a's reads fail at once three times, then one answers after 400 ms, and
    // its writes never answer: every attempt fails, the last only after its requests time out.
    let trouble = false;
    let reads = 0;
    const never = new Promise<never>(() => {});
    const slowA = {
      readNamespacedLease: async (...args: Parameters<LeaseClient['readNamespacedLease']>) => {
        if (!trouble) return api.readNamespacedLease(...args);
        if (++reads <= 3) throw Object.assign(new Error('etcdserver: request timed out'), { code: 500 });
        await new Promise((r) => setTimeout(r, 400));
        return api.readNamespacedLease(...args);
      },
      createNamespacedLease: (...args: Parameters<LeaseClient['createNamespacedLease']>) => api.createNamespacedLease(...args),
      replaceNamespacedLease: (...args: Parameters<LeaseClient['replaceNamespacedLease']>) => (trouble ? never : api.replaceNamespacedLease(...args)),
    } as unknown as LeaseClient;
    const a = elector(slowA, 'a', events);
    const b = elector(api, 'b', events);
    a.start();
    await soon(() => a.isLeader, 'a leads');
    b.start();
    await new Promise((r) => setTimeout(r, 200));
    trouble = true;
    await soon(() => b.isLeader, 'b leads');
    assert.deepEqual(events, ['a leads', 'a lost', 'b leads'], 'a stepped down before b could take the lease');
    assert.equal(holder(), 'b');
    await a.release();
    await b.release();
  });

  it('a leader that cannot renew steps down; the other takes over once the lease expires', async () => {
    const { api, holder, cutOff } = fakeCoordination();
    const events: string[] = [];
    const a = elector(api, 'a', events);
    const b = elector(api, 'b', events);
    a.start();
    await soon(() => a.isLeader, 'a leads');
    b.start();
    cutOff.add('a');
    const cut = Date.now();
    await soon(() => !a.isLeader, 'a steps down');
    const lostAfterMs = Date.now() - cut;
    assert.ok(lostAfterMs >= 450 && lostAfterMs < 1000, `a stepped down after ${lostAfterMs}ms (renew deadline 500ms, lease 1s)`);
    await soon(() => b.isLeader, 'b leads');
    assert.ok(Date.now() - cut >= 1000, 'b waited for the lease to expire');
    assert.equal(holder(), 'b');
    assert.deepEqual(events, ['a leads', 'a lost', 'b leads']);
    await a.release();
    await b.release();
  });
});
