// The cluster bundle against a real API server: a server-side dry run of all of it, and the
// controller reconciling an App with nothing but the bundle's RBAC (its ServiceAccount's token).
import { connectionOf } from '../../dev/connection-of.js';
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { startControlPlane, type ControlPlane } from '../../dev/control-plane.js';
import { makeKubeClients } from '../../dev/kube-clients.js';
import { startController, type Controller } from '../../controller/controller.js';
import { waitForCrdsEstablished } from '../../dev/crds.js';
import { loadKubeConfig } from '../../shared/kubeconfig.js';
import { condition, createApp, getApp, testLogger } from '../support/apps.js';
import { kustomize, repoRoot, type K8sObject } from '../support/bundle.js';
import { signedBy } from '../../certs/generate.js';
import { kubectl } from '../support/kube.js';
import { eventually } from '../../dev/wait.js';

// The test control plane has no cert-manager. These two minimal CRDs of our own (same group,
// kinds and version, any fields accepted) let the dry run check everything else in the bundle.
const certManagerCRDs = ['Issuer', 'Certificate'].map((kind) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${kind.toLowerCase()}s.cert-manager.io` },
  spec: {
    group: 'cert-manager.io',
    scope: 'Namespaced',
    names: { kind, plural: `${kind.toLowerCase()}s`, singular: kind.toLowerCase(), listKind: `${kind}List` },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
}));

const yamlOf = (objects: object[]) => objects.map((o) => stringify(o)).join('---\n');

describe('the cluster bundle on a real API server', function () {
  this.timeout(120_000);
  let cp: ControlPlane;
  let dir: string;
  let bundle: K8sObject[];
  let controller: Controller | undefined;

  before(async function () {
    this.timeout(180_000);
    dir = mkdtempSync(join(tmpdir(), 'skiff-bundle-'));
    cp = await startControlPlane({ dir, controllerManager: false });
    bundle = kustomize('config/default');
    await kubectl(cp.kubeconfigPath, ['apply', '-f', '-'], yamlOf(certManagerCRDs));
    await waitForCrdsEstablished(cp.kubeconfigPath, ['issuers.cert-manager.io', 'certificates.cert-manager.io']);
  });

  after(async function () {
    await controller?.stop();
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes a server-side dry run, every object of it', async () => {
    // A dry run creates nothing, so objects in skiff-system need the Namespace and the App CRD to
    // exist: those two are applied first, for real.
    const first = bundle.filter((o) => o.kind === 'Namespace' || o.kind === 'CustomResourceDefinition');
    await kubectl(cp.kubeconfigPath, ['apply', '--server-side', '-f', '-'], yamlOf(first));
    await waitForCrdsEstablished(cp.kubeconfigPath, ['apps.skiff.dev']);
    // policy/v1 PodDisruptionBudgets arrived in Kubernetes 1.21; the 1.20 test API server checks
    // the same object as policy/v1beta1 (identical fields for minAvailable and selector).
    const objects = bundle.map((o) => (o.kind === 'PodDisruptionBudget' ? { ...o, apiVersion: 'policy/v1beta1' } : o));
    const out = await kubectl(cp.kubeconfigPath, ['apply', '--dry-run=server', '--server-side', '-f', '-'], yamlOf(objects));
    const lines = out.trim().split('\n');
    assert.equal(lines.length, bundle.length, out);
    assert.ok(lines.every((l) => /serverside-applied \(server dry run\)$/.test(l)), out);
  });

  it('lets the controller reconcile an App with only the bundle\'s RBAC', async () => {
    const rbac = bundle.filter((o) => ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'].includes(o.kind));
    await kubectl(cp.kubeconfigPath, ['apply', '--server-side', '-f', '-'], yamlOf(rbac));
    const admin = loadKubeConfig({ path: cp.kubeconfigPath });
    const core = admin.makeApiClient(CoreV1Api);
    // The ServiceAccount's own token, as the pod would have it (TokenRequest).
    const token = await core.createNamespacedServiceAccountToken({ namespace: 'skiff-system', name: 'skiff-controller', body: { spec: { audiences: [], expirationSeconds: 3600 } } });
    const kc = new KubeConfig();
    const cluster = admin.getCurrentCluster()!;
    kc.loadFromOptions({
      clusters: [{ name: 'test', server: cluster.server, caData: cluster.caData }],
      users: [{ name: 'skiff-controller', token: token.status!.token }],
      contexts: [{ name: 'test', cluster: 'test', user: 'skiff-controller' }],
      currentContext: 'test',
    });
    const api = makeKubeClients(kc, 'skiff-test');
    await assert.rejects(api.core.listNamespacedSecret({ namespace: 'skiff-system' }), (err: { code?: number }) => err.code === 403, 'no access to Secrets');

    controller = await startController({
      connection: connectionOf(kc),
      log: testLogger('controller'),
      resyncMs: 60_000,
      leaderElection: { namespace: 'skiff-system', leaseDurationSeconds: 15, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
    });
    const adminApi = makeKubeClients(admin, 'skiff-test');
    await kubectl(cp.kubeconfigPath, ['create', 'namespace', 'shop']);
    await createApp(adminApi, 'shop', 'web', { image: 'nginx:1.27', ingress: { host: 'web.example.com' } });
    const app = await eventually(async () => {
      const a = await getApp(adminApi, 'shop', 'web');
      return a.status?.observedGeneration === 1 && a;
    }, { timeoutMs: 60_000, message: 'the App reconciled under the bundle RBAC' });
    assert.equal(condition(app, 'Degraded')?.status, 'False', JSON.stringify(app.status?.conditions));
    await adminApi.apps.readNamespacedDeployment({ namespace: 'shop', name: 'web' });
    await adminApi.core.readNamespacedService({ namespace: 'shop', name: 'web' });
    await adminApi.networking.readNamespacedIngress({ namespace: 'shop', name: 'web' });
    const lease = await adminApi.coordination.readNamespacedLease({ namespace: 'skiff-system', name: 'skiff-controller-leader' });
    assert.ok(lease.spec?.holderIdentity, 'it holds the leader Lease');
    const events = await adminApi.core.listNamespacedEvent({ namespace: 'shop' });
    assert.ok(events.items.some((e) => e.source?.component === 'skiff-controller'), 'it wrote Events');
  });

  // Last: the webhook configurations it installs (failurePolicy Fail, no webhook running) block App writes.
  it('installs without cert-manager: certs/ stores the Secret and injects the caBundle', async () => {
    const selfsigned = kustomize('config/selfsigned').filter((o) => o.kind.endsWith('WebhookConfiguration') || o.kind === 'Namespace');
    await kubectl(cp.kubeconfigPath, ['apply', '--server-side', '-f', '-'], yamlOf(selfsigned));
    const certDir = join(dir, 'webhook-certs');
    // Without --dns the certificate would be for localhost, which the API server refuses: said first.
    const noNames = await new Promise<{ code: number | null; stderr: string }>((done) => execFile(process.execPath, [join(repoRoot, 'dist/certs/main.js'), '--dir', certDir, '--secret', 'skiff-system/webhook-server-cert'],
      { env: { ...process.env, KUBECONFIG: cp.kubeconfigPath } }, (err, _stdout, stderr) => done({ code: err ? (err as { code?: number }).code ?? null : 0, stderr })));
    assert.deepEqual([noNames.code, noNames.stderr], [1, 'error: --dns is required with --secret, --mutating-webhook or --validating-webhook: the names the API server calls the webhook by, such as skiff-webhook-service.skiff-system.svc,skiff-webhook-service.skiff-system.svc.cluster.local\n']);
    const out = await new Promise<string>((done, fail) => execFile(process.execPath, [join(repoRoot, 'dist/certs/main.js'), '--dir', certDir,
      '--dns', 'skiff-webhook-service.skiff-system.svc,skiff-webhook-service.skiff-system.svc.cluster.local',
      '--secret', 'skiff-system/webhook-server-cert',
      '--mutating-webhook', 'skiff-mutating-webhook-configuration', '--validating-webhook', 'skiff-validating-webhook-configuration'],
    { env: { ...process.env, KUBECONFIG: cp.kubeconfigPath } }, (err, stdout, stderr) => (err ? fail(new Error(stderr)) : done(stdout))));
    assert.match(out, /created secret skiff-system\/webhook-server-cert/);
    const secret = JSON.parse(await kubectl(cp.kubeconfigPath, ['get', 'secret', '-n', 'skiff-system', 'webhook-server-cert', '-o', 'json']));
    assert.equal(secret.type, 'kubernetes.io/tls');
    const ca = Buffer.from(secret.data['ca.crt'], 'base64').toString();
    assert.ok(signedBy(Buffer.from(secret.data['tls.crt'], 'base64').toString(), ca));
    for (const kind of ['mutatingwebhookconfiguration/skiff-mutating-webhook-configuration', 'validatingwebhookconfiguration/skiff-validating-webhook-configuration']) {
      const config = JSON.parse(await kubectl(cp.kubeconfigPath, ['get', kind, '-o', 'json']));
      assert.equal(Buffer.from(config.webhooks[0].clientConfig.caBundle, 'base64').toString(), ca, kind);
    }
    // A webhook configuration the cluster does not have (a mistyped name, another namePrefix): one line naming the flag.
    const mistyped = await new Promise<{ code: number | null; stderr: string }>((done) => execFile(process.execPath, [join(repoRoot, 'dist/certs/main.js'), '--dir', certDir,
      '--dns', 'skiff-webhook-service.skiff-system.svc', '--mutating-webhook', 'skiff-mutating-webhook-config'],
    { env: { ...process.env, KUBECONFIG: cp.kubeconfigPath } }, (err, _stdout, stderr) => done({ code: err ? (err as { code?: number }).code ?? null : 0, stderr })));
    assert.equal(mistyped.code, 1);
    assert.equal(mistyped.stderr, 'error: --mutating-webhook: the cluster has no MutatingWebhookConfiguration skiff-mutating-webhook-config: apply the bundle first (kubectl kustomize config/selfsigned | kubectl apply -f -), or name the one it made (with a namePrefix: <prefix>mutating-webhook-configuration)\n');
    // A Secret of that name that is not a TLS Secret is someone else's (and its type cannot change): refused, untouched.
    await kubectl(cp.kubeconfigPath, ['create', 'secret', 'generic', '-n', 'skiff-system', 'not-ours', '--from-literal=k=v']);
    const refused = await new Promise<{ code: number | null; stderr: string }>((done) => execFile(process.execPath, [join(repoRoot, 'dist/certs/main.js'), '--dir', certDir,
      '--dns', 'skiff-webhook-service.skiff-system.svc', '--secret', 'skiff-system/not-ours'],
    { env: { ...process.env, KUBECONFIG: cp.kubeconfigPath } }, (err, _stdout, stderr) => done({ code: err ? (err as { code?: number }).code ?? null : 0, stderr })));
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /skiff-system\/not-ours exists with type Opaque, not kubernetes\.io\/tls; it is not overwritten/);
    const kept = JSON.parse(await kubectl(cp.kubeconfigPath, ['get', 'secret', '-n', 'skiff-system', 'not-ours', '-o', 'json']));
    assert.deepEqual([kept.type, Object.keys(kept.data)], ['Opaque', ['k']]);
  });
});
