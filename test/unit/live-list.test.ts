// The plugin's list + watch (cli/live-list.ts) over an in-memory API: what a server that ends
// every watch at once costs it.
import { strict as assert } from 'node:assert';
import type { Api } from '../../cli/api.js';
import { watchCollection, type Meta } from '../../cli/live-list.js';

describe('watchCollection', () => {
  it('takes a watch the server ends at once, without an event, as a failure: waits, backs off, says so', async () => {
    let lists = 0;
    let watches = 0;
    const errors: string[] = [];
    const api = {
      get: async () => { lists++; return { metadata: { resourceVersion: '5' }, items: [] }; },
      // Ended at once, on the next turn of the event loop (as a connection closed by the server).
      watchOnce: async () => { watches++; await new Promise((r) => setImmediate(r)); },
    } as unknown as Api;
    const started = performance.now();
    const w = watchCollection<Meta>(api, '/apis/skiff.dev/v1alpha1/apps', { reset: () => {}, event: () => {}, error: (err) => void errors.push(err.message) }, { retryMs: 20, maxRetryMs: 80 });
    while (watches < 4) await new Promise((r) => setTimeout(r, 5));
    const elapsed = performance.now() - started;
    w.stop();
    // Opened again at once, the fourth watch came within a millisecond. With waits of 20, 40 and
    // 80 ms between them it comes 140 ms in at the earliest (a lower bound: a slow machine only adds).
    assert.ok(elapsed >= 135, `4 watches in ${elapsed.toFixed(0)} ms`);
    assert.equal(lists, watches, 'each retry lists afresh, as after any failure');
    assert.match(errors[0]!, /the watch of \/apis\/skiff\.dev\/v1alpha1\/apps ended at once, without an event/);
  });

  it('takes an empty list that says items: null (a PartialObjectMetadataList) as empty, and watches from its version', async () => {
    const resets: Meta[][] = [];
    const errors: string[] = [];
    const watchedFrom: string[] = [];
    let stop = () => {};
    const api = {
      // As the API server answers a metadata-only list of nothing (verified on 1.20).
      get: async () => ({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '818' }, items: null }),
      watchOnce: async (_path: string, rv: string, onEvent: (e: unknown) => void) => {
        watchedFrom.push(rv);
        onEvent({ type: 'ADDED', object: { kind: 'PartialObjectMetadata', metadata: { name: 'web-cfg-0123456789', namespace: 'shop', resourceVersion: '820' } } });
        stop();
      },
    } as unknown as Api;
    const added: string[] = [];
    await new Promise<void>((done) => {
      const w = watchCollection<Meta>(api, '/api/v1/configmaps', { reset: (items) => void resets.push(items), event: (e) => void added.push(e.object.metadata!.name!), error: (err) => void errors.push(err.message) }, { retryMs: 5 });
      stop = () => { w.stop(); done(); };
    });
    assert.deepEqual(errors, []);
    assert.deepEqual(resets, [[]]);
    assert.deepEqual(watchedFrom, ['818']);
    assert.deepEqual(added, ['web-cfg-0123456789']);
  });
});
