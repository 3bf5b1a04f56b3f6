// Act: make the cluster match a plan. Every owned object is compared with its cached copy and
// written only where it differs; each step returns what it did, and the steps' results are
// gathered into one outcome for the status.
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import type { DefaultedApp } from '../shared/defaults.js';
import type { Logger } from '../shared/logger.js';
import { ANNOTATION_CONFIG_HASH, deleteIfOwned, describeObject, ensureObject, type ApplyClients } from './apply/apply.js';
import type { ReconcilePlan } from './decide.js';
import type { ServedVersions } from './render/served-versions.js';
import type { Observed } from './observe.js';
import { describeError } from './runtime/api-errors.js';
import type { EventSink } from './runtime/events.js';
import { RouterError, type RouterReadiness, type RouterWrite, type TrafficRouter } from './routers/router.js';
import { actPreview } from './act-preview.js';
import { readyOfCurrentTemplate, type SeenTemplate } from './state/deployment-state.js';
import { deploymentRevision } from './render/pod-template-record.js';
import { isControlledBy } from './state/ownership.js';
import { deletionState, STUCK_RECHECK_MS, type Deletion } from './state/stuck-deletion.js';

/** Objects not controlled by the App are not watched: look at them again after this long. */
export const CONFLICT_RECHECK_MS = 30_000;
/** An owned object being deleted is waited for this long before it is created again. */
export const DELETION_RECHECK_MS = 1_000;
/** A router that has not taken the stable-only routing yet (its change is watched) is looked at again after this long. */
export const ROUTER_RECHECK_MS = 30_000;

const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;
const SERVICE = { apiVersion: 'v1', kind: 'Service' } as const;
const INGRESS = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' } as const;

export interface ActDeps {
  clients: ApplyClients;
  events: EventSink;
  log: Logger;
  /** The pass's time: how long an owned object has been held by finalizers is measured against it. */
  now: Date;
  /**
   * Per App key: the canary Deployment's template as last seen rolled out alone, which tells the
   * ready pods of a canary being scaled from those of a template being replaced.
   */
  canaryTemplates?: Map<string, SeenTemplate>;
}

/** What act did: the objects it wrote or found, and what went wrong. */
export interface ActOutcome {
  /** The stable Deployment as the API server now has it, when this App controls it. */
  deployment?: V1Deployment;
  /**
   * The write of the stable Deployment failed (in words): `deployment` is then the cached copy,
   * without what this pass asked of it, so its rollout state is not the App's spec's.
   */
  deploymentError?: string;
  /**
   * The write of the Service `<app>` failed, or its name is someone else's (in words): its selector
   * is as it was, so a blue-green switch decided in this pass moved no traffic.
   */
  serviceError?: string;
  /** Owned names taken by objects this App does not control, in words. */
  conflicts: string[];
  /** API calls that failed, in words. */
  errors: string[];
  /** A routing problem that needs a person (RouteAPIUnavailable). */
  degraded?: { reason: string; message: string };
  /** Look again after this long (a conflict to recheck, an object still being deleted). */
  requeueAfterMs?: number;
}

/** What one step did. */
interface StepResult {
  object?: KubernetesObject;
  conflict?: string;
  error?: string;
  degraded?: { reason: string; message: string };
  requeueAfterMs?: number;
}

export interface Routing {
  /** The router this App's traffic goes through. */
  router: TrafficRouter;
  /** Every router, so that the others can retire what they made for the App. */
  routers: readonly TrafficRouter[];
}

