// ResilientInformer (controller/runtime/informer.ts) over a watch of the test's making: a watch
// the API server opens but answers only with an ERROR Status is down (for /readyz) and backs off,
// until a watch delivers again.
import { strict as assert } from 'node:assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ResilientInformer, waitForCacheSync } from '../../controller/runtime/informer.js';
import type { Watch, WatchCallback } from '../../controller/runtime/watch.js';
import { listAll, type Clients } from '../../controller/runtime/clients.js';
import { ConfigSources } from '../../controller/config-sources.js';
import { copyName, desiredCopy, isHollowCopy } from '../../shared/render/config-copies.js';
import { defaultedAppFixture } from '../support/app-fixture.js';
import type { SendJson } from '../../controller/runtime/http-api-client.js';
import { eventually } from '../../dev/wait.js';
import { testLogger } from '../support/apps.js';

describe('ResilientInformer', () => {
  it('a watch that opens but answers ERROR 504 stays down and backs off; one that delivers is up', async () => {
    const watches: { send: WatchCallback; done: (err: unknown) => void; openedAt: number }[] = [];
    const watch: Watch = {
      async watch(_path, _query, send, done) {
        watches.push({ send, done, openedAt: Date.now() });
        return { abort: () => {} };
      },
    };
    let lists = 0;
    const informer = new ResilientInformer<KubernetesObject>({
      resource: 'things', path: '/p', watch, log: testLogger('informer'), onChange: () => {},
      list: async () => ({ metadata: { resourceVersion: String(++lists) }, items: [] }),
      restartBackoffMs: { initial: 20, max: 1_000 },
    });
    informer.start();
    try {
      await eventually(async () => watches.length === 1, { timeoutMs: 2_000, message: 'the first watch' });
      assert.equal(informer.brokenForMs(), 0, 'up once watching');
      for (let i = 1; i <= 3; i++) {
        watches[i - 1].send('ERROR', { kind: 'Status', code: 504, message: 'Too large resource version' }, {});
        watches[i - 1].done(null);
        await eventually(async () => watches.length === i + 1, { timeoutMs: 5_000, message: `watch ${i + 1}` });
        assert.ok(informer.brokenForMs(performance.now() + 1) > 0, `watch ${i + 1} is open, but nothing has come through it: still down`);
      }
      assert.equal(lists, 4, 'each failure listed again');
      // The waits between watches double: 20, 40, 80 ms (at least).
      const gaps = watches.slice(1).map((w, i) => w.openedAt - watches[i].openedAt);
      assert.ok(gaps[2] >= 80, `backed off: ${gaps.join(', ')} ms`);
      watches[3].send('ADDED', { metadata: { name: 'a', namespace: 'n', resourceVersion: '9' } }, {});
      assert.equal(informer.brokenForMs(), 0, 'up once a watch delivers');
    } finally {
      await informer.stop();
    }
  });

  it('a server that accepts every watch and ends it at once, without an event: the retries back off', async () => {
    const opened: number[] = [];
    const watch: Watch = {
      async watch(_path, _query, _send, done) {
        opened.push(performance.now());
        setImmediate(() => done(null));
        return { abort: () => {} };
      },
    };
    const informer = new ResilientInformer<KubernetesObject>({
      resource: 'things', path: '/p', watch, log: testLogger('informer'), onChange: () => {},
      list: async () => ({ metadata: { resourceVersion: '1' }, items: [] }),
      restartBackoffMs: { initial: 20, max: 1_000 },
    });
    informer.start();
    try {
      await eventually(async () => opened.length >= 4, { timeoutMs: 5_000, message: 'four watches' });
      // Waits of 20, 40 and 80 ms at least: accepted, the watch did not start the backoff over.
      const gaps = opened.slice(1, 4).map((t, k) => t - opened[k]);
      assert.ok(gaps[2] >= 75, `backed off: ${gaps.map((g) => g.toFixed(0)).join(', ')} ms`);
    } finally {
      await informer.stop();
    }
  });
});

