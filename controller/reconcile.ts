// reconcile(key): make the cluster match one App, then report what happened in its status.
// Observe (caches, router) -> decide (pure) -> act (write only what differs) -> status.
// Reads come from the informer caches, so a reconcile of an App whose objects and status are
// already right issues no write at all. A cache that has not yet caught up with this
// controller's own last write of the App or one of its objects is waited for (see freshness.ts):
// a pass never decides from a copy older than what was already acted upon.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { App, AppStatus } from '../shared/app-types.js';
import { defaulted, type DefaultedApp } from '../shared/defaults.js';
import type { Logger } from '../shared/logger.js';
import { act, CONFLICT_RECHECK_MS } from './act.js';
import { recordHistory, type HistoryOutcome } from './history.js';
import type { ApplyClients } from './apply/apply.js';
import { blueGreenCheckDue, checkDue } from './analysis/check.js';
import type { CheckRunner, CompletedCheck } from './analysis/runner.js';
import { AppGone, readApp, removeAnnotations, writeStatus } from './apply/app-writes.js';
import type { CanaryDecision } from './canary/types.js';
import { cappedWeight, nextCeiling, type WeightCeiling } from './canary/weight-ceiling.js';
import { allOwnedRefs, appRef, staleOwned, STALE_CACHE_WAIT_MS, type FreshnessCaches } from './guards/freshness.js';
import { findCondition } from './state/conditions.js';
import { decide, type ReconcilePlan } from './decide.js';
import type { ServedVersions } from './render/served-versions.js';
import { observe, type Observed } from './observe.js';
import { historyRevision } from './render/history-template.js';
import type { PodTemplate } from '../shared/render/pod-template.js';
import { CONTROLLER_REVISION, historyOf, type RevisionEntry } from './state/revision-history.js';
import { splitKey } from './runtime/keys.js';
import { describeError, namespaceTerminating } from './runtime/api-errors.js';
import type { ObjectCache } from './runtime/cache.js';
import type { Expectations } from './runtime/expectations.js';
import { EventBatch, type EventRecorder, type EventSink } from './runtime/events.js';
import type { ReconcileOutcome } from './runtime/worker.js';
import { timerDelayMs } from './runtime/timer-delay.js';
import type { TrafficRouter } from './routers/router.js';
import { refuseInvalidSpec, type SpecVerdicts } from './guards/spec-gate.js';
import { computeStatus, progressOnly } from './status.js';
import { revisionRolling } from '../shared/rollout-revision.js';
import { copiesOfRevision, lostCopies, prepareCopies, pruneCopies, pruneUnrendered, revisionUnderWay, trackedConfig, trackedUnderWay, withRestorableCopies, type ConfigTrackingDeps } from './config-tracking.js';
import { ownedName } from '../shared/labels.js';
import type { SeenRevision, SeenTemplate } from './state/deployment-state.js';
import { ownedFromCache } from './state/ownership.js';
import { CONFIG_NOT_FOUND, CONFIG_TRACKED, goneUnderWayMessage, refuseMissingConfig, refuseUncopied, withConfigCondition } from './guards/config-gate.js';
import type { TrackedTemplate } from '../shared/render/config-copies.js';
import type { CopiesOutcome } from './apply/config-copies.js';

export interface ReconcilerDeps extends FreshnessCaches {
  apps: ObjectCache<App & KubernetesObject>;
  /** The API client, and the expectations its writes are recorded in. */
  clients: ApplyClients;
  events: EventRecorder;
  log: Logger;
  /** API versions the cluster serves for PodDisruptionBudgets and HorizontalPodAutoscalers. */
  versions: ServedVersions;
  /** The traffic router that splits this App's canary traffic. */
  routerFor(app: DefaultedApp): TrafficRouter;
  /** Every router: those an App does not use retire what they made for it. */
  routers: readonly TrafficRouter[];
  /** Runs canary analysis checks; undefined when the controller has no --prometheus-url. */
  checks?: CheckRunner;
  /** This controller's own last writes of each App and its objects (read your own writes). */
  expectations?: Expectations;
  /**
   * Per App key, for the App of that uid: the canary revision whose traffic is winding down (see
   * weight-ceiling.ts). Keyed by name so that an App gone from the cache is forgotten with it.
   */
  weightCeilings?: Map<string, { uid: string; ceiling: WeightCeiling }>;
  /** Per App key: its canary Deployment's template as last seen rolled out alone (see readyOfCurrentTemplate). */
  canaryTemplates?: Map<string, SeenTemplate>;
  /** Per App key: its stable Deployment's revision, and whether it was seen rolled out (see observe). */
  stableRevisions?: Map<string, SeenRevision>;
  /**
   * Per App key, for the App of that uid: the history entry's name found taken by an object the
   * App does not control. The history is written after the status, so the conflict a pass finds
   * is reported by the passes after it, until an entry is recorded.
   */
  historyConflicts?: Map<string, { uid: string; conflict: string }>;
  /**
   * Per App key, for the App of that uid: the writes that failed after the status of the last pass
   * (the history, the removal of consumed annotations). Its status could not say so; the next
   * passes' statuses do (Degraded, ReconcileError), until a pass makes those writes.
   */
  lateErrors?: Map<string, { uid: string; errors: string[] }>;
  now?: () => Date;
  /** When the status of each App (by key) was last written; see STATUS_COALESCE_MS. */
  statusWrites?: Map<string, number>;
  /** Each App's validation verdict, by uid and generation (see spec-gate.ts). */
  specVerdicts?: SpecVerdicts;
  /** The sources and copies of spec.rollout.trackConfig; without it no App's configuration is tracked. */
  config?: ConfigTrackingDeps;
  /**
   * Whether the App is this controller's (its shard label, as its App watch selects them). An App
   * read from the API server that is not (relabelled since the cache last held it) is another
   * controller's now: this one leaves it alone.
   */
  inScope?: (app: App) => boolean;
  /**
   * Relabels for its shard the objects of an App moved from another (apply/shard-takeover.ts);
   * resolves with what it relabelled. It stops once `stillOurs` says the App has moved on again.
   */
  takeOver?: (app: App & KubernetesObject, stillOurs: () => boolean) => Promise<string[]>;
  /** Per App key: the App's resourceVersion at which takeOver last found nothing of another shard's. */
  takeoverSearched?: Map<string, string>;
  /** Per App key: when the App last left this controller's cache (moved to another shard, or deleted), oldest first. */
  departures?: Map<string, number>;
}

