// reconcile(key): make the cluster match one App, then report what was seen in its status.
// Reads come from the informer caches; writes happen only where something differs, so a
// reconcile of an App whose objects and status are already right issues no write at all.
import { PatchStrategy, setHeaderOptions, type KubernetesObject } from '@kubernetes/client-node';
import { GROUP, PLURAL, VERSION, type App, type AppStatus } from '../shared/app-types.js';
import type { Logger } from '../shared/logger.js';
import { describeObject, deleteIfOwned, ensureObject, ANNOTATION_CONFIG_HASH } from './apply.js';
import type { Clients } from './runtime/clients.js';
import { findCondition } from './conditions.js';
import type { EventRecorder } from './runtime/events.js';
import { describeError } from './runtime/api-errors.js';
import { splitKey } from './ownership.js';
import { defaulted, desiredDeployment, desiredService, render, type DefaultedApp, type DesiredObjects } from './render.js';
import { computeStatus, sameStatus, statusMergePatch, type ObservedState } from './status.js';
import { nginxRouter, ResourceConflictError } from './routers/nginx/router.js';
import type { CanaryDecision } from './canary/plan.js';
import { planRollout } from './canary/rollout.js';
import type { TrafficRouter } from './routers/router.js';

/** Objects not controlled by the App are not watched: look at them again after this long. */
export const CONFLICT_RECHECK_MS = 30_000;
/** An owned object being deleted is waited for this long before it is created again. */
export const DELETION_RECHECK_MS = 1_000;

export interface ObjectCache<T extends KubernetesObject> {
  get(name: string, namespace: string): T | undefined;
}

export interface ReconcilerDeps {
  apps: ObjectCache<App & KubernetesObject>;
  deployments: ObjectCache<KubernetesObject>;
  services: ObjectCache<KubernetesObject>;
  ingresses: ObjectCache<KubernetesObject>;
  clients: Pick<Clients, 'objects' | 'apps' | 'core' | 'custom'>;
  events: EventRecorder;
  log: Logger;
  now?: () => Date;
  /** Splits traffic during canary rollouts; NGINX Ingress annotations unless given. */
  router?: TrafficRouter;
}

export interface ReconcileResult {
  /** Reconcile again after this long although nothing failed. */
  requeueAfterMs?: number;
}

export class ReconcileError extends Error {}

/** What one reconcile of one App has seen and decided so far. */
interface Pass {
  app: App;
  deps: ReconcilerDeps;
  log: Logger;
  observed: ObservedState;
  requeueAfterMs?: number;
}

export async function reconcile(key: string, deps: ReconcilerDeps): Promise<ReconcileResult> {
  const { namespace, name } = splitKey(key);
  const app = deps.apps.get(name, namespace);
  // A deleted App needs nothing: its objects go with it through their ownerReferences.
  if (!app || app.metadata.deletionTimestamp) return {};
  const pass: Pass = { app, deps, log: deps.log.child({ app: key }), observed: { conflicts: [], errors: [] } };
  const now = (deps.now ?? (() => new Date()))();
  const router = deps.router ?? nginxRouter(deps.clients, deps.ingresses);

  // The rollout decides which image the stable Deployment runs (during a canary: the old one).
  const rollout = planRollout(defaulted(app), deps, router, now);
  const desired = render(app, rollout.stableImage);
  // The stable objects do not depend on each other: one round trip instead of three.
  const [deployment] = await Promise.all([
    applyOwned(pass, desired.deployment, deps.deployments),
    applyOwned(pass, desired.service, deps.services),
    desired.ingress ? applyOwned(pass, desired.ingress, deps.ingresses) : removeIngress(pass),
  ]);
  pass.observed.deployment = deployment;
  await applyCanary(pass, defaulted(app), desired, rollout, router);
  pass.observed.rollout = rollout;
  if (rollout.requeueAfterMs !== undefined) requeueWithin(pass, rollout.requeueAfterMs);

  const status = computeStatus(app, pass.observed, now);
  // After the write: a write refused as stale (409) is retried, and must not repeat the Event.
  if (await writeStatus(pass, status)) {
    recordTransitions(app, status, deps.events);
    for (const e of rollout.events) deps.events.event(app, e.type ?? 'Normal', e.reason, e.message);
  }
  // Only once the status records what they asked for, so that a failed write retries them.
  await removeAnnotations(pass, rollout.consumedAnnotations);
  if (pass.observed.errors.length > 0) {
    for (const e of pass.observed.errors) deps.events.event(app, 'Warning', 'ReconcileError', e);
    throw new ReconcileError(pass.observed.errors.join('; '));
  }
  return { requeueAfterMs: pass.requeueAfterMs };
}

const requeueWithin = (pass: Pass, ms: number) => {
  pass.requeueAfterMs = Math.min(pass.requeueAfterMs ?? Infinity, ms);
};

