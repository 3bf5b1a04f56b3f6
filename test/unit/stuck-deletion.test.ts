// An owned object deleted but held by finalizers: given a grace period, then named in the status.
import { strict as assert } from 'node:assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import { deletionState, STUCK_DELETION_MS } from '../../controller/state/stuck-deletion.js';

const T = Date.parse('2026-11-27T12:00:00Z');
const obj = (deletionTimestamp?: string, finalizers?: string[]): KubernetesObject =>
  ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web-canary', namespace: 'shop', deletionTimestamp, finalizers } }) as unknown as KubernetesObject;

describe('deletionState', () => {
  it('is nothing for an object not being deleted', () => {
    assert.equal(deletionState(obj(), T), undefined);
  });

  it('waits out the grace period, then names the finalizers that hold the object', () => {
    const at = new Date(T).toISOString();
    assert.deepEqual(deletionState(obj(at, ['example.com/hold']), T + 1_000), { stuck: false, leftMs: STUCK_DELETION_MS - 1_000 });
    const stuck = deletionState(obj(at, ['example.com/hold', 'other/x']), T + STUCK_DELETION_MS);
    assert.deepEqual(stuck, { stuck: true, message: 'Deployment shop/web-canary was deleted at 2026-11-27T12:00:00.000Z and is still there, held by its finalizers (example.com/hold, other/x): the App waits for it to go' });
  });

  it('an object without finalizers is only ever going (the API server removes it)', () => {
    assert.deepEqual(deletionState(obj(new Date(T).toISOString()), T + 3_600_000), { stuck: false, leftMs: 0 });
  });
});
