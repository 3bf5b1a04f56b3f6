// The controller: informers fill caches and enqueue App keys, workers take keys from the work
// queue and reconcile them (client-go's sample-controller shape). With leader election, every
// replica keeps warm caches and is ready, but only the leader runs workers.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Connection } from '../shared/kube-connection.js';
import type { Clients } from './runtime/clients.js';
import type { App } from '../shared/app-types.js';
import { createLogger, type Logger } from '../shared/logger.js';
import { startOpsServers, type OpsServers } from '../shared/ops-server.js';
import { controllingAppKey } from './state/ownership.js';
import { objectKey } from './runtime/keys.js';
import type { ApplyClients } from './apply/apply.js';
import { takeOverObjects } from './apply/shard-takeover.js';
import { reconcile, type ReconcilerDeps } from './reconcile.js';
import { RESOURCES } from './apply/resources.js';
import { SpecVerdicts, specProblems } from './guards/spec-gate.js';
import { Counter } from 'prom-client';
import { prometheusClient } from './analysis/check.js';
import { bearerTokenFile } from './analysis/prometheus.js';
import { CheckRunner } from './analysis/runner.js';
import { Expectations } from './runtime/expectations.js';
import { Residuals } from './apply/residuals.js';
import type { ServedVersions } from './render/served-versions.js';
import { gatewayRouter } from './routers/gateway/router.js';
import { nginxRouter } from './routers/nginx/router.js';
import type { DefaultedApp } from '../shared/defaults.js';
import { highestWeight } from './observe.js';
import { LARGE_ITEMS_PAGE_SIZE, makeClients, USER_AGENT } from './runtime/clients.js';
import { createEventRecorder } from './runtime/events.js';
import { makeInformers, type Informers } from './informers.js';
import { ConfigSources } from './config-sources.js';
import type { ConfigTrackingDeps } from './config-tracking.js';
import { discoverVersions, rediscoverEvery } from './discovery.js';
import { informersReadiness, waitForCacheSync, type ResilientInformer } from './runtime/informer.js';
import { LeaderElector } from './runtime/leader-election.js';
import { createMetrics, type ControllerMetrics } from './runtime/metrics.js';
import { registerRolloutMetrics } from './state/rollout-metrics.js';
import { runWorker } from './runtime/worker.js';
import { timerDelayMs } from './runtime/timer-delay.js';
import { WorkQueue } from './runtime/workqueue.js';
import { shardLeaseName } from './shard.js';
import { LABEL_SHARD } from '../shared/labels.js';

