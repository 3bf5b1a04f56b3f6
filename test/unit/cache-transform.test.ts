import { strict as assert } from 'node:assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import { leanObject } from '../../controller/apply/cache-transform.js';
import { appliesReplicas } from '../../controller/apply/handover.js';

const entry = (manager: string, operation: string, spec: Record<string, unknown>) => ({ manager, operation, apiVersion: 'apps/v1', time: '2026-11-22T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': spec } });
const deployment = (...managedFields: object[]) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop', managedFields }, spec: { replicas: 3 } }) as unknown as KubernetesObject;

describe('cache transform', () => {
  it('drops managedFields', () => {
    const lean = leanObject(deployment(entry('skiff', 'Apply', { 'f:template': {} }), entry('kube-controller-manager', 'Update', { 'f:replicas': {} })));
    assert.equal(lean.metadata!.managedFields, undefined);
    assert.equal((lean as { spec: { replicas: number } }).spec.replicas, 3, 'the object itself is untouched');
  });

  it('keeps, as a one-entry summary, that Skiff applied spec.replicas (the handover needs it)', () => {
    const full = deployment(entry('skiff', 'Apply', { 'f:replicas': {}, 'f:template': { 'f:spec': {} } }), entry('kubectl', 'Update', { 'f:paused': {} }));
    assert.equal(appliesReplicas(full), true);
    const lean = leanObject(structuredClone(full));
    assert.equal(lean.metadata!.managedFields!.length, 1);
    assert.equal(appliesReplicas(lean), true);
    assert.ok(JSON.stringify(lean).length < JSON.stringify(full).length);
  });

  it('leaves an object without managedFields alone', () => {
    const bare = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' } } as KubernetesObject;
    assert.equal(leanObject(bare), bare);
  });
});