export async function act(app: DefaultedApp, plan: ReconcilePlan, observed: Observed, versions: ServedVersions, deps: ActDeps, { router, routers }: Routing): Promise<ActOutcome> {
  const { stable } = plan;
  const { cached } = observed;
  // Switching routers (spec.ingress to spec.route or back), the old router's objects carry the
  // App's traffic until the new router does: deleted before, the host would serve nothing
  // meanwhile, and for good when the new router's object cannot be made (HTTPRoutes not served,
  // its name taken). An HTTPRoute carries it once accepted for its current generation, as the
  // cache shows it before this pass writes; an Ingress reports nothing, so its being the App's is
  // enough (below). Without a switch this is the App's router, ready or not, and nothing waits.
  // Nor in a pass that moves the App's router to the canary's weight: that write is a new
  // generation, not yet taken by the data plane (a route's Gateway accepts it later), and the old
  // router's objects carry the canary's share meanwhile: deleted now, it would drop to what the new
  // router carried before (0 when just made) and come back. The next pass, the weight carried, retires them.
  // Nor while the App's router is held below the weight decided (a promotion keeps the canary's
  // weight until stable is available, but never raises it on a router that does not carry it yet):
  // the old router's objects carry that share until the promotion takes it to 0.
  const weightPending = plan.canary !== undefined && router.currentWeight(app) !== (plan.canary.decided ?? plan.canary.weight);
  const readiness = router.readiness(app);
  const carried = readiness.ready && !weightPending;
  // The stable objects do not depend on each other (but for the autoscaler, below): one round trip instead of five.
  const deploymentStep = applyOwned(deps, app, stable.deployment, cached.deployment);
  const serviceStep = applyOwned(deps, app, stable.service, cached.service);
  // The App's Ingress and HTTPRoute send its host to the Service `<app>` by name: while that name
  // is taken by a Service the App does not control, they would publish someone else's Service.
  const serviceNotOurs = ` (${describeObject(stable.service)} is not owned by this App: it would send the App's host to that Service)`;
  const [deployment, service, ingress, ...rest] = await Promise.all([
    deploymentStep,
    serviceStep,
    stable.ingress
      ? serviceStep.then((s) => (s.conflict ? deleteOwned(deps, app, INGRESS, cached.ingress, serviceNotOurs) : applyOwned(deps, app, stable.ingress!, cached.ingress)))
      : carried ? deleteOwned(deps, app, INGRESS, cached.ingress, ' (the App has no spec.ingress)') : Promise.resolve<StepResult>({}),
    disruptionBudget(deps, app, plan, observed, versions, deploymentStep),
    autoscaler(deps, app, plan, observed, versions, deploymentStep),
  ]);
  // The canary Ingress copies the main one's host and path: it may exist only beside the App's own
  // Ingress as the spec has it. Someone else's Ingress of that name, or a write the API server
  // refused (ingress-nginx's admission refuses a host and path another namespace serves, and takes
  // a canary Ingress beside that one, merging it into its location), leaves none to sit beside.
  const ingressNotOurs = stable.ingress !== undefined && (ingress.conflict !== undefined || ingress.error !== undefined || ingress.object === undefined);
  // Routers this App does not use (any more) keep nothing of it: switching routers cleans up,
  // once the App's router carries its traffic (with spec.ingress: once the Ingress is the App's).
  const others = routers.filter((r) => r !== router);
  const retiring = carried && !ingressNotOurs ? others : [];
  const routing = service.conflict && app.spec.route
    ? [await step(() => retireReported(deps, app, router, serviceNotOurs), `removing the HTTPRoute${serviceNotOurs}`)]
    : await route(deps, app, plan, observed, { router, others, retiring }, ingressNotOurs);
  const preview = await actPreview(plan, observed, versions, {
    apply: (want, cached) => applyOwned(deps, app, want, cached),
    remove: (type, cached, why) => deleteOwned(deps, app, type, cached, why),
  }, service);
  const retired = await Promise.all(retiring.map((r) => step(() => retireReported(deps, app, r, ` (the App has no ${r.field})`), 'removing the routing of another router')));
  const results = [deployment, service, ingress, ...rest, ...routing, ...preview, ...retired];
  const delays = results.map((r) => r.requeueAfterMs).filter((ms): ms is number => ms !== undefined);
  return {
    deployment: deployment.object as V1Deployment | undefined,
    deploymentError: deployment.error,
    serviceError: service.error ?? service.conflict,
    conflicts: results.flatMap((r) => (r.conflict ? [r.conflict] : [])),
    errors: results.flatMap((r) => (r.error ? [r.error] : [])),
    degraded: results.find((r) => r.degraded)?.degraded ?? routeNotAccepted(app, readiness),
    requeueAfterMs: delays.length ? Math.min(...delays) : undefined,
  };
}

/**
 * The App's HTTPRoute refused by a parent (a Gateway whose listeners do not admit its namespace
 * or hostnames): its pods may be available, but its hostnames do not reach them, which Ready (the
 * stable Deployment's) does not say. An Ingress reports nothing of the kind.
 */
