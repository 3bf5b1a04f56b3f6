// api.md "Tenant safety": any App the webhook admits renders objects the API server accepts, at
// creation and at every stage of a rollout. A property test (fast-check, seeded so that a failure
// replays): Apps near every bound go through the real webhook and a real API server (a
// server-side dry run of the App), and what the controller's pure render functions make of the
// admitted App is dry-run created on the same server:
//   creation   the stable Deployment, Service, Ingress or HTTPRoute, PodDisruptionBudget, HPA
//   canary     stable on the previous template, the canary Deployment, Service and Ingress,
//              the HTTPRoute with weights and the header rules
//   promotion  the stable Deployment on the new template carrying both records (the new one and
//              the previous one, each up to the 100 KiB cap)
// The 1.20 test server drops the Gateway API's CEL rules (see test/fixtures/gateway-api-v1.6.1):
// the unit tests of shared/api-server-rules.ts hold Skiff to those.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import fc from 'fast-check';
import { discoverVersions } from '../../controller/discovery.js';
import type { ServedVersions } from '../../controller/render/served-versions.js';
import { renderPodTemplate } from '../../shared/render/pod-template.js';
import { desiredDeployment, render, renderCanary } from '../../controller/render/render.js';
import { desiredHTTPRoute } from '../../controller/routers/gateway/render.js';
import { canaryIngress } from '../../controller/routers/nginx/render.js';
import { waitForCrdsEstablished } from '../../dev/crds.js';
import type { App } from '../../shared/app-types.js';
import { cutText } from '../../shared/bounded-text.js';
import { defaulted, type DefaultedApp } from '../../shared/defaults.js';
import { podTemplateBytes } from '../../shared/pod-template-size.js';
import type { WebhookServer } from '../../webhook/server.js';
import { testLogger } from '../support/apps.js';
import { appName, filledApp, specNearBounds, templateTarget } from '../support/app-arbitraries.js';
import { repoRoot } from '../support/bundle.js';
import { startTestCluster, type TestCluster } from '../support/cluster.js';
import { kubectl } from '../support/kube.js';
import { startTestWebhook } from '../support/webhook.js';

const SEED = Number(process.env.SKIFF_PROPERTY_SEED ?? 20261124);
const RUNS = 150;
const NAMESPACE = 'tenant';
const UID = '6a1f0b0e-5a7c-4c1e-9d8e-0d1f2e3a4b5c';

/** Why the API server refused an object, from a client-node ApiException. */
function refusal(err: unknown): string {
  const body = (err as { body?: unknown }).body;
  try {
    return String(JSON.parse(String(body)).message);
  } catch {
    return String(body ?? (err as Error).message);
  }
}

