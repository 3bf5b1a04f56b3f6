// The dashboard's pure parts: who may make a request (token, Origin, Host), what the caches keep
// (slim objects, Events capped per App, nothing of a deleted App), and the views the page shows
// (status counts, steps, each analysis metric's series with its bounds).
import { strict as assert } from 'node:assert';
import { allowedHosts, isLoopback, refusal, SECURITY_HEADERS, urlHost, type Served } from '../../cli/dashboard/security.js';
import { DashboardStore, EVENTS_PER_APP, ORPHAN_EVENTS_MS, type Owned } from '../../cli/dashboard/store.js';
import { counts, detail, metricSeries, row, stepsView } from '../../cli/dashboard/views.js';
import { listenError, startDashboard } from '../../cli/dashboard/server.js';
import { runAction } from '../../cli/dashboard/actions.js';
import { networkError, type Api } from '../../cli/api.js';
import { eventually } from '../../dev/wait.js';
import { ApiError, CliError, UnreachableError } from '../../cli/errors.js';
import { APP_API_MISSING } from '../../cli/paths.js';
import { connect, createServer, type AddressInfo } from 'node:net';
import type { CliApp } from '../../cli/model.js';
import { LABEL_APP } from '../../shared/labels.js';
import { withDefaults } from '../../shared/defaults.js';

/** The App's controller reference, as the controller sets it on each history entry. */
const OWNER = [{ uid: 'web-uid', controller: true }];

/** What an App owns: nothing but the parts given. */
const owned = (parts: Partial<Owned> = {}): Owned => ({
  deployments: [], services: [], ingresses: [], routes: [], revisions: [], disruptionBudgets: [], autoscalers: [], configMaps: [], ...parts,
});

const served: Served = { address: '127.0.0.1', port: 3100, token: 'a'.repeat(32) };
const ok = { host: '127.0.0.1:3100', headerToken: served.token };

function canaryApp(overrides: Partial<NonNullable<CliApp['status']>['canary']> = {}): CliApp {
  return {
    apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
    metadata: { name: 'web', namespace: 'shop', uid: 'web-uid', generation: 2, labels: { team: 'web' }, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { image: 'r/web:2', rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: { duration: '60s' } }, { setWeight: 50 }] } },
    status: {
      observedGeneration: 2, stableImage: 'r/web:1', stableRevision: 'aaaaaaaaaa',
      canary: { image: 'r/web:2', revision: 'bbbbbbbbbb', weight: 20, stepIndex: 1, stepStartedAt: '2026-01-01T00:10:00.000Z', ...overrides },
    },
  };
}

const event = (app: string, name: string, at: string) => ({
  type: 'ADDED' as const,
  object: { metadata: { name, namespace: 'shop', resourceVersion: '1' }, involvedObject: { kind: 'App', name: app, namespace: 'shop' }, type: 'Normal', reason: 'CanaryStep', message: 'x'.repeat(5000), count: 1, lastTimestamp: at },
});

