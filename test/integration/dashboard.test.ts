// `kubectl skiff dashboard` against a real control plane with the real controller and the pod
// simulator: the built plugin as a child process, its HTTP API and event stream checked with
// plain requests (token, Origin and Host refusals), and the page in a real headless Chromium
// (Debian's package, driven by playwright-core): the list and its filters, a canary followed
// live, promote and abort from the page, a read-only user's refusal, reconnection after the
// dashboard and the API server restart, and no console error anywhere.
import { strict as assert } from 'node:assert';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import {
  ANNOTATION_HISTORY_IMAGES, ANNOTATION_HISTORY_OUTCOME, ANNOTATION_HISTORY_STARTED_AT, LABEL_APP, LABEL_REVISION, LABEL_SHARD,
} from '../../shared/labels.js';
import { eventually } from '../../dev/wait.js';
import { condition, createApp, getApp, newNamespace, observeFor, testLogger } from '../support/apps.js';
import { repoRoot } from '../support/bundle.js';
import { ensureChromium } from '../support/chromium.js';
import { useControllerCluster } from '../support/controller-cluster.js';
import { httpRequest, readOnlyKubeconfig, startDashboardProcess, type RunningDashboard } from '../support/dashboard.js';
import { kubectl } from '../support/kube.js';

// The functions handed to page.evaluate and waitForFunction run in the page: its globals, loosely typed
// (the project compiles without the DOM library).
declare const document: any;
declare const window: any;
declare function getComputedStyle(element: unknown): { outlineStyle: string; backgroundColor: string; color: string };

/** A shard no controller here serves: its Apps' status is written by the test alone. */
const BY_HAND = 'by-hand';
/** SKIFF_SCREENSHOTS=docs writes the README's screenshots into docs/; otherwise they go to the test's directory. */
const SCREENSHOTS = process.env.SKIFF_SCREENSHOTS === 'docs';
/** What the contract allows between a change in the cluster and the page showing it. */
const LIVE_MS = 2_000;
/** The data of hand-made ConfigMap copies: it must never reach the dashboard's pages. */
const CONFIG_DATA = 'greeting: data-the-dashboard-never-receives';

const CANARY_STEPS = [{ setWeight: 10 }, { pause: { duration: '10m' } }, { setWeight: 30 }, { pause: { duration: '10m' } }, { setWeight: 60 }, { pause: {} }];
const ANALYSIS = { interval: '30s', successRate: { min: 99 }, latency: { maxMs: 300 } };

interface Check { at: string; weight: number; result: string; metrics: { name: string; value: number; min?: number; max?: number; result: string }[] }

function checks(n: number, weight: number, start = 0): Check[] {
  return Array.from({ length: n }, (_, i) => {
    const k = start + i;
    const rate = 99.9 - ((k * 37) % 7) / 10;
    const latency = 120 + ((k * 53) % 90);
    return {
      at: new Date(Date.now() - (n - i) * 30_000).toISOString(), weight, result: 'Passed',
      metrics: [{ name: 'successRate', value: rate, min: 99, result: 'Passed' }, { name: 'latency', value: latency, max: 300, result: 'Passed' }],
    };
  });
}

