import { strict as assert } from 'node:assert';
import type { App } from '../../shared/app-types.js';
import { createLogger } from '../../shared/logger.js';
import type { ApiClient } from '../../controller/runtime/api-client.js';
import { BATCH_MESSAGE_LIMIT, createEventRecorder, EVENT_MESSAGE_BYTES, EventBatch, EventCorrelator, joinMessages } from '../../controller/runtime/events.js';
import { appFixture } from '../support/app-fixture.js';

const app = appFixture({ metadata: { uid: 'u1', resourceVersion: '7' }, spec: { image: 'x:1' } });

/** An API client stand-in that records the calls the recorder makes. */
function fakeCore(fail?: { create?: number; patch?: number }) {
  const calls: { verb: string; name?: string; body: any }[] = [];
  const api: Pick<ApiClient, 'create' | 'patch'> = {
    async create(body: any) {
      calls.push({ verb: 'create', name: body.metadata.name, body });
      if (fail?.create) throw Object.assign(new Error('boom'), { code: fail.create });
      return body;
    },
    async patch(ref, body: any) {
      calls.push({ verb: 'patch', name: ref.name, body });
      if (fail?.patch) throw Object.assign(new Error('gone'), { code: fail.patch, body: '{"reason":"NotFound"}' });
      return body;
    },
  };
  return { api, calls };
}

const log = createLogger('test');
log.level = 'silent';

describe('event correlator', () => {
  it('creates the first Event, then patches it within the window, then creates again', () => {
    const c = new EventCorrelator(1000);
    const key = EventCorrelator.key('u', 'Normal', 'Created', 'Created Deployment shop/web');
    assert.deepEqual(c.correlate(key, 0), { action: 'create', count: 1 });
    c.observe(key, { name: 'web.1', namespace: 'shop', count: 1, firstTimestamp: 't0' }, 0);
    assert.deepEqual(c.correlate(key, 500), { action: 'patch', name: 'web.1', count: 2, firstTimestamp: 't0' });
    c.observe(key, { name: 'web.1', namespace: 'shop', count: 2, firstTimestamp: 't0' }, 500);
    assert.deepEqual(c.correlate(key, 1400), { action: 'patch', name: 'web.1', count: 3, firstTimestamp: 't0' });
    assert.deepEqual(c.correlate(key, 1600), { action: 'create', count: 1 });
  });

  it('tells Events apart by object, type, reason and message', () => {
    const c = new EventCorrelator();
    c.observe(EventCorrelator.key('u', 'Normal', 'Created', 'a'), { name: 'n', namespace: 's', count: 1, firstTimestamp: 't' }, 0);
    assert.equal(c.correlate(EventCorrelator.key('u', 'Normal', 'Created', 'b'), 1).action, 'create');
    assert.equal(c.correlate(EventCorrelator.key('v', 'Normal', 'Created', 'a'), 1).action, 'create');
    assert.equal(c.correlate(EventCorrelator.key('u', 'Warning', 'Created', 'a'), 1).action, 'create');
  });

  it('forgets the least recently used Events beyond its size', () => {
    const c = new EventCorrelator(60_000, 2);
    for (const k of ['a', 'b', 'c']) c.observe(k, { name: k, namespace: 's', count: 1, firstTimestamp: 't' }, 0);
    assert.equal(c.correlate('a', 1).action, 'create');
    assert.equal(c.correlate('c', 1).action, 'patch');
  });
});

