// Act: make the cluster match a plan. Every owned object is compared with its cached copy and
// written only where it differs; each step returns what it did, and the steps' results are
// gathered into one outcome for the status.
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import type { DefaultedApp } from '../shared/defaults.js';
import type { Logger } from '../shared/logger.js';
import { ANNOTATION_CONFIG_HASH, deleteIfOwned, describeObject, ensureObject, type ApplyClients } from './apply.js';
import type { ReconcilePlan } from './decide.js';
import type { ServedVersions } from './disruption-scaling.js';
import type { Observed } from './observe.js';
import { describeError } from './runtime/api-errors.js';
import type { EventRecorder } from './runtime/events.js';
import { RouterConflictError, type TrafficRouter } from './routers/router.js';

/** Objects not controlled by the App are not watched: look at them again after this long. */
export const CONFLICT_RECHECK_MS = 30_000;
/** An owned object being deleted is waited for this long before it is created again. */
export const DELETION_RECHECK_MS = 1_000;

const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;
const SERVICE = { apiVersion: 'v1', kind: 'Service' } as const;
const INGRESS = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' } as const;

export interface ActDeps {
  clients: ApplyClients;
  events: EventRecorder;
  log: Logger;
}

export interface Outcome {
  /** The stable Deployment as the API server now has it, when this App controls it. */
  deployment?: V1Deployment;
  /** Owned names taken by objects this App does not control, in words. */
  conflicts: string[];
  /** API calls that failed, in words. */
  errors: string[];
  /** Look again after this long (a conflict to recheck, an object still being deleted). */
  requeueAfterMs?: number;
}

/** What one step did. */
interface StepResult {
  object?: KubernetesObject;
  conflict?: string;
  error?: string;
  requeueAfterMs?: number;
}

export async function act(app: DefaultedApp, plan: ReconcilePlan, observed: Observed, versions: ServedVersions, deps: ActDeps, router: TrafficRouter): Promise<Outcome> {
  const { stable } = plan;
  const { cached } = observed;
  // The stable objects do not depend on each other: one round trip instead of five.
  const [deployment, ...rest] = await Promise.all([
    applyOwned(deps, app, stable.deployment, cached.deployment),
    applyOwned(deps, app, stable.service, cached.service),
    stable.ingress
      ? applyOwned(deps, app, stable.ingress, cached.ingress)
      : deleteOwned(deps, app, INGRESS, cached.ingress, ' (the App has no spec.ingress)'),
    stable.podDisruptionBudget
      ? applyOwned(deps, app, stable.podDisruptionBudget, cached.podDisruptionBudget)
      : deleteOwned(deps, app, typeOf(cached.podDisruptionBudget, versions.podDisruptionBudget, 'PodDisruptionBudget'), cached.podDisruptionBudget, ' (the App runs fewer than 2 pods)'),
    stable.horizontalPodAutoscaler
      ? applyOwned(deps, app, stable.horizontalPodAutoscaler, cached.horizontalPodAutoscaler)
      : deleteOwned(deps, app, typeOf(cached.horizontalPodAutoscaler, versions.horizontalPodAutoscaler, 'HorizontalPodAutoscaler'), cached.horizontalPodAutoscaler, ' (the App has no spec.autoscaling)'),
  ]);
  let canary: StepResult[] = [];
  if (plan.canary && stable.ingress) canary = await applyCanary(deps, app, plan.canary, stable.ingress, observed, router);
  else if (plan.removeCanary) canary = [await removeCanary(deps, app, observed, router)];
  const results = [deployment, ...rest, ...canary];
  const delays = results.map((r) => r.requeueAfterMs).filter((ms): ms is number => ms !== undefined);
  return {
    deployment: deployment.object as V1Deployment | undefined,
    conflicts: results.flatMap((r) => (r.conflict ? [r.conflict] : [])),
    errors: results.flatMap((r) => (r.error ? [r.error] : [])),
    requeueAfterMs: delays.length ? Math.min(...delays) : undefined,
  };
}

/** The type of a cached object (list items carry none): the version its informer watches. */
const typeOf = (cached: KubernetesObject | undefined, apiVersion: string | undefined, kind: string) =>
  ({ apiVersion: cached?.apiVersion ?? apiVersion ?? '', kind });