describe('what an admitted App renders, on a real API server (server-side dry run, fast-check)', function () {
  this.timeout(300_000);
  let cluster: TestCluster;
  let webhook: WebhookServer;
  let objects: KubernetesObjectApi;
  let versions: ServedVersions;

  before(async function () {
    this.timeout(180_000);
    cluster = await startTestCluster('render-dry-run', { controllerManager: false });
    webhook = await startTestWebhook(cluster.cp.kubeconfigPath, cluster.dir);
    // As published; the 1.20 server cannot parse their CEL rules and kubectl refuses to send them.
    await kubectl(cluster.cp.kubeconfigPath, ['apply', '--validate=false', '-f', join(repoRoot, 'test', 'fixtures', 'gateway-api-v1.6.1')]);
    await waitForCrdsEstablished(cluster.cp.kubeconfigPath, ['httproutes.gateway.networking.k8s.io']);
    await kubectl(cluster.cp.kubeconfigPath, ['create', 'namespace', NAMESPACE]);
    objects = KubernetesObjectApi.makeApiClient(cluster.kc);
    versions = await discoverVersions(cluster.api, testLogger('discovery'), () => false);
    assert.deepEqual(versions, { podDisruptionBudget: 'policy/v1beta1', horizontalPodAutoscaler: 'autoscaling/v2beta2', httpRoute: 'gateway.networking.k8s.io/v1' });
  });

  after(async function () {
    this.timeout(60_000);
    await webhook?.close();
    await cluster?.stop();
  });

  /** The App as the webhook and the API server would store it, or undefined when the webhook denies it. */
  async function admitted(app: App): Promise<{ app?: DefaultedApp; denial?: string }> {
    try {
      const stored = (await objects.create(app as unknown as KubernetesObject, undefined, 'All')) as unknown as App;
      return { app: defaulted({ ...stored, metadata: { ...stored.metadata, uid: UID } }) };
    } catch (err) {
      return { denial: refusal(err) };
    }
  }

  /** Every object of every stage, named for the report. */
  function stages(app: DefaultedApp, previous: DefaultedApp, weight: number): [string, KubernetesObject][] {
    const pod = renderPodTemplate(app, 'stable');
    const before = renderPodTemplate(previous, 'stable');
    const replicas = app.spec.replicas;
    const canaryReplicas = Math.max(1, Math.ceil((replicas * weight) / 100));
    const created = render(app, { template: pod, replicas, versions });
    const duringCanary = render(app, { template: before, replicas, versions });
    const canary = renderCanary(app, canaryReplicas, pod);
    const out: [string, KubernetesObject | undefined][] = [
      ['creation: Deployment', created.deployment], ['creation: Service', created.service], ['creation: Ingress', created.ingress],
      ['creation: PodDisruptionBudget', created.podDisruptionBudget], ['creation: HorizontalPodAutoscaler', created.horizontalPodAutoscaler],
      ['canary: stable Deployment on the previous template', duringCanary.deployment],
      ['canary: Deployment', canary.deployment], ['canary: Service', canary.service],
      ['promotion: stable Deployment with both records', desiredDeployment(app, 'stable', pod, replicas, JSON.stringify(before.template))],
    ];
    if (created.ingress) out.push(['canary: Ingress', canaryIngress(created.ingress, app.metadata.name!, weight, app.spec.rollout.canaryHeader)]);
    if (app.spec.route) out.push(['creation: HTTPRoute', desiredHTTPRoute(app)], [`canary: HTTPRoute at weight ${weight}`, desiredHTTPRoute(app, weight)]);
    return out.filter((o): o is [string, KubernetesObject] => o[1] !== undefined);
  }

  it('accepts every object of every rollout stage of any admitted App near the bounds', async () => {
    const tally = { runs: 0, admitted: 0, objects: 0, largestTemplate: 0, denials: [] as string[] };
    const arbitrary = fc.record({
      name: appName, spec: specNearBounds, target: templateTarget,
      previousSpec: specNearBounds, previousTarget: templateTarget, weight: fc.integer({ min: 0, max: 100 }),
    });
    await fc.assert(fc.asyncProperty(arbitrary, async ({ name, spec, target, previousSpec, previousTarget, weight }) => {
      tally.runs++;
      const [current, previous] = await Promise.all([admitted(filledApp(name, NAMESPACE, spec, target)), admitted(filledApp(name, NAMESPACE, previousSpec, previousTarget))]);
      if (!current.app || !previous.app) {
        tally.denials.push(cutText(current.denial ?? previous.denial ?? '', 300));
        fc.pre(false);
        return;
      }
      tally.admitted++;
      tally.largestTemplate = Math.max(tally.largestTemplate, podTemplateBytes(current.app));
      const refused: string[] = [];
      await Promise.all(stages(current.app, previous.app, weight).map(async ([what, obj]) => {
        tally.objects++;
        try {
          await objects.create(obj, undefined, 'All');
        } catch (err) {
          refused.push(`${what} ${obj.metadata?.name}: ${cutText(refusal(err), 2000)}`);
        }
      }));
      assert.deepEqual(refused, [], `the API server refused what an admitted App renders:\n${refused.join('\n')}`);
    }), { seed: SEED, numRuns: RUNS });
    // The property holds for many Apps, not for a few that slipped through the webhook.
    assert.ok(tally.admitted >= RUNS, `${tally.admitted} of ${tally.runs} Apps admitted; denials: ${tally.denials.slice(0, 5).join(' | ')}`);
    assert.ok(tally.largestTemplate > 100 * 1024 - 64, `the largest template was ${tally.largestTemplate} bytes: the cap was not reached`);
    testLogger('render-dry-run').info(tally, 'dry runs');
  });

  it('admits exactly the spellings the API server takes where it checks the text as it prints it (divisors), and the empty toleration fields it takes', async () => {
    /** The API server's verdict on a Deployment whose pod carries these container env and tolerations. */
    const serverTakes = (env: unknown[], tolerations: unknown[]) => objects.create({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'probe', namespace: NAMESPACE },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { tolerations, containers: [{ name: 'app', image: 'nginx:1.25', env }] } },
      },
    } as KubernetesObject, undefined, 'All').then(() => 'accepted', (err) => `refused: ${refusal(err)}`);
    const cases: [string, unknown[], unknown[]][] = [];
    // Kept as written by the API server (+1, 1., 01, 01m, +1Mi, 001Ki): printed so, no divisor.
    // Printed anew (1000m is 1, 1.0 is 1, 1024Ki is 1Mi): compared as printed.
    for (const divisor of ['1', '1m', '+1', '1.', '01', '+1m', '01m', '1000m', '1.0', '0.001k', '1e0', '2', '0', '1.000', '1000e-3', '1.0e0', '0.001E3', '1e-3']) {
      cases.push([`limits.cpu divisor ${divisor}`, [{ name: 'V', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor } } }], []]);
    }
    for (const divisor of ['1Mi', '+1Mi', '001Ki', '1024Ki', '1k', '1E', '1.Mi', '1000', '1.0Gi']) {
      cases.push([`limits.memory divisor ${divisor}`, [{ name: 'V', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor } } }], []]);
    }
    cases.push(['toleration with an empty effect', [], [{ key: 'dedicated', operator: 'Exists', effect: '' }]]);
    cases.push(['toleration with an empty operator', [], [{ key: 'dedicated', operator: '', value: 'web' }]]);
    cases.push(['toleration with an empty operator and key', [], [{ operator: '' }]]);
    const disagreements: string[] = [];
    for (const [what, env, tolerations] of cases) {
      const app = { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'probe', namespace: NAMESPACE }, spec: { image: 'nginx:1.25', env, tolerations } } as unknown as App;
      const webhook = await admitted(app);
      const server = await serverTakes(env, tolerations);
      if ((webhook.app !== undefined) !== (server === 'accepted')) disagreements.push(`${what}: webhook ${webhook.app ? 'admits' : `denies (${webhook.denial})`}, API server ${server}`);
    }
    assert.deepEqual(disagreements, []);
  });
});