export interface LeaderElectionConfig {
  namespace: string;
  leaseName?: string;
  leaseDurationSeconds?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

export interface ControllerOptions {
  /** The API server and credentials (shared/kube-connection.ts: loadConnection). */
  connection: Connection;
  /** Reconcile only Apps labelled skiff.dev/shard=<shard> (and watch only their objects); undefined: only Apps with no shard label. */
  shard?: string;
  /** Watch and reconcile Apps of this namespace only; "" (default) for all namespaces. */
  namespace?: string;
  /** Workers reconciling different Apps at the same time (default 4). */
  concurrency?: number;
  /** Run workers only while holding the Lease; undefined = no leader election. */
  leaderElection?: LeaderElectionConfig;
  /** Who we are in the Lease and in Events (default: hostname_random). */
  identity?: string;
  /** Reconcile every App this often even when nothing changed (default 5 minutes; 0 = never). */
  resyncMs?: number;
  /** Prometheus for canary analysis (base URL); without it, Apps with analysis hold their canary at weight 0. */
  prometheusUrl?: string;
  /**
   * A file holding the bearer token every query to Prometheus sends, read again when a minute
   * old (a rotated ServiceAccount token); checked at start by the caller (readBearerTokenFile).
   */
  prometheusBearerTokenFile?: string;
  /** Analysis checks running at once over all Apps, outside the reconcile workers (default 8). */
  analysisConcurrency?: number;
  /**
   * Delays every watch event of the controller's informers by this long (ms). For tests only: it
   * makes the informer lag that read-your-writes guards against happen on every write.
   */
  watchEventDelayMs?: number;
  /** How often to look for APIs installed or removed since the start (default 60 s). */
  discoveryIntervalMs?: number;
  /** /readyz fails once a watch has been down for longer than this (default 60 s). */
  watchBrokenLimitMs?: number;
  /** /healthz and /readyz port; 0 = none (default). */
  healthPort?: number;
  /** /metrics port; 0 = none (default). */
  metricsPort?: number;
  opsHost?: string;
  userAgent?: string;
  log?: Logger;
  /**
   * Validate every App before acting on it (default true). false only for tests of what the
   * controller does with an App its rules would refuse, such as one stored before a rule existed.
   */
  validateApps?: boolean;
  /** Also hold Apps to the restricted Pod Security profile, as the webhook's --restricted-tenants does. */
  restrictedTenants?: boolean;
  /** spec.rollout.trackConfig copies Secrets too (--track-secrets); without it no Secret is ever read. */
  trackSecrets?: boolean;
  /** Leadership was lost (another replica holds the Lease). Default: stop reconciling. */
  onLeadershipLost?: () => void;
}

export interface Controller {
  /** Graceful: stop taking keys, finish reconciles in flight, release the Lease, stop watching. */
  stop(): Promise<void>;
  /** undefined when ready, else why not (what /readyz reports). */
  ready(): string | undefined;
  identity: string;
  metrics: ControllerMetrics;
  ops: OpsServers;
}

/**
 * The controller, step by step: clients, metrics and the work queue; the ops servers; discovery;
 * the informers; the reconciler's dependencies; then workers (at once, or once elected leader),
 * rediscovery and the periodic resync.
 */
export async function startController(opts: ControllerOptions): Promise<Controller> {
  const log = opts.log ?? createLogger('controller');
  const identity = opts.identity ?? `${hostname()}_${randomUUID().slice(0, 8)}`;
  const base = controllerBase(opts);
  const { clients, metrics: m, queue } = base;
  let stopping = false;
  /** Every cache the workers wait for (see workerPool); set once they all exist. */
  let caches: (() => ResilientInformer<KubernetesObject>[]) | undefined;
  const ready = () => (caches ? informersReadiness(caches(), opts.watchBrokenLimitMs ?? 60_000) : 'discovering the API versions the cluster serves');
  const ops = await startOpsServers({ healthPort: opts.healthPort ?? 0, metricsPort: opts.metricsPort ?? 0, host: opts.opsHost, registry: m.registry, healthy: () => undefined, ready });

  const versions = await discoverVersions(clients, log, () => stopping);
  const all = await watchCluster(opts, base, versions, log);
  const deps = reconcilerDeps(opts, base, all, versions, identity, log);
  registerRolloutMetrics(m.registry, {
    apps: () => all.apps.list() as App[],
    reporting: () => base.leading.now,
    // The routers read only the App's name, namespace and uid here.
    canaryWeight: (app) => highestWeight(app as DefaultedApp, deps.routers) ?? 0,
  });
  const config = configTracking(opts, base, all, log);
  deps.config = config;
  // The copies' caches count too: the workers wait for them, and a list refused for ever (the
  // Secret copies with --track-secrets but not its RBAC) left a replica ready, even leading,
  // that reconciled nothing.
  caches = () => [...all.all, ...Object.values(config.sources.copies).filter((i) => i !== undefined)];
  for (const i of all.all) i.start();
  config.sources.start();

  const rediscovery = rediscoverEvery(opts.discoveryIntervalMs ?? 60_000, clients, log, () => versions, async (next) => {
    if (stopping || !(await all.serve(next))) return;
    const started = all.all.filter((i) => !i.started);
    for (const i of started) i.start();
    // The new versions take effect once their caches have filled: an App rendered for them against
    // an empty cache would take its HTTPRoute for missing and its weight for unknown. (The gateway
    // router reads the new cache as soon as it exists; a route not in it yet is read from the API
    // server before any write, and is not ready meanwhile: nothing moves on what it lacks.)
    if (!(await waitForCacheSync(() => started, () => stopping))) return;
    Object.assign(versions, next);
    // Some Apps wait for an API that just came (RouteAPIUnavailable): look at every one again.
    enqueueAll(queue, all);
  });
  const workers = workerPool(opts, base, all, deps, () => stopping, log);
  const elector = electLeader(opts, clients, identity, workers, base, log);
  const resyncMs = opts.resyncMs ?? 300_000;
  const resync = resyncMs > 0 ? setInterval(() => enqueueAll(queue, all), timerDelayMs(resyncMs)) : undefined;

  return {
    identity,
    metrics: m,
    ops,
    ready,
    async stop() {
      if (stopping) return;
      stopping = true;
      clearInterval(resync);
      rediscovery.stop();
      await queue.shutDown();
      await workers.done();
      m.leader.set(0);
      base.leading.now = false;
      // Before the Lease goes: once released, this replica's writes are refused.
      await deps.events.flush();
      await elector?.release();
      await Promise.all(all.all.map((i) => i.stop()));
      await config.sources.stop();
      await ops.close();
      clients.close();
      log.info('controller stopped');
    },
  };
}

/** What every step shares: the API clients (writes recorded for read-your-writes), metrics and the work queue. */
interface ControllerBase {
  clients: Clients;
  applyClients: ApplyClients;
  expectations: Expectations;
  metrics: ControllerMetrics;
  queue: WorkQueue;
  analysisChecks: Counter<'result'>;
  analysisQueries: Counter<'result'>;
  /** Whether this replica runs its workers now: set beside the skiff_controller_leader gauge. */
  leading: { now: boolean };
  /** Why the reconciler's writes may not be sent now, if so: set by electLeader. */
  fence: { refusal: () => string | undefined };
}

function controllerBase(opts: ControllerOptions): ControllerBase {
  // Every write of an owned object is recorded, so that a pass can tell a cache behind it.
  const expectations = new Expectations();
  // With leader election, electLeader makes the reconciler's writes wait for the Lease (fence.refusal).
  const fence = { refusal: (): string | undefined => undefined };
  const clients = makeClients(opts.connection, opts.userAgent ?? USER_AGENT, RESOURCES, undefined, () => fence.refusal());
  const leading = { now: false };
  // A standby's watches queue keys too, which no worker takes until it leads (and then it queues
  // every App anyway): its depth would read as a backlog that never drains.
  const metrics: ControllerMetrics = createMetrics({ queueDepth: () => (leading.now ? queue.length : 0), defaultMetrics: true, shard: opts.shard });
  const queue = new WorkQueue({ onRetry: () => metrics.retries.inc() });
  const { analysisChecks, analysisQueries } = metrics;
  // The reconciler writes through the controller's own client, recording each write.
  return { clients, applyClients: { api: clients.api, expectations, residuals: new Residuals() }, expectations, metrics, queue, analysisChecks, analysisQueries, leading, fence };
}

const enqueueAll = (queue: WorkQueue, all: Informers) => {
  for (const app of all.apps.list()) queue.add(objectKey(app));
};

/** The informers of Apps and of what they own, in the versions the cluster serves; their events enqueue App keys. */
async function watchCluster(opts: ControllerOptions, { clients, queue, metrics }: ControllerBase, versions: ServedVersions, log: Logger): Promise<Informers> {
  const enqueue = (key: string | undefined) => key && queue.add(key);
  const all = makeInformers({
    clients,
    namespace: opts.namespace ?? '',
    shard: opts.shard,
    log,
    onApp: (app: App) => enqueue(objectKey(app as KubernetesObject)),
    onOwned: (obj) => enqueue(controllingAppKey(obj)),
    onRestart: (resource) => metrics.watchRestarts.inc({ resource }),
    eventDelayMs: opts.watchEventDelayMs,
  });
  await all.serve(versions);
  return all;
}

/** The watches of trackConfig's sources and copies (config-sources.ts); their events enqueue App keys. */
function configTracking(opts: ControllerOptions, { clients, queue, metrics }: ControllerBase, all: Informers, log: Logger): ConfigTrackingDeps {
  const sources = new ConfigSources({
    clients,
    log,
    namespace: opts.namespace ?? '',
    shard: opts.shard,
    trackSecrets: opts.trackSecrets === true,
    enqueue: (key) => queue.add(key),
    onRestart: (resource) => metrics.watchRestarts.inc({ resource }),
    eventDelayMs: opts.watchEventDelayMs,
  });
  return { sources, deploymentsOf: (namespace) => all.deployments.list(namespace) };
}

/** What reconcile() works with: the caches, the routers, the clients, the checks and what it remembers between passes. */
function reconcilerDeps(opts: ControllerOptions, base: ControllerBase, all: Informers, versions: ServedVersions, identity: string, log: Logger): ReconcilerDeps {
  const { clients, applyClients, expectations, queue, analysisChecks, analysisQueries } = base;
  // The App's router: an HTTPRoute with spec.route, else NGINX Ingress annotations (which also
  // clean up a canary Ingress left from before spec.ingress was removed).
  const nginx = nginxRouter(applyClients, all.ingresses);
  const gateway = gatewayRouter(applyClients, () => all.httpRoutes);
  const validation = { restrictedPodSecurity: opts.restrictedTenants === true };
  return {
    apps: all.apps,
    deployments: all.deployments,
    services: all.services,
    ingresses: all.ingresses,
    controllerRevisions: all.controllerRevisions,
    // Getters: these informers come and go with the APIs the cluster serves. Each is seen once its
    // version is in use: the cache of a kind newly served fills before its version takes effect,
    // and a pass meanwhile, rendering nothing of that kind, would delete what the cache shows (an
    // existing budget or autoscaler).
    get podDisruptionBudgets() { return versions.podDisruptionBudget ? all.podDisruptionBudgets : undefined; },
    get horizontalPodAutoscalers() { return versions.horizontalPodAutoscaler ? all.horizontalPodAutoscalers : undefined; },
    get httpRoutes() { return versions.httpRoute ? all.httpRoutes : undefined; },
    versions,
    clients: applyClients,
    events: createEventRecorder(clients.api, { instance: identity, log }),
    statusWrites: new Map(),
    specVerdicts: new SpecVerdicts(opts.validateApps === false ? () => undefined : (app) => specProblems(app, validation)),
    log,
    routerFor: (app) => (app.spec.route ? gateway : nginx),
    routers: [nginx, gateway],
    checks: opts.prometheusUrl
      ? new CheckRunner({
          prometheus: prometheusClient(
            opts.prometheusUrl,
            (outcome) => analysisQueries.inc({ result: outcome.ok ? 'value' : outcome.reason }),
            opts.prometheusBearerTokenFile ? bearerTokenFile(opts.prometheusBearerTokenFile) : undefined,
          ),
          concurrency: opts.analysisConcurrency,
          onDone: (key) => queue.add(key),
          onCheck: (result) => analysisChecks.inc({ result: result.result }),
          log,
        })
      : undefined,
    expectations,
    weightCeilings: new Map(),
    canaryTemplates: new Map(),
    stableRevisions: new Map(),
    historyConflicts: new Map(),
    lateErrors: new Map(),
    takeoverSearched: new Map(),
    departures: new Map(),
    // As the App watch selects (shardSelector): the shard's label, or none without --shard.
    inScope: (app) => app.metadata?.labels?.[LABEL_SHARD] === opts.shard,
    takeOver: (app, stillOurs) => takeOverObjects(app, {
      stillOurs,
      clients: applyClients,
      // ConfigMaps and Secrets among them: small pages.
      list: async (path, labelSelector) => (await clients.list(path, labelSelector, { pageSize: LARGE_ITEMS_PAGE_SIZE })).items,
      versions,
      trackSecrets: opts.trackSecrets === true,
    }),
  };
}

interface WorkerPool {
  /** Once the caches are synced: every App enqueued, and the workers running. */
  start(): Promise<void>;
  /** Resolves when every worker has finished (after the queue shut down). */
  done(): Promise<void>;
}

function workerPool(opts: ControllerOptions, { queue, metrics, leading }: ControllerBase, all: Informers, deps: ReconcilerDeps, cancelled: () => boolean, log: Logger): WorkerPool {
  const concurrency = Math.max(1, opts.concurrency ?? 4);
  const workers: Promise<void>[] = [];
  return {
    async start() {
      if (!(await waitForCacheSync(() => all.all, cancelled))) return;
      // The copies of tracked configuration are known from their own caches only: reconciled
      // before those fill, an App would not find the copies it owns (those named as an older
      // version named them among them), take its template for changed and start a rollout.
      while (!cancelled() && deps.config && !deps.config.sources.copiesSynced) await new Promise((r) => setTimeout(r, 50));
      if (cancelled()) return;
      metrics.leader.set(1);
      leading.now = true;
      log.info({ concurrency, namespace: opts.namespace || '(all)', shard: opts.shard ?? '(none)' }, 'caches synced; starting workers');
      enqueueAll(queue, all);
      for (let i = 0; i < concurrency; i++) workers.push(runWorker({ queue, reconcile: (key) => reconcile(key, deps), metrics, log }));
    },
    done: async () => void (await Promise.all(workers)),
  };
}

/**
 * With leader election, the workers start once this replica holds the Lease (each shard elects
 * its own leader); without it, at once. Resolves with the elector, if any.
 */
function electLeader(opts: ControllerOptions, clients: Clients, identity: string, workers: WorkerPool, { queue, metrics, leading, fence }: ControllerBase, log: Logger): LeaderElector | undefined {
  if (!opts.leaderElection) {
    void workers.start();
    return undefined;
  }
  const leaseName = opts.leaderElection.leaseName ?? shardLeaseName(opts.shard);
  const elector = new LeaderElector({
    coordination: clients.coordination,
    namespace: opts.leaderElection.namespace,
    name: leaseName,
    identity,
    leaseDurationSeconds: opts.leaderElection.leaseDurationSeconds,
    renewDeadlineMs: opts.leaderElection.renewDeadlineMs,
    retryPeriodMs: opts.leaderElection.retryPeriodMs,
    log,
    onStartedLeading: () => void workers.start(),
    onStoppedLeading: () => {
      // Another replica may be reconciling already: stop at once.
      metrics.leader.set(0);
      leading.now = false;
      void queue.shutDown();
      (opts.onLeadershipLost ?? (() => log.error('stopped reconciling after losing the lease')))();
    },
  });
  // Checked as each write is sent, not only when the renew loop's timer fires: a replica stopped
  // past its renew deadline (SIGSTOP, a paused VM) would first handle the answers its reconciles
  // waited for, and write what it decided before another replica took over.
  const lease = `${opts.leaderElection.namespace}/${leaseName}`;
  fence.refusal = () => (elector.holdsLease() ? undefined : `this replica does not hold the leader Lease ${lease} (or has not renewed it within the renew deadline)`);
  log.info({ identity, lease }, 'waiting to become the leader');
  elector.start();
  return elector;
}