/** How soon a pass that took an App's objects over from another shard comes back (their watch events usually bring it sooner). */
export const TAKEOVER_RECHECK_MS = 1_000;

/**
 * A status that only reports rollout progress (see `progressOnly`) is not written within this
 * long of the previous write of the App's status: the reconcile comes back when it is up, and the
 * status written then is whatever is true by then. Fewer writes while a fleet rolls out; a status
 * that says more than progress (Ready, a new generation, canary steps, problems) goes at once.
 * 5 s: at 1,000 Apps on two cores 2 s still let one App in 40 write an extra progress status.
 */
export const STATUS_COALESCE_MS = 5_000;

/**
 * A pass that failed. `requeueAfterMs`: when the pass wanted to come back anyway (a step's
 * deadline): the worker comes back then at the latest (not sooner than FAILED_PASS_MIN_REQUEUE_MS),
 * however far the failures' backoff has grown.
 */
export class ReconcileError extends Error {
  constructor(message: string, readonly requeueAfterMs?: number) {
    super(message);
  }
}

/** How soon an App whose namespace is being deleted is looked at again (its own deletion comes first). */
export const NAMESPACE_TERMINATING_RECHECK_MS = 30_000;

export async function reconcile(key: string, deps: ReconcilerDeps): Promise<ReconcileOutcome> {
  try {
    return await reconcileApp(key, deps);
  } catch (err) {
    if (!(err instanceof AppGone)) throw err;
    // Deleted while the pass ran (its status write answered 404): nothing is left to report on or
    // retry, and what it owns goes with it through the ownerReferences, as for any deleted App.
    deps.log.child({ app: key }).debug('the App was deleted during the pass');
    forgetApp(key, undefined, deps);
    return { gone: true };
  }
}