describe('event recorder', () => {
  it('writes a core/v1 Event on the App, then bumps its count for a repeat', async () => {
    const { api, calls } = fakeCore();
    let now = Date.parse('2026-11-22T10:00:00Z');
    const r = createEventRecorder(api, { instance: 'pod-1', log, nowMs: () => now });
    r.event(app, 'Normal', 'Created', 'Created Deployment shop/web');
    await r.flush();
    now += 5000;
    r.event(app, 'Normal', 'Created', 'Created Deployment shop/web');
    await r.flush();
    assert.equal(calls.length, 2);
    const e = calls[0].body;
    assert.match(e.metadata.name, /^web\.[0-9a-f]+$/);
    assert.deepEqual(e.involvedObject, { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', namespace: 'shop', uid: 'u1', resourceVersion: '7' });
    assert.deepEqual([e.type, e.reason, e.message, e.count], ['Normal', 'Created', 'Created Deployment shop/web', 1]);
    assert.deepEqual(e.source, { component: 'skiff-controller' });
    assert.equal(e.reportingComponent, 'skiff.dev/controller');
    assert.equal(e.reportingInstance, 'pod-1');
    assert.deepEqual(calls[1], { verb: 'patch', name: e.metadata.name, body: { count: 2, lastTimestamp: '2026-11-22T10:00:05Z' } });
  });

  it('writes a new Event when the one to patch is gone', async () => {
    const { api, calls } = fakeCore({ patch: 404 });
    const r = createEventRecorder(api, { instance: 'i', log });
    r.event(app, 'Warning', 'ReconcileError', 'x');
    r.event(app, 'Warning', 'ReconcileError', 'x');
    await r.flush();
    assert.deepEqual(calls.map((c) => c.verb), ['create', 'patch', 'create']);
  });

  it('cuts a message quoting outside text to 1 KiB, the size Kubernetes allows an Event note, and still correlates repeats', async () => {
    const { api, calls } = fakeCore();
    const r = createEventRecorder(api, { instance: 'i', log });
    const huge = `analysis check 1 failed: Prometheus answered HTTP 422: ${'x'.repeat(900_000)}`;
    r.event(app, 'Warning', 'AnalysisCheckFailed', huge);
    r.event(app, 'Warning', 'AnalysisCheckFailed', huge);
    await r.flush();
    assert.equal(EVENT_MESSAGE_BYTES, 1024);
    const message: string = calls[0].body.message;
    assert.ok(Buffer.byteLength(message) <= 1024, `${Buffer.byteLength(message)} bytes`);
    assert.ok(message.startsWith('analysis check 1 failed: Prometheus answered HTTP 422: xxx'));
    assert.match(message, /… \(\d+ bytes in all\)$/);
    assert.deepEqual(calls.map((c) => c.verb), ['create', 'patch']);
  });

  it('never throws when the API refuses the Event', async () => {
    const { api } = fakeCore({ create: 403 });
    const r = createEventRecorder(api, { instance: 'i', log });
    r.event(app, 'Normal', 'Created', 'x');
    await r.flush();
  });
});

describe('event recorder queue', () => {
  it('keeps at most maxQueued Events waiting while the API server does not answer, drops newer ones, and takes Events again once drained', async () => {
    const written: string[] = [];
    let answer: () => void = () => {};
    const api: Pick<ApiClient, 'create' | 'patch'> = {
      async create(body: any) {
        await new Promise<void>((r) => { answer = r; });
        written.push(body.message);
        return body;
      },
      async patch(_ref, body: any) { return body; },
    };
    const r = createEventRecorder(api, { instance: 'i', log, maxQueued: 3 });
    for (let i = 0; i < 6; i++) r.event(app, 'Normal', 'Step', `m${i}`);
    for (let i = 0; i < 3; i++) {
      await new Promise((s) => setImmediate(s));
      answer();
    }
    await r.flush();
    assert.deepEqual(written, ['m0', 'm1', 'm2'], 'the three that waited, in order; the newer ones dropped');
    r.event(app, 'Normal', 'Step', 'm6');
    await new Promise((s) => setImmediate(s));
    answer();
    await r.flush();
    assert.deepEqual(written.at(-1), 'm6');
  });
});

describe('event batch (the Events of one reconcile pass)', () => {
  const other: App = { ...app, metadata: { ...app.metadata, name: 'api', uid: 'u2' } };
  const sink = () => {
    const got: [string, string, string, string][] = [];
    return { got, event: (a: App, type: string, reason: string, message: string) => got.push([a.metadata.name!, type, reason, message]) };
  };

  it('makes one Event of each App, type and reason, listing every message once, in order', () => {
    const b = new EventBatch();
    b.event(app, 'Normal', 'Created', 'Created Deployment shop/web');
    b.event(other, 'Normal', 'Created', 'Created Deployment shop/api');
    b.event(app, 'Warning', 'ReconcileError', 'applying Ingress shop/web: 500');
    b.event(app, 'Normal', 'Created', 'Created Service shop/web');
    b.event(app, 'Normal', 'Created', 'Created Service shop/web');
    const s = sink();
    b.sendTo(s);
    assert.deepEqual(s.got, [
      ['web', 'Normal', 'Created', 'Created Deployment shop/web; Created Service shop/web'],
      ['api', 'Normal', 'Created', 'Created Deployment shop/api'],
      ['web', 'Warning', 'ReconcileError', 'applying Ingress shop/web: 500'],
    ]);
    const again = sink();
    b.sendTo(again);
    assert.deepEqual(again.got, [], 'sent once, then empty');
  });

  it('keeps a long list within the message limit, saying how many it left out', () => {
    const messages = Array.from({ length: 100 }, (_, i) => `Updated Deployment shop/web-${i} (spec.template.spec.containers[0].image)`);
    const joined = joinMessages(messages);
    assert.ok(joined.length <= BATCH_MESSAGE_LIMIT, `${joined.length} characters`);
    const kept = joined.split('; ').filter((m) => m.startsWith('Updated')).length;
    assert.ok(joined.endsWith(`; and ${100 - kept} more`), joined.slice(-40));
    assert.equal(joinMessages(['only one']), 'only one');
  });
});
