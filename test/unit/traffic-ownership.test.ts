// Traffic never goes to an object the App does not own: a name of the canary taken by someone
// else's object holds the canary's weight where it is.
import { strict as assert } from 'node:assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import { condition } from '../support/apps.js';
import { apiError } from '../support/fake-cluster.js';
import { markAvailable, NS, setup, weightOf } from '../support/reconciler.js';
import type { AppSpec } from '../../shared/app-types.js';

/** A stable App whose new image starts a canary while someone else's Service holds the name web-canary; a few passes run. */
async function canaryBesideForeignService(rollout: AppSpec['rollout']) {
  const t = setup({ image: 'web:1', ingress: { host: 'web.example.com' }, rollout });
  await t.run();
  markAvailable(t.cluster, 'web');
  await t.run();
  t.cluster.put({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-canary', namespace: NS }, spec: { selector: { app: 'other' }, ports: [{ port: 80 }] } } as KubernetesObject);
  t.setSpec((s) => ({ ...s, image: 'web:2' }));
  await t.run();
  markAvailable(t.cluster, 'web-canary');
  for (let i = 0; i < 3; i++) await t.run();
  return t;
}

describe('traffic and objects the App does not own', () => {
  it('a Service web-canary the App does not own gets no traffic: the weight stays 0', async () => {
    const { cluster, app } = await canaryBesideForeignService({ strategy: 'Canary' });
    assert.equal(condition(app(), 'Degraded')?.reason, 'ResourceConflict');
    assert.match(condition(app(), 'Degraded')!.message, /Service shop\/web-canary exists and is not owned by this App/);
    assert.equal(weightOf(cluster) ?? '0', '0', 'the canary Ingress sends nothing to a Service the App does not own');
    assert.equal(cluster.get('Service', NS, 'web-canary')?.metadata?.ownerReferences, undefined);
    assert.equal(app().status?.canary?.stepIndex, 0, 'the first setWeight step is not done');
  });

  it('nor do requests with the canary header: no header match leads to a Service the App does not own', async () => {
    const { cluster, run, app } = await canaryBesideForeignService({ strategy: 'Canary', canaryHeader: 'X-Canary' });
    assert.equal(condition(app(), 'Degraded')?.reason, 'ResourceConflict');
    const annotations = cluster.get('Ingress', NS, 'web-canary')?.metadata?.annotations ?? {};
    assert.equal(annotations['nginx.ingress.kubernetes.io/canary-by-header'], undefined, 'no canary Ingress matching the header to web-canary');
    assert.equal(app().status?.canary?.stepIndex, 0);
    // Once the name is free the canary goes on, header and all.
    cluster.objects.delete(`Service/${NS}/web-canary`);
    for (let i = 0; i < 3; i++) await run();
    assert.equal(cluster.get('Ingress', NS, 'web-canary')?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-by-header'], 'X-Canary');
    assert.equal(condition(app(), 'Degraded')?.status, 'False');
  });

  it('a Service web the App does not own: no Ingress sends the App\'s host to it (an Ingress of the App\'s goes), Ready False; all back once the name is free', async () => {
    const t = setup({ image: 'web:1', ingress: { host: 'web.example.com' } });
    t.cluster.put({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: NS }, spec: { selector: { app: 'other' }, ports: [{ port: 80 }] } } as KubernetesObject);
    await t.run().catch(() => undefined);
    markAvailable(t.cluster, 'web');
    await t.run().catch(() => undefined);
    assert.equal(t.cluster.get('Ingress', NS, 'web'), undefined, 'ingress-nginx would publish someone else\'s Service on the App\'s host');
    assert.equal(t.cluster.get('Service', NS, 'web')?.metadata?.ownerReferences, undefined, 'not taken over');
    assert.deepEqual([condition(t.app(), 'Ready')?.status, condition(t.app(), 'Ready')?.reason], ['False', 'ResourceConflict']);
    assert.match(condition(t.app(), 'Ready')!.message, /^Service shop\/web exists and is not owned by this App: the App's traffic does not reach its pods$/);
    // The name free again: the App's Service and Ingress come, and it is Ready.
    t.cluster.objects.delete(`Service/${NS}/web`);
    for (let i = 0; i < 2; i++) await t.run();
    assert.ok(t.cluster.get('Ingress', NS, 'web'));
    assert.equal(condition(t.app(), 'Ready')?.status, 'True');
    // Taken again (deleted by hand, someone else's created): the App's Ingress is deleted.
    t.cluster.objects.delete(`Service/${NS}/web`);
    t.cluster.put({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: NS }, spec: { selector: { app: 'other' }, ports: [{ port: 80 }] } } as KubernetesObject);
    await t.run().catch(() => undefined);
    assert.equal(t.cluster.get('Ingress', NS, 'web'), undefined);
  });

  it('an Ingress web the App does not own for its host and path: no canary Ingress beside it, which would split that Ingress\'s traffic', async () => {
    const t = setup({ image: 'web:1', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', canaryHeader: 'X-Canary' } });
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    // The App's Ingress deleted by hand, and another team's of that name serves the host from now on.
    t.cluster.objects.delete(`Ingress/${NS}/web`);
    const rules = [{ host: 'web.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'legacy', port: { number: 80 } } } }] } }];
    t.cluster.put({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web', namespace: NS }, spec: { rules } } as KubernetesObject);
    t.setSpec((s) => ({ ...s, image: 'web:2' }));
    await t.run();
    markAvailable(t.cluster, 'web-canary');
    for (let i = 0; i < 3; i++) await t.run();
    assert.match(condition(t.app(), 'Degraded')!.message, /Ingress shop\/web exists and is not owned by this App/);
    assert.equal(t.cluster.get('Ingress', NS, 'web-canary'), undefined, 'ingress-nginx would send a share (and the header\'s requests) of the legacy Ingress\'s traffic to the canary');
    assert.equal(t.app().status?.canary?.stepIndex, 0, 'the first setWeight step is not done');
  });

  // ingress-nginx's admission refuses a second Ingress for a host and path another one serves
  // (in any namespace), but takes a canary Ingress beside it and merges it into that location.
  const claimed = 'admission webhook "validate.nginx.ingress.kubernetes.io" denied the request: host "pay.example.com" and path "/" is already defined in ingress payments/pay';

  it('an Ingress web the API server refused (its host and path served by another namespace): no canary Ingress for that host and path', async () => {
    const t = setup({ image: 'web:1', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', canaryHeader: 'X-Canary' } });
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    // The host now named is another team's; the Ingress web cannot take it, and the canary starts at the same time.
    t.cluster.beforeWrite = (w) => {
      if (w.kind === 'Ingress' && w.name === 'web') throw apiError(400, claimed);
    };
    t.setSpec((s) => ({ ...s, image: 'web:2', ingress: { ...s.ingress!, host: 'pay.example.com' } }));
    await t.run().catch(() => undefined);
    markAvailable(t.cluster, 'web-canary');
    for (let i = 0; i < 3; i++) await t.run().catch(() => undefined);
    const hostOf = (name: string) => (t.cluster.get('Ingress', NS, name) as { spec?: { rules?: { host?: string }[] } } | undefined)?.spec?.rules?.[0]?.host;
    assert.equal(hostOf('web'), 'web.example.com', 'the refused update left the Ingress web as it was');
    assert.notEqual(hostOf('web-canary'), 'pay.example.com', 'ingress-nginx would merge a canary Ingress for pay.example.com into payments/pay and send it a share of that traffic');
    assert.equal(t.app().status?.canary?.stepIndex ?? 0, 0, 'the first setWeight step is not done');
    assert.equal(condition(t.app(), 'Degraded')?.reason, 'ReconcileError');
    assert.match(condition(t.app(), 'Degraded')!.message, /already defined in ingress payments\/pay/);
  });

  it('nor when the Ingress web was never created: the refused create leaves no Ingress of the App for the canary to sit beside', async () => {
    const t = setup({ image: 'web:1', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary' } });
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    t.cluster.objects.delete(`Ingress/${NS}/web`);
    t.cluster.beforeWrite = (w) => {
      if (w.kind === 'Ingress' && w.name === 'web') throw apiError(400, claimed);
    };
    t.setSpec((s) => ({ ...s, image: 'web:2' }));
    await t.run().catch(() => undefined);
    markAvailable(t.cluster, 'web-canary');
    for (let i = 0; i < 3; i++) await t.run().catch(() => undefined);
    assert.equal(t.cluster.get('Ingress', NS, 'web-canary'), undefined, 'no canary Ingress without the App\'s own main Ingress');
    // Once the main Ingress can be written, the canary goes on.
    t.cluster.beforeWrite = () => {};
    for (let i = 0; i < 3; i++) await t.run();
    assert.equal(weightOf(t.cluster), '20');
  });
});