async function reconcileApp(key: string, deps: ReconcilerDeps): Promise<ReconcileOutcome> {
  const { namespace, name } = splitKey(key);
  const log = deps.log.child({ app: key });
  const fresh = await freshApp(key, deps, log);
  if ('requeueAfterMs' in fresh) return fresh;
  const stored = fresh.app;
  // A deleted App needs nothing: its objects go with it through their ownerReferences.
  if (!stored || stored.metadata.deletionTimestamp) {
    forgetApp(key, stored, deps);
    return { gone: true };
  }
  // An App the webhook's rules refuse renders nothing, wherever it was written.
  if (await refuseInvalidSpec(key, stored, deps)) return {};
  const now = (deps.now ?? (() => new Date()))();
  const waitMs = waitForOwnedObjects(namespace, name, stored.metadata.uid, deps, log);
  if (waitMs !== undefined) return { requeueAfterMs: waitMs };
  const takeover = await takeOverFromAnotherShard(key, stored, deps, log);
  if (takeover !== undefined) return takeover;
  const configured = await configuredApp(key, defaulted(stored), deps, now, log);
  if ('done' in configured) return configured.done;
  const { app, tracked } = configured;
  const router = deps.routerFor(app);
  const observed = observe(app, deps, router, deps.routers.filter((r) => r !== router), deps.stableRevisions, deps.canaryTemplates);
  const check = analyze(key, app, observed.canary.routerWeight, deps, now);
  const running = check === undefined && deps.checks?.busy(key) === true;
  const stableFromHistory = await stableTemplateFromHistory(app, observed, deps, log);
  const plan = decide(app, observed, { versions: deps.versions, analysis: { available: deps.checks !== undefined, check, running }, pod: tracked?.pod, stableFromHistory }, now);
  capWeight(app, plan, observed.canary.routerWeight, deps, log);
  // A retry starts the rollout again: a check of the aborted attempt still running (or done, not
  // yet counted) measured its pods and its weights, and matches the new attempt by revision and uid
  // alone. Forgotten, it is dropped when it completes, and the new attempt counts only its own.
  if (plan.rollout.retried) deps.checks?.forget(key);
  // The pass's Events go out together at its end, those of one type and reason as one.
  const events = new EventBatch();
  try {
    const copies = await copiesFirst(app, tracked, plan, { ...deps, events, log }, now);
    if (!('errors' in copies)) return copies;
    const acted = await act(app, plan, observed, deps.versions, { clients: deps.clients, events, log, now, canaryTemplates: deps.canaryTemplates }, { router, routers: deps.routers });
    const pruned = await pruneCopies(app, plan, observed, { ...deps, events, log });
    // A namespace being deleted refuses every create in it: the App goes with it, as Kubernetes' own
    // controllers take it, with nothing to report (Degraded, Warning Events) or retry in a burst.
    const writable = (errors: string[]) => errors.filter((e) => !namespaceTerminating(e));
    const deploymentError = acted.deploymentError !== undefined && namespaceTerminating(acted.deploymentError) ? undefined : acted.deploymentError;
    const outcome = { ...acted, deploymentError, requeueAfterMs: recheckTaken(acted.requeueAfterMs, copies.conflicts), errors: writable([...copies.errors, ...acted.errors, ...pruned.errors]), conflicts: [...copies.conflicts, ...acted.conflicts, ...knownHistoryConflict(key, app, deps)] };
    // The status also reports what failed after the last pass's status: only it would show those failures.
    const reported = { ...outcome, errors: [...outcome.errors, ...knownLateErrors(key, app, deps)] };
    const lost = tracked && deps.config ? lostCopies(app, tracked, deps.config) : [];
    const status = withConfigCondition(computeStatus(app, { ...reported, rollout: plan.rollout, replicas: plan.replicas, updateRevision: plan.history.spec }, now), app, tracked, now, lost, copies.conflicts);

    // An Event that says the Service was written is not sent when its write failed (a switch that
    // moved no traffic): the pass that writes it sends its own.
    const told = acted.serviceError ? { ...plan.rollout, events: plan.rollout.events.filter((e) => !e.saysServiceWritten) } : plan.rollout;
    const holdMs = await report(key, app, status, told, deps, events, now, log);
    // Counted in the status now (or dropped by the step engine): the next check may start.
    if (check && holdMs <= 0) deps.checks?.settle(key, check);
    // Once the status records the decision: the history never says more than the status does.
    const history = await recordHistory(app, plan, observed, { clients: deps.clients, events, log }, now);
    const errors = [...outcome.errors, ...writable(history.errors)];
    // Only once the status records what they asked for, so that a failed write retries them.
    const consumed = plan.rollout.consumedAnnotations;
    await removeAnnotations(deps.clients, app, consumed)
      .then((written) => written && deps.expectations?.written(appRef(namespace, name), written as KubernetesObject))
      .catch((err) => errors.push(`removing the annotations ${consumed.join(', ')}: ${describeError(err)}`));
    const lateMs = rememberLateErrors(key, app, errors.slice(outcome.errors.length), holdMs > 0, deps);
    if (errors.length > 0) {
      for (const e of errors) events.event(app, 'Warning', 'ReconcileError', e);
      // A failing write (a quota refusing the canary's Service) does not put off the step's
      // deadline the engine waits for: the abort comes on time, not at the next backoff.
      throw new ReconcileError(errors.join('; '), plan.rollout.requeueAfterMs);
    }
    // Looked at again now and then, not in a loop of refused creates, until the App is deleted too.
    const refused = [acted.deploymentError, ...copies.errors, ...acted.errors, ...pruned.errors, ...history.errors];
    if (refused.some((e) => e !== undefined && namespaceTerminating(e))) return { requeueAfterMs: NAMESPACE_TERMINATING_RECHECK_MS };
    const delays = [outcome.requeueAfterMs, plan.rollout.requeueAfterMs, historyRequeueMs(key, app, history, deps), lateMs, holdMs > 0 ? holdMs : undefined].filter((ms): ms is number => ms !== undefined);
    return { requeueAfterMs: delays.length ? Math.min(...delays.map((ms) => timerDelayMs(ms))) : undefined };
  } finally {
    events.sendTo(deps.events);
  }
}

