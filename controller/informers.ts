// The controller's informers: Apps, and the objects labelled as managed by skiff (Deployments,
// Services, Ingresses, the Apps' histories as ControllerRevisions, and PodDisruptionBudgets and
// HorizontalPodAutoscalers in the versions the cluster serves). Their events only enqueue the
// key of the App concerned.
import type { KubernetesObject, V1Deployment, V1Ingress, V1Service } from '@kubernetes/client-node';
import { GROUP, PLURAL, VERSION, type App } from '../shared/app-types.js';
import { LABEL_MANAGED_BY, MANAGED_BY, shardSelector } from '../shared/labels.js';
import type { Logger } from '../shared/logger.js';
import type { ServedVersions } from './render/served-versions.js';
import type { Clients } from './runtime/clients.js';
import { leanObject, leanRevision } from './apply/cache-transform.js';
import { historyIndexOf } from './state/revision-history.js';
import { ResilientInformer, type InformerOptions } from './runtime/informer.js';

export interface Informers {
  apps: ResilientInformer<App & KubernetesObject>;
  deployments: ResilientInformer<V1Deployment>;
  services: ResilientInformer<V1Service>;
  ingresses: ResilientInformer<V1Ingress>;
  /** The Apps' revision histories. */
  controllerRevisions: ResilientInformer<KubernetesObject>;
  /** Informers of kinds whose version the cluster decides; absent while not served. */
  podDisruptionBudgets?: ResilientInformer<KubernetesObject>;
  horizontalPodAutoscalers?: ResilientInformer<KubernetesObject>;
  httpRoutes?: ResilientInformer<KubernetesObject>;
  /** Every informer there is now. */
  readonly all: ResilientInformer<KubernetesObject>[];
  /**
   * Starts informers for kinds newly served in `versions` and stops those of kinds no longer
   * served (a CRD installed or removed). Resolves with whether anything changed.
   */
  serve(versions: ServedVersions): Promise<boolean>;
}

export interface InformersOptions {
  clients: Clients;
  /** "" for all namespaces. */
  namespace: string;
  log: Logger;
  onApp: (app: App) => void;
  onOwned: (obj: KubernetesObject) => void;
  onRestart?: (resource: string) => void;
  /** Watch only Apps (and their objects) of this shard; undefined: only those of no shard. */
  shard?: string;
  /** Delay every watch event by this long (tests of a lagging cache). */
  eventDelayMs?: number;
}

const VERSIONED = [
  { field: 'podDisruptionBudgets', version: 'podDisruptionBudget', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets' },
  { field: 'horizontalPodAutoscalers', version: 'horizontalPodAutoscaler', kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers' },
  { field: 'httpRoutes', version: 'httpRoute', kind: 'HTTPRoute', plural: 'httproutes' },
] as const;

/** Apps, and the objects labelled as managed by skiff. Versioned kinds come with serve(). */
export function makeInformers(opts: InformersOptions): Informers {
  const { clients, namespace: ns, log } = opts;
  // The label selector is on the list and on the watch alike.
  const appSelector = shardSelector(opts.shard);
  const labelSelector = `${LABEL_MANAGED_BY}=${MANAGED_BY},${appSelector}`;
  const nsPath = ns ? `/namespaces/${ns}` : '';
  // Caches keep objects without their managedFields (see cache-transform.ts).
  const common = { watch: clients.watch, log, onRestart: opts.onRestart, transform: leanObject, eventDelayMs: opts.eventDelayMs };

  const apps = new ResilientInformer<App & KubernetesObject>({
    ...common,
    resource: 'apps.skiff.dev',
    path: `/apis/${GROUP}/${VERSION}${nsPath}/${PLURAL}`,
    labelSelector: appSelector,
    list: (each) => clients.list(`/apis/${GROUP}/${VERSION}${nsPath}/${PLURAL}`, appSelector, { each }),
    onChange: (app) => opts.onApp(app),
  });
  const deployments = new ResilientInformer<V1Deployment>({
    ...common,
    resource: 'deployments.apps',
    path: `/apis/apps/v1${nsPath}/deployments`,
    labelSelector,
    list: (each) => clients.list(`/apis/apps/v1${nsPath}/deployments`, labelSelector, { each }),
    onChange: opts.onOwned,
  });
  const services = new ResilientInformer<V1Service>({
    ...common,
    resource: 'services',
    path: `/api/v1${nsPath}/services`,
    labelSelector,
    list: (each) => clients.list(`/api/v1${nsPath}/services`, labelSelector, { each }),
    onChange: opts.onOwned,
  });
  const ingresses = new ResilientInformer<V1Ingress>({
    ...common,
    resource: 'ingresses.networking.k8s.io',
    path: `/apis/networking.k8s.io/v1${nsPath}/ingresses`,
    labelSelector,
    list: (each) => clients.list(`/apis/networking.k8s.io/v1${nsPath}/ingresses`, labelSelector, { each }),
    onChange: opts.onOwned,
  });
  const controllerRevisions = revisionsInformer(opts, common, labelSelector);
  // Kinds whose version depends on the cluster: listed through the generic object API.
  const versioned = (kind: string, plural: string, apiVersion: string) => new ResilientInformer<KubernetesObject>({
    ...common,
    resource: `${plural}.${apiVersion}`,
    path: `/apis/${apiVersion}${nsPath}/${plural}`,
    labelSelector,
    list: (each) => clients.list(`/apis/${apiVersion}${nsPath}/${plural}`, labelSelector, { each }),
    onChange: opts.onOwned,
  });

  const served: Record<string, string | undefined> = {};
  const informers: Informers = {
    apps, deployments, services, ingresses, controllerRevisions,
    get all() {
      return [apps, deployments, services, ingresses, controllerRevisions, ...VERSIONED.map((v) => informers[v.field])].filter((i) => i !== undefined) as ResilientInformer<KubernetesObject>[];
    },
    async serve(versions) {
      let changed = false;
      for (const v of VERSIONED) {
        const apiVersion = versions[v.version];
        if (served[v.field] === apiVersion) continue;
        changed = true;
        await informers[v.field]?.stop();
        informers[v.field] = apiVersion ? versioned(v.kind, v.plural, apiVersion) : undefined;
        served[v.field] = apiVersion;
        if (apiVersion) log.info({ kind: v.kind, apiVersion }, 'watching');
        else log.warn({ kind: v.kind }, 'no longer served by the cluster (discovery); not watched');
      }
      return changed;
    },
  };
  return informers;
}

/** The Apps' histories (ControllerRevisions), kept without their data (see leanRevision). */
function revisionsInformer(opts: InformersOptions, common: Omit<InformerOptions<KubernetesObject>, 'resource' | 'path' | 'labelSelector' | 'list' | 'onChange'>, labelSelector: string) {
  const { clients, namespace: ns } = opts;
  const path = `/apis/apps/v1${ns ? `/namespaces/${ns}` : ''}/controllerrevisions`;
  return new ResilientInformer<KubernetesObject>({
    ...common,
    transform: leanRevision,
    index: historyIndexOf,
    resource: 'controllerrevisions.apps',
    path,
    labelSelector,
    list: (each) => clients.list(path, labelSelector, { each }),
    onChange: opts.onOwned,
  });
}