function routeNotAccepted(app: DefaultedApp, readiness: RouterReadiness): StepResult['degraded'] {
  if (!app.spec.route || !readiness.refused) return undefined;
  return { reason: 'RouteNotAccepted', message: `HTTPRoute ${app.metadata.namespace}/${app.metadata.name}: ${readiness.message}; the App's hostnames do not reach its pods through that parent` };
}

/** The type of a cached object (list items carry none): the version its informer watches. */
const typeOf = (cached: KubernetesObject | undefined, apiVersion: string | undefined, kind: string) =>
  ({ apiVersion: cached?.apiVersion ?? apiVersion ?? '', kind });

/**
 * The budget limits evictions of the pods its selector picks, whoever runs them: while the
 * Deployment's name is taken by an object the App does not control (a conflict), the pods that
 * carry the App's label may be someone else's (a copied manifest), so the App has no budget
 * until the name is its own again.
 */
async function disruptionBudget(deps: ActDeps, app: DefaultedApp, { stable }: ReconcilePlan, { cached }: Observed, versions: ServedVersions, deploymentStep: Promise<StepResult>): Promise<StepResult> {
  const type = typeOf(cached.podDisruptionBudget, versions.podDisruptionBudget, 'PodDisruptionBudget');
  if (!stable.podDisruptionBudget) return deleteOwned(deps, app, type, cached.podDisruptionBudget, ' (the App runs fewer than 2 pods)');
  if ((await deploymentStep).conflict) return deleteOwned(deps, app, type, cached.podDisruptionBudget, ` (${describeObject(stable.deployment)} is not owned by this App)`);
  return applyOwned(deps, app, stable.podDisruptionBudget, cached.podDisruptionBudget);
}

/**
 * The autoscaler scales the Deployment of its target's name, whoever owns it: while that name is
 * taken by an object the App does not control (a conflict), an autoscaler would change someone
 * else's Deployment, so the App has none until the name is its own again.
 */
async function autoscaler(deps: ActDeps, app: DefaultedApp, { stable }: ReconcilePlan, { cached }: Observed, versions: ServedVersions, deploymentStep: Promise<StepResult>): Promise<StepResult> {
  const type = typeOf(cached.horizontalPodAutoscaler, versions.horizontalPodAutoscaler, 'HorizontalPodAutoscaler');
  if (!stable.horizontalPodAutoscaler) return deleteOwned(deps, app, type, cached.horizontalPodAutoscaler, ' (the App has no spec.autoscaling)');
  if ((await deploymentStep).conflict) return deleteOwned(deps, app, type, cached.horizontalPodAutoscaler, ` (its target ${describeObject(stable.deployment)} is not owned by this App)`);
  return applyOwned(deps, app, stable.horizontalPodAutoscaler, cached.horizontalPodAutoscaler);
}

/** Logs an owned object's creation or correction and records its Event. */
function reportWrite({ events, log }: Pick<ActDeps, 'events' | 'log'>, app: DefaultedApp, write: RouterWrite): void {
  const what = write.object;
  if (write.outcome === 'created') {
    log.info({ object: what }, 'created');
    events.event(app, 'Normal', 'Created', `Created ${what}`);
  } else if (write.outcome === 'updated') {
    const fields = (write.changed ?? []).filter((p) => !p.includes(ANNOTATION_CONFIG_HASH));
    log.info({ object: what, changed: fields }, 'updated');
    const detail = fields.length ? ` (${fields.slice(0, 3).join(', ')}${fields.length > 3 ? ', ...' : ''})` : ' to the App spec';
    events.event(app, 'Normal', 'Updated', `Updated ${what}${detail}`);
  }
}

/** Logs an owned object's deletion (`what`, as `Kind namespace/name`) and records its Event, `why` after it. */
function reportDeleted({ events, log }: Pick<ActDeps, 'events' | 'log'>, app: DefaultedApp, what: string, why: string): void {
  log.info({ object: what }, 'deleted');
  events.event(app, 'Normal', 'Deleted', `Deleted ${what}${why}`);
}

/** Retires a router for the App, reporting what it deleted. */
async function retireReported(deps: ActDeps, app: DefaultedApp, router: TrafficRouter, why: string): Promise<void> {
  const write = await router.retire(app);
  if (write) reportDeleted(deps, app, write.object, why);
}

