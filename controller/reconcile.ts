// reconcile(key): make the cluster match one App, then report what happened in its status.
// Observe (caches, router) -> decide (pure) -> act (write only what differs) -> status.
// Reads come from the informer caches, so a reconcile of an App whose objects and status are
// already right issues no write at all.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { App, AppStatus } from '../shared/app-types.js';
import { defaulted, type DefaultedApp } from '../shared/defaults.js';
import type { Logger } from '../shared/logger.js';
import { metaTime } from '../shared/time.js';
import { act } from './act.js';
import { checkDue, runCheck, type PrometheusClient } from './analysis/check.js';
import type { CheckResult } from './analysis/types.js';
import { removeAnnotations, writeStatus } from './app-writes.js';
import { findCondition } from './conditions.js';
import { decide } from './decide.js';
import type { ServedVersions } from './disruption-scaling.js';
import { observe, type OwnedCaches } from './observe.js';
import { splitKey } from './ownership.js';
import { describeError } from './runtime/api-errors.js';
import type { ObjectCache } from './runtime/cache.js';
import type { Clients } from './runtime/clients.js';
import { EventBatch, type EventRecorder, type EventSink } from './runtime/events.js';
import { timerDelayMs } from './runtime/timer-delay.js';
import type { TrafficRouter } from './routers/router.js';
import { refuseInvalidSpec, type SpecVerdicts } from './spec-gate.js';
import { computeStatus, progressOnly } from './status.js';

export interface ReconcilerDeps extends OwnedCaches {
  apps: ObjectCache<App & KubernetesObject>;
  clients: Pick<Clients, 'objects' | 'apps' | 'core' | 'custom'>;
  events: EventRecorder;
  log: Logger;
  /** API versions the cluster serves for PodDisruptionBudgets and HorizontalPodAutoscalers. */
  versions: ServedVersions;
  /** The traffic router that splits this App's canary traffic. */
  routerFor(app: DefaultedApp): TrafficRouter;
  /** Every router: those an App does not use retire what they made for it. */
  routers: readonly TrafficRouter[];
  /** Where canary analysis asks; undefined when the controller has no --prometheus-url. */
  prometheus?: PrometheusClient;
  /** Told of every analysis check run (metrics). */
  onCheck?: (result: CheckResult) => void;
  now?: () => Date;
  /** When the status of each App (by key) was last written; see STATUS_COALESCE_MS. */
  statusWrites?: Map<string, number>;
  /** Each App's validation verdict, by uid and generation (see spec-gate.ts). */
  specVerdicts?: SpecVerdicts;
}

/**
 * A status that only reports rollout progress (see `progressOnly`) is not written within this
 * long of the previous write of the App's status: the reconcile comes back when it is up, and the
 * status written then is whatever is true by then. Fewer writes while a fleet rolls out; a status
 * that says more than progress (Ready, a new generation, canary steps, problems) goes at once.
 * 5 s: at 1,000 Apps on two cores 2 s still let one App in 40 write an extra progress status.
 */
export const STATUS_COALESCE_MS = 5_000;

export interface ReconcileResult {
  /** Reconcile again after this long although nothing failed. */
  requeueAfterMs?: number;
}

export class ReconcileError extends Error {}

export async function reconcile(key: string, deps: ReconcilerDeps): Promise<ReconcileResult> {
  const { namespace, name } = splitKey(key);
  const stored = deps.apps.get(name, namespace);
  // A deleted App needs nothing: its objects go with it through their ownerReferences.
  if (!stored || stored.metadata.deletionTimestamp) {
    deps.statusWrites?.delete(key);
    deps.specVerdicts?.forget(key);
    return {};
  }
  // An App the webhook's rules refuse renders nothing, wherever it was written.
  if (await refuseInvalidSpec(key, stored, deps)) return {};
  const app = defaulted(stored);
  const now = (deps.now ?? (() => new Date()))();
  const router = deps.routerFor(app);
  const log = deps.log.child({ app: key });

  const observed = observe(app, deps, router);
  const check = await analyze(app, observed.canary.routerWeight, deps, now);
  const plan = decide(app, observed, { versions: deps.versions, analysis: { available: deps.prometheus !== undefined, check } }, now);
  // The pass's Events go out together at its end, those of one type and reason as one.
  const events = new EventBatch();
  try {
    const outcome = await act(app, plan, observed, deps.versions, { clients: deps.clients, events, log }, { router, routers: deps.routers });
    const status = computeStatus(app, { ...outcome, rollout: plan.rollout, replicas: plan.replicas }, now);

    const nowMs = now.getTime();
    const lastWrite = deps.statusWrites?.get(key);
    const holdMs = lastWrite !== undefined && plan.rollout.events.length === 0 && progressOnly(app.status, status)
      ? lastWrite + STATUS_COALESCE_MS - nowMs
      : 0;
    // Events after the write: a write refused as stale (409) is retried and must not repeat them.
    if (holdMs > 0) {
      log.debug({ holdMs }, 'status holds only progress; written shortly');
    } else if (await writeStatus(deps.clients, app, status)) {
      deps.statusWrites?.set(key, nowMs);
      log.debug({ ready: status.ready }, 'status updated');
      recordTransitions(app, status, events);
      for (const e of plan.rollout.events) events.event(app, e.type ?? 'Normal', e.reason, e.message);
    }
    const errors = [...outcome.errors];
    // Only once the status records what they asked for, so that a failed write retries them.
    const consumed = plan.rollout.consumedAnnotations;
    await removeAnnotations(deps.clients, app, consumed).catch((err) => errors.push(`removing the annotations ${consumed.join(', ')}: ${describeError(err)}`));
    if (errors.length > 0) {
      for (const e of errors) events.event(app, 'Warning', 'ReconcileError', e);
      throw new ReconcileError(errors.join('; '));
    }
    const delays = [outcome.requeueAfterMs, plan.rollout.requeueAfterMs, holdMs > 0 ? holdMs : undefined].filter((ms): ms is number => ms !== undefined);
    return { requeueAfterMs: delays.length ? Math.min(...delays.map((ms) => timerDelayMs(ms))) : undefined };
  } finally {
    events.sendTo(deps.events);
  }
}

/** Runs the App's analysis check when one is due; never throws (Prometheus errors make it inconclusive). */
async function analyze(app: DefaultedApp, routerWeight: number | undefined, deps: ReconcilerDeps, now: Date) {
  if (!deps.prometheus || !checkDue(app, routerWeight, now)) return undefined;
  const result = await runCheck(deps.prometheus, app);
  deps.onCheck?.(result);
  deps.log.info({ app: `${app.metadata.namespace}/${app.metadata.name}`, weight: routerWeight, result: result.result, message: result.message }, 'analysis check');
  return { at: metaTime(now), weight: routerWeight!, result };
}

/** A Warning when the App becomes Degraded for a new reason (failures themselves are recorded as they happen). */
function recordTransitions(app: App, status: AppStatus, events: EventSink): void {
  const before = findCondition(app.status?.conditions, 'Degraded');
  const after = findCondition(status.conditions, 'Degraded');
  if (after?.status === 'True' && after.reason !== 'ReconcileError' && (before?.status !== 'True' || before.reason !== after.reason || before.message !== after.message)) {
    events.event(app, 'Warning', after.reason, after.message);
  }
}