describe('dashboard', () => {
  describe('request checks', () => {
    it('lets the page and its own requests through', () => {
      assert.equal(refusal(served, { method: 'GET', path: '/', host: '127.0.0.1:3100' }), undefined, 'the page itself holds no data');
      assert.equal(refusal(served, { method: 'GET', path: '/api/apps', ...ok }), undefined);
      assert.equal(refusal(served, { method: 'GET', path: '/api/stream', host: 'localhost:3100', queryToken: served.token }), undefined);
      assert.equal(refusal(served, { method: 'POST', path: '/api/apps/shop/web/promote', ...ok, origin: 'http://127.0.0.1:3100' }), undefined);
    });

    it('refuses a foreign Host (DNS rebinding), a missing or wrong token, and a write without the same Origin', () => {
      assert.equal(refusal(served, { method: 'GET', path: '/', host: 'evil.example:3100' })?.status, 421);
      assert.equal(refusal(served, { method: 'GET', path: '/api/apps', ...ok, host: '127.0.0.1:3101' })?.status, 421);
      assert.equal(refusal(served, { method: 'GET', path: '/api/apps', headerToken: served.token })?.status, 421, 'no Host at all');
      assert.equal(refusal(served, { method: 'GET', path: '/api/apps', host: ok.host })?.status, 401);
      assert.equal(refusal(served, { method: 'GET', path: '/api/apps', host: ok.host, headerToken: 'b'.repeat(32) })?.status, 401);
      assert.equal(refusal(served, { method: 'GET', path: '/api/apps', host: ok.host, queryToken: served.token })?.status, 401, 'a token in the query only for the stream');
      assert.equal(refusal(served, { method: 'POST', path: '/api/apps/shop/web/abort', ...ok })?.status, 403, 'no Origin');
      assert.equal(refusal(served, { method: 'POST', path: '/api/apps/shop/web/abort', ...ok, origin: 'http://evil.example' })?.status, 403);
      assert.equal(refusal(served, { method: 'POST', path: '/', ...ok, origin: 'null' })?.status, 403);
      assert.equal(refusal(served, { method: 'POST', path: '/api/apps/shop/web/abort', host: ok.host, origin: 'http://127.0.0.1:3100' })?.status, 401);
      assert.equal(refusal(served, { method: 'GET', path: '/api/apps', ...ok, origin: 'http://evil.example' })?.status, 403, 'a cross-origin read');
    });

    it('answers loopback names on loopback, the machine\'s addresses on 0.0.0.0, and never another name', () => {
      assert.deepEqual([...allowedHosts(served)].sort(), ['127.0.0.1:3100', '[::1]:3100', 'localhost:3100']);
      assert.deepEqual([...allowedHosts({ ...served, address: '0.0.0.0' }, () => ['10.0.0.5'])].sort(), ['0.0.0.0:3100', '10.0.0.5:3100', '127.0.0.1:3100', '[::1]:3100', 'localhost:3100']);
      assert.deepEqual([...allowedHosts({ ...served, address: '10.0.0.5' })], ['10.0.0.5:3100']);
    });

    it('an --address written in capitals or a long IPv6 form answers the Host a browser sends for it (lower case, the short IPv6 form)', () => {
      for (const [address, host] of [['Box.Example', 'box.example:3100'], ['FD00::A', '[fd00::a]:3100'], ['0:0:0:0:0:0:0:1', '[::1]:3100']]) {
        const s = { ...served, address };
        assert.equal(refusal(s, { method: 'GET', path: '/api/apps', host, headerToken: served.token }), undefined, `--address ${address}, Host ${host}`);
        assert.equal(refusal(s, { method: 'POST', path: '/api/apps/shop/web/pause', host, origin: `http://${host}`, headerToken: served.token }), undefined, `--address ${address}, a write`);
      }
    });

    it('an --address a browser writes otherwise (127.1, a number, LOCALHOST, a long ::1) answers the Host the browser sends for it, and is loopback', () => {
      for (const address of ['127.1', '2130706433', '0x7f000001', 'LOCALHOST', '0:0:0:0:0:0:0:1']) {
        const s = { ...served, address };
        // http://127.1:3100/ is sent by a browser as Host 127.0.0.1:3100 (WHATWG URL host parsing).
        const host = new URL(`http://${urlHost(address, 3100)}/`).host;
        assert.equal(refusal(s, { method: 'GET', path: '/api/apps', host, headerToken: served.token }), undefined, `--address ${address}: the printed URL's Host ${host}`);
        for (const loop of ['127.0.0.1:3100', 'localhost:3100', '[::1]:3100']) assert.ok(allowedHosts(s).has(loop), `--address ${address} is loopback: ${loop} answered`);
        assert.ok(isLoopback(address), `--address ${address} reaches only this machine: no plain-HTTP warning`);
      }
      assert.ok(isLoopback('::ffff:127.0.0.1'), 'an IPv4-mapped loopback address');
      assert.ok(!isLoopback('10.0.0.5') && !isLoopback('::ffff:10.0.0.5') && !isLoopback('0.0.0.0'));
      assert.equal(urlHost('0', 3100), '127.0.0.1:3100', '--address 0 is the wildcard 0.0.0.0: its loopback URL');
      assert.ok(allowedHosts({ ...served, address: '0' }, () => ['10.0.0.5']).has('10.0.0.5:3100'), '--address 0 answers the machine\'s addresses');
    });

    it('on port 80 answers a Host and an Origin without the port, which is how a browser writes them there', () => {
      const on80 = { ...served, port: 80 };
      assert.ok(allowedHosts(on80).has('127.0.0.1') && allowedHosts(on80).has('localhost') && allowedHosts(on80).has('[::1]'));
      assert.equal(refusal(on80, { method: 'POST', path: '/api/apps/shop/web/promote', host: '127.0.0.1', origin: 'http://127.0.0.1', headerToken: served.token }), undefined);
      assert.equal(refusal(served, { method: 'GET', path: '/', host: '127.0.0.1' })?.status, 421, 'on another port, a Host without it is not this dashboard');
    });

    it('sends no-store and a CSP that allows nothing from elsewhere', () => {
      assert.equal(SECURITY_HEADERS['cache-control'], 'no-store');
      assert.match(SECURITY_HEADERS['content-security-policy'], /default-src 'none'/);
      assert.doesNotMatch(SECURITY_HEADERS['content-security-policy'], /unsafe|https?:|\*/);
    });
  });

  describe('store', () => {
    it('keeps the last EVENTS_PER_APP Events of an App, messages cut, and drops them with the App', () => {
      const store = new DashboardStore(() => Date.parse('2026-01-01T01:00:00Z'));
      const apps = store.handler('apps');
      const events = store.handler('events');
      apps.reset([canaryApp()]);
      events.reset([]);
      for (let i = 0; i < EVENTS_PER_APP + 15; i++) events.event(event('web', `e${i}`, new Date(Date.parse('2026-01-01T00:00:00Z') + i * 1000).toISOString()));
      const kept = store.eventsOf('shop/web');
      assert.equal(kept.length, EVENTS_PER_APP);
      assert.equal(kept[0].metadata.name, `e${EVENTS_PER_APP + 14}`, 'newest first');
      assert.equal(kept.at(-1)!.metadata.name, 'e15', 'the oldest went');
      assert.ok(Buffer.byteLength(kept[0].message) <= 1024);
      apps.event({ type: 'DELETED', object: canaryApp() });
      assert.deepEqual(store.sizes(), { apps: 0, events: 0 });
    });

    it('orders Events of the same second (their times are whole seconds) as they happened: the last one the watch brought first', () => {
      const store = new DashboardStore(() => Date.parse('2026-01-01T01:00:00Z'));
      store.handler('apps').reset([canaryApp()]);
      const events = store.handler('events');
      // Listed (by name: the controller names an Event after its time), then watched.
      events.reset([event('web', 'web.a1', '2026-01-01T00:00:05Z').object, event('web', 'web.a2', '2026-01-01T00:00:05Z').object, event('web', 'web.a0', '2026-01-01T00:00:04Z').object]);
      events.event(event('web', 'web.a3', '2026-01-01T00:00:05Z'));
      assert.deepEqual(store.eventsOf('shop/web').map((e) => e.metadata.name), ['web.a3', 'web.a2', 'web.a1', 'web.a0']);
      // One repeated (its count and time bumped) is the newest of its second.
      events.event({ type: 'MODIFIED', object: { ...event('web', 'web.a1', '2026-01-01T00:00:05Z').object, count: 2 } } as never);
      assert.deepEqual(store.eventsOf('shop/web').map((e) => e.metadata.name), ['web.a1', 'web.a3', 'web.a2', 'web.a0']);
    });

    it('keeps only Events about Skiff Apps: another API group\'s kind App of the same name (kapp-controller\'s) is not this App', () => {
      const store = new DashboardStore(() => Date.parse('2026-01-01T01:00:00Z'));
      store.handler('apps').reset([canaryApp()]);
      const about = (apiVersion: string | undefined, name: string) => ({
        metadata: { name, namespace: 'shop', resourceVersion: '1' },
        involvedObject: { apiVersion, kind: 'App', name: 'web', namespace: 'shop' }, type: 'Normal', reason: 'Reconciled', message: name, count: 1, lastTimestamp: '2026-01-01T00:59:00Z',
      });
      store.handler('events').reset([about('skiff.dev/v1alpha1', 'ours'), about('kappctrl.k14s.io/v1alpha1', 'kapp'), about(undefined, 'unsaid')]);
      assert.deepEqual(store.eventsOf('shop/web').map((e) => e.message).sort(), ['ours', 'unsaid']);
      store.handler('events').event({ type: 'ADDED', object: about('kappctrl.k14s.io/v1alpha1', 'kapp2') });
      assert.deepEqual(store.eventsOf('shop/web').map((e) => e.message).sort(), ['ours', 'unsaid']);
    });

    it('shows an App only its own Events: not those of an earlier App of the same name, deleted and created again (as kubectl describe, by uid)', () => {
      const store = new DashboardStore(() => Date.parse('2026-01-01T01:00:00Z'));
      const app = canaryApp();
      app.metadata.uid = 'uid-new';
      store.handler('apps').reset([app]);
      const about = (uid: string | undefined, message: string) => ({
        metadata: { name: message, namespace: 'shop', resourceVersion: '1' },
        involvedObject: { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', namespace: 'shop', uid }, type: 'Warning', reason: 'RolloutAborted', message, count: 1, lastTimestamp: '2026-01-01T00:59:00Z',
      });
      store.handler('events').reset([about('uid-old', 'before'), about('uid-new', 'now'), about(undefined, 'unsaid')]);
      assert.deepEqual(store.eventsOf('shop/web').map((e) => e.message).sort(), ['now', 'unsaid']);
    });

    it('shows an App only Events stored in its namespace: one in another namespace naming it (allowed with an eventTime) is not its', () => {
      const store = new DashboardStore(() => Date.parse('2026-01-01T01:00:00Z'));
      store.handler('apps').reset([canaryApp()]);
      const stored = (namespace: string, message: string) => ({
        metadata: { name: message, namespace, resourceVersion: '1' },
        involvedObject: { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', namespace: 'shop' }, type: 'Warning', reason: 'RollbackRequired', message, count: 1, eventTime: '2026-01-01T00:59:00.000000Z',
      });
      store.handler('events').reset([stored('shop', 'own'), stored('tenant-b', 'planted')]);
      store.handler('events').event({ type: 'ADDED', object: stored('tenant-b', 'planted later') });
      assert.deepEqual(store.eventsOf('shop/web').map((e) => e.message), ['own']);
      assert.deepEqual(store.eventsOf('tenant-b/web'), []);
    });

    it('keeps Events of an App not seen yet for a while only', () => {
      let now = Date.parse('2026-01-01T00:00:10Z');
      const store = new DashboardStore(() => now);
      store.handler('events').event(event('later', 'e1', '2026-01-01T00:00:00Z'));
      store.sweepEvents();
      assert.equal(store.eventsOf('shop/later').length, 1);
      now += ORPHAN_EVENTS_MS;
      store.sweepEvents();
      assert.equal(store.eventsOf('shop/later').length, 0);
    });

    it('groups owned objects by App, slimmed, and tells which App a change touches', () => {
      const store = new DashboardStore();
      const changes: unknown[] = [];
      store.onChange((c) => changes.push(c.all ? 'all' : [...c.apps]));
      const deployments = store.handler('deployments');
      const d = { metadata: { name: 'web-canary', namespace: 'shop', labels: { [LABEL_APP]: 'web' }, managedFields: [{}] }, spec: { replicas: 1, template: { spec: { containers: [{ image: 'r/web:2', env: [{ name: 'A', value: 'b' }] }] } } }, status: { readyReplicas: 1 } };
      deployments.reset([d]);
      deployments.event({ type: 'MODIFIED', object: d });
      assert.deepEqual(changes, ['all', ['shop/web']]);
      const kept = store.ownedBy('shop/web').deployments;
      assert.equal(kept.length, 1);
      assert.deepEqual(kept[0].spec?.template?.spec?.containers, [{ image: 'r/web:2' }]);
      assert.equal((kept[0].metadata as { managedFields?: unknown }).managedFields, undefined);
      deployments.event({ type: 'DELETED', object: d });
      assert.deepEqual(store.ownedBy('shop/web').deployments, []);
      assert.equal(store.sizes().deployments, 0);
    });

    it('moves an owned object whose skiff.dev/app label changed to its new App, and tells both', () => {
      const store = new DashboardStore();
      const changes: unknown[] = [];
      store.onChange((c) => changes.push(c.all ? 'all' : [...c.apps].sort()));
      const deployments = store.handler('deployments');
      const labelled = (app: string) => ({ metadata: { name: 'web-canary', namespace: 'shop', labels: { [LABEL_APP]: app } }, spec: { replicas: 1 } });
      deployments.reset([labelled('web')]);
      deployments.event({ type: 'MODIFIED', object: labelled('other') });
      assert.deepEqual(store.ownedBy('shop/web').deployments, [], 'no longer shown on the App it was labelled for');
      assert.equal(store.ownedBy('shop/other').deployments.length, 1);
      assert.deepEqual(changes, ['all', ['shop/other', 'shop/web']]);
      deployments.event({ type: 'DELETED', object: labelled('other') });
      assert.equal(store.sizes().deployments, 0);
    });

    it('shows an HTTPRoute accepted only when every parent accepted its current generation', () => {
      const store = new DashboardStore();
      const routes = store.handler('routes');
      const parent = (name: string, generation: number, status = 'True') => ({
        parentRef: { name, namespace: 'infra' },
        controllerName: 'example.net/gateway',
        conditions: [{ type: 'Accepted', status, reason: 'R', observedGeneration: generation }, { type: 'ResolvedRefs', status: 'True', reason: 'R', observedGeneration: generation }],
      });
      const route = (parents: unknown[]) => ({
        metadata: { name: 'web', namespace: 'shop', generation: 4, labels: { [LABEL_APP]: 'web' } },
        spec: { hostnames: ['shop.example.com'], parentRefs: [{ name: 'public', namespace: 'infra' }, { name: 'internal', namespace: 'infra' }], rules: [{ backendRefs: [{ name: 'web', weight: 80 }, { name: 'web-canary', weight: 20 }] }] },
        status: { parents },
      });
      const shown = () => detail('shop/web', canaryApp(), store.ownedBy('shop/web'), []).objects.find((o) => o.kind === 'HTTPRoute')!;
      routes.reset([route([parent('public', 3), parent('internal', 3)])]);
      assert.equal(shown().ready, false, 'accepted for an earlier generation: the weights shown are not taken yet');
      assert.match(shown().text, /not accepted yet/);
      routes.reset([route([parent('public', 4), parent('internal', 4, 'False')])]);
      assert.equal(shown().ready, false, 'one of two Gateways refused it');
      routes.reset([route([parent('public', 4), parent('internal', 4)])]);
      assert.equal(shown().ready, true);
      assert.equal(shown().text, 'shop.example.com · web 80, web-canary 20 · accepted', 'its hostnames, as kubectl skiff get shows them');
    });

    it('holds a watch failure until the watch works again', () => {
      const store = new DashboardStore();
      store.handler('apps').error!(new Error('cannot reach the API server'), false);
      assert.equal(store.errors.get('apps'), 'cannot reach the API server');
      store.handler('apps').reset([]);
      assert.equal(store.errors.size, 0);
    });

    it('the App API not served is an error the page shows (it waits for it); an optional kind not served is none', () => {
      const store = new DashboardStore();
      store.handler('routes').error?.(new ApiError(404, 'not found'), true);
      assert.deepEqual([...store.errors], []);
      store.handler('apps').error?.(new ApiError(404, 'not found'), true);
      assert.deepEqual([...store.errors], [['apps', APP_API_MISSING]]);
      store.handler('apps').reset([canaryApp()]);
      assert.deepEqual([...store.errors], [], 'served at last: the list clears it');
    });
  });

  describe('views', () => {
    it('a row: status word, step, set weight, images with roles', () => {
      const r = row('shop/web', canaryApp(), { ingresses: [], routes: [] });
      assert.deepEqual([r.status, r.strategy, r.step, r.stepDetail, r.weight, r.actualWeight], ['Progressing', 'Canary', '2/3', 'pause 60s', 20, undefined]);
      assert.deepEqual(r.images, [{ image: 'r/web:1', role: 'stable' }, { image: 'r/web:2', role: 'canary' }]);
      assert.deepEqual(counts([r, { ...r, status: 'Degraded' }]), { Healthy: 0, Progressing: 1, Paused: 0, Degraded: 1 });
    });

    it('the steps with the current one marked and when a timed pause ends', () => {
      const v = stepsView(canaryApp());
      assert.deepEqual(v.steps.map((s) => [s.text, s.current, s.done]), [['setWeight 20%', false, true], ['pause 60s', true, false], ['setWeight 50%', false, false]]);
      assert.equal(v.pauseEndsAt, '2026-01-01T00:11:00.000Z');
    });

    it('a timed pause with no readable stepStartedAt (a status no controller wrote) has no end time, and no throw', () => {
      for (const stepStartedAt of [undefined, 'yesterday']) {
        const v = stepsView(canaryApp({ stepStartedAt } as unknown as Partial<NonNullable<CliApp['status']>['canary']>));
        assert.equal(v.pauseEndsAt, undefined);
        assert.equal(v.steps[1].current, true);
      }
    });

    it('a metric series per analysis metric from the checks kept, with the newest bounds', () => {
      const m = (value: number, min?: number) => ({ name: 'successRate', value, min, result: 'Passed' as const });
      const app = canaryApp({
        analysis: {
          checks: 3, failures: 0, history: [
            { at: 't1', weight: 20, result: 'Passed', metrics: [m(99.5, 98), { name: 'latency', value: 120, max: 300, result: 'Passed' }] },
            { at: 't2', weight: 20, result: 'Passed', metrics: [m(99.7, 99)] },
            { at: 't3', weight: 50, result: 'Inconclusive', metrics: [{ name: 'successRate', min: 99, result: 'Inconclusive' }] },
          ],
        } as never,
      });
      assert.deepEqual(metricSeries(app), [
        { name: 'successRate', min: 99, checks: 3, points: [{ at: 't1', value: 99.5, weight: 20, where: ' at 20%', result: 'Passed' }, { at: 't2', value: 99.7, weight: 20, where: ' at 20%', result: 'Passed' }] },
        { name: 'latency', max: 300, checks: 1, points: [{ at: 't1', value: 120, weight: 20, where: ' at 20%', result: 'Passed' }] },
      ]);
    });

    it('a metric whose query fails at every check: its checks counted, none with a value, and the last check\'s message on why', () => {
      const failing = { name: 'xss', max: 1000, result: 'Inconclusive' as const };
      const message = 'xss: query failed: Prometheus answered HTTP 422: execution: invalid destination label name';
      const app = canaryApp({
        analysis: {
          checks: 2, failures: 0, lastResult: 'Inconclusive', metrics: [{ ...failing, message }], history: [
            { at: 't1', weight: 20, result: 'Inconclusive', metrics: [failing, { name: 'successRate', value: 99.5, min: 90, result: 'Passed' }] },
            { at: 't2', weight: 20, result: 'Inconclusive', metrics: [failing, { name: 'successRate', value: 99.7, min: 90, result: 'Passed' }] },
          ],
        } as never,
      });
      const [xss, rate] = metricSeries(app);
      assert.deepEqual(xss, { name: 'xss', max: 1000, checks: 2, points: [], lastUnmeasured: message });
      assert.equal(rate.checks, 2);
      assert.equal(rate.points.length, 2);
      assert.equal(rate.lastUnmeasured, undefined);
    });

    it('without a history, the last check\'s metrics as single points', () => {
      const app = canaryApp({ analysis: { checks: 4, failures: 1, lastCheckAt: 't4', lastWeight: 20, lastResult: 'Failed', metrics: [{ name: 'latency', value: 410, max: 300, result: 'Failed', message: 'too slow' }] } });
      assert.deepEqual(metricSeries(app), [{ name: 'latency', max: 300, checks: 1, points: [{ at: 't4', value: 410, weight: 20, where: ' at 20%', result: 'Failed' }] }]);
      assert.deepEqual(metricSeries(canaryApp()), []);
      // A blue-green rollout's checks: the preview's (weight 0), then full traffic's (100).
      const bg = { ...canaryApp(), spec: { image: 'r/web:2', rollout: { strategy: 'BlueGreen' as const } }, status: { ...canaryApp().status, canary: undefined, blueGreen: { previewRevision: 'p', activeRevision: 'p', phase: 'Switched' as const, analysis: { checks: 2, failures: 0, history: [
        { at: 't1', weight: 0, result: 'Passed' as const, metrics: [{ name: 'successRate', value: 99.9, min: 99, result: 'Passed' as const }] },
        { at: 't2', weight: 100, result: 'Passed' as const, metrics: [{ name: 'successRate', value: 99.5, min: 99, result: 'Passed' as const }] },
      ] } } } };
      assert.deepEqual(metricSeries(bg), [{ name: 'successRate', min: 99, checks: 2, points: [{ at: 't1', value: 99.9, weight: 0, where: ' of the preview', result: 'Passed' }, { at: 't2', value: 99.5, weight: 100, where: ' under full traffic', result: 'Passed' }] }]);
      // The page's summary reads the same analysis, whichever the strategy.
      const none = owned();
      assert.deepEqual(detail('shop/web', bg, none, []).analysis, { checks: 2, failures: 0, lastResult: undefined });
      assert.deepEqual(detail('shop/web', app, none, []).analysis, { checks: 4, failures: 1, lastResult: 'Failed' });
      assert.equal(detail('shop/web', canaryApp(), none, []).analysis, undefined);
    });

    it('an App\'s detail: actions that make sense now, revisions newest first', () => {
      const d = detail('shop/web', canaryApp(), owned({ revisions: [
        { metadata: { name: 'web-1', labels: { 'skiff.dev/revision': 'aaaaaaaaaa' }, annotations: { 'skiff.dev/outcome': 'Promoted' }, ownerReferences: OWNER }, revision: 1 },
        { metadata: { name: 'web-2', labels: { 'skiff.dev/revision': 'bbbbbbbbbb' }, annotations: { 'skiff.dev/outcome': 'Running' }, ownerReferences: OWNER }, revision: 2 },
      ] }), []);
      assert.deepEqual(d.actions, { promote: true, abort: true, pause: true, resume: false, retry: false, undo: true });
      // Retry as kubectl skiff retry decides it: the aborted revision still the template, not one changed since (held by a pause).
      const aborted = (updateRevision: string) => { const a = canaryApp(); a.status = { ...a.status, canary: undefined, abortedRevision: 'bbbbbbbbbb', updateRevision }; return a; };
      assert.equal(detail('shop/web', aborted('bbbbbbbbbb'), owned(), []).actions.retry, true);
      assert.equal(detail('shop/web', aborted('cccccccccc'), owned(), []).actions.retry, false, 'a template changed since the abort');
      // promote and abort name what they act on: a blue-green template whose preview has not started (held), not the preview before it.
      const heldBg = canaryApp();
      heldBg.spec.rollout = { strategy: 'BlueGreen', paused: true };
      heldBg.status = { ...heldBg.status, canary: undefined, stableRevision: 'aaaaaaaaaa', updateRevision: 'cccccccccc', blueGreen: { previewRevision: 'bbbbbbbbbb', activeRevision: 'aaaaaaaaaa', phase: 'ScalingDown' } };
      assert.equal(detail('shop/web', heldBg, owned(), []).commandRevision, 'cccccccccc');
      assert.deepEqual(d.revisions.map((r) => [r.number, r.outcome, r.role, r.current]), [[2, 'Running', 'canary', true], [1, 'Promoted', 'stable', false]]);
      // The template of revision 1 again as revision 3: the role is the newest entry's only.
      const again = detail('shop/web', canaryApp(), owned({ revisions: [
        { metadata: { name: 'web-1', labels: { 'skiff.dev/revision': 'aaaaaaaaaa' }, annotations: { 'skiff.dev/outcome': 'Promoted' }, ownerReferences: OWNER }, revision: 1 },
        { metadata: { name: 'web-2', labels: { 'skiff.dev/revision': 'bbbbbbbbbb' }, annotations: { 'skiff.dev/outcome': 'Promoted' }, ownerReferences: OWNER }, revision: 2 },
        { metadata: { name: 'web-3', labels: { 'skiff.dev/revision': 'aaaaaaaaaa' }, annotations: { 'skiff.dev/outcome': 'Promoted' }, ownerReferences: OWNER }, revision: 3 },
      ] }), []);
      assert.deepEqual(again.revisions.map((r) => [r.number, r.role]), [[3, 'stable'], [2, 'canary'], [1, undefined]]);
      // The template the App asks for under two numbers: no undo to either (it would change nothing).
      const twice = detail('shop/web', canaryApp(), owned({ revisions: [
        { metadata: { name: 'web-1', labels: { 'skiff.dev/revision': 'bbbbbbbbbb' }, annotations: { 'skiff.dev/outcome': 'Aborted' }, ownerReferences: OWNER }, revision: 1 },
        { metadata: { name: 'web-2', labels: { 'skiff.dev/revision': 'aaaaaaaaaa' }, annotations: { 'skiff.dev/outcome': 'Promoted' }, ownerReferences: OWNER }, revision: 2 },
        { metadata: { name: 'web-3', labels: { 'skiff.dev/revision': 'bbbbbbbbbb' }, annotations: { 'skiff.dev/outcome': 'Running' }, ownerReferences: OWNER }, revision: 3 },
      ] }), []);
      assert.deepEqual(twice.revisions.map((r) => [r.number, r.current]), [[3, true], [2, false], [1, true]]);
    });

    it('undo only where it changes something: not to an older entry of a template a newer one names, nor to fields the App has (a configuration change); skip-canary only to a revision promoted once', () => {
      // site: trackConfig, its ConfigMap changed: revision 2 has revision 1's fields and another hash (the copy's data).
      const app = canaryApp();
      app.spec = { image: 'r/web:1', rollout: { strategy: 'Canary', trackConfig: true } };
      app.status = { observedGeneration: 2, stableRevision: 'aaaaaaaaaa', updateRevision: 'bbbbbbbbbb', stableImage: 'r/web:1', canary: { image: 'r/web:1', revision: 'bbbbbbbbbb', changes: ['configMap site-cfg'], weight: 20, stepIndex: 0, stepStartedAt: '2026-01-01T00:10:00.000Z' } };
      const spec = withDefaults(app).spec;
      const entry = (n: number, hash: string, outcome: string, image = 'r/web:1') => ({ metadata: { name: `web-${n}`, labels: { 'skiff.dev/revision': hash }, annotations: { 'skiff.dev/outcome': outcome, 'skiff.dev/changes': n === 2 ? 'configMap site-cfg' : '' }, ownerReferences: OWNER }, revision: n, data: { spec: { ...spec, image }, configCopies: { 'site-cfg': `site-cfg-${hash.slice(0, 8)}` } } });
      const d = detail('shop/web', app, owned({ revisions: [entry(1, 'aaaaaaaaaa', 'Promoted'), entry(2, 'bbbbbbbbbb', 'Running')] }), []);
      const one = d.revisions.find((r) => r.number === 1)!;
      assert.match(one.noUndo!, /revision 1 \(hash aaaaaaaaaa\) has the pod-template fields the App has now; it differs in the data of what the template references \(configMap site-cfg\)/);
      // An image before, promoted, then the same template again (revision 3) and one aborted (revision 4): revision 1 is offered as 3, 4 never to skip its canary.
      const images = canaryApp();
      const e = (n: number, hash: string, outcome: string) => ({ metadata: { name: `web-${n}`, labels: { 'skiff.dev/revision': hash }, annotations: { 'skiff.dev/outcome': outcome }, ownerReferences: OWNER }, revision: n, data: { spec: { image: `r/web:${hash[0]}` } } });
      const v = detail('shop/web', images, owned({ revisions: [e(1, 'xxxxxxxxxx', 'Promoted'), e(2, 'aaaaaaaaaa', 'Promoted'), e(3, 'xxxxxxxxxx', 'Promoted'), e(4, 'yyyyyyyyyy', 'Aborted'), e(5, 'bbbbbbbbbb', 'Running')] }), []);
      assert.deepEqual(v.revisions.map((r) => [r.number, r.repeated, r.noUndo, r.everPromoted]), [
        [5, false, undefined, false], [4, false, undefined, false], [3, false, undefined, true], [2, false, undefined, true], [1, true, undefined, true],
      ]);
      // Only a rollout under way of an App with analysis has a check coming.
      assert.equal(v.analysisConfigured, false);
      images.spec.rollout = { ...images.spec.rollout, analysis: { interval: '10s' } };
      assert.equal(detail('shop/web', images, owned(), []).analysisConfigured, true);
    });

    it('with a change held back by a pause, no revision is the current template: the stable one can be undone to', () => {
      const held = canaryApp();
      held.metadata.generation = 5;
      held.spec.rollout = { ...held.spec.rollout, paused: true };
      held.status = { observedGeneration: 5, stableRevision: 'bbbbbbbbbb', updateRevision: 'eeeeeeeeee' };
      const d = detail('shop/web', held, owned({ revisions: [
        { metadata: { name: 'web-1', labels: { 'skiff.dev/revision': 'aaaaaaaaaa' }, annotations: { 'skiff.dev/outcome': 'Promoted' }, ownerReferences: OWNER }, revision: 1 },
        { metadata: { name: 'web-2', labels: { 'skiff.dev/revision': 'bbbbbbbbbb' }, annotations: { 'skiff.dev/outcome': 'Promoted' }, ownerReferences: OWNER }, revision: 2 },
      ] }), []);
      assert.deepEqual(d.revisions.map((r) => [r.number, r.current]), [[2, false], [1, false]]);
      assert.deepEqual([d.actions.promote, d.actions.abort], [false, false], 'nothing rolls out while held');
    });
  });
});

describe('dashboard: a port it cannot take', () => {
  it('says which address is taken and what to change, as a message rather than a stack trace', async () => {
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    const port = (taken.address() as AddressInfo).port;
    try {
      const second = createServer();
      const err = await new Promise<NodeJS.ErrnoException>((done) => { second.once('error', done); second.listen(port, '127.0.0.1'); });
      const said = listenError(err, '127.0.0.1', port);
      assert.ok(said instanceof CliError);
      assert.equal(said.message, `the dashboard cannot listen on 127.0.0.1:${port}: 127.0.0.1:${port} is already in use; choose another port with --port`);
    } finally {
      taken.close();
    }
    const other = Object.assign(new Error('listen EWHAT'), { code: 'EWHAT' });
    assert.equal(listenError(other, '::1', 80).message, 'the dashboard cannot listen on [::1]:80: listen EWHAT');
  });
});

describe('dashboard server over an in-memory API', () => {
  const token = 'T+k&n#' + 'x'.repeat(26);
  const app = canaryApp();
  const patched: string[] = [];
  function fakeApi(opts: { appsServed: () => boolean; unreachable?: boolean }): Api {
    return {
      connection: { context: 'test' } as Api['connection'],
      async get<T>(path: string): Promise<T> {
        if (opts.unreachable) throw networkError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'https://127.0.0.1:1');
        if (path.includes('skiff.dev')) {
          if (!opts.appsServed()) throw new ApiError(404, 'the server could not find the requested resource');
          return (path.includes('/apps/web') ? app : { metadata: { resourceVersion: '1' }, items: [app] }) as T;
        }
        if (path.startsWith('/apis/gateway')) throw new ApiError(404, 'not found');
        return { metadata: { resourceVersion: '1' }, items: [] } as T;
      },
      async mergePatch<T>(path: string): Promise<T> {
        patched.push(path);
        return app as T;
      },
      watchOnce: (_path, _rv, _on, signal) => new Promise((_, fail) => signal.addEventListener('abort', () => fail(new Error('aborted')))),
    };
  }
  const raw = (port: number, text: string) => new Promise<string>((done) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (b) => { out += b; });
    socket.on('close', () => done(out));
    socket.on('error', (err) => done(`error ${err.message}`));
    socket.end(text);
  });

  it('answers a request target that is no URL with 400 and serves on; the printed URL carries any token intact', async () => {
    const d = await startDashboard({ api: fakeApi({ appsServed: () => true }), namespace: 'shop', address: '127.0.0.1', port: 0, token });
    try {
      assert.match(await raw(d.port, `GET http://[ HTTP/1.1\r\nHost: 127.0.0.1:${d.port}\r\n\r\n`), /^HTTP\/1\.1 400 /);
      const badEscape = await fetch(`http://127.0.0.1:${d.port}/api/apps/%zz/web`, { headers: { 'x-skiff-token': token } });
      assert.deepEqual([badEscape.status, ((await badEscape.json()) as { message: string }).message], [400, 'the request target is not a URL path: a namespace or a name in it is not percent-encoded']);
      const session = await fetch(`http://127.0.0.1:${d.port}/api/session`, { headers: { 'x-skiff-token': token } });
      assert.equal(session.status, 200, 'still serving');
      assert.deepEqual(await session.json(), { scope: 'shop', context: 'test', actingAs: "acting with your kubeconfig's credentials" });
      assert.equal(new URL(d.url).searchParams.get('token'), token, 'the page reads the token the server checks');
    } finally {
      await d.stop();
    }
  });

  it('bound to every address (0.0.0.0, ::), prints a URL a browser on this machine opens: loopback, not the wildcard', async () => {
    for (const [address, host] of [['0.0.0.0', '127.0.0.1'], ['::', '[::1]']]) {
      const d = await startDashboard({ api: fakeApi({ appsServed: () => true }), namespace: 'shop', address, port: 0, token });
      try {
        assert.equal(new URL(d.url).host, `${host}:${d.port}`);
        assert.equal((await fetch(d.url)).status, 200);
      } finally {
        await d.stop();
      }
    }
  });

  it('without the App API: the page is told so, and the Apps come once it is served', async () => {
    let served = false;
    const d = await startDashboard({ api: fakeApi({ appsServed: () => served }), namespace: 'shop', address: '127.0.0.1', port: 0, token });
    const list = async () => (await (await fetch(`http://127.0.0.1:${d.port}/api/apps`, { headers: { 'x-skiff-token': token } })).json()) as { rows: unknown[]; errors: Record<string, string> };
    try {
      await eventually(async () => (await list()).errors.apps === APP_API_MISSING, { timeoutMs: 5_000, message: 'the missing App API reported' });
      served = true;
      await eventually(async () => (await list()).rows.length === 1, { timeoutMs: 10_000, message: 'the App listed once its API is served' });
      assert.deepEqual((await list()).errors, {});
    } finally {
      await d.stop();
    }
  });

  it('promote and abort act only on the rollout the page showed: another revision\'s by now is a 409, and nothing is written', async () => {
    const api = fakeApi({ appsServed: () => true });
    patched.length = 0;
    const stale = await runAction(api, 'shop', 'web', 'promote', { expectRevision: 'cccccccccc' });
    assert.deepEqual(stale.ok === false && [stale.status, stale.message], [409, "nothing done: the page showed revision cccccccccc, and the App's rollout is revision bbbbbbbbbb now; look again"]);
    const retry = await runAction(api, 'shop', 'web', 'retry', { expectRevision: 'bbbbbbbbbb' });
    assert.equal(retry.ok === false && retry.status, 409, 'nothing aborted to retry');
    assert.deepEqual(patched, []);
    const current = await runAction(api, 'shop', 'web', 'promote', { expectRevision: 'bbbbbbbbbb' });
    assert.equal(current.ok, true, JSON.stringify(current));
    assert.equal(patched.length, 1);
  });

  it('an action while the API server is out of reach is a 502 with the reason, not a refusal', async () => {
    const result = await runAction(fakeApi({ appsServed: () => true, unreachable: true }), 'shop', 'web', 'pause', {});
    assert.deepEqual(result.ok === false && [result.status, /cannot reach the API server/.test(result.message)], [502, true]);
    assert.ok(networkError(Object.assign(new Error('x'), { code: 'ETIMEDOUT' }), 's') instanceof UnreachableError);
  });
});