/** Creates or corrects one owned object; returns it as the API server now has it, when it is ours. */
async function applyOwned(pass: Pass, want: KubernetesObject, cache: ObjectCache<KubernetesObject>): Promise<KubernetesObject | undefined> {
  const { app, deps, log, observed } = pass;
  const what = describeObject(want);
  try {
    const result = await ensureObject(deps.clients, app.metadata.uid!, want, cache.get(want.metadata!.name!, app.metadata.namespace!));
    switch (result.outcome) {
      case 'unchanged':
        return result.object;
      case 'created':
        log.info({ object: what }, 'created');
        deps.events.event(app, 'Normal', 'Created', `Created ${what}`);
        return result.object;
      case 'updated': {
        const fields = result.changed.filter((p) => !p.includes(ANNOTATION_CONFIG_HASH));
        log.info({ object: what, changed: fields }, 'updated');
        const detail = fields.length ? ` (${fields.slice(0, 3).join(', ')}${fields.length > 3 ? ', ...' : ''})` : ' to the App spec';
        deps.events.event(app, 'Normal', 'Updated', `Updated ${what}${detail}`);
        return result.object;
      }
      case 'deleting':
        requeueWithin(pass, DELETION_RECHECK_MS);
        return undefined;
      case 'conflict':
        observed.conflicts.push(result.message);
        requeueWithin(pass, CONFLICT_RECHECK_MS);
        return undefined;
    }
  } catch (err) {
    observed.errors.push(`applying ${what}: ${describeError(err)}`);
    return undefined;
  }
}

/**
 * The canary objects the rollout asks for: created or scaled with the traffic split at the
 * decided weight, or removed, the split first so that no request goes to pods being deleted.
 */
async function applyCanary(pass: Pass, app: DefaultedApp, desired: DesiredObjects, rollout: CanaryDecision, router: TrafficRouter): Promise<void> {
  const { deps, observed } = pass;
  if (rollout.canary && desired.ingress) {
    const { image, replicas, weight } = rollout.canary;
    await applyOwned(pass, desiredDeployment(app, 'canary', image, replicas), deps.deployments);
    // Reached only through the canary Ingress, whatever type the stable Service has.
    const service = desiredService(app, 'canary');
    service.spec!.type = 'ClusterIP';
    await applyOwned(pass, service, deps.services);
    try {
      if (await router.setWeight({ app, stableIngress: desired.ingress, canaryHeader: app.spec.rollout.canaryHeader }, weight)) {
        pass.log.info({ weight }, 'canary weight set');
        deps.events.event(app, 'Normal', 'CanaryWeight', `Canary ${image} receives ${weight}% of the traffic`);
      }
    } catch (err) {
      if (err instanceof ResourceConflictError) observed.conflicts.push(err.message);
      else observed.errors.push(`setting the canary weight: ${describeError(err)}`);
    }
    return;
  }
  if (!rollout.removeCanary && !rollout.canary) return;
  // Removing the canary (or its ingress is gone with spec.ingress): the split goes first.
  try {
    if (await router.remove(app)) {
      pass.log.info('canary traffic split removed');
      deps.events.event(app, 'Normal', 'Deleted', 'Removed the canary traffic split');
    }
    for (const [type, cache] of [[{ apiVersion: 'v1', kind: 'Service' }, deps.services], [{ apiVersion: 'apps/v1', kind: 'Deployment' }, deps.deployments]] as const) {
      const cached = cache.get(`${app.metadata.name}-canary`, app.metadata.namespace!);
      if (await deleteIfOwned(deps.clients.objects, app.metadata.uid!, type, cached)) {
        deps.events.event(app, 'Normal', 'Deleted', `Deleted ${type.kind} ${app.metadata.namespace}/${app.metadata.name}-canary`);
      }
    }
  } catch (err) {
    observed.errors.push(`removing the canary: ${describeError(err)}`);
  }
}

/** Removes annotations the controller acted on (skiff.dev/promote, skiff.dev/abort). */
async function removeAnnotations({ app, deps, observed }: Pass, names: string[]): Promise<void> {
  if (names.length === 0) return;
  try {
    await deps.clients.custom.patchNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        namespace: app.metadata.namespace!,
        name: app.metadata.name!,
        body: { metadata: { annotations: Object.fromEntries(names.map((n) => [n, null])) } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  } catch (err) {
    observed.errors.push(`removing the annotations ${names.join(', ')}: ${describeError(err)}`);
  }
}

async function removeIngress({ app, deps, log, observed }: Pass): Promise<void> {
  const target = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: app.metadata.name, namespace: app.metadata.namespace } };
  try {
    if (await deleteIfOwned(deps.clients.objects, app.metadata.uid!, target, deps.ingresses.get(app.metadata.name!, app.metadata.namespace!))) {
      log.info({ object: describeObject(target) }, 'deleted');
      deps.events.event(app, 'Normal', 'Deleted', `Deleted ${describeObject(target)} (the App has no spec.ingress)`);
    }
  } catch (err) {
    observed.errors.push(`deleting ${describeObject(target)}: ${describeError(err)}`);
  }
}

/** A Warning when the App becomes Degraded for a new reason (failures themselves are recorded as they happen). */
function recordTransitions(app: App, status: AppStatus, events: EventRecorder): void {
  const before = findCondition(app.status?.conditions, 'Degraded');
  const after = findCondition(status.conditions, 'Degraded');
  if (after?.status === 'True' && after.reason !== 'ReconcileError' && (before?.status !== 'True' || before.reason !== after.reason || before.message !== after.message)) {
    events.event(app, 'Warning', after.reason, after.message);
  }
}

/**
 * Writes the status only when it changed, guarded by the App's resourceVersion (409 when the
 * cached App is stale). Returns whether it wrote.
 */
async function writeStatus({ app, deps, log }: Pass, status: AppStatus): Promise<boolean> {
  if (sameStatus(app.status, status)) return false;
  await deps.clients.custom.patchNamespacedCustomObjectStatus(
    {
      group: GROUP,
      version: VERSION,
      plural: PLURAL,
      namespace: app.metadata.namespace!,
      name: app.metadata.name!,
      body: { metadata: { resourceVersion: app.metadata.resourceVersion }, status: statusMergePatch(app.status, status) },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  log.debug({ ready: status.ready }, 'status updated');
  return true;
}