/**
 * Reconciled before, yet no stable Deployment in this controller's cache: the App's objects may
 * carry another shard's label (the App was moved). Nothing is decided before this shard has them:
 * resolves with the pass's outcome when it stops here (how soon to come back when some were
 * relabelled). Looked for once per version of the App: one that stays without a Deployment (its
 * name taken by someone else's, its configuration missing) would otherwise cost a list of every
 * kind it owns on each of its passes.
 *
 * The move is decided from the App as stored, not as cached: the objects leave this shard's
 * watches when another shard relabels them, and that event can come before the App's own (its
 * watch lagging, or restarting after the API server did). From the cached App, still labelled for
 * this shard, the pass would relabel them back, and the two controllers would take them from each
 * other until the App's watch caught up.
 */
async function takeOverFromAnotherShard(key: string, stored: App & KubernetesObject, deps: ReconcilerDeps, log: Logger): Promise<ReconcileOutcome | undefined> {
  const { namespace, name } = splitKey(key);
  if (!deps.takeOver || stored.status?.observedGeneration === undefined) return undefined;
  if (deps.deployments.get(name, namespace) && !returnedLately(key, deps)) return undefined;
  if (deps.takeoverSearched?.get(key) === stored.metadata.resourceVersion) return undefined;
  const live = deps.inScope ? ((await readApp(deps.clients, namespace, name)) as (App & KubernetesObject) | undefined) : stored;
  if (!live || live.metadata.uid !== stored.metadata.uid || live.metadata.deletionTimestamp || (deps.inScope && !deps.inScope(live))) {
    // Its watch brings the change (the App gone, or another shard's now) and forgets it here.
    log.info('the App as stored is no longer this controller\'s (moved to another shard, or deleted); leaving its objects alone');
    return {};
  }
  // The App's watch says when it moves on again (relabelled back while this takeover runs): the
  // takeover stops there, and so does the pass.
  const stillOurs = () => deps.apps.get(name, namespace)?.metadata.uid === live.metadata.uid;
  const moved = await deps.takeOver(live, stillOurs);
  deps.departures?.delete(key);
  if (!stillOurs()) {
    log.info({ objects: moved }, 'the App moved to another shard during the takeover; leaving its objects to that shard');
    return {};
  }
  if (moved.length > 0) {
    log.info({ objects: moved }, 'took the App\'s objects over from another shard; deciding once the caches have them');
    return { requeueAfterMs: TAKEOVER_RECHECK_MS };
  }
  deps.takeoverSearched?.set(key, stored.metadata.resourceVersion!);
  return undefined;
}

/**
 * An App back in this controller's cache within DEPARTURE_MEMORY_MS of leaving it. Relabelled away
 * and back at once, its objects may be partly another shard's: that shard's takeover relabels the
 * stable Deployment last and stops when the App leaves it, so this shard may still have the stable
 * Deployment while it lacks others, and deciding from such caches writes them again from spec.
 * Such an App is looked for once whatever the caches hold.
 */
function returnedLately(key: string, deps: ReconcilerDeps): boolean {
  const left = deps.departures?.get(key);
  return left !== undefined && nowMs(deps) - left < DEPARTURE_MEMORY_MS;
}

/** How long an App that left the cache is remembered for returnedLately: far longer than a takeover runs. */
export const DEPARTURE_MEMORY_MS = 5 * 60_000;

const nowMs = (deps: ReconcilerDeps) => (deps.now ?? (() => new Date()))().getTime();

/** Records that the App left the cache (a Map keeps insertion order: the oldest are dropped first). */
function departed(key: string, deps: ReconcilerDeps): void {
  const departures = deps.departures;
  if (!departures) return;
  const now = nowMs(deps);
  departures.delete(key);
  departures.set(key, now);
  for (const [k, at] of departures) {
    if (now - at < DEPARTURE_MEMORY_MS) break;
    departures.delete(k);
  }
}

/**
 * Stable's template from its history entry, when the App has a stable revision and no stable
 * Deployment (deleted by hand mid-rollout: its record of the template went with it). The cache
 * keeps no entry's data, so the entry is read; only ever in this case, never on a pass that has
 * the Deployment. A read that fails leaves the pass to the other sources (see keptTemplate).
 */
async function stableTemplateFromHistory(app: DefaultedApp, observed: Observed, deps: ReconcilerDeps, log: Logger): Promise<PodTemplate | undefined> {
  const revision = app.status?.stableRevision;
  if (observed.stable || revision === undefined) return undefined;
  const then = await revisionFromHistory(app, revision, observed.history, deps, log);
  if (then === null) log.warn({ revision }, 'the stable revision\'s history entry does not render to that revision; the stable Deployment is made from spec');
  return then?.pod;
}

/**
 * trackConfig: spec's template on copies of its sources; none rendered while one is missing,
 * unless a rollout runs that template: it goes on, on the copies its pods use, to its end (as the
 * App was at its revision, when the template changed since). `done`: nothing to render.
 */