describe('listAll', () => {
  it('asks for pages of the size given and cuts each page down as it arrives, before the next is asked for', async () => {
    const asked: string[] = [];
    const kept: number[] = [];
    const pages = [
      { metadata: { continue: 'c1' }, items: [{ metadata: { name: 'a' }, data: { big: 'x'.repeat(1000) } }, { metadata: { name: 'b' }, data: { big: 'y' } }] },
      { metadata: { resourceVersion: '7' }, items: [{ metadata: { name: 'c' }, data: { big: 'z' } }] },
    ];
    const send: SendJson = async (_method, _path, query) => {
      asked.push(query ?? '');
      kept.push(cut.length);
      return pages[asked.length - 1] as unknown as KubernetesObject;
    };
    const cut: string[] = [];
    const list = await listAll<KubernetesObject>(send, '/api/v1/namespaces/n/secrets', undefined, {
      pageSize: 2,
      each: (o) => { cut.push(o.metadata!.name!); return { metadata: o.metadata }; },
    });
    assert.deepEqual(asked, ['?limit=2', '?limit=2&continue=c1']);
    assert.deepEqual(kept, [0, 2], 'the first page was cut down before the second was asked for');
    assert.deepEqual(list.items, [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }, { metadata: { name: 'c' } }]);
    assert.equal(list.metadata?.resourceVersion, '7');
  });
});

describe('the cache of configuration copies', () => {
  it('lists copies 50 to a page: anyone who can create a ConfigMap can give it the labels, and a page is whole in memory before its data goes', async () => {
    const asked: (number | undefined)[] = [];
    const clients = {
      list: async (_path: string, _selector?: string, opts?: { pageSize?: number }) => {
        asked.push(opts?.pageSize);
        return { metadata: { resourceVersion: '1' }, items: [] };
      },
    } as unknown as Clients;
    const sources = new ConfigSources({ clients, log: testLogger('controller'), namespace: '', trackSecrets: true, enqueue: () => {} });
    for (const kind of ['configMap', 'secret'] as const) {
      const informer = sources.copies[kind] as unknown as { opts: { list: (each: (o: KubernetesObject) => KubernetesObject) => Promise<unknown> } };
      await informer.opts.list((o) => o);
    }
    assert.deepEqual(asked, [50, 50]);
  });

  it('a change of a copy reaches its App by the ownerReference and by the App label: one whose ownerReference was taken off (then deleted, and something else made under its name) is no longer the App\'s', () => {
    const enqueued: string[] = [];
    const clients = { list: async () => ({ metadata: { resourceVersion: '1' }, items: [] }) } as unknown as Clients;
    const sources = new ConfigSources({ clients, log: testLogger('controller'), namespace: '', trackSecrets: false, enqueue: (key) => enqueued.push(key) });
    const onChange = (sources.copies.configMap as unknown as { opts: { onChange: (o: KubernetesObject) => void } }).opts.onChange;
    const labels = { 'skiff.dev/app': 'web', 'app.kubernetes.io/managed-by': 'skiff' };
    onChange({ metadata: { name: 'cfg-1', namespace: 'shop', labels, ownerReferences: [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: 'u', controller: true }] } });
    assert.deepEqual(enqueued, ['shop/web'], 'once');
    onChange({ metadata: { name: 'cfg-1', namespace: 'shop', labels } });
    assert.deepEqual(enqueued, ['shop/web', 'shop/web'], 'its ownerReference gone: by its label');
  });
});