describe('kubectl skiff dashboard (real control plane, headless Chromium)', function () {
  this.timeout(180_000);
  const cluster = useControllerCluster('dashboard', {
    cluster: { controllerManager: true },
    controllers: () => [{ resyncMs: 30_000, watchBrokenLimitMs: 5_000, log: testLogger('controller') }],
  });
  const k = (args: string[], stdin?: string) => kubectl(cluster.cp.kubeconfigPath, args, stdin);
  const patchStatus = (ns: string, name: string, status: unknown) =>
    k(['patch', 'app', name, '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);

  let ns: string;
  let dash: RunningDashboard;
  let browser: Browser;
  let shots: string;
  const consoleErrors: string[] = [];
  /** Network failures expected while a test restarts the dashboard on purpose. */
  let restarting = false;

  async function openPage(url: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      if (restarting && /ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|ERR_CONNECTION_RESET|ERR_INCOMPLETE_CHUNKED_ENCODING/.test(m.text())) return;
      consoleErrors.push(`${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (err) => consoleErrors.push(`${page.url()}: ${err.message}`));
    await page.goto(url);
    return page;
  }

  /** A canary App whose status, history and owned objects are written here, mid-rollout at step `stepIndex`. */
  async function handWrittenCanary(name: string, stepIndex: number, weight: number, history: Check[]): Promise<void> {
    const app = await createApp(cluster.api, ns, name, {
      image: 'registry.example/shop:2', replicas: 3, ingress: { host: `${name}.example.com` },
      rollout: { strategy: 'Canary', steps: CANARY_STEPS, analysis: ANALYSIS },
    }, { labels: { [LABEL_SHARD]: BY_HAND, team: 'shop' } });
    await patchStatus(ns, name, {
      observedGeneration: 1, stableImage: 'registry.example/shop:1', stableRevision: 'aaaaaaaaaa', replicas: 4, readyReplicas: 4,
      canary: {
        image: 'registry.example/shop:2', revision: 'bbbbbbbbbb', changes: ['image'], weight, stepIndex, stepStartedAt: new Date().toISOString(),
        // The checks so far were of the weight before (its step and the pause after it): none at this one yet.
        analysis: { checks: history.length, failures: 0, lastResult: 'Passed', lastWeight: CANARY_STEPS.slice(0, stepIndex).findLast((st) => st.setWeight !== undefined)?.setWeight ?? 0, lastCheckAt: history.at(-1)?.at, metrics: history.at(-1)?.metrics.map((m) => ({ ...m, message: '' })), history },
      },
      conditions: [
        { type: 'Ready', status: 'True', reason: 'Available', message: 'stable serves', lastTransitionTime: new Date().toISOString() },
        { type: 'Progressing', status: 'True', reason: 'CanaryStep', message: `waiting for a passing analysis check at step ${stepIndex + 1}/6 (setWeight ${weight}%) (no check at this weight yet)`, lastTransitionTime: new Date().toISOString() },
      ],
    });
    for (const [n, hash, image, outcome] of [[1, 'aaaaaaaaaa', 'registry.example/shop:1', 'Promoted'], [2, 'bbbbbbbbbb', 'registry.example/shop:2', 'Running']] as const) {
      await k(['create', '-n', ns, '-f', '-'], JSON.stringify({
        apiVersion: 'apps/v1', kind: 'ControllerRevision', revision: n, data: { spec: { image } },
        // Controlled by the App, as the controller writes its history: only those are the App's.
        metadata: { name: `${name}-${n}`, labels: { [LABEL_APP]: name, [LABEL_SHARD]: BY_HAND, [LABEL_REVISION]: hash }, ownerReferences: [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name, uid: app.metadata.uid, controller: true }], annotations: {
          [ANNOTATION_HISTORY_IMAGES]: image, [ANNOTATION_HISTORY_OUTCOME]: outcome, [ANNOTATION_HISTORY_STARTED_AT]: new Date(Date.now() - (3 - n) * 3_600_000).toISOString(),
        } },
      }));
    }
  }

  /** What the controller would own for the hand-written canary, and two of its Events. */
  async function handWrittenObjects(name: string, weight: number): Promise<void> {
    const labels = { [LABEL_APP]: name, [LABEL_SHARD]: BY_HAND };
    const deployment = (n: string, track: string, hash: string, image: string, replicas: number) => ({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: n, labels: { ...labels, 'skiff.dev/track': track }, annotations: { [LABEL_REVISION]: hash } },
      spec: { replicas, selector: { matchLabels: { [LABEL_APP]: name, 'skiff.dev/track': track } }, template: { metadata: { labels: { [LABEL_APP]: name, 'skiff.dev/track': track } }, spec: { containers: [{ name: 'app', image }] } } },
    });
    const service = (n: string, track: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: n, labels }, spec: { selector: { [LABEL_APP]: name, 'skiff.dev/track': track }, ports: [{ port: 80, targetPort: 8080 }] } });
    const ingress = (n: string, annotations: Record<string, string>) => ({
      apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: n, labels, annotations },
      spec: { rules: [{ host: `${name}.example.com`, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: n, port: { number: 80 } } } }] } }] },
    });
    const configCopy = (n: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n, labels }, data: { 'settings.yaml': CONFIG_DATA } });
    const event = (reason: string, message: string, ago: number) => ({
      apiVersion: 'v1', kind: 'Event', metadata: { name: `${name}.${reason.toLowerCase()}` }, involvedObject: { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name, namespace: ns },
      type: 'Normal', reason, message, count: 1, source: { component: 'skiff-controller' },
      firstTimestamp: new Date(Date.now() - ago).toISOString(), lastTimestamp: new Date(Date.now() - ago).toISOString(),
    });
    await k(['create', '-n', ns, '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [
      deployment(name, 'stable', 'aaaaaaaaaa', 'registry.example/shop:1', 3), deployment(`${name}-canary`, 'canary', 'bbbbbbbbbb', 'registry.example/shop:2', 1),
      service(name, 'stable'), service(`${name}-canary`, 'canary'),
      ingress(name, {}), ingress(`${name}-canary`, { 'nginx.ingress.kubernetes.io/canary': 'true', 'nginx.ingress.kubernetes.io/canary-weight': String(weight) }),
      event('CanaryStarted', 'canary of registry.example/shop:2 (revision bbbbbbbbbb) started (stable: revision aaaaaaaaaa)', 300_000),
      event('CanaryStep', `canary of registry.example/shop:2 (revision bbbbbbbbbb): now at step 3/6 (setWeight ${weight}%)`, 20_000),
      configCopy(`${name}-settings-aaaaaaaaaa`),
    ] }));
  }

  const CANARY_SPEC = { image: 'registry.example/web:1', replicas: 2, ingress: { host: 'live.example.com' }, rollout: { strategy: 'Canary' as const, scaleDownDelaySeconds: 0, steps: [{ setWeight: 50 }, { pause: {} }] } };
  const app = (name: string) => getApp(cluster.api, ns, name);
  const pausedOf = (a: { spec: { rollout?: object } }) => (a.spec.rollout as { paused?: boolean } | undefined)?.paused;
  const settled = (name: string) => eventually(async () => condition(await app(name), 'Progressing')?.reason === 'RolloutComplete' && condition(await app(name), 'Ready')?.status === 'True', { timeoutMs: 60_000, message: `${name} rolled out` });

  before(async function () {
    this.timeout(240_000);
    shots = SCREENSHOTS ? join(repoRoot, 'docs') : join(cluster.cluster.dir, 'screenshots');
    mkdirSync(shots, { recursive: true });
    const executablePath = await ensureChromium();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    ns = await newNamespace(cluster.api, 'dash');
    await createApp(cluster.api, ns, 'api', { image: 'registry.example/api:4', replicas: 2, ingress: { host: 'api.example.com' } }, { labels: { team: 'core' } });
    await createApp(cluster.api, ns, 'worker', { image: 'registry.example/worker:7', replicas: 1, rollout: { strategy: 'Canary', paused: true, steps: [{ setWeight: 50 }] } as never }, { labels: { [LABEL_SHARD]: BY_HAND, team: 'core' } });
    await patchStatus(ns, 'worker', { observedGeneration: 1, stableImage: 'registry.example/worker:7', conditions: [{ type: 'Ready', status: 'True', reason: 'Available', message: 'ready', lastTransitionTime: new Date().toISOString() }] });
    await createApp(cluster.api, ns, 'live', CANARY_SPEC, { labels: { team: 'web' } });
    await createApp(cluster.api, ns, 'billing', { image: 'registry.example/billing:3', replicas: 2 }, { labels: { [LABEL_SHARD]: BY_HAND, team: 'shop' } });
    await patchStatus(ns, 'billing', {
      // By digest, as long as image references get: the App's page must still fit a narrow window.
      observedGeneration: 1, stableImage: `registry.example/some/long/path/to/billing@sha256:${'0123456789abcdef'.repeat(4)}`, abortedImage: 'registry.example/billing:3', abortedRevision: 'cccccccccc',
      conditions: [{ type: 'Degraded', status: 'True', reason: 'AnalysisFailed', message: 'successRate 91.2 < 99 at 20%', lastTransitionTime: new Date().toISOString() }],
    });
    await handWrittenCanary('shop', 2, 30, checks(9, 30));
    await handWrittenObjects('shop', 30);
    await Promise.all([settled('api'), settled('live')]);
    dash = await startDashboardProcess(cluster.cp.kubeconfigPath, ['-n', ns, '--port', '0']);
  });

  after(async () => {
    await browser?.close();
    await dash?.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed') return;
    assert.deepEqual(consoleErrors.splice(0), [], 'no console error on any page');
  });

  describe('HTTP API', () => {
    const host = () => `127.0.0.1:${dash.port}`;
    const get = (path: string, headers: Record<string, string> = {}) => httpRequest(dash.port, 'GET', path, { host: host(), ...headers });
    const post = (path: string, headers: Record<string, string>, body = '{}') => httpRequest(dash.port, 'POST', path, { host: host(), 'content-type': 'application/json', ...headers }, body);

    it('refuses data without the token, any request with a foreign Host, and writes without the token or with a foreign Origin', async () => {
      assert.equal((await get('/api/apps')).status, 401);
      assert.equal((await get('/api/apps', { 'x-skiff-token': 'wrong-token-of-the-same-kind' })).status, 401);
      assert.equal((await get(`/api/stream?app=${ns}/live`)).status, 401);
      assert.equal((await get(`/api/apps/${ns}/live`)).status, 401);
      // DNS rebinding: a page of evil.example whose name now points at 127.0.0.1 sends its own Host.
      for (const path of ['/', '/app.js', '/api/apps', `/api/stream?token=${dash.token}`]) {
        const r = await get(path, { host: `evil.example:${dash.port}`, 'x-skiff-token': dash.token });
        assert.equal(r.status, 421, `${path} with a foreign Host`);
      }
      const pause = `/api/apps/${ns}/live/pause`;
      assert.equal((await post(pause, { origin: dash.origin })).status, 401, 'a write without the token');
      assert.equal((await post(pause, { 'x-skiff-token': dash.token })).status, 403, 'a write without Origin');
      assert.equal((await post(pause, { 'x-skiff-token': dash.token, origin: 'http://evil.example' })).status, 403, 'a write from another origin');
      assert.equal((await post(pause, { 'x-skiff-token': dash.token, origin: `http://localhost:${dash.port + 1}` })).status, 403, 'a write from another port');
      assert.equal((await get('/api/apps', { 'x-skiff-token': dash.token, origin: 'http://evil.example' })).status, 403, 'a cross-origin read');
      assert.equal(pausedOf(await app('live')), undefined, 'no refused request wrote anything');
      const page = await get('/');
      assert.equal(page.status, 200);
      assert.equal(page.headers['cache-control'], 'no-store');
      assert.match(String(page.headers['content-security-policy']), /default-src 'none'; script-src 'self'/);
      assert.doesNotMatch(page.body, new RegExp(dash.token), 'no secret in the page');
      assert.equal((await get('/', { host: `localhost:${dash.port}` })).status, 200, 'localhost names loopback too');
    });

    it('serves the list and an App as JSON, and streams a snapshot then changes', async () => {
      const list = await get('/api/apps', { 'x-skiff-token': dash.token });
      assert.equal(list.status, 200);
      assert.equal(list.headers['cache-control'], 'no-store');
      const body = JSON.parse(list.body) as { scope: string; rows: { name: string; status: string; strategy: string; step: string; weight?: number; actualWeight?: number }[]; counts: Record<string, number> };
      assert.equal(body.scope, ns);
      const byName = Object.fromEntries(body.rows.map((r) => [r.name, r]));
      assert.deepEqual(Object.keys(byName).sort(), ['api', 'billing', 'live', 'shop', 'worker']);
      assert.deepEqual([byName.api.status, byName.worker.status, byName.live.status, byName.billing.status, byName.shop.status], ['Healthy', 'Paused', 'Healthy', 'Degraded', 'Progressing']);
      assert.deepEqual(body.counts, { Healthy: 2, Progressing: 1, Paused: 1, Degraded: 1 });
      assert.deepEqual([byName.shop.step, byName.shop.weight], ['3/6', 30]);
      const detail = JSON.parse((await get(`/api/apps/${ns}/shop`, { 'x-skiff-token': dash.token })).body) as { metrics: { name: string; points: unknown[]; min?: number; max?: number }[]; revisions: { number: number; outcome: string }[] };
      assert.deepEqual(detail.metrics.map((m) => [m.name, m.points.length, m.min, m.max]), [['successRate', 9, 99, undefined], ['latency', 9, undefined, 300]]);
      assert.deepEqual(detail.revisions.map((r) => [r.number, r.outcome]), [[2, 'Running'], [1, 'Promoted']]);
      // The ConfigMap copies are listed and watched as metadata only (PartialObjectMetadata, which
      // the 1.20 server serves): their names reach the page, their data never does.
      const copies = async () => (JSON.parse((await get(`/api/apps/${ns}/shop`, { 'x-skiff-token': dash.token })).body) as { objects: { kind: string; name: string }[] }).objects.filter((o) => o.kind === 'ConfigMap').map((o) => o.name);
      assert.deepEqual(await copies(), ['shop-settings-aaaaaaaaaa']);
      await k(['create', '-n', ns, '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shop-settings-bbbbbbbbbb', labels: { [LABEL_APP]: 'shop', [LABEL_SHARD]: BY_HAND } }, data: { 'settings.yaml': CONFIG_DATA } }));
      await eventually(async () => (await copies()).length === 2, { timeoutMs: 10_000, message: 'a copy created later comes by the metadata-only watch' });
      const page = (await get(`/api/apps/${ns}/shop`, { 'x-skiff-token': dash.token })).body;
      assert.ok(!page.includes(CONFIG_DATA), 'no copy\'s data in the App\'s page data');

      const stepOf = (e: { data: unknown }) => (e.data as { row?: { step: string } }).row?.step;
      const events = await streamEvents(`/api/stream?token=${dash.token}&app=${encodeURIComponent(`${ns}/shop`)}`, (e) => stepOf(e) === '4/6', async () => {
        await patchStatus(ns, 'shop', { canary: { stepIndex: 3, stepStartedAt: new Date().toISOString() } });
      });
      assert.equal(events[0].event, 'app');
      assert.equal(stepOf(events[0]), '3/6', 'a snapshot first');
      const last = events.at(-1)!;
      assert.equal(last.event, 'app');
      assert.ok(last.ms <= LIVE_MS, `the change arrived ${last.ms} ms after the write`);
      await patchStatus(ns, 'shop', { canary: { stepIndex: 2, stepStartedAt: new Date().toISOString() } });
    });

    it('follows a namespace without ConfigMap copies: the metadata-only list of none (items: null) is no error, and a copy made later appears', async () => {
      // The 1.20 server answers a PartialObjectMetadataList of nothing with `items: null`, where
      // typed lists say []: the dashboard took it for a failed watch ("watch of configMaps: n is
      // not iterable (retrying)" over every page) and listed again, failing, for as long as the
      // namespace had no copy.
      const empty = await newNamespace(cluster.api, 'dash-nocopy');
      await createApp(cluster.api, empty, 'solo', { image: 'registry.example/solo:1', replicas: 1 }, { labels: { [LABEL_SHARD]: BY_HAND } });
      const solo = await startDashboardProcess(cluster.cp.kubeconfigPath, ['-n', empty, '--port', '0']);
      try {
        const read = async (path: string) => JSON.parse((await httpRequest(solo.port, 'GET', path, { host: `127.0.0.1:${solo.port}`, 'x-skiff-token': solo.token })).body) as { rows?: { name: string }[]; objects?: { kind: string; name: string }[]; errors: Record<string, string> };
        await eventually(async () => (await read('/api/apps')).rows?.length === 1, { timeoutMs: 10_000, message: 'the App listed' });
        // Every kind is listed at the start, the copies' with the rest: a failed list shows in
        // `errors` at once and stays while it keeps failing. Read for 3 s: never any.
        const seen: Record<string, string>[] = [];
        for (const until = Date.now() + 3_000; Date.now() < until;) {
          seen.push((await read('/api/apps')).errors);
          await new Promise((r) => setTimeout(r, 100));
        }
        assert.deepEqual(seen.filter((e) => Object.keys(e).length > 0), [], 'no watch failed');
        await k(['create', '-n', empty, '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'solo-settings-cccccccccc', labels: { [LABEL_APP]: 'solo', [LABEL_SHARD]: BY_HAND } }, data: { 'settings.yaml': CONFIG_DATA } }));
        await eventually(async () => (await read(`/api/apps/${empty}/solo`)).objects?.some((o) => o.kind === 'ConfigMap' && o.name === 'solo-settings-cccccccccc'), { timeoutMs: LIVE_MS, intervalMs: 100, message: 'the copy made later, within 2 s by the watch' });
      } finally {
        await solo.stop();
      }
    });

    /** The events of a stream up to the first `until` accepts after `change`, which runs once the first arrived; `ms` counts from when it finished. */
    async function streamEvents(path: string, until: (e: { event: string; data: unknown }) => boolean, change: () => Promise<void>): Promise<{ event: string; data: unknown; ms: number }[]> {
      const res = await fetch(`${dash.origin}${path}`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
      const out: { event: string; data: unknown; ms: number }[] = [];
      let changedAt = 0;
      let text = '';
      const decoder = new TextDecoder();
      for await (const chunk of res.body!) {
        text += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!event || !data) continue;
          out.push({ event, data: JSON.parse(data), ms: changedAt ? Date.now() - changedAt : 0 });
          if (out.length === 1) {
            await change();
            changedAt = Date.now();
          }
          // Leaving the loop cancels the body: the stream's connection closes.
          if (changedAt && until(out.at(-1)!)) return out;
        }
      }
      return out;
    }
  });

  describe('the page', () => {
    let page: Page;
    before(async () => {
      page = await openPage(dash.url);
    });
    after(async () => page?.close());

    const rowStatus = (name: string) => page.getAttribute(`tr[data-key="${ns}/${name}"]`, 'data-status');
    const visibleRows = () => page.$$eval('#rows tr', (rows) => rows.map((r) => (r as unknown as { dataset: { key: string } }).dataset.key.split('/')[1]).sort());

    it('lists every App with its status, counts to filter by, and a search by name or label=value', async () => {
      await page.waitForSelector(`tr[data-key="${ns}/shop"]`);
      assert.deepEqual(await visibleRows(), ['api', 'billing', 'live', 'shop', 'worker']);
      assert.deepEqual(await Promise.all(['api', 'worker', 'live', 'billing', 'shop'].map(rowStatus)), ['Healthy', 'Paused', 'Healthy', 'Degraded', 'Progressing']);
      const shop = (await page.textContent(`tr[data-key="${ns}/shop"]`))!;
      assert.match(shop, /Canary/);
      assert.match(shop, /3\/6/);
      assert.match(shop, /30% set · 30% actual/);
      assert.match(shop, /registry\.example\/shop:1 stable/);
      assert.match(shop, /registry\.example\/shop:2 canary/);
      assert.equal((await page.textContent('button[data-status="Healthy"] .n'))!.trim(), '2');
      // A narrow window: the table scrolls by itself, the page keeps the window's width.
      const size = page.viewportSize();
      await page.setViewportSize({ width: 600, height: size?.height ?? 800 });
      assert.deepEqual(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), true, 'no page-wide horizontal scroll at 600 px');
      // An App's page with an image by digest, at a phone's width: the image wraps in its place.
      await page.setViewportSize({ width: 390, height: size?.height ?? 800 });
      await page.goto(`${dash.url}#/app/${ns}/billing`);
      await page.waitForFunction(() => /sha256:0123/.test(document.querySelector('dl.header')?.textContent ?? ''), undefined, { timeout: LIVE_MS });
      assert.deepEqual(await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]).then(([w, c]) => w <= c), true, 'no page-wide horizontal scroll at 390 px on an App\'s page');
      await page.goto(dash.url);
      await page.waitForSelector(`tr[data-key="${ns}/shop"]`);
      if (size) await page.setViewportSize(size);

      await page.click('button[data-status="Degraded"]');
      assert.deepEqual(await visibleRows(), ['billing']);
      await page.click('button[data-status="Paused"]');
      assert.deepEqual(await visibleRows(), ['billing', 'worker']);
      await page.click('button.count.all');
      assert.deepEqual(await visibleRows(), ['api', 'billing', 'live', 'shop', 'worker']);
      await page.fill('#search', 'team=core');
      assert.deepEqual(await visibleRows(), ['api', 'worker']);
      await page.fill('#search', 'ork');
      assert.deepEqual(await visibleRows(), ['worker']);
      // As kubectl's label selectors: == and !=, several terms all of which match; a name in any case.
      await page.fill('#search', 'team!=core');
      assert.deepEqual(await visibleRows(), ['billing', 'live', 'shop']);
      await page.fill('#search', 'team==shop  BILL');
      assert.deepEqual(await visibleRows(), ['billing']);
      // Requirements joined by commas, as kubectl's -l takes them.
      await page.fill('#search', 'team!=core,team!=shop');
      assert.deepEqual(await visibleRows(), ['live']);
      await page.fill('#search', '');
      await page.locator('#search').blur();
      // Readable in both schemes: the colours follow prefers-color-scheme.
      const colours = () => page.evaluate(() => [getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color]);
      await page.emulateMedia({ colorScheme: 'dark' });
      assert.deepEqual(await colours(), ['rgb(13, 17, 23)', 'rgb(230, 237, 243)']);
      await page.emulateMedia({ colorScheme: 'light' });
      assert.deepEqual(await colours(), ['rgb(255, 255, 255)', 'rgb(31, 35, 40)']);
      await page.screenshot({ path: join(shots, 'dashboard-list.png') });
    });

    it('works with the keyboard alone: a filter, the search and an App reached with Tab and Enter, a visible focus', async () => {
      await page.focus('#home');
      const reached: string[] = [];
      for (let i = 0; i < 12 && !reached.includes('search'); i++) {
        await page.keyboard.press('Tab');
        reached.push(await page.evaluate(() => document.activeElement?.id || document.activeElement?.getAttribute('data-focus') || document.activeElement?.tagName || ''));
      }
      assert.ok(reached.includes('count-Degraded'), `Tab reaches the filters: ${reached.join(' ')}`);
      const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
      assert.equal(outline, 'solid', 'the focused element shows a focus ring');
      await page.keyboard.type('shop');
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-focus')), `row-${ns}/shop`);
      await page.keyboard.press('Enter');
      await page.waitForSelector('#step');
      assert.match(page.url(), new RegExp(`#/app/${ns}/shop$`));
      // An action taken with the keyboard: the button it disables gives the focus to the line
      // that says what it did, not to the page's start.
      await page.goto(`${dash.url}#/app/${ns}/worker`);
      await page.waitForFunction(() => !document.querySelector('button[data-action="resume"]')?.hasAttribute('disabled'), undefined, { timeout: 10_000 });
      await page.focus('#home');
      for (let i = 0; i < 20 && (await page.evaluate(() => document.activeElement?.getAttribute('data-focus'))) !== 'action-resume'; i++) await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#confirm[open]');
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'confirm-ok');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#result.done');
      await page.waitForFunction(() => document.querySelector('button[data-action="resume"]')?.hasAttribute('disabled'), undefined, { timeout: LIVE_MS });
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'result');
      // And keeps it there through the live updates that follow.
      await k(['patch', 'app', 'worker', '-n', ns, '--type=merge', '-p', JSON.stringify({ spec: { rollout: { paused: true } } })]);
      await page.waitForFunction(() => !document.querySelector('button[data-action="resume"]')?.hasAttribute('disabled'), undefined, { timeout: LIVE_MS });
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'result');
      // A hash that does not decode (a link cut short) shows the list, without a script error.
      await page.evaluate(() => { window.location.hash = '#/app/%zz/shop'; });
      await page.waitForSelector('#search');
    });

    it('follows a canary live: step, weight and chart points within 2 s of each change, without reloading', async () => {
      await page.goto(`${dash.url}#/app/${ns}/shop`);
      await page.waitForSelector('svg[data-metric="successRate"]');
      await page.waitForFunction(() => document.querySelectorAll('tr[data-object^="Deployment/"] .ok').length === 2, undefined, { timeout: 60_000 });
      assert.match((await page.textContent('tr[data-object="Ingress/shop-canary"]'))!, /canary weight 30%/);
      assert.match((await page.textContent('#h-events + .scroll table'))!, /CanaryStep.*now at step 3\/6 \(setWeight 30%\)/);
      assert.equal(await page.getAttribute('svg[data-metric="successRate"]', 'data-points'), '9');
      assert.match((await page.textContent('#step'))!, /^3\/6 setWeight 30%/);
      assert.equal(await page.textContent('ol.steps li[aria-current="step"]'), 'setWeight 30% ◀ current');
      assert.match((await page.textContent('#weight'))!, /^30% set/);
      assert.equal(await page.locator('svg[data-metric="latency"] line.bound.max').count(), 1, 'the bound of the latency chart');
      assert.deepEqual(await page.$$eval('main h2', (hs) => hs.map((x) => x.textContent)), ['Steps', 'Analysis', 'Revisions', 'Conditions', 'Events', 'Objects']);
      await page.screenshot({ path: join(shots, 'dashboard-canary.png'), fullPage: true });
      const marker = await page.evaluate(() => (window.marker = 42));

      const history = checks(12, 60);
      for (const [stepIndex, weight, points] of [[3, 30, 10], [4, 60, 11], [5, 60, 12]] as const) {
        await patchStatus(ns, 'shop', { canary: { stepIndex, weight, stepStartedAt: new Date().toISOString(), analysis: { checks: points, history: history.slice(0, points) } } });
        const wrote = Date.now();
        await page.waitForFunction(([step, w, n]) => document.querySelector('#step')?.textContent?.startsWith(`${step}/6`)
          && document.querySelector('#weight')?.textContent?.startsWith(`${w}% set`)
          && document.querySelector('svg[data-metric="successRate"]')?.getAttribute('data-points') === String(n), [stepIndex + 1, weight, points], { timeout: LIVE_MS, polling: 50 });
        assert.ok(Date.now() - wrote <= LIVE_MS + 100, `step ${stepIndex + 1} shown ${Date.now() - wrote} ms after the write`);
        // A timed pause says what is left of it, as kubectl skiff get does.
        if (stepIndex === 3) await page.waitForFunction(() => /^4\/6 pause 10m, \d+s left$/.test(document.querySelector('#step')?.textContent ?? ''), undefined, { timeout: LIVE_MS });
      }
      assert.equal(await page.evaluate(() => window.marker), marker, 'the page was not reloaded');
    });

    it('promotes and aborts a canary from the page as kubectl skiff promote and abort do', async () => {
      await k(['patch', 'app', 'live', '-n', ns, '--type=merge', '-p', JSON.stringify({ spec: { image: 'registry.example/web:2' } })]);
      await eventually(async () => condition(await app('live'), 'Progressing')?.reason === 'CanaryPaused', { timeoutMs: 60_000, message: 'live paused at its pause step' });
      await page.goto(`${dash.url}#/app/${ns}/live`);
      await page.waitForFunction(() => document.querySelector('#step')?.textContent?.startsWith('2/2'), undefined, { timeout: 10_000 });
      await page.waitForFunction(() => /50% set · 50% actual/.test(document.querySelector('#weight')?.textContent ?? ''), undefined, { timeout: 10_000 });
      await confirm(page, 'promote');
      await page.waitForSelector('#result.done');
      assert.match((await page.textContent('#result'))!, /promoting registry\.example\/web:2/);
      await settled('live');
      assert.equal((await app('live')).status?.stableImage, 'registry.example/web:2');
      await page.waitForFunction(() => document.querySelector('dl.header .badge')?.textContent?.includes('Healthy'), undefined, { timeout: LIVE_MS * 3 });

      await k(['patch', 'app', 'live', '-n', ns, '--type=merge', '-p', JSON.stringify({ spec: { image: 'registry.example/web:3' } })]);
      await page.waitForFunction(() => !document.querySelector('button[data-action="abort"]')?.hasAttribute('disabled'), undefined, { timeout: 30_000 });
      // A dialog belongs to the App it names: leaving that App's page (Back) closes it, so that no
      // Confirm can act on the App shown by then, and nothing is sent.
      await page.evaluate((hash) => { window.location.hash = hash; }, `#/app/${ns}/api`);
      await page.waitForFunction(() => document.querySelector('h1')?.textContent?.startsWith('api') && !document.querySelector('button[data-action="pause"]')?.hasAttribute('disabled'), undefined, { timeout: 10_000 });
      await page.click('button[data-action="pause"]');
      await page.waitForSelector('#confirm[open]');
      assert.equal(await page.textContent('#confirm-title'), `Pause ${ns}/api?`);
      await page.goBack();
      await page.waitForFunction(() => document.querySelector('h1')?.textContent?.startsWith('live'), undefined, { timeout: 10_000 });
      assert.equal(await page.evaluate(() => document.getElementById('confirm').open), false, 'the dialog closed with the page it asked about');
      await observeFor(1_000, 'any request the dialog sent');
      assert.equal(pausedOf(await app('api')), undefined);
      assert.equal(pausedOf(await app('live')), undefined);
      await page.waitForFunction(() => !document.querySelector('button[data-action="abort"]')?.hasAttribute('disabled'), undefined, { timeout: 10_000 });
      // Cancel first: nothing is sent. The "skip the canary" choice belongs to undo only: hidden here.
      await page.click('button[data-action="abort"]');
      await page.waitForSelector('#confirm[open]');
      assert.equal(await page.isVisible('#confirm-skip'), false, 'no "skip the canary" choice in the abort dialog');
      await page.click('#confirm-cancel');
      await page.click('button[data-action="undo"][data-revision="1"]');
      await page.waitForSelector('#confirm[open]');
      assert.equal(await page.isVisible('#confirm-skip'), true, 'the undo dialog offers to skip the canary');
      await page.click('#confirm-cancel');
      assert.equal(await page.evaluate(() => document.getElementById('confirm').open), false);
      await confirm(page, 'abort');
      await page.waitForSelector('#result.done');
      assert.match((await page.textContent('#result'))!, /aborting the canary of registry\.example\/web:3/);
      await eventually(async () => condition(await app('live'), 'Degraded')?.status === 'True', { timeoutMs: 60_000, message: 'live Degraded after the abort' });
      await page.waitForFunction(() => document.querySelector('dl.header .badge')?.textContent?.includes('Degraded'), undefined, { timeout: LIVE_MS * 3 });
      assert.equal((await app('live')).status?.abortedImage, 'registry.example/web:3');
      assert.equal(await page.isDisabled('button[data-action="retry"]'), false, 'an aborted revision can be retried');
    });

    it('lets a hidden tab\'s stream go: a seventh tab of one browser loads and follows, and a tab shown again catches up', async () => {
      // One browser context: its tabs share the six HTTP/1.1 connections a browser opens to a host.
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const live = () => document.getElementById('live')?.textContent === 'live';
      // As a tab the user switched away from: the page is told it is hidden.
      const setVisibility = (tab: Page, state: 'hidden' | 'visible') => tab.evaluate((v) => {
        Object.defineProperty(document, 'visibilityState', { value: v, configurable: true });
        Object.defineProperty(document, 'hidden', { value: v === 'hidden', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      }, state);
      try {
        const tabs: Page[] = [];
        for (let i = 0; i < 6; i++) {
          const tab = await context.newPage();
          await tab.goto(`${dash.url}#/app/${ns}/shop`);
          await tab.waitForSelector('#step');
          await tab.waitForFunction(live, undefined, { timeout: 10_000 });
          await setVisibility(tab, 'hidden');
          await tab.waitForFunction(() => document.getElementById('live')?.textContent === 'paused while hidden');
          tabs.push(tab);
        }
        // With six streams held, this page's own requests would wait for one of them to end.
        const seventh = await context.newPage();
        await seventh.goto(dash.url, { timeout: 10_000 });
        await seventh.waitForSelector(`tr[data-key="${ns}/shop"]`, { timeout: 10_000 });
        await seventh.waitForFunction(live, undefined, { timeout: 10_000 });
        // Shown again, a tab connects anew: a change made while it was hidden is on it.
        await patchStatus(ns, 'shop', { canary: { stepIndex: 1, weight: 10 } });
        await seventh.waitForFunction((key) => document.querySelector(`tr[data-key="${key}"]`)?.textContent?.includes('10% set'), `${ns}/shop`, { timeout: LIVE_MS });
        await setVisibility(tabs[0], 'visible');
        await tabs[0].waitForFunction(live, undefined, { timeout: 10_000 });
        await tabs[0].waitForFunction(() => document.querySelector('#step')?.textContent?.startsWith('2/6'), undefined, { timeout: LIVE_MS });
        await patchStatus(ns, 'shop', { canary: { stepIndex: 2, weight: 30 } });
        await tabs[0].waitForFunction(() => document.querySelector('#step')?.textContent?.startsWith('3/6'), undefined, { timeout: LIVE_MS });
      } finally {
        await context.close();
      }
    });

    it('reconnects after the dashboard restarts (same port and token) and after the API server restarts', async () => {
      await page.goto(`${dash.url}#/app/${ns}/shop`);
      await page.waitForSelector('#step');
      restarting = true;
      try {
        await dash.stop();
        await page.waitForFunction(() => document.getElementById('live')?.textContent === 'reconnecting…', undefined, { timeout: 10_000 });
        // What is on the page may be out of date meanwhile: said, and no action offered that could not be sent.
        assert.match((await page.textContent('#banner'))!, /The dashboard does not answer: this page shows what it last heard/);
        assert.equal(await page.isDisabled('button[data-action="abort"]'), true);
        dash = await startDashboardProcess(cluster.cp.kubeconfigPath, ['-n', ns, '--port', String(dash.port)], { SKIFF_DASHBOARD_TOKEN: dash.token });
        await page.waitForFunction(() => document.getElementById('live')?.textContent === 'live', undefined, { timeout: 15_000 });
        await page.waitForSelector('#banner', { state: 'hidden', timeout: LIVE_MS });
        await page.waitForFunction(() => !(document.querySelector('button[data-action="abort"]') as { disabled?: boolean } | null)?.disabled, undefined, { timeout: LIVE_MS });
        await patchStatus(ns, 'shop', { canary: { stepIndex: 1, weight: 10 } });
        await page.waitForFunction(() => document.querySelector('#step')?.textContent?.startsWith('2/6'), undefined, { timeout: LIVE_MS });

        await cluster.cp.stopApiServer();
        await page.waitForSelector('#banner:not([hidden])', { timeout: 30_000 });
        assert.match((await page.textContent('#banner'))!, /watch of \w+: .*\(retrying\)/);
        await cluster.cp.startApiServer();
        await page.waitForSelector('#banner', { state: 'hidden', timeout: 60_000 });
        await patchStatus(ns, 'shop', { canary: { stepIndex: 2, weight: 30 } });
        await page.waitForFunction(() => document.querySelector('#step')?.textContent?.startsWith('3/6'), undefined, { timeout: LIVE_MS });
      } finally {
        restarting = false;
      }
    });
  });

  describe('a user who may only read', () => {
    it('sees the App and gets the API server\'s refusal on the page when acting', async () => {
      const viewer = await readOnlyKubeconfig(cluster.api, cluster.cp.kubeconfigPath, cluster.cluster.dir, ns);
      const readOnly = await startDashboardProcess(viewer, ['--port', '0']);
      try {
        const page = await openPage(`${readOnly.url}#/app/${ns}/api`);
        await page.waitForSelector('#step');
        await confirm(page, 'pause');
        await page.waitForSelector('#result.refused');
        const text = (await page.textContent('#result'))!;
        assert.match(text, /^Refused \(403 Forbidden\): apps\.skiff\.dev "api" is forbidden: User "system:serviceaccount:[^"]+:dashboard-viewer" cannot patch resource "apps"/);
        assert.equal(pausedOf(await app('api')), undefined);
        await page.close();
      } finally {
        await readOnly.stop();
      }
    });
  });

  /** Clicks an action's button and confirms it in the dialog. */
  async function confirm(page: Page, action: string): Promise<void> {
    await page.click(`button[data-action="${action}"]`);
    await page.waitForSelector('#confirm[open]');
    await page.click('#confirm-ok');
  }
});