async function configuredApp(key: string, app: DefaultedApp, deps: ReconcilerDeps, now: Date, log: Logger): Promise<{ done: ReconcileOutcome } | { app: DefaultedApp; tracked: TrackedTemplate | undefined }> {
  const config = deps.config;
  const tracked = await readConfig(app, async () => {
    const spec = await trackedConfig(key, app, config);
    return spec && config ? withRestorableCopies(app, spec, config) : spec;
  }, deps, now);
  if (!tracked?.missing.length && !tracked?.absentOptional.length) return { app, tracked };
  const asRunning = deps.config && (await readConfig(app, () => trackedUnderWay(key, app, deps.config!), deps, now));
  // An optional source gone while a rollout runs on a copy of it: that rollout goes on with the
  // copy, as with a required one, instead of being replaced by a template without the source.
  // The template without it rolls out once the rollout has ended.
  if (!tracked.missing.length) return { app, tracked: asRunning || tracked };
  const fromHistory = deps.config && !asRunning ? await underWayFromHistory(app, deps, log) : undefined;
  const underWay = asRunning || fromHistory?.tracked;
  if (!underWay) {
    await refuseMissingConfig(key, app, tracked.missing, deps, now, { windDownOver: !canaryObjectsLeft(app, deps) });
    // What the last rollout left and no Deployment uses goes all the same (an aborted canary's copy).
    const pruned = await pruneUnrendered(app, { ...deps, log });
    if (pruned.errors.length > 0) throw new ReconcileError(pruned.errors.join('; '));
    return { done: {} };
  }
  // Said once (ConfigTracked keeps saying it), not on every pass of the rollout.
  const said = findCondition(app.status?.conditions, CONFIG_TRACKED);
  const message = goneUnderWayMessage(app, tracked.missing);
  if (said?.reason !== CONFIG_NOT_FOUND || said.message !== message) {
    log.warn({ missing: tracked.missing.map((m) => `${m.kind} ${m.name}`).join(', ') }, 'configuration not found; the rollout under way goes on with the copies its pods use');
    deps.events.event(app, 'Warning', CONFIG_NOT_FOUND, message);
  }
  // The pass is the rollout's as it runs: its image, not that of the change that waits.
  return { app: fromHistory?.app ?? app, tracked: { ...underWay, goneUnderWay: tracked.missing } };
}

/**
 * A source deleted while a rollout ran, and the pod template changed since (so spec renders
 * neither to the revision under way nor at all): that rollout's template from its history entry,
 * on the copies its pods use, so that it goes on to its end (promote, abort, its checks and its
 * deadline act) and nothing new rolls out without the source.
 */
async function underWayFromHistory(app: DefaultedApp, deps: ReconcilerDeps, log: Logger): Promise<{ tracked: TrackedTemplate; app: DefaultedApp } | undefined> {
  const revision = revisionUnderWay(app);
  if (revision === undefined || !deps.config || !deps.controllerRevisions) return undefined;
  // Only while the rollout's pods run (as trackedUnderWay): once they are gone it has ended.
  const copies = copiesOfRevision(app, deps.config, revision);
  if (copies.size === 0) return undefined;
  const history = historyOf(deps.controllerRevisions, app);
  // Entries recorded before they named their copies: those the revision's Deployments run.
  const then = await revisionFromHistory(app, revision, history, deps, log, copies);
  return then ? { tracked: { pod: then.pod, copies: [], missing: [], absentOptional: [], untrackedSecrets: [] }, app: then.app } : undefined;
}

/**
 * The template of `revision` from its history entry (read: the cache keeps no entry's data), with
 * the App as it was at the revision (render/history-template.ts, historyRevision); null when the
 * entry does not render to it, undefined when there is none or it cannot be read.
 */
async function revisionFromHistory(app: DefaultedApp, revision: string, history: RevisionEntry[] | undefined, deps: ReconcilerDeps, log: Logger, copies?: Map<string, string>): Promise<{ pod: PodTemplate; app: DefaultedApp } | null | undefined> {
  const entry = history?.findLast((e) => e.hash === revision);
  if (!entry) return undefined;
  try {
    const stored = await deps.clients.api.read({ ...CONTROLLER_REVISION, namespace: app.metadata.namespace!, name: entry.name });
    const data = (stored as { data?: Record<string, unknown> }).data;
    const withCopies = data && data.configCopies === undefined && copies?.size ? { ...data, configCopies: Object.fromEntries(copies) } : data;
    return historyRevision(app, withCopies, revision, deps.config?.sources.trackSecrets) ?? null;
  } catch (err) {
    log.warn({ entry: entry.name, err: describeError(err) }, 'could not read a history entry');
    return undefined;
  }
}

/** How soon a pass that found the history's name taken comes back to report it. */
export const HISTORY_CONFLICT_REPORT_MS = 1_000;

