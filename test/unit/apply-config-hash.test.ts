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

const deployment = (replicas?: number, image = 'web:1'): KubernetesObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', labels: { 'skiff.dev/app': 'web' } },
  spec: { ...(replicas !== undefined ? { replicas } : {}), selector: { matchLabels: { 'skiff.dev/app': 'web' } }, template: { spec: { containers: [{ name: 'app', image }] } } },
} as KubernetesObject);

/** Skiff's apply of spec.replicas, as the managedFields of the stored object record it. */
const replicasApplied = (obj: KubernetesObject): KubernetesObject =>
  ({ ...obj, metadata: { ...obj.metadata, managedFields: [{ manager: 'skiff', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }] } } as KubernetesObject);

async function ensure(desired: KubernetesObject, current: KubernetesObject) {
  const applies: (KubernetesObject & { manager?: string })[] = [];
  const api = {
    apply: async (body: KubernetesObject, options: { fieldManager: string }) => (applies.push({ ...body, manager: options.fieldManager }), body),
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

  it("leaves a Deployment's spec.replicas out: handing the count to an autoscaler keeps the annotation, so the Deployment gets no new generation", async () => {
    const hashOf = (o: KubernetesObject) => withConfigHash(o).metadata!.annotations![ANNOTATION_CONFIG_HASH];
    assert.equal(hashOf(deployment(3)), hashOf(deployment()));
    assert.notEqual(hashOf(deployment(3, 'web:2')), hashOf(deployment(3)), 'the template still counts');
    const written = replicasApplied(stored(withConfigHash(deployment(3))));
    const { outcome, applies } = await ensure(deployment(), written);
    assert.equal(outcome, 'updated', 'the count is handed over though nothing else differs');
    assert.deepEqual(applies.map((a) => a.manager), ['skiff-handover', 'skiff']);
    assert.equal(applies[1]!.metadata!.annotations![ANNOTATION_CONFIG_HASH], written.metadata!.annotations![ANNOTATION_CONFIG_HASH], 'the same annotation');
    assert.equal((applies[1] as { spec?: { replicas?: number } }).spec?.replicas, undefined);
    // Handed over (another manager holds the count): nothing to write.
    assert.deepEqual(await ensure(deployment(), stored(withConfigHash(deployment(3)))), { outcome: 'unchanged', applies: [] });
    // A count Skiff applies is still compared field by field.
    assert.equal((await ensure(deployment(5), written)).outcome, 'updated');
  });

  it("keeps the hash a blue-green preview's Deployment was written with before it recorded its template: no write of every preview on upgrade (a new generation would take its readiness away)", async () => {
    const preview = (image = 'web:1') => {
      const d = deployment(3, image);
      return { ...d, metadata: { ...d.metadata, name: 'web-preview', labels: { 'skiff.dev/app': 'web', 'skiff.dev/track': 'preview' } } } as KubernetesObject;
    };
    const recorded = (d: KubernetesObject) => ({ ...d, metadata: { ...d.metadata, annotations: { 'skiff.dev/pod-template': '{"spec":{}}' } } } as KubernetesObject);
    const before = stored(withConfigHash(preview()));
    assert.deepEqual(await ensure(recorded(preview()), before), { outcome: 'unchanged', applies: [] }, 'no write on upgrade');
    // Any other change: written, with the record.
    const { outcome, applies } = await ensure(recorded(preview('web:2')), before);
    assert.equal(outcome, 'updated');
    assert.equal(applies[0]!.metadata!.annotations!['skiff.dev/pod-template'], '{"spec":{}}');
    // Only a preview's: stable's Deployment always recorded its template.
    const stableBefore = stored(withConfigHash(deployment(3)));
    assert.equal((await ensure(recorded(deployment(3)), stableBefore)).outcome, 'updated');
  });

  it('keeps the hash a Deployment was written with while the count counted, as long as the content is the same', async () => {
    const older = { ...deployment(3), metadata: { ...deployment(3).metadata, annotations: { [ANNOTATION_CONFIG_HASH]: contentHash(deployment(3)) } } } as KubernetesObject;
    assert.deepEqual(await ensure(deployment(3), stored(older)), { outcome: 'unchanged', applies: [] }, 'no write on upgrade');
  });
});
