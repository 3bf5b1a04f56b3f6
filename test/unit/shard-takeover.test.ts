// The order of a takeover's relabels: the stable Deployment (the App's own name) last, so that a
// takeover cut short leaves it on the other shard, and the next pass, finding no stable Deployment
// in its cache, takes over again instead of rendering one from spec.
import { strict as assert } from 'node:assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import { takeOverObjects } from '../../controller/apply/shard-takeover.js';
import type { ApiClient } from '../../controller/runtime/api-client.js';

const UID = 'app-uid';
const app = { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: 'shop', uid: UID, labels: { 'skiff.dev/shard': 'b' } } } as KubernetesObject;
const owned = (kind: string, name: string): KubernetesObject => ({
  kind,
  metadata: { name, namespace: 'shop', labels: { 'skiff.dev/app': 'web', 'skiff.dev/shard': 'a' }, ownerReferences: [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: UID, controller: true }] },
} as KubernetesObject);

/** The App's Deployments and Services, as the API lists them (by name), and a client recording each relabel. */
function cluster() {
  const byPath: Record<string, KubernetesObject[]> = {
    '/apis/apps/v1/namespaces/shop/deployments': [owned('Deployment', 'web'), owned('Deployment', 'web-canary')],
    '/api/v1/namespaces/shop/services': [owned('Service', 'web'), owned('Service', 'web-canary')],
  };
  const patched: string[] = [];
  const api = { patch: async (ref: { kind: string; name: string }) => (patched.push(`${ref.kind}/${ref.name}`), {}) } as unknown as ApiClient;
  return { patched, deps: { clients: { api }, list: async (path: string) => byPath[path] ?? [], versions: {}, trackSecrets: false } };
}

describe('shard takeover', () => {
  it('relabels every object the App controls, the stable Deployment last though the API lists it before web-canary (of each kind, the object named after the App comes after the others)', async () => {
    const { patched, deps } = cluster();
    const moved = await takeOverObjects(app, deps);
    assert.deepEqual(patched, ['Service/web-canary', 'Service/web', 'Deployment/web-canary', 'Deployment/web']);
    assert.deepEqual(moved, patched);
  });

  it('stops before the next relabel once the App is no longer this shard\'s (relabelled back while the takeover runs)', async () => {
    const { patched, deps } = cluster();
    const moved = await takeOverObjects(app, { ...deps, stillOurs: () => patched.length < 2 });
    assert.deepEqual(patched, ['Service/web-canary', 'Service/web'], 'the Deployments, the stable one above all, stay with the shard the App is on now');
    assert.deepEqual(moved, patched);
  });
});