function knownHistoryConflict(key: string, app: DefaultedApp, deps: ReconcilerDeps): string[] {
  const known = deps.historyConflicts?.get(key);
  return known && known.uid === app.metadata.uid ? [known.conflict] : [];
}

/**
 * Keeps the history's conflict of this pass for the next passes' status, and says when the
 * history wants the App back: soon for a conflict the status does not report yet.
 */
function historyRequeueMs(key: string, app: DefaultedApp, history: HistoryOutcome, deps: ReconcilerDeps): number | undefined {
  const { conflict } = history;
  const reported = knownHistoryConflict(key, app, deps).includes(conflict!);
  if (conflict === undefined) deps.historyConflicts?.delete(key);
  else deps.historyConflicts?.set(key, { uid: app.metadata.uid!, conflict });
  return conflict !== undefined && deps.historyConflicts !== undefined && !reported ? HISTORY_CONFLICT_REPORT_MS : history.requeueAfterMs;
}

function knownLateErrors(key: string, app: DefaultedApp, deps: ReconcilerDeps): string[] {
  const known = deps.lateErrors?.get(key);
  return known && known.uid === app.metadata.uid ? known.errors : [];
}

/**
 * Keeps the failures of the writes after the status (`late`) for the next passes' statuses, and
 * says how soon to come back when the status just written still reports failures now over (the
 * next pass writes it without them). A pass whose status was held wrote none: nothing to clear.
 */
function rememberLateErrors(key: string, app: DefaultedApp, late: string[], held: boolean, deps: ReconcilerDeps): number | undefined {
  if (!deps.lateErrors) return undefined;
  const reported = knownLateErrors(key, app, deps).length > 0;
  if (late.length > 0) deps.lateErrors.set(key, { uid: app.metadata.uid!, errors: late });
  else deps.lateErrors.delete(key);
  return late.length === 0 && reported && !held ? HISTORY_CONFLICT_REPORT_MS : undefined;
}

/**
 * Creates the copies the plan's Deployments reference. When one that no Deployment references yet
 * cannot be made (a quota, a name another object holds), nothing is written that would reference
 * it, as new pods would wait for a missing volume (or fail on a missing variable) while a rolling
 * update already takes old ones away: the pass ends here (the outcome returned), Degraded says
 * why, and it is retried. Otherwise resolves with what went wrong re-creating copies already in
 * use, which the pass reports as any failed write.
 */
async function copiesFirst(app: DefaultedApp, tracked: TrackedTemplate | undefined, plan: ReconcilePlan, deps: Omit<ReconcilerDeps, 'events'> & { events: EventSink }, now: Date): Promise<ReconcileOutcome | CopiesOutcome> {
  const { fresh, again } = await prepareCopies(app, tracked, plan, deps);
  if (fresh.errors.length === 0 && fresh.conflicts.length === 0) return again;
  // Copies refused in a namespace being deleted: the App goes with it (see reconcileApp).
  if (fresh.conflicts.length === 0 && fresh.errors.every(namespaceTerminating)) return { requeueAfterMs: NAMESPACE_TERMINATING_RECHECK_MS };
  await refuseUncopied(app, fresh, deps, now);
  if (fresh.errors.length > 0) throw new ReconcileError(fresh.errors.join('; '));
  return { requeueAfterMs: CONFLICT_RECHECK_MS };
}

/**
 * Reads the sources of tracked configuration. One that cannot be read (forbidden, as with
 * --track-secrets but not its RBAC; the API server failing) leaves nothing to decide from: the
 * pass ends, retried with backoff, and Degraded says why, where the App's owner looks (otherwise
 * only the controller's log would).
 */
async function readConfig<T>(app: DefaultedApp, read: () => Promise<T>, deps: ReconcilerDeps, now: Date): Promise<T> {
  try {
    return await read();
  } catch (err) {
    const error = `reading the configuration the pod template references: ${describeError(err)}`;
    // A failed status write is not what went wrong: the read's error is the pass's.
    await refuseUncopied(app, { errors: [error], conflicts: [] }, deps, now).catch(() => undefined);
    throw new ReconcileError(error);
  }
}

/** Whether a finished canary's Deployment or Service of the App is still there (its scale-down not over). */
function canaryObjectsLeft(app: DefaultedApp, deps: ReconcilerDeps): boolean {
  const name = ownedName(app.metadata.name!, 'canary');
  return ownedFromCache(deps.deployments, app, name) !== undefined || ownedFromCache(deps.services, app, name) !== undefined;
}

/**
 * A copy in use whose name an object the App does not own holds is looked at again every
 * CONFLICT_RECHECK_MS, as a name conflict of the App's own objects is: no event of that object
 * reaches the App (it has no ownerReference to the App), and its deletion should have the copy
 * made again soon.
 */
const recheckTaken = (requeueAfterMs: number | undefined, taken: readonly string[]) =>
  taken.length === 0 ? requeueAfterMs : Math.min(requeueAfterMs ?? Infinity, CONFLICT_RECHECK_MS);

