// ensureObject when a Deployment's replicas go to a HorizontalPodAutoscaler: the write that hands
// them over is reported with the field it is about, not as an update with nothing changed.
import { strict as assert } from 'node:assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ensureObject, withConfigHash } from '../../controller/apply/apply.js';
import { HANDOVER_FIELD_MANAGER } from '../../controller/apply/handover.js';
import { ApiStatusError, type ApiClient } from '../../controller/runtime/api-client.js';

const UID = 'app-uid';
const deployment = (replicas?: number): KubernetesObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', labels: { 'skiff.dev/app': 'web' } },
  spec: { ...(replicas !== undefined ? { replicas } : {}), selector: { matchLabels: { 'skiff.dev/app': 'web' } } },
} as KubernetesObject);

describe('ensureObject: replicas handed over to an autoscaler', () => {
  it('reports spec.replicas as changed when it stops setting them, after a second manager took them', async () => {
    const created = withConfigHash(deployment(3));
    const current = {
      ...created,
      metadata: {
        ...created.metadata,
        resourceVersion: '7',
        ownerReferences: [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: UID, controller: true }],
        managedFields: [{ manager: 'skiff', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:selector': {} } } }],
      },
    } as KubernetesObject;
    const applies: { manager: string; body: KubernetesObject }[] = [];
    const api = {
      apply: async (body: KubernetesObject, opts: { fieldManager: string }) => { applies.push({ manager: opts.fieldManager, body }); return body; },
    } as unknown as ApiClient;
    const result = await ensureObject({ api }, UID, deployment(undefined), current);
    assert.equal(result.outcome, 'updated');
    assert.deepEqual(applies.map((a) => a.manager), [HANDOVER_FIELD_MANAGER, 'skiff']);
    assert.ok(result.outcome === 'updated' && result.changed.includes('spec.replicas'), `changed: ${JSON.stringify(result.outcome === 'updated' && result.changed)}`);
  });

  it('a hand-over refused because the cached copy is older than the Deployment (409) is made once more from the live one, with its count', async () => {
    const created = withConfigHash(deployment(3));
    const owned = (resourceVersion: string, replicas: number) => ({
      ...created,
      metadata: {
        ...created.metadata,
        resourceVersion,
        ownerReferences: [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: UID, controller: true }],
        managedFields: [{ manager: 'skiff', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:selector': {} } } }],
      },
      spec: { ...(created as { spec: object }).spec, replicas },
    } as KubernetesObject);
    const applies: { manager: string; version?: string; replicas?: number }[] = [];
    const api = {
      read: async () => owned('8', 5),
      apply: async (body: KubernetesObject & { spec?: { replicas?: number } }, opts: { fieldManager: string }) => {
        applies.push({ manager: opts.fieldManager, version: body.metadata?.resourceVersion, replicas: body.spec?.replicas });
        if (body.metadata?.resourceVersion === '7') throw new ApiStatusError(409, '{"kind":"Status","reason":"Conflict","code":409,"message":"the object has been modified"}', 'PATCH', '/x');
        return body;
      },
    } as unknown as ApiClient;
    const result = await ensureObject({ api }, UID, deployment(undefined), owned('7', 3));
    assert.equal(result.outcome, 'updated');
    assert.deepEqual(applies, [
      { manager: HANDOVER_FIELD_MANAGER, version: '7', replicas: 3 },
      { manager: HANDOVER_FIELD_MANAGER, version: '8', replicas: 5 },
      { manager: 'skiff', version: undefined, replicas: undefined },
    ]);
  });
});