/** Creates or corrects one owned object; `object` is set when it is the App's. */
async function applyOwned({ clients, events, log }: ActDeps, app: DefaultedApp, want: KubernetesObject, cached: KubernetesObject | undefined): Promise<StepResult> {
  const what = describeObject(want);
  try {
    const result = await ensureObject(clients, app.metadata.uid!, want, cached);
    switch (result.outcome) {
      case 'unchanged':
        return { object: result.object };
      case 'created':
        log.info({ object: what }, 'created');
        events.event(app, 'Normal', 'Created', `Created ${what}`);
        return { object: result.object };
      case 'updated': {
        const fields = result.changed.filter((p) => !p.includes(ANNOTATION_CONFIG_HASH));
        log.info({ object: what, changed: fields }, 'updated');
        const detail = fields.length ? ` (${fields.slice(0, 3).join(', ')}${fields.length > 3 ? ', ...' : ''})` : ' to the App spec';
        events.event(app, 'Normal', 'Updated', `Updated ${what}${detail}`);
        return { object: result.object };
      }
      case 'deleting':
        return { requeueAfterMs: DELETION_RECHECK_MS };
      case 'conflict':
        return { conflict: result.message, requeueAfterMs: CONFLICT_RECHECK_MS };
    }
  } catch (err) {
    return { error: `applying ${what}: ${describeError(err)}` };
  }
}

/** Deletes an owned object the plan no longer has (an object of that name the App does not control stays). */
async function deleteOwned({ clients, events, log }: ActDeps, app: DefaultedApp, type: { apiVersion: string; kind: string }, cached: KubernetesObject | undefined, why = ''): Promise<StepResult> {
  if (!cached) return {};
  const what = describeObject({ ...type, metadata: cached.metadata });
  try {
    if (await deleteIfOwned(clients.objects, app.metadata.uid!, type, cached)) {
      log.info({ object: what }, 'deleted');
      events.event(app, 'Normal', 'Deleted', `Deleted ${what}${why}`);
    }
    return {};
  } catch (err) {
    return { error: `deleting ${what}: ${describeError(err)}` };
  }
}

/** The canary Deployment and Service, then the traffic split at the decided weight. */
async function applyCanary(deps: ActDeps, app: DefaultedApp, canary: NonNullable<ReconcilePlan['canary']>, stableIngress: NonNullable<ReconcilePlan['stable']['ingress']>, observed: Observed, router: TrafficRouter): Promise<StepResult[]> {
  const results = canary.objects
    ? [
        await applyOwned(deps, app, canary.objects.deployment, observed.cached.canaryDeployment),
        await applyOwned(deps, app, canary.objects.service, observed.cached.canaryService),
      ]
    : [];
  try {
    if (await router.setWeight({ app, stableIngress }, canary.weight)) {
      deps.log.info({ weight: canary.weight }, 'canary weight set');
      deps.events.event(app, 'Normal', 'CanaryWeight', `Canary ${canary.image} receives ${canary.weight}% of the traffic`);
    }
  } catch (err) {
    results.push(err instanceof RouterConflictError
      ? { conflict: err.message, requeueAfterMs: CONFLICT_RECHECK_MS }
      : { error: `setting the canary weight: ${describeError(err)}` });
  }
  return results;
}

/** The split goes first, so that no request goes to pods being deleted; then the Service and Deployment. */
async function removeCanary(deps: ActDeps, app: DefaultedApp, observed: Observed, router: TrafficRouter): Promise<StepResult> {
  try {
    if (await router.remove(app)) {
      deps.log.info('canary traffic split removed');
      deps.events.event(app, 'Normal', 'Deleted', 'Removed the canary traffic split');
    }
  } catch (err) {
    return { error: `removing the canary: ${describeError(err)}` };
  }
  for (const [type, cached] of [[SERVICE, observed.cached.canaryService], [DEPLOYMENT, observed.cached.canaryDeployment]] as const) {
    const result = await deleteOwned(deps, app, type, cached);
    if (result.error) return result;
  }
  return {};
}
