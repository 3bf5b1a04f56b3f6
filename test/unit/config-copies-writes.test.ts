// The writes of trackConfig's copies: a copy that exists already is the App's (the cache behind
// its creation, or its labels removed by hand) or someone else's.
import { strict as assert } from 'node:assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ensureCopies } from '../../controller/apply/config-copies.js';
import type { ApiClient } from '../../controller/runtime/api-client.js';
import { defaulted } from '../../shared/defaults.js';
import { desiredCopy } from '../../shared/render/config-copies.js';
import { apiError } from '../support/fake-cluster.js';

const app = defaulted({ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: 'shop', uid: 'u1' }, spec: { image: 'web:1' } });
const labels = { 'app.kubernetes.io/managed-by': 'skiff', 'skiff.dev/app': 'web' };
const copy = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg-0123456789', namespace: 'shop', labels }, immutable: true, data: { a: '1' } } as KubernetesObject;
const ownedBy = (uid: string) => [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid, controller: true }];

function api(stored: KubernetesObject) {
  const patches: unknown[] = [];
  const client = {
    create: async () => { throw apiError(409, 'already exists'); },
    read: async () => stored,
    patch: async (_ref: unknown, body: unknown) => { patches.push(body); return stored; },
  } as unknown as ApiClient;
  return { client, patches };
}

describe('trackConfig copies: one that exists already', () => {
  const events = { event: () => undefined };

  it('is labelled again when it is the App\'s and lost its labels (or the cache, which selects by them, would never show it)', async () => {
    const { client, patches } = api({ ...copy, metadata: { ...copy.metadata, labels: { 'skiff.dev/app': 'web' }, ownerReferences: ownedBy('u1') } });
    const out = await ensureCopies({ clients: { api: client }, events }, app, [copy], () => undefined);
    assert.deepEqual(out, { errors: [], conflicts: [] });
    assert.deepEqual(patches, [{ metadata: { labels: { 'app.kubernetes.io/managed-by': 'skiff' } } }]);
  });

  it('is left alone when it is the App\'s as it should be (the cache is behind), and reported when it is someone else\'s', async () => {
    const mine = api({ ...copy, metadata: { ...copy.metadata, ownerReferences: ownedBy('u1') } });
    assert.deepEqual(await ensureCopies({ clients: { api: mine.client }, events }, app, [copy], () => undefined), { errors: [], conflicts: [] });
    assert.deepEqual(mine.patches, []);
    const theirs = api({ ...copy, metadata: { ...copy.metadata, labels: {}, ownerReferences: ownedBy('u2') } });
    const out = await ensureCopies({ clients: { api: theirs.client }, events }, app, [copy], () => undefined);
    assert.deepEqual(out.conflicts, ['ConfigMap shop/cfg-0123456789 exists and is not owned by this App']);
    assert.deepEqual(theirs.patches, [], 'someone else\'s is never written');
  });

  it('a copy of a source not read in the pass (its names known, its data not held) that went meanwhile is not created empty: an error, made on the next pass', async () => {
    const created: KubernetesObject[] = [];
    const client = { create: async (o: KubernetesObject) => { created.push(o); return o; } } as unknown as ApiClient;
    const hollow = desiredCopy(app, { kind: 'configMap', name: 'cfg', optional: false }, { known: { app: 'web', name: 'cfg', copy: 'cfg-0123456789', older: [] } });
    const out = await ensureCopies({ clients: { api: client }, events }, app, [hollow], () => undefined);
    assert.deepEqual(created, []);
    assert.match(out.errors.join(), /creating ConfigMap shop\/cfg-0123456789: it went while this pass ran, and its source's data was not read; made again on the next pass/);
    // One the App has: nothing to do.
    assert.deepEqual(await ensureCopies({ clients: { api: client }, events }, app, [hollow], () => hollow), { errors: [], conflicts: [] });
  });
});