/** Creates or corrects one owned object; `object` is set when it is the App's. */
async function applyOwned({ clients, events, log, now }: ActDeps, app: DefaultedApp, want: KubernetesObject, cached: KubernetesObject | undefined): Promise<StepResult> {
  const what = describeObject(want);
  try {
    const result = await ensureObject(clients, app.metadata.uid!, want, cached);
    switch (result.outcome) {
      case 'unchanged':
        return { object: result.object };
      case 'created':
        reportWrite({ events, log }, app, { outcome: 'created', object: what });
        return { object: result.object };
      case 'updated': {
        reportWrite({ events, log }, app, { outcome: 'updated', object: what, changed: result.changed });
        if (result.residual) log.warn({ object: what, fields: result.residual }, 'the API server stored these fields otherwise than applied (a mutating admission webhook?); not applied again until the App or the object changes');
        return { object: result.object };
      }
      case 'deleting': {
        // Made again once it is gone; held by finalizers for long, the status says so.
        return whileDeleting(deletionState(result.object, now.getTime()), DELETION_RECHECK_MS);
      }
      case 'conflict':
        return { conflict: result.message, requeueAfterMs: CONFLICT_RECHECK_MS };
    }
  } catch (err) {
    // The object the App controls is still there as the cache shows it (what its status reports),
    // not gone: a failed write of a running Deployment leaves its pods running.
    const object = cached && isControlledBy(cached, app.metadata.uid!) ? cached : undefined;
    return { error: `applying ${what}: ${describeError(err)}`, ...(object ? { object } : {}) };
  }
}

/** An object being deleted: come back after `waitMs`, or, held by finalizers for long, report it. */
const whileDeleting = (deletion: Deletion | undefined, waitMs: number): StepResult =>
  deletion?.stuck ? { error: deletion.message, requeueAfterMs: STUCK_RECHECK_MS } : { requeueAfterMs: waitMs };

/** Deletes an owned object the plan no longer has (an object of that name the App does not control stays). */
async function deleteOwned(deps: ActDeps, app: DefaultedApp, type: { apiVersion: string; kind: string }, cached: KubernetesObject | undefined, why = ''): Promise<StepResult> {
  if (!cached) return {};
  const { clients, now } = deps;
  const what = describeObject({ ...type, metadata: cached.metadata });
  // Deleted already: its watch event brings the pass after it is gone; held by finalizers, that
  // never comes, and what waits for it (a canary's wind-down) is reported.
  const deletion = isControlledBy(cached, app.metadata.uid!) ? deletionState({ ...type, metadata: cached.metadata }, now.getTime()) : undefined;
  if (deletion) return whileDeleting(deletion, Math.max(deletion.stuck ? 0 : deletion.leftMs, DELETION_RECHECK_MS));
  try {
    if (await deleteIfOwned(clients, app.metadata.uid!, type, cached)) reportDeleted(deps, app, what, why);
    return {};
  } catch (err) {
    return { error: `deleting ${what}: ${describeError(err)}` };
  }
}

/** A router call as a step: its errors become conflicts, Degraded reasons or errors. */
async function step(call: () => Promise<unknown>, doing: string): Promise<StepResult> {
  try {
    await call();
    return {};
  } catch (err) {
    if (err instanceof RouterError) {
      return err.reason === 'ResourceConflict'
        ? { conflict: err.message, requeueAfterMs: CONFLICT_RECHECK_MS }
        : { degraded: { reason: err.reason, message: err.message }, requeueAfterMs: CONFLICT_RECHECK_MS };
    }
    return { error: `${doing}: ${describeError(err)}` };
  }
}

/** The App's router, and the others: those it is switching from, and those retired in this pass. */
interface SwitchRouting {
  router: TrafficRouter;
  others: readonly TrafficRouter[];
  retiring: readonly TrafficRouter[];
}

/**
 * Switching routers, the old router's objects carry the traffic until the new router's do, but a
 * canary that must carry none (aborted, failed, promoted, its objects not the App's) must carry
 * none through them either: their canary part goes (for NGINX the canary Ingress, for a route its
 * canary backend and header rules), their stable part stays. Routers being retired in this pass
 * lose everything anyway. Their weight is never raised or set: only the App's router splits.
 * With `above`, only those sending the canary more than that weight lose their canary part.
 */
