// The scale-down of a blue-green rollout gives the Deployment `<app>` the preview's template, and
// nothing else, even when the pass that began it could not write the Deployment and the pod
// template changed before the retry: the Deployment's own record still names the old revision,
// and the one written must be the template the preview ran (and traffic reached), not spec's new
// one with the old image (reconcile() over the in-memory cluster, injected clock, the Deployment's
// write made to fail once).
import { strict as assert } from 'node:assert';
import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import { apiError } from '../support/fake-cluster.js';
import { markAvailable, NS, switchedBlueGreenApp } from '../support/reconciler.js';

type T = Awaited<ReturnType<typeof switchedBlueGreenApp>>;
const deployment = (t: T, name: string) => t.cluster.get('Deployment', NS, name) as V1Deployment | undefined;
const container = (t: T, name: string) => deployment(t, name)?.spec?.template.spec?.containers[0];
const revisionLabel = (t: T, name: string) => deployment(t, name)?.spec?.template.metadata?.labels?.['skiff.dev/revision'];
const selected = (t: T) => (t.cluster.get('Service', NS, 'web') as V1Service).spec?.selector?.['skiff.dev/revision'];

describe('blue-green scale-down after a failed write of the Deployment', () => {
  it('the Deployment takes the preview\'s template (its image, its env), not spec\'s newer one with the old image', async () => {
    const t = await switchedBlueGreenApp();
    const previewRevision = revisionLabel(t, 'web-preview')!;
    const previewContainer = container(t, 'web-preview')!;
    assert.equal(previewContainer.image, 'registry.example/web:2');
    t.later(31_000);
    t.cluster.beforeWrite = (w) => {
      if (w.kind === 'Deployment' && w.name === 'web' && w.verb !== 'delete') throw apiError(500, 'etcdserver: request timed out');
    };
    await assert.rejects(t.run());
    assert.equal(t.app().status?.blueGreen?.phase, 'ScalingDown', 'the status records the scale-down the pass began');
    assert.equal(container(t, 'web')?.image, 'registry.example/web:1', 'the write failed');

    // Before the retry, a new template: another image and an environment variable.
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:3', env: [{ name: 'MODE', value: 'new' }] }));
    t.cluster.beforeWrite = () => {};
    await t.run();
    assert.equal(revisionLabel(t, 'web'), previewRevision);
    assert.deepEqual(container(t, 'web'), previewContainer, 'the Deployment runs exactly what the preview ran');

    markAvailable(t.cluster, 'web');
    await t.run();
    assert.equal(selected(t), previewRevision);
    assert.equal(t.app().status?.stableRevision, previewRevision);
    assert.equal(t.app().status?.stableImage, 'registry.example/web:2');
    assert.deepEqual(container(t, 'web'), previewContainer, 'what the Service now selects is the template the preview ran');

    // Then the new template rolls out, as a preview of its own.
    await t.run();
    assert.equal(container(t, 'web-preview')?.image, 'registry.example/web:3');
    assert.deepEqual(container(t, 'web-preview')?.env, [{ name: 'MODE', value: 'new' }]);
    assert.equal(container(t, 'web')?.image, 'registry.example/web:2');
  });
});