describe('the sources of tracked Apps', () => {
  it('a source the namespace\'s watch has not delivered yet is read, not taken for missing (created just before its App)', async () => {
    const reads: string[] = [];
    const clients = {
      list: async () => ({ metadata: { resourceVersion: '1' }, items: [] }),
      // The watch is open, and its event for the new ConfigMap has not come yet.
      watch: { watch: async () => ({ abort: () => {} }) },
      api: {
        read: async (ref: { name: string }) => {
          reads.push(ref.name);
          if (ref.name !== 'cfg') throw Object.assign(new Error('not found'), { code: 404, statusCode: 404 });
          return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'shop', resourceVersion: '2' }, data: { a: '1' } };
        },
      },
    } as unknown as Clients;
    const sources = new ConfigSources({ clients, log: testLogger('controller'), namespace: '', trackSecrets: false, enqueue: () => {} });
    const refs = [{ kind: 'configMap' as const, name: 'cfg', optional: false }, { kind: 'configMap' as const, name: 'gone', optional: false }];
    sources.reference('shop/web', refs);
    const watch = (sources as unknown as { watches: Map<string, { synced: boolean; stop(): Promise<void> }> }).watches.get('shop|configMap')!;
    try {
      await eventually(async () => watch.synced, { timeoutMs: 2_000, message: 'the namespace\'s watch synced' });
      const found = await sources.resolve('shop', refs);
      assert.deepEqual(found.get('configMap/cfg'), { data: { a: '1' }, binaryData: undefined });
      assert.equal(found.get('configMap/gone'), null, 'a source that is not there is still missing');
      assert.deepEqual(reads.sort(), ['cfg', 'gone']);
    } finally {
      await watch.stop();
    }
  });

  it('holds no data: a source is read when its copy\'s names are not known for its resourceVersion, or the copy is to be made; else not', async () => {
    const cm = (rv: string, a: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'shop', uid: 'cfg-uid', resourceVersion: rv }, data: { a } });
    let current = cm('2', '1');
    const sends: WatchCallback[] = [];
    let reads = 0;
    const clients = {
      list: async (_path: string, _selector?: string, opts?: { each?: (o: KubernetesObject) => KubernetesObject }) => ({ metadata: { resourceVersion: '2' }, items: [cm('2', '1')].map((o) => opts?.each?.(o) ?? o) }),
      watch: { watch: async (_path: string, _query: unknown, send: WatchCallback) => (sends.push(send), { abort: () => {} }) },
      api: { read: async () => (reads++, structuredClone(current)) },
    } as unknown as Clients;
    const sources = new ConfigSources({ clients, log: testLogger('controller'), namespace: '', trackSecrets: false, enqueue: () => {} });
    const refs = [{ kind: 'configMap' as const, name: 'cfg', optional: false }];
    sources.reference('shop/web', refs);
    const watch = (sources as unknown as { watches: Map<string, { synced: boolean; get(name: string, ns: string): KubernetesObject | undefined; stop(): Promise<void> }> }).watches.get('shop|configMap')!;
    const owned = new Set<string>();
    const web = { name: 'web', owns: (_kind: string, name: string) => owned.has(name) };
    try {
      await eventually(async () => watch.synced && sends.length === 1, { timeoutMs: 2_000, message: 'the namespace\'s watch synced' });
      assert.equal((watch.get('cfg', 'shop') as { data?: unknown }).data, undefined, 'the cache holds no data');
      const first = (await sources.resolve('shop', refs, web)).get('configMap/cfg')!;
      assert.deepEqual([reads, first.data], [1, { a: '1' }], 'read: nothing is known of it');
      const name = copyName('web', 'cfg', { data: { a: '1' } });
      assert.equal(copyName('web', 'cfg', first), name);
      await sources.resolve('shop', refs, web);
      assert.equal(reads, 2, 'read again while the App has no copy: its data is what the copy is made of');
      owned.add(name);
      const known = (await sources.resolve('shop', refs, web)).get('configMap/cfg')!;
      assert.equal(reads, 2, 'not read: the names are known and the copy exists');
      assert.equal(known.data, undefined);
      assert.equal(copyName('web', 'cfg', known), name);
      assert.equal(isHollowCopy(desiredCopy(defaultedAppFixture({ metadata: { name: 'web', namespace: 'shop', uid: 'u' } }), refs[0], known)), true, 'a copy of it is never created empty');
      // Another App sharing the source: its own names (its name is in the hash), so a read.
      sources.reference('shop/api', refs);
      const api = { name: 'api', owns: () => true };
      await sources.resolve('shop', refs, api);
      assert.equal(reads, 3);
      await sources.resolve('shop', refs, api);
      assert.equal(reads, 3, 'known for it too now');
      // A label edited: a new resourceVersion of the same data. One read, by the first App to
      // look; the names of every App stay (the data's digest is the same).
      current = { ...cm('3', '1'), metadata: { ...cm('3', '1').metadata, labels: { team: 'a' } } } as typeof current;
      sends[0]('MODIFIED', current, {});
      assert.equal((await sources.resolve('shop', refs, web)).get('configMap/cfg')!.known?.copy, undefined, 'read: a version not read yet');
      assert.equal(reads, 4);
      assert.equal((await sources.resolve('shop', refs, api)).get('configMap/cfg')!.known?.name, 'cfg', 'not read again for the other App');
      assert.equal(reads, 4);
      // Edited again, and both Apps look in the same moment (workers run in parallel): one read.
      current = { ...current, metadata: { ...current.metadata, resourceVersion: '3b' } };
      sends[0]('MODIFIED', current, {});
      await Promise.all([sources.resolve('shop', refs, web), sources.resolve('shop', refs, api)]);
      assert.equal(reads, 5, 'one read serves both');
      // A change of the data: a new resourceVersion, read, and a new name.
      current = cm('4', '2');
      sends[0]('MODIFIED', current, {});
      const changed = (await sources.resolve('shop', refs, web)).get('configMap/cfg')!;
      assert.deepEqual([reads, changed.data], [6, { a: '2' }]);
      assert.notEqual(copyName('web', 'cfg', changed), name);
      // Without an App (copies to make again): always read.
      await sources.resolve('shop', refs);
      assert.equal(reads, 7);
      // What is known goes with the references: nothing kept once no App references the source.
      const kept = (sources as unknown as { known: Map<string, { names: Map<string, unknown> }> }).known;
      sources.forget('shop/api');
      assert.deepEqual([...kept.get('shop|configMap/cfg')!.names.keys()], ['web']);
      sources.forget('shop/web');
      assert.equal(kept.size, 0);
    } finally {
      await watch.stop();
    }
  });
});