/** The App is gone: nothing it was remembered for is needed any more. */
function forgetApp(key: string, stored: App | undefined, deps: ReconcilerDeps): void {
  const { namespace, name } = splitKey(key);
  deps.statusWrites?.delete(key);
  deps.checks?.forget(key);
  deps.expectations?.forgetAll([appRef(namespace, name), ...allOwnedRefs(deps.expectations, namespace, name)]);
  deps.weightCeilings?.delete(key);
  deps.canaryTemplates?.delete(key);
  deps.stableRevisions?.delete(key);
  deps.historyConflicts?.delete(key);
  deps.lateErrors?.delete(key);
  deps.takeoverSearched?.delete(key);
  if (stored === undefined) departed(key, deps);
  deps.specVerdicts?.forget(key);
  deps.config?.sources.forget(key);
}

/**
 * For the App's objects what freshApp is for the App: wait for the caches to show this
 * controller's own last write or delete of each (resolves with how long yet, or undefined to go
 * on). After STALE_CACHE_WAIT_MS the watch is in trouble and the pass goes on: the writes
 * themselves are guarded (owner checks, uid preconditions, resourceVersions).
 */
function waitForOwnedObjects(namespace: string, name: string, uid: string | undefined, deps: ReconcilerDeps, log: Logger): number | undefined {
  if (!deps.expectations) return undefined;
  const stale = staleOwned(deps.expectations, namespace, name, deps, uid);
  if (stale.waitMs === undefined) return undefined;
  if (stale.waitMs < STALE_CACHE_WAIT_MS) {
    log.debug({ objects: stale.refs }, 'the cache has not caught up with our own writes yet; waiting for it');
    return STALE_CACHE_WAIT_MS - stale.waitMs;
  }
  log.warn({ objects: stale.refs, waitedMs: stale.waitMs }, 'the cache still shows objects older than our own writes; going on');
  deps.expectations.forgetAll(stale.refs);
  return undefined;
}

/**
 * Writes the status when it changed, unless it only reports progress within STATUS_COALESCE_MS
 * of the last write (resolves with how long it is held, 0 when not). The pass's Events go with
 * the write: a write refused as stale (409) is retried and must not repeat them. A command that
 * changes no status (a retry refused) has its Events go out with the removal of its annotation.
 */
async function report(key: string, app: DefaultedApp, status: AppStatus, rollout: Pick<CanaryDecision, 'events' | 'consumedAnnotations'>, deps: ReconcilerDeps, events: EventSink, now: Date, log: Logger): Promise<number> {
  const rolloutEvents = rollout.events;
  const nowMs = now.getTime();
  const lastWrite = deps.statusWrites?.get(key);
  // A last write later than now is a wall clock set back since: it holds nothing (else the App's
  // progress went unreported for as long as the clock went back).
  const sinceMs = lastWrite === undefined ? undefined : nowMs - lastWrite;
  const holdMs = sinceMs !== undefined && sinceMs >= 0 && rolloutEvents.length === 0 && progressOnly(app.status, status) ? STATUS_COALESCE_MS - sinceMs : 0;
  if (holdMs > 0) {
    log.debug({ holdMs }, 'status holds only progress; written shortly');
    return holdMs;
  }
  const written = await writeStatus(deps.clients, app, status);
  if (written) {
    deps.expectations?.written(appRef(app.metadata.namespace!, app.metadata.name!), written as KubernetesObject);
    deps.statusWrites?.set(key, nowMs);
    log.debug({ ready: status.ready }, 'status updated');
    recordTransitions(app, status, events);
  }
  if (written || rollout.consumedAnnotations.length > 0) {
    for (const e of rolloutEvents) events.event(app, e.type ?? 'Normal', e.reason, e.message);
  }
  return 0;
}

/**
 * The App as this pass decides from it: the cached copy once it has caught up with this
 * controller's own last write of the App. Until then the pass waits (the watch event of that
 * write reconciles the App again); after STALE_CACHE_WAIT_MS the App is read from the API server.
 */
