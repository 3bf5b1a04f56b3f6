// ListWatch (controller/runtime/list-watch.ts) with a watch and lists of its own making: the
// cache, the events it hands on, and when it lists again.
import { strict as assert } from 'node:assert';
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { ListWatch } from '../../controller/runtime/list-watch.js';
import type { Watch, WatchCallback, WatchQuery } from '../../controller/runtime/watch.js';

const obj = (name: string, rv: string, ns = 'shop'): KubernetesObject => ({ metadata: { name, namespace: ns, resourceVersion: rv } });

function fakes(lists: KubernetesListObject<KubernetesObject>[]) {
  const watches: { query: WatchQuery; send: WatchCallback; done: (err: unknown) => void; aborted: boolean }[] = [];
  let listed = 0;
  const watch: Watch = {
    async watch(_path, query, send, done) {
      const w = { query, send, done, aborted: false };
      watches.push(w);
      return { abort: () => { w.aborted = true; } };
    },
  };
  const list = async () => lists[Math.min(listed++, lists.length - 1)];
  return { watch, list, watches, listed: () => listed };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('ListWatch', () => {
  it('lists, then watches from the list\'s resourceVersion with the selector, keeping the cache by namespace', async () => {
    const f = fakes([{ metadata: { resourceVersion: '5' }, items: [obj('a', '1'), obj('b', '2', 'other')] }]);
    const lw = new ListWatch('/api/v1/services', f.watch, f.list, 'x=y');
    const seen: string[] = [];
    for (const verb of ['add', 'update', 'delete'] as const) lw.on(verb, (o) => seen.push(`${verb} ${o.metadata?.name}`));
    await lw.start();
    assert.deepEqual(f.watches[0].query, { resourceVersion: '5', labelSelector: 'x=y' });
    assert.deepEqual(seen, ['add a', 'add b']);
    assert.deepEqual(lw.list('shop').map((o) => o.metadata?.name), ['a']);
    assert.deepEqual(lw.list().map((o) => o.metadata?.name).sort(), ['a', 'b']);
    f.watches[0].send('MODIFIED', obj('a', '6'), {});
    f.watches[0].send('MODIFIED', obj('a', '6'), {});
    f.watches[0].send('ADDED', obj('c', '7'), {});
    f.watches[0].send('DELETED', obj('b', '8', 'other'), {});
    f.watches[0].send('BOOKMARK', { metadata: { resourceVersion: '9' } }, {});
    assert.deepEqual(seen.slice(2), ['update a', 'add c', 'delete b'], 'the same resourceVersion twice is one update');
    assert.equal(lw.get('b', 'other'), undefined);
    assert.equal(lw.get('a', 'shop')?.metadata?.resourceVersion, '6');
    // The server ends the watch: the next starts where the last event left it, without a list.
    f.watches[0].done(null);
    await settle();
    assert.equal(f.listed(), 1);
    assert.equal(f.watches[1].query.resourceVersion, '9');
    await lw.stop();
    assert.equal(f.watches[1].aborted, true);
  });

  it('lists again after 410 Gone (an ERROR event, or a refused watch); what the new list lacks is deleted', async () => {
    const f = fakes([
      { metadata: { resourceVersion: '5' }, items: [obj('a', '1'), obj('b', '2')] },
      { metadata: { resourceVersion: '20' }, items: [obj('a', '15')] },
      { metadata: { resourceVersion: '30' }, items: [obj('a', '15')] },
    ]);
    const lw = new ListWatch('/p', f.watch, f.list);
    const seen: string[] = [];
    for (const verb of ['add', 'update', 'delete'] as const) lw.on(verb, (o) => seen.push(`${verb} ${o.metadata?.name}`));
    await lw.start();
    f.watches[0].send('ERROR', { kind: 'Status', code: 410 }, {});
    f.watches[0].done(null);
    await settle();
    assert.equal(f.listed(), 2);
    assert.deepEqual(seen, ['add a', 'add b', 'delete b', 'update a']);
    assert.equal(f.watches[1].query.resourceVersion, '20');
    f.watches[1].done(Object.assign(new Error('gone'), { statusCode: 410 }));
    await settle();
    assert.equal(f.listed(), 3);
    assert.equal(f.watches[2].query.resourceVersion, '30');
    await lw.stop();
  });

  it('hands any other failure to the error callbacks and waits to be started again, from where it was', async () => {
    const f = fakes([{ metadata: { resourceVersion: '5' }, items: [] }]);
    const lw = new ListWatch('/p', f.watch, f.list);
    const errors: unknown[] = [];
    lw.on('error', (e) => errors.push(e));
    await lw.start();
    f.watches[0].send('ADDED', obj('a', '6'), {});
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    f.watches[0].done(refused);
    await settle();
    assert.deepEqual(errors, [refused]);
    assert.equal(f.watches.length, 1, 'no new watch by itself');
    await lw.start();
    assert.equal(f.listed(), 1, 'no list: the resourceVersion still holds');
    assert.equal(f.watches[1].query.resourceVersion, '6');
    await lw.stop();
  });

  it('an ERROR event other than 410 (a resourceVersion the server does not have, after an etcd restore) is a failure, and the next start lists again', async () => {
    const f = fakes([
      { metadata: { resourceVersion: '500' }, items: [obj('a', '400'), obj('b', '450')] },
      { metadata: { resourceVersion: '90' }, items: [obj('a', '80')] },
    ]);
    const lw = new ListWatch('/p', f.watch, f.list);
    const errors: unknown[] = [];
    const seen: string[] = [];
    lw.on('error', (e) => errors.push(e));
    lw.on('delete', (o) => seen.push(`delete ${o.metadata?.name}`));
    await lw.start();
    f.watches[0].send('ERROR', { kind: 'Status', code: 504, reason: 'Timeout', message: 'Too large resource version: 500, current: 90' }, {});
    f.watches[0].done(null);
    await settle();
    assert.equal(errors.length, 1, 'reported, for the informer to back off');
    assert.match((errors[0] as Error).message, /HTTP 504: Too large resource version/);
    assert.equal(f.watches.length, 1, 'not watched again from 500 at once');
    await lw.start();
    assert.equal(f.listed(), 2, 'listed again');
    assert.equal(f.watches[1].query.resourceVersion, '90');
    assert.deepEqual(seen, ['delete b'], 'what the server no longer has leaves the cache');
    await lw.stop();
  });

  it('keeps an index: objects found by its value follow adds, changes of the value, deletes and lists', async () => {
    const labelled = (name: string, rv: string, app: string) => ({ metadata: { name, namespace: 'shop', resourceVersion: rv, labels: { app } } });
    const f = fakes([
      { metadata: { resourceVersion: '5' }, items: [labelled('web-1', '1', 'web'), labelled('api-1', '2', 'api')] },
      { metadata: { resourceVersion: '20' }, items: [labelled('api-1', '2', 'api')] },
    ]);
    const lw = new ListWatch('/p', f.watch, f.list, undefined, (o) => o.metadata?.labels?.app);
    await lw.start();
    const names = (app: string) => lw.byIndex(app).map((o) => o.metadata?.name).sort();
    assert.deepEqual(names('web'), ['web-1']);
    f.watches[0].send('ADDED', labelled('web-2', '6', 'web'), {});
    f.watches[0].send('MODIFIED', labelled('api-1', '7', 'web'), {});
    assert.deepEqual(names('web'), ['api-1', 'web-1', 'web-2']);
    assert.deepEqual(names('api'), [], 'a changed value moves the object');
    f.watches[0].send('DELETED', labelled('web-2', '8', 'web'), {});
    assert.deepEqual(names('web'), ['api-1', 'web-1']);
    f.watches[0].send('ERROR', { code: 410 }, {});
    f.watches[0].done(null);
    await settle();
    assert.deepEqual(names('web'), [], 'the new list holds api-1 as it was listed');
    assert.deepEqual(names('api'), ['api-1']);
    await lw.stop();
  });

  it('a watch the server ends at once, with no event, is a failure (backed off by the owner), not opened again in a loop', async () => {
    const f = fakes([{ metadata: { resourceVersion: '5' }, items: [] }]);
    const lw = new ListWatch('/p', f.watch, f.list);
    const errors: string[] = [];
    lw.on('error', (e) => errors.push((e as Error).message));
    await lw.start();
    // A proxy or an API server shutting down that accepts each watch and closes it at once.
    f.watches[0].done(null);
    await settle();
    assert.equal(f.watches.length, 1, 'not watched again at once');
    assert.equal(errors.length, 1);
    assert.match(errors[0], /ended .*without an event/);
    // The owner starts it again: from the same resourceVersion, with no list.
    await lw.start();
    assert.equal(f.listed(), 1);
    assert.equal(f.watches[1].query.resourceVersion, '5');
    await lw.stop();
  });

  it('a failed list goes to the error callbacks', async () => {
    const lw = new ListWatch('/p', fakes([]).watch, async () => { throw new Error('forbidden'); });
    const errors: string[] = [];
    lw.on('error', (e) => errors.push((e as Error).message));
    await lw.start();
    assert.deepEqual(errors, ['forbidden']);
  });
  it('a list still in flight when stopped neither fills the cache nor fires handlers', async () => {
    const f = fakes([]);
    let answer!: (list: KubernetesListObject<KubernetesObject>) => void;
    const lw = new ListWatch('/p', f.watch, () => new Promise<KubernetesListObject<KubernetesObject>>((r) => (answer = r)));
    const seen: string[] = [];
    for (const verb of ['add', 'update', 'delete'] as const) lw.on(verb, (o) => seen.push(`${verb} ${o.metadata?.name}`));
    const started = lw.start();
    await lw.stop();
    answer({ metadata: { resourceVersion: '5' }, items: [obj('a', '1')] });
    await started;
    assert.deepEqual(seen, []);
    assert.deepEqual(lw.list(), []);
    assert.equal(f.watches.length, 0);
  });
});