describe('the restarts of source watches', () => {
  it('are counted under one name per kind, never per namespace: a namespace\'s watch goes with its last tracked App, its series would stay', async () => {
    const restarts: string[] = [];
    const failed = new Set<string>();
    const clients = {
      // Each namespace's first list fails, as it does while the API server restarts.
      list: async (path: string) => {
        if (!failed.has(path)) {
          failed.add(path);
          throw new Error('connect ECONNREFUSED');
        }
        return { metadata: { resourceVersion: '1' }, items: [] };
      },
      watch: { watch: async () => ({ abort: () => {} }) },
    } as unknown as Clients;
    const sources = new ConfigSources({ clients, log: testLogger('controller'), namespace: '', trackSecrets: false, enqueue: () => {}, onRestart: (r) => restarts.push(r) });
    const watches = (sources as unknown as { watches: Map<string, { synced: boolean; stop(): Promise<void> }> }).watches;
    for (const ns of ['pr-1', 'pr-2', 'pr-3']) sources.reference(`${ns}/web`, [{ kind: 'configMap', name: 'cfg', optional: false }]);
    try {
      await eventually(async () => [...watches.values()].every((w) => w.synced), { timeoutMs: 5_000, message: 'every namespace\'s watch synced after its restart' });
      assert.deepEqual(restarts, ['configmaps (sources)', 'configmaps (sources)', 'configmaps (sources)']);
    } finally {
      await Promise.all([...watches.values()].map((w) => w.stop()));
    }
  });
});

describe('waitForCacheSync', () => {
  it('looks at the caches as they are now on each look: one dropped while it waits (its API no longer served) does not hold the workers for ever', async () => {
    const stuck = { synced: false };
    const synced = { synced: true };
    let caches: { synced: boolean }[] = [synced, stuck];
    const waited = waitForCacheSync(() => caches, () => false);
    await new Promise((r) => setTimeout(r, 120));
    // Rediscovery: the HTTPRoute API is gone, and its cache with it.
    caches = [synced];
    assert.equal(await Promise.race([waited, new Promise((r) => setTimeout(() => r('still waiting'), 2_000))]), true);
    let cancelled = false;
    const never = waitForCacheSync(() => [stuck], () => cancelled);
    cancelled = true;
    assert.equal(await never, false, 'false once cancelled');
  });
});