async function othersStableOnly(deps: ActDeps, app: DefaultedApp, others: readonly TrafficRouter[], retiring: readonly TrafficRouter[], above?: number): Promise<{ results: StepResult[]; wrote: boolean }> {
  let wrote = false;
  const splitting = (r: TrafficRouter) => (above === undefined ? r.exists(app) : (r.currentWeight(app) ?? 0) > above);
  const results = await Promise.all(others.filter((r) => !retiring.includes(r) && splitting(r)).map((r) => step(async () => {
    if (await r.stableOnly(app)) {
      wrote = true;
      deps.log.info('canary traffic split of the previous router removed');
      deps.events.event(app, 'Normal', 'Deleted', 'Removed the canary traffic split of the router the App is switching from');
    }
  }, 'routing all traffic to stable through the previous router')));
  return { results, wrote };
}

/** The canary Deployment's ready pods of its current template, remembering the template it was last seen rolled out at. */
function readyCanaryPods(deps: ActDeps, app: DefaultedApp, canaryDeployment: V1Deployment): number {
  const key = `${app.metadata.namespace}/${app.metadata.name}`;
  const { ready, seen } = readyOfCurrentTemplate(canaryDeployment, deps.canaryTemplates?.get(key), deploymentRevision(canaryDeployment));
  if (seen) deps.canaryTemplates?.set(key, seen);
  return ready;
}

const withoutCanaryHeader = (app: DefaultedApp): DefaultedApp => ({ ...app, spec: { ...app.spec, rollout: { ...app.spec.rollout, canaryHeader: undefined } } });

/**
 * Sets the canary's weight on the App's router (`routed`: the App as the router must write it), and
 * says what that moved: the share of traffic, or nothing (a write that kept the weight; the new
 * router of a switch, below what a router switched from still sends the canary).
 */
async function setCanaryWeight(deps: ActDeps, to: { app: DefaultedApp; routed: DefaultedApp; image: string; weight: number }, router: TrafficRouter, routerWeight: number | undefined, keptElsewhere: readonly TrafficRouter[]): Promise<void> {
  const { app, image, weight } = to;
  const write = await router.setWeight(to.routed, weight);
  if (!write) return;
  deps.log.info({ weight }, 'canary weight set');
  const elsewhere = keptElsewhere.find((r) => (r.currentWeight(app) ?? 0) > weight);
  if (elsewhere) deps.events.event(app, 'Normal', 'Updated', `Canary ${image} gets ${weight}% through ${write.object} for now: the routing of ${elsewhere.field} keeps sending it ${elsewhere.currentWeight(app)}% until ${write.object} takes over`);
  // A write that kept the weight (canaryHeader added or removed, a hand edit put back) moved no share of traffic.
  else if (routerWeight !== weight) deps.events.event(app, 'Normal', 'CanaryWeight', `Canary ${image} receives ${weight}% of the traffic`);
  else deps.events.event(app, 'Normal', 'Updated', `Updated the canary routing of ${image} (its weight stays ${weight}%)`);
}

/**
 * The canary's objects and the split at the decided weight; or, without a canary, everything to
 * stable first and only then (when the plan says so) the canary's Service and Deployment go, so
 * that no request reaches pods being deleted.
 */
