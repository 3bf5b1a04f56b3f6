// reconcile() over a FakeCluster: the deps the controller wires, made of in-memory caches and
// recording clients, with a clock the test moves. Shared by the reconciler's unit tests.
import { Residuals } from '../../controller/apply/residuals.js';
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import { reconcile, type ReconcilerDeps } from '../../controller/reconcile.js';
import { nginxRouter } from '../../controller/routers/nginx/router.js';
import { Expectations } from '../../controller/runtime/expectations.js';
import { historyIndexOf } from '../../controller/state/revision-history.js';
import { SpecVerdicts, specProblems } from '../../controller/guards/spec-gate.js';
import type { App, AppSpec } from '../../shared/app-types.js';
import { testLogger } from './apps.js';
import { FakeCluster } from './fake-cluster.js';

export const NS = 'shop';
export const KEY = `${NS}/web`;
export const T0 = new Date('2026-11-22T10:00:00Z');

export interface SetupOptions {
  annotations?: Record<string, string>;
  status?: App['status'];
  /** Wire read-your-writes as the controller does: expectations and weight ceilings. */
  readYourWrites?: boolean;
  /**
   * How the controller validates the App: false acts on it whatever the webhook's rules say
   * (the controller's validateApps: false); a function stands in for the rules. Default: the rules.
   */
  validate?: false | ((app: App) => string | undefined);
  /** The App's namespace (default shop). */
  namespace?: string;
  /** Keep the App's revision history (ControllerRevisions), as the controller does. */
  history?: boolean;
}

export function setup(spec: AppSpec, extra: SetupOptions = {}) {
  const cluster = new FakeCluster();
  const ns = extra.namespace ?? NS;
  cluster.put({ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: ns, annotations: extra.annotations }, spec, status: extra.status } as App & KubernetesObject);
  let validations = 0;
  const validate = extra.validate === false ? () => undefined : (extra.validate ?? specProblems);
  let now = T0;
  const expectations = extra.readYourWrites ? new Expectations(() => now.getTime()) : undefined;
  const clients = { ...cluster.clients(), expectations, residuals: new Residuals() };
  const ingresses = cluster.cache('Ingress');
  const router = nginxRouter(clients, ingresses, () => now.getTime());
  const deps: ReconcilerDeps = {
    apps: cluster.cache<App & KubernetesObject>('App'),
    deployments: cluster.cache('Deployment'),
    services: cluster.cache('Service'),
    ingresses,
    clients,
    events: cluster.recorder(),
    log: testLogger('controller'),
    routerFor: () => router,
    routers: [router],
    versions: { podDisruptionBudget: 'policy/v1', horizontalPodAutoscaler: 'autoscaling/v2' },
    podDisruptionBudgets: cluster.cache('PodDisruptionBudget'),
    horizontalPodAutoscalers: cluster.cache('HorizontalPodAutoscaler'),
    controllerRevisions: extra.history ? cluster.cache('ControllerRevision', historyIndexOf) : undefined,
    now: () => now,
    statusWrites: new Map(),
    expectations,
    weightCeilings: extra.readYourWrites ? new Map() : undefined,
    canaryTemplates: new Map(),
    stableRevisions: new Map(),
    historyConflicts: extra.history ? new Map() : undefined,
    lateErrors: new Map(),
    specVerdicts: new SpecVerdicts((a) => {
      validations++;
      return validate(a);
    }),
  };
  const app = () => cluster.get('App', ns, 'web') as App & KubernetesObject;
  const setSpec = (change: (spec: AppSpec) => AppSpec) => cluster.put({ ...app(), spec: change(structuredClone(app().spec)) });
  return {
    cluster, deps, app, setSpec,
    validations: () => validations,
    run: () => reconcile(`${ns}/web`, deps),
    later: (ms: number) => { now = new Date(now.getTime() + ms); },
  };
}

/**
 * The App rolled out at its image, then given `image`: passes, the canary's pods made available
 * after each, until the canary Ingress carries `weight` (at most `passes` of them).
 */
export async function canaryAtWeight(t: ReturnType<typeof setup>, image: string, weight: string, passes = 6): Promise<void> {
  await t.run();
  markAvailable(t.cluster, 'web');
  await t.run();
  t.setSpec((s) => ({ ...s, image }));
  for (let i = 0; i < passes && weightOf(t.cluster) !== weight; i++) {
    await t.run();
    markAvailable(t.cluster, 'web-canary');
  }
}

/** What the Deployment controller writes once every replica of the current spec is available. */
export function markAvailable(cluster: FakeCluster, name: string): void {
  const d = cluster.get('Deployment', NS, name) as V1Deployment;
  const n = d.spec!.replicas ?? 1;
  d.status = {
    observedGeneration: d.metadata!.generation, replicas: n, updatedReplicas: n, readyReplicas: n, availableReplicas: n,
    conditions: [{ type: 'Available', status: 'True' }, { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }] as V1Deployment['status'] extends infer S ? S extends { conditions?: infer C } ? C : never : never,
  };
}

export const weightOf = (cluster: FakeCluster) => cluster.get('Ingress', NS, 'web-canary')?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'];

export function containerImageOf(cluster: FakeCluster, name: string): string | undefined {
  return (cluster.get('Deployment', NS, name) as V1Deployment | undefined)?.spec?.template.spec?.containers[0].image;
}

/** A blue-green App (2 replicas, 30 s delay) rolled out once, then switched to web:2: its Service selects the preview. */
export async function switchedBlueGreenApp(extra: SetupOptions = {}) {
  const t = setup({ image: 'registry.example/web:1', replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy: 'BlueGreen', scaleDownDelaySeconds: 30 } }, extra);
  await t.run();
  markAvailable(t.cluster, 'web');
  await t.run();
  t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
  await t.run();
  markAvailable(t.cluster, 'web-preview');
  await t.run();
  if (t.app().status?.blueGreen?.phase !== 'Switched') throw new Error(`not switched: ${JSON.stringify(t.app().status?.blueGreen)}`);
  return t;
}