async function freshApp(key: string, deps: ReconcilerDeps, log: Logger): Promise<{ app?: App & KubernetesObject } | { requeueAfterMs: number }> {
  const { namespace, name } = splitKey(key);
  const cached = deps.apps.get(name, namespace);
  const ref = appRef(namespace, name);
  const waitedMs = deps.expectations?.staleFor(ref, cached);
  if (waitedMs === undefined) return { app: cached };
  if (waitedMs < STALE_CACHE_WAIT_MS) {
    log.debug({ cached: cached?.metadata.resourceVersion }, 'the cached App is older than our own last write of it; waiting for the cache');
    return { requeueAfterMs: STALE_CACHE_WAIT_MS - waitedMs };
  }
  log.warn({ waitedMs }, 'the cached App is still older than our own last write of it; reading it from the API server');
  const live = (await readApp(deps.clients, namespace, name)) as (App & KubernetesObject) | undefined;
  // Changed only once the live read has answered: a read that failed (the API server in trouble,
  // as the lagging watch suggests) leaves the next pass waiting, not deciding from the stale copy.
  // The cache must now reach the version read: a pass that writes nothing must not leave the next
  // one to decide from the copy that is still behind (it would set a weight back a step).
  const inScope = live !== undefined && (!deps.inScope || deps.inScope(live));
  if (inScope) deps.expectations!.written(ref, live);
  else deps.expectations!.forget(ref);
  // Relabelled for another shard, it left this controller's watch (which is why the cache lost
  // it): the other shard's controller takes it over, and this one must not write it meanwhile.
  if (live && !inScope) {
    log.info('the App moved to another shard; leaving it to that shard\'s controller');
    return { app: undefined };
  }
  return { app: live };
}

/**
 * The analysis check this pass counts: a completed one not yet in the status (a check of another
 * canary is dropped). When none is waiting and one is due, it is started outside this pass.
 */
function analyze(key: string, app: DefaultedApp, routerWeight: number | undefined, deps: ReconcilerDeps, now: Date): CompletedCheck | undefined {
  const checks = deps.checks;
  if (!checks || !app.spec.rollout.analysis) return undefined;
  const done = checks.completed(key);
  // The rollout under analysis: a canary, or a blue-green rollout (its preview's revision).
  const rollout = app.status?.canary ?? app.status?.blueGreen;
  if (done) {
    const revision = revisionRolling(app.status);
    const recorded = rollout?.analysis?.lastCheckAt !== undefined && Date.parse(rollout.analysis.lastCheckAt) >= Date.parse(done.at);
    if (rollout && revision === done.revision && done.uid === app.metadata.uid && !recorded) return done;
    checks.settle(key, done);
  }
  const weight = app.spec.rollout.strategy === 'BlueGreen' ? blueGreenCheckDue(app, now) : checkDue(app, routerWeight, now) ? routerWeight : undefined;
  if (!checks.busy(key) && weight !== undefined) checks.start(key, app, weight);
  return undefined;
}

/** Holds the canary's weight where it is when the plan would raise a revision that is winding down (weight-ceiling.ts). */
function capWeight(app: DefaultedApp, plan: ReturnType<typeof decide>, routerWeight: number | undefined, deps: ReconcilerDeps, log: Logger): void {
  const ceilings = deps.weightCeilings;
  const uid = app.metadata.uid;
  if (!ceilings || !uid) return;
  const key = `${app.metadata.namespace}/${app.metadata.name}`;
  // An App created again under the name starts without the ceiling of the one before.
  const held = ceilings.get(key);
  const before = held?.uid === uid ? held.ceiling : undefined;
  const generation = app.metadata.generation ?? 0;
  // Once an aborted canary's traffic is gone, only the status names it (abortedRevision, kept until
  // the template changes): later generations (a pause, new replicas) keep its ceiling by it.
  const revision = plan.rollout.canary?.revision ?? app.status?.canary?.revision ?? plan.rollout.status.abortedRevision;
  // A retried revision rolls out again: the ceiling its abort set is lifted.
  const ceiling = nextCeiling(plan.rollout.retried ? undefined : before, plan.rollout, revision, generation);
  if (ceiling) ceilings.set(key, { uid, ceiling });
  else ceilings.delete(key);
  if (!plan.canary || !plan.rollout.canary) return;
  const weight = cappedWeight(ceiling, { revision: plan.rollout.canary.revision, weight: plan.canary.weight }, routerWeight, generation);
  if (weight !== plan.canary.weight) {
    log.error({ planned: plan.canary.weight, kept: weight, revision: plan.rollout.canary.revision }, 'refusing to raise the weight of a canary whose traffic is winding down');
    plan.canary = { ...plan.canary, weight };
  }
}

/** A Warning when the App becomes Degraded for a new reason (failures themselves are recorded as they happen). */
function recordTransitions(app: App, status: AppStatus, events: EventSink): void {
  const before = findCondition(app.status?.conditions, 'Degraded');
  const after = findCondition(status.conditions, 'Degraded');
  if (after?.status !== 'True' || after.reason === 'ReconcileError') return;
  const same = (c: { status: string; reason: string; message: string } | undefined) => c?.status === 'True' && c.reason === after.reason && c.message === after.message;
  // A passing error that held Degraded for a pass hid an abort told already: Progressing kept it
  // (False, with the abort's reason and message), and its Warning is not sent again.
  const progressing = findCondition(app.status?.conditions, 'Progressing');
  const keptByProgressing = before?.reason === 'ReconcileError' && progressing?.status === 'False' && progressing.reason === after.reason && progressing.message === after.message;
  if (!same(before) && !keptByProgressing) events.event(app, 'Warning', after.reason, after.message);
}
