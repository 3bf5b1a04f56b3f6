// A blue-green preview whose Service or Ingress name is someone else's: previewHost would reach
// their object and the preview's checks would read its metrics. Nothing of the preview counts as
// ready then: no check, no switch, the App Degraded ResourceConflict, as a canary gets no share
// while its objects' names are taken.
import { strict as assert } from 'node:assert';
import type { KubernetesObject, V1Service } from '@kubernetes/client-node';
import { gatewayRouter } from '../../controller/routers/gateway/router.js';
import { nginxRouter } from '../../controller/routers/nginx/router.js';
import { markAvailable, NS, setup } from '../support/reconciler.js';

const foreign = (kind: 'Ingress' | 'Service'): KubernetesObject => kind === 'Ingress'
  ? { apiVersion: 'networking.k8s.io/v1', kind, metadata: { name: 'web-preview', namespace: NS, uid: 'theirs' }, spec: { rules: [{ host: 'theirs.example.com' }] } } as KubernetesObject
  : { apiVersion: 'v1', kind, metadata: { name: 'web-preview', namespace: NS, uid: 'theirs' }, spec: { ports: [{ port: 80 }] } } as KubernetesObject;

describe('blue-green preview objects under names someone else has', () => {
  for (const kind of ['Ingress', 'Service'] as const) {
    it(`${kind} web-preview of someone else's: the preview is not ready, never switched to, and the App says why; once the name is free, the switch`, async () => {
      const t = setup({ image: 'registry.example/web:1', replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy: 'BlueGreen', scaleDownDelaySeconds: 30, blueGreen: { previewHost: 'preview.web.example.com' } } });
      await t.run();
      markAvailable(t.cluster, 'web');
      await t.run();
      const r1 = t.app().status?.stableRevision;
      t.cluster.put(foreign(kind));
      t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
      for (let i = 0; i < 4; i++) {
        await t.run().catch(() => undefined);
        markAvailable(t.cluster, 'web-preview');
        t.later(1_000);
      }
      const selector = () => (t.cluster.get('Service', NS, 'web') as V1Service).spec?.selector?.['skiff.dev/revision'];
      assert.equal(selector(), r1, 'the Service stays on stable');
      assert.equal(t.app().status?.blueGreen?.previewReadyAt, undefined, 'not ready: no check of it is due');
      const degraded = t.app().status?.conditions?.find((c) => c.type === 'Degraded');
      assert.equal(degraded?.reason, 'ResourceConflict');
      assert.match(t.app().status?.conditions?.find((c) => c.type === 'Progressing')?.message ?? '', new RegExp(`waiting for ${kind} ${NS}/web-preview to be the App's`));
      assert.equal(t.cluster.get(kind, NS, 'web-preview')?.metadata?.uid, 'theirs', 'left as it is');
      t.cluster.objects.delete(`${kind}/${NS}/web-preview`);
      for (let i = 0; i < 4; i++) {
        await t.run();
        markAvailable(t.cluster, 'web-preview');
      }
      assert.equal(t.app().status?.blueGreen?.phase, 'Switched');
      assert.equal(selector(), t.app().status?.blueGreen?.previewRevision);
    });
  }
  it('with spec.route and previewHost on a cluster that serves no HTTPRoutes: the preview\'s route waits with the App\'s own (RouteAPIUnavailable), and the preview is not held for it', async () => {
    const t = setup({ image: 'registry.example/web:1', replicas: 2, route: { parentRefs: [{ name: 'public' }], hostnames: ['web.example.com'] }, rollout: { strategy: 'BlueGreen', progressDeadlineSeconds: 60, scaleDownDelaySeconds: 0, blueGreen: { previewHost: 'preview.web.example.com' } } });
    const gateway = gatewayRouter(t.deps.clients, () => undefined);
    Object.assign(t.deps, { httpRoutes: undefined, routerFor: () => gateway, routers: [nginxRouter(t.deps.clients, t.deps.ingresses), gateway] });
    await t.run().catch(() => undefined);
    markAvailable(t.cluster, 'web');
    await t.run().catch(() => undefined);
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
    for (let i = 0; i < 4; i++) {
      await t.run().catch(() => undefined);
      if (t.cluster.get('Deployment', NS, 'web-preview')) markAvailable(t.cluster, 'web-preview');
      t.later(10_000);
    }
    assert.equal(t.app().status?.conditions?.find((c) => c.type === 'Degraded')?.reason, 'RouteAPIUnavailable');
    assert.equal(t.app().status?.abortedRevision, undefined, 'not aborted');
    assert.ok(t.app().status?.blueGreen?.switchedAt !== undefined || t.app().status?.stableImage === 'registry.example/web:2', `switched: ${JSON.stringify(t.app().status?.blueGreen)}`);
  });
});
