// An App written where the webhook is not called, on a real control plane with the real webhook
// installed from config/dev: the controller validates it itself, renders nothing for it while it
// is invalid, says why in the webhook's own words, and renders it once it is fixed.
import { strict as assert } from 'node:assert';
import type { CoreV1Event } from '@kubernetes/client-node';
import type { AppSpec } from '../../shared/app-types.js';
import type { WebhookServer } from '../../webhook/server.js';
import { appCount, condition, createApp, exists, getApp, newNamespace, testLogger } from '../support/apps.js';
import { useControllerCluster } from '../support/controller-cluster.js';
import { kubectl } from '../support/kube.js';
import { reconcileCount, resyncsGoBy } from '../support/metrics.js';
import { startTestWebhook } from '../support/webhook.js';
import { eventually, until } from '../../dev/wait.js';

const RESYNC_MS = 1_000;
const PRIVILEGED: AppSpec = { image: 'registry.example/web:1', securityContext: { privileged: true } };

describe('the controller validates Apps the webhook never sees (real control plane and webhook)', function () {
  this.timeout(60_000);
  let webhook: WebhookServer | undefined;
  const cluster = useControllerCluster('invalid-spec', {
    pods: false,
    prepare: async ({ cp, dir }) => {
      webhook = await startTestWebhook(cp.kubeconfigPath, dir);
      // The label Kubernetes 1.21 and later set on every namespace, which the webhook's
      // namespaceSelector reads; this 1.20 API server does not set it by itself.
      await kubectl(cp.kubeconfigPath, ['label', 'namespace', 'kube-system', 'kubernetes.io/metadata.name=kube-system', '--overwrite']);
    },
    controllers: () => [{ resyncMs: RESYNC_MS, log: testLogger('controller') }],
    cleanup: () => webhook?.close(),
  });
  const api = () => cluster.api;
  const deployment = (ns: string, name: string) => exists(() => api().apps.readNamespacedDeployment({ namespace: ns, name }));
  const service = (ns: string, name: string) => exists(() => api().core.readNamespacedService({ namespace: ns, name }));

  it('a privileged App in kube-system is InvalidSpec with the webhook\'s message, renders nothing, and renders once fixed', async () => {
    // Where the webhook is called, the App is denied; the message is what the controller must give.
    const checked = await newNamespace(api());
    const denial = await createApp(api(), checked, 'web', PRIVILEGED).then(
      () => assert.fail('the webhook admitted a privileged App'),
      (err: { body?: string }) => JSON.parse(err.body ?? '{}').message as string,
    );
    const webhookMessage = /denied the request: (.*)$/s.exec(denial)?.[1];
    assert.match(webhookMessage ?? '', /^spec\.securityContext\.privileged: must not be true/, denial);

    // In kube-system the webhook is not called: the API server stores it as written.
    const ns = 'kube-system';
    await createApp(api(), ns, 'web', PRIVILEGED);
    const invalid = await eventually(async () => {
      const a = await getApp(api(), ns, 'web');
      return condition(a, 'Degraded')?.reason === 'InvalidSpec' && a;
    }, { timeoutMs: 15_000, message: 'Degraded InvalidSpec' });
    assert.equal(condition(invalid, 'Degraded')!.status, 'True');
    assert.equal(condition(invalid, 'Degraded')!.message, webhookMessage, 'the webhook\'s message');
    assert.equal(condition(invalid, 'Ready')!.reason, 'InvalidSpec');
    assert.equal(condition(invalid, 'Progressing')!.reason, 'InvalidSpec');
    assert.equal(invalid.status!.observedGeneration, invalid.metadata.generation);
    assert.equal(await deployment(ns, 'web'), false, 'no privileged Deployment');
    assert.equal(await service(ns, 'web'), false, 'nothing else either');

    // Passes over it write nothing more: resyncs go by and the App's resourceVersion stays.
    const settled = invalid.metadata.resourceVersion;
    await resyncsGoBy({ n: 2, resyncMs: RESYNC_MS, reconciles: () => reconcileCount(cluster.controller), apps: () => appCount(api()), why: 'resyncs of the invalid App write nothing' });
    assert.equal((await getApp(api(), ns, 'web')).metadata.resourceVersion, settled);
    const events = (await api().core.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=web,reason=InvalidSpec' })).items as CoreV1Event[];
    assert.deepEqual(events.map((e) => [e.type, e.message, e.count]), [['Warning', webhookMessage, 1]], 'one Warning Event');
    assert.equal(await deployment(ns, 'web'), false);

    // Fixed: rendered, and no longer Degraded.
    await kubectl(cluster.cp.kubeconfigPath, ['-n', ns, 'patch', 'app', 'web', '--type=merge', '-p', JSON.stringify({ spec: { securityContext: { privileged: false } } })]);
    await until(async () => assert.equal(await deployment(ns, 'web'), true), { timeoutMs: 15_000, message: 'the Deployment rendered' });
    const d = await api().apps.readNamespacedDeployment({ namespace: ns, name: 'web' });
    assert.equal(d.spec!.template.spec!.containers[0].securityContext?.privileged, false);
    await until(async () => assert.equal(condition(await getApp(api(), ns, 'web'), 'Degraded')?.reason, 'AsExpected'), { timeoutMs: 15_000, message: 'Degraded AsExpected' });
  });

  it('an App stored invalid where the webhook now checks can still be labelled and deleted in the foreground; a change of its spec is judged', async function () {
    // The garbage collector finds a CRD installed just before within its 30 s rediscovery.
    this.timeout(120_000);
    const ns = await newNamespace(api());
    const kube = (args: string[]) => kubectl(cluster.cp.kubeconfigPath, args);
    // Left out by the webhook's namespaceSelector while the App is written, checked from then on.
    await kube(['label', 'namespace', ns, 'kubernetes.io/metadata.name=kube-system', '--overwrite']);
    await createApp(api(), ns, 'web', PRIVILEGED);
    await kube(['label', 'namespace', ns, `kubernetes.io/metadata.name=${ns}`, '--overwrite']);
    await eventually(async () => condition(await getApp(api(), ns, 'web'), 'Degraded')?.reason === 'InvalidSpec', { timeoutMs: 15_000, message: 'Degraded InvalidSpec' });

    await kube(['-n', ns, 'label', 'app', 'web', 'team=shop']);
    assert.equal((await getApp(api(), ns, 'web')).metadata.labels?.team, 'shop');
    await assert.rejects(kube(['-n', ns, 'patch', 'app', 'web', '--type=merge', '-p', JSON.stringify({ spec: { replicas: 2 } })]), /denied the request: spec\.securityContext\.privileged/);

    await kube(['-n', ns, 'delete', 'app', 'web', '--cascade=foreground', '--wait=false']);
    await until(async () => assert.equal(await exists(() => getApp(api(), ns, 'web')), false), { timeoutMs: 100_000, message: 'the App deleted: the garbage collector removed its foregroundDeletion finalizer' });
  });
});