async function route(deps: ActDeps, app: DefaultedApp, plan: ReconcilePlan, observed: Observed, { router, others, retiring }: SwitchRouting, ingressNotOurs = false): Promise<StepResult[]> {
  const { canary } = plan;
  if (canary) {
    const results = canary.objects
      ? [
          await applyOwned(deps, app, canary.objects.deployment, observed.cached.canaryDeployment),
          await applyOwned(deps, app, canary.objects.service, observed.cached.canaryService),
        ]
      : [];
    // A canary name taken by someone else's object (reported as a conflict): no split at all, since
    // the router would send whatever Service or pods carry that name a share, or the requests
    // with the canary header. Nor while the canary's Deployment or Service is not there as the
    // App's (a create refused, by a quota say, or one still being deleted): its share would be 503s.
    // The same when the Ingress `<app>` is not the App's as spec has it (someone else's, or its
    // write refused): a canary Ingress for that host and path would split another Ingress's traffic.
    if (ingressNotOurs || results.some((r) => r.conflict || !r.object)) {
      results.push(await step(() => router.stableOnly(app), 'routing all traffic to stable'));
      results.push(...(await othersStableOnly(deps, app, others, retiring)).results);
      return results;
    }
    const { weight } = canary;
    // The requests carrying canaryHeader reach the canary at any weight: only once it has a ready
    // pod, as a weight waits for its pods (before, each of those requests would get a 503). A pod
    // of this canary's revision: while the Deployment rolls a new one over the pods of an earlier,
    // aborted canary (kept for their delay), its ready count is theirs, and an aborted canary never
    // gets traffic again. The Deployment as this pass wrote it, which says whether its template moved;
    // a step that only scales it keeps its ready pods (and the header) while the Deployment
    // controller catches up: taking the header off and back would route those requests to stable
    // for a moment and rewrite the router twice.
    const canaryDeployment = (results[0]?.object ?? observed.cached.canaryDeployment) as V1Deployment | undefined;
    const readyPods = canaryDeployment ? readyCanaryPods(deps, app, canaryDeployment) : 0;
    const routed = app.spec.rollout.canaryHeader !== undefined && readyPods === 0 ? withoutCanaryHeader(app) : app;
    // A router the App is switching from keeps its share until it is retired, but not above the
    // weight the engine decided (a new pod template drains the canary first, steps edited lower,
    // an abort): it would send more than the steps allow, to pods that may be about to change.
    // Dropping its split only moves traffic to stable; setting its weight could raise it.
    const ceiling = Math.max(weight, canary.decided ?? 0);
    const keptElsewhere = others.filter((r) => !retiring.includes(r) && (r.currentWeight(app) ?? 0) <= ceiling);
    results.push(await step(() => setCanaryWeight(deps, { app, routed, image: canary.image, weight }, router, observed.canary.routerWeight, keptElsewhere), 'setting the canary weight'));
    results.push(...(await othersStableOnly(deps, app, others, retiring, ceiling)).results);
    return results;
  }
  let wrote = false;
  const stableOnly = await step(async () => {
    const write = await router.stableOnly(app);
    wrote = write !== undefined;
    // A split that was there (a canary's weight, 0 included) is gone: whether its pods go now or
    // after scaleDownDelaySeconds. Other writes of a stable-only route are not about a canary:
    // the route made or corrected as any owned object is.
    if (wrote && (plan.removeCanary || observed.canary.routerWeight !== undefined)) {
      deps.log.info('canary traffic split removed');
      deps.events.event(app, 'Normal', 'Deleted', 'Removed the canary traffic split');
    } else if (write) reportWrite(deps, app, write);
  }, 'routing all traffic to stable');
  const old = await othersStableOnly(deps, app, others, retiring);
  if (!plan.removeCanary || stableOnly.error || stableOnly.conflict || stableOnly.degraded) return [stableOnly, ...old.results];
  // The canary's pods go only once the data plane has taken the stable-only routing: not in the
  // pass that wrote it (the route's new generation is not accepted yet), and not while the
  // router says it has not taken it. Its change (or this requeue) brings the next pass.
  // The same for the routers the App is switching from: not while any has a canary part (being
  // removed, or retired in this pass), which would send its share to a Service with no pods.
  if (wrote || old.wrote || others.some((r) => r.exists(app))) return [{ ...stableOnly, requeueAfterMs: DELETION_RECHECK_MS }, ...old.results];
  // A route its Gateway has not accepted may stay so for long (a Gateway gone, its controller
  // down): the route's status change comes by its watch, so no poll every second meanwhile. The
  // same for a route the App is switching from, not yet accepted without its canary backend.
  if (!router.readiness(app).ready || others.some((r) => !r.readiness(app).ready)) return [{ ...stableOnly, requeueAfterMs: ROUTER_RECHECK_MS }];
  const deleted: StepResult[] = [];
  for (const [type, cached] of [[SERVICE, observed.cached.canaryService], [DEPLOYMENT, observed.cached.canaryDeployment]] as const) {
    const result = await deleteOwned(deps, app, type, cached);
    if (result.error) return [stableOnly, result];
    // One already being deleted brings the pass back when its finalizers would be reported.
    deleted.push(result);
  }
  return [stableOnly, ...deleted];
}
