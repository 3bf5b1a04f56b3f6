// The hash an owned object carries of its desired self (skiff.dev/config-hash): what it leaves
// out, and the older hashes it keeps, so that neither a move to another shard nor an upgrade of
// the controller rewrites objects whose content is the same.
import { strict as assert } from 'node:assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ANNOTATION_CONFIG_HASH, ensureObject, withConfigHash } from '../../controller/apply/apply.js';
import type { ApiClient } from '../../controller/runtime/api-client.js';
import { contentHash } from '../../shared/hash.js';

const UID = 'app-uid';
const service = (shard?: string, port = 80): KubernetesObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'shop', labels: { 'skiff.dev/app': 'web', ...(shard !== undefined ? { 'skiff.dev/shard': shard } : {}) } },
  spec: { selector: { 'skiff.dev/app': 'web' }, ports: [{ name: 'http', port, targetPort: 8080 }] },
} as KubernetesObject);

/** The object as the API server holds it after a write of `written`, labelled for `shard`. */
function stored(written: KubernetesObject, shard?: string): KubernetesObject {
  const { 'skiff.dev/shard': _old, ...labels } = written.metadata!.labels!;
  return {
    ...written,
    metadata: {
      ...written.metadata,
      labels: { ...labels, ...(shard !== undefined ? { 'skiff.dev/shard': shard } : {}) },
      resourceVersion: '7',
      ownerReferences: [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: UID, controller: true }],
    },
  } as KubernetesObject;
}

async function ensure(desired: KubernetesObject, current: KubernetesObject) {
  const applies: KubernetesObject[] = [];
  const api = {
    apply: async (body: KubernetesObject) => (applies.push(body), body),
    patch: async (_ref: unknown, body: KubernetesObject) => body,
  } as unknown as ApiClient;
  const result = await ensureObject({ api }, UID, desired, current);
  return { outcome: result.outcome, applies };
}

describe('the config hash of an owned object', () => {
  it('leaves the shard label out: objects relabelled for another shard (or none) are not written again', async () => {
    assert.equal(withConfigHash(service('a')).metadata!.annotations![ANNOTATION_CONFIG_HASH], withConfigHash(service()).metadata!.annotations![ANNOTATION_CONFIG_HASH]);
    const onA = stored(withConfigHash(service('a')), 'a');
    for (const to of ['b', undefined]) {
      const { outcome, applies } = await ensure(service(to), stored(onA, to));
      assert.equal(outcome, 'unchanged', `moved to ${to ?? 'no shard'}`);
      assert.deepEqual(applies, []);
    }
    // Not relabelled (yet): the label is still a difference, and is written.
    assert.equal((await ensure(service('b'), onA)).outcome, 'updated');
    // Any other change still changes the hash.
    assert.equal((await ensure(service('a', 81), onA)).outcome, 'updated');
  });

  it('keeps the hash an object was written with while the label counted, as long as the content is the same', async () => {
    const desired = service('a');
    const older = { ...desired, metadata: { ...desired.metadata, annotations: { [ANNOTATION_CONFIG_HASH]: contentHash(desired) } } };
    assert.deepEqual(await ensure(desired, stored(older, 'a')), { outcome: 'unchanged', applies: [] }, 'no write on upgrade');
    // A change of content: written, with the hash of today.
    const { outcome, applies } = await ensure(service('a', 81), stored(older, 'a'));
    assert.equal(outcome, 'updated');
    assert.equal(applies[0]!.metadata!.annotations![ANNOTATION_CONFIG_HASH], withConfigHash(service(undefined, 81)).metadata!.annotations![ANNOTATION_CONFIG_HASH]);
  });
});
