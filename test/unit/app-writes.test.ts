// The reconciler's removal of the command annotations it acted on: only while each still has the
// value the pass acted on, so that a command given again meanwhile is not dropped unseen.
import { strict as assert } from 'node:assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { App } from '../../shared/app-types.js';
import { removeAnnotations } from '../../controller/apply/app-writes.js';
import { FakeCluster } from '../support/fake-cluster.js';
import { appFixture } from '../support/app-fixture.js';

const SKIP = 'skiff.dev/skip-canary';

describe('removing the annotations a pass acted on', () => {
  it('leaves an annotation whose value changed since the pass read the App, and says nothing was removed', async () => {
    const cluster = new FakeCluster();
    const actedOn = cluster.put(appFixture({ metadata: { annotations: { [SKIP]: 'hash-of-2', keep: 'x' } } }) as App & KubernetesObject);
    // `kubectl skiff undo web --to-revision 1 --skip-canary` while the pass for revision 2 ran.
    cluster.put({ ...actedOn, metadata: { ...actedOn.metadata, annotations: { [SKIP]: 'hash-of-1', keep: 'x' } } });
    assert.equal(await removeAnnotations(cluster.clients(), actedOn, [SKIP]), undefined);
    const stored = cluster.get('App', actedOn.metadata.namespace!, actedOn.metadata.name!)!;
    assert.deepEqual(stored.metadata!.annotations, { [SKIP]: 'hash-of-1', keep: 'x' }, 'the second command waits for the next pass');
  });

  it('removes the annotations still as the pass saw them, and only those', async () => {
    const cluster = new FakeCluster();
    const app = cluster.put(appFixture({ metadata: { annotations: { [SKIP]: 'hash-of-2', 'skiff.dev/promote': 'true', keep: 'x' } } }) as App & KubernetesObject);
    const written = await removeAnnotations(cluster.clients(), app, [SKIP, 'skiff.dev/promote']);
    assert.deepEqual(written?.metadata.annotations, { keep: 'x' });
  });
});
