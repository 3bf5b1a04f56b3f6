// The local control plane against documented behaviour of a real kube-apiserver. Every later
// test trusts this server to accept and refuse what a real cluster does; each case below names
// the real behaviour it checks, so a build of the server that drifts from it fails here first.
import { connectionOf } from '../../dev/connection-of.js';
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import { startController, type Controller } from '../../controller/controller.js';
import { waitForCrdsEstablished } from '../../dev/crds.js';
import { repoRoot } from '../support/bundle.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { getApp, newNamespace, plain, testLogger } from '../support/apps.js';
import { kubectl, kubectlOutput } from '../support/kube.js';
import { startTestWebhook } from '../support/webhook.js';
import type { WebhookServer } from '../../webhook/server.js';
import { eventually, until } from '../../dev/wait.js';
import { removeAnnotations } from '../../controller/apply/app-writes.js';
import { RESOURCES } from '../../controller/apply/resources.js';
import { makeClients } from '../../controller/runtime/clients.js';

const GATEWAY_API = join(repoRoot, 'test', 'fixtures', 'gateway-api-v1.6.1');
const thing = (name: string, spec: object) => ({ apiVersion: 'fidelity.skiff.dev/v1', kind: 'Thing', metadata: { name }, spec });

describe('test control plane fidelity (behaviour of a real kube-apiserver)', function () {
  this.timeout(60_000);
  let cluster: TestCluster;
  let webhook: WebhookServer | undefined;
  let controller: Controller | undefined;
  let ns: string;
  const k = (args: string[], stdin?: string) => kubectl(cluster.cp.kubeconfigPath, ['-n', ns, ...args], stdin);
  const installCrd = async (fixture: string, name: string) => {
    await kubectl(cluster.cp.kubeconfigPath, ['apply', '-f', join(repoRoot, 'test', 'fixtures', fixture)]);
    await waitForCrdsEstablished(cluster.cp.kubeconfigPath, [name]);
  };

  before(async function () {
    this.timeout(180_000);
    cluster = await startTestCluster('fidelity', { controllerManager: false });
    await installCrd('fidelity-crd.yaml', 'things.fidelity.skiff.dev');
    ns = await newNamespace(cluster.api, 'fidelity');
  });

  after(async function () {
    this.timeout(60_000);
    await controller?.stop();
    await webhook?.close();
    await cluster?.stop();
  });

  it('stores an empty string, 0, false and an empty list in a custom resource, as any value its schema types allow', async () => {
    // Real servers only refuse a value whose JSON type differs from the schema's; "" is a string.
    await k(['create', '-f', '-'], JSON.stringify(thing('zero-values', { s: '', count: 0, flag: false, list: [''] })));
    const stored = JSON.parse(await k(['get', 'thing', 'zero-values', '-o', 'json']));
    assert.deepEqual(stored.spec.s, '');
    assert.deepEqual(stored.spec.count, 0);
    assert.deepEqual(stored.spec.flag, false);
    assert.deepEqual(stored.spec.list, ['']);
  });

  it('still refuses a value of the wrong type (a number for a string)', async () => {
    // The other side of the same check: only a missing value or null is null.
    await assert.rejects(k(['create', '-f', '-'], JSON.stringify(thing('null-string', { s: 1 }))), /spec\.s.*must be of type string/);
  });

  it('installs a CRD whose schema has `default: ""` and fills that default in', async () => {
    await installCrd('fidelity-defaults-crd.yaml', 'defaulteds.fidelity.skiff.dev');
    await k(['create', '-f', '-'], JSON.stringify({ ...thing('defaults', { s: 'x' }), kind: 'Defaulted' }));
    const stored = JSON.parse(await k(['get', 'defaulted', 'defaults', '-o', 'json']));
    assert.equal(stored.spec.emptyDefault, '');
    assert.deepEqual(stored.spec.nested, { group: '', kind: 'Service' });
  });

  it('installs the Gateway API v1.6.1 CRDs and defaults an HTTPRoute the way a real server does', async () => {
    // kubectl validates client-side and refuses the CEL rules (x-kubernetes-validations, 1.25+);
    // with --validate=false the 1.20 server drops what it does not know and installs the rest.
    // A 1.25+ server needs no flag.
    await kubectl(cluster.cp.kubeconfigPath, ['apply', '--validate=false', '-f', GATEWAY_API]);
    await waitForCrdsEstablished(cluster.cp.kubeconfigPath, ['httproutes.gateway.networking.k8s.io']);
    const route = {
      apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'web' },
      spec: { parentRefs: [{ name: 'public' }], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] },
    };
    await eventually(() => k(['create', '-f', '-'], JSON.stringify(route)), { timeoutMs: 20_000, message: 'HTTPRoutes served' });
    const stored = JSON.parse(await k(['get', 'httproute', 'web', '-o', 'json']));
    assert.deepEqual(stored.spec.parentRefs, [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'public' }]);
    assert.deepEqual(stored.spec.rules[0].backendRefs, [{ group: '', kind: 'Service', name: 'web', port: 80, weight: 1 }]);
    assert.deepEqual(stored.spec.rules[0].matches, [{ path: { type: 'PathPrefix', value: '/' } }]);
  });

  it('stores a status condition with an empty message (metav1.Condition allows one)', async () => {
    const name = 'empty-message';
    await k(['create', '-f', '-'], JSON.stringify({ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name }, spec: { image: 'nginx:1.27' } }));
    const condition = { type: 'Degraded', status: 'False', lastTransitionTime: '2026-11-22T10:00:00Z', reason: 'AsExpected', message: '' };
    await k(['patch', 'app', name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { conditions: [condition] } })]).catch(async (err: Error) => {
      // kubectl learned --subresource in 1.24; the API call is the same without it.
      if (!/unknown flag/.test(err.message)) throw err;
      await cluster.api.custom.patchNamespacedCustomObjectStatus({ group: 'skiff.dev', version: 'v1alpha1', plural: 'apps', namespace: ns, name, body: { status: { conditions: [condition] } } });
    });
    const app = await getApp(cluster.api, ns, name);
    assert.deepEqual(plain(app.status?.conditions), [condition]);
  });

  it('admits, stores and renders an App with an empty env value', async () => {
    webhook = await startTestWebhook(cluster.cp.kubeconfigPath, cluster.dir);
    controller = await startController({ connection: connectionOf(cluster.kc), log: testLogger('controller') });
    const app = { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'flags' }, spec: { image: 'nginx:1.27', env: [{ name: 'FEATURE_FLAG', value: '' }, { name: 'MODE', value: 'prod' }] } };
    const { stderr } = await kubectlOutput(cluster.cp.kubeconfigPath, ['-n', ns, 'apply', '-f', '-'], JSON.stringify(app));
    assert.doesNotMatch(stderr, /denied|invalid/i);
    const stored = await getApp(cluster.api, ns, 'flags');
    assert.deepEqual(plain(stored.spec.env), [{ name: 'FEATURE_FLAG', value: '' }, { name: 'MODE', value: 'prod' }]);
    assert.equal(stored.spec.replicas, 1, 'defaulted by the mutating webhook');
    const deployment = await eventually(
      () => cluster.api.apps.readNamespacedDeployment({ namespace: ns, name: 'flags' }) as Promise<V1Deployment>,
      { timeoutMs: 20_000, message: 'the Deployment of App flags' },
    );
    // A Deployment stores an empty env value as absent (value is omitempty): both mean "".
    const env = plain(deployment.spec!.template.spec!.containers[0].env ?? []).map((e) => ({ name: e.name, value: e.value ?? '' }));
    assert.deepEqual(env, [{ name: 'FEATURE_FLAG', value: '' }, { name: 'MODE', value: 'prod' }]);
    // And it rests there: the empty value is not seen as a difference to correct.
    const generation = deployment.metadata!.generation;
    await until(async () => {
      const a = await getApp(cluster.api, ns, 'flags');
      assert.equal(a.status?.observedGeneration, a.metadata.generation);
    }, { timeoutMs: 20_000, message: 'App flags reconciled' });
    const after = (await cluster.api.apps.readNamespacedDeployment({ namespace: ns, name: 'flags' })) as KubernetesObject;
    assert.equal(after.metadata!.generation, generation);
  });

  it('refuses a whole JSON patch whose test fails (422): a consumed annotation given again meanwhile stays', async () => {
    // The controller removes the command annotations it acted on with a test of each value first
    // (app-writes.ts): a real server must refuse the removal when the value changed, and carry it
    // out when it did not. The annotation here is one the controller does not act on.
    const clients = makeClients(connectionOf(cluster.kc), 'skiff-fidelity', RESOURCES);
    try {
      const name = 'example.com/command';
      await k(['annotate', 'app', 'flags', `${name}=second`]);
      const actedOn = await getApp(cluster.api, ns, 'flags');
      actedOn.metadata.annotations = { ...actedOn.metadata.annotations, [name]: 'first' };
      assert.equal(await removeAnnotations(clients, actedOn, [name]), undefined);
      assert.equal((await getApp(cluster.api, ns, 'flags')).metadata.annotations?.[name], 'second');
      const current = await getApp(cluster.api, ns, 'flags');
      const written = await removeAnnotations(clients, current, [name]);
      assert.equal(written?.metadata.annotations?.[name], undefined);
      assert.equal((await getApp(cluster.api, ns, 'flags')).metadata.annotations?.[name], undefined);
    } finally {
      clients.close();
    }
  });
});
