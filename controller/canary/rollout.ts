// The I/O around the canary step engine: what it observes is read from the informer caches,
// and its decision becomes canary objects (created, scaled, re-weighted or removed in the order
// api.md gives). The engine itself (plan.ts) stays pure.
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import { DEFAULT_CANARY_STEPS } from '../../shared/defaults.js';
import { ownedName } from '../../shared/labels.js';
import { isControlledBy } from '../ownership.js';
import { CONTAINER_NAME, type DefaultedApp } from '../render.js';
import { rolloutState } from '../status.js';
import { planCanary, type CanaryDecision, type CanaryObserved } from './plan.js';
import type { TrafficRouter } from '../routers/router.js';

export interface Caches {
  deployments: { get(name: string, namespace: string): KubernetesObject | undefined };
  services: { get(name: string, namespace: string): KubernetesObject | undefined };
}

function owned(cache: Caches['deployments'], app: DefaultedApp, name: string): KubernetesObject | undefined {
  const obj = cache.get(name, app.metadata.namespace!);
  return obj && isControlledBy(obj, app.metadata.uid!) ? obj : undefined;
}

const imageOf = (d: V1Deployment) => d.spec?.template?.spec?.containers?.find((c) => c.name === CONTAINER_NAME)?.image;

/** A canary rollout applies only to the Canary strategy with an ingress to split traffic at. */
export const canaryEnabled = (app: DefaultedApp) => app.spec.rollout.strategy === 'Canary' && app.spec.ingress !== undefined;

/**
 * The engine's decision for this App now. Without the Canary strategy the engine is still asked,
 * with no stable image on record: it then keeps stable on spec.image and winds down any canary
 * objects left from before a strategy change.
 */
export function planRollout(app: DefaultedApp, caches: Caches, router: TrafficRouter, now: Date): CanaryDecision {
  const name = app.metadata.name!;
  const canaryDeployment = owned(caches.deployments, app, ownedName(name, 'canary')) as V1Deployment | undefined;
  const stableDeployment = owned(caches.deployments, app, name) as V1Deployment | undefined;
  const observed: CanaryObserved = {
    canaryDeployment: canaryDeployment && {
      image: imageOf(canaryDeployment),
      replicas: canaryDeployment.spec?.replicas ?? 1,
      available: rolloutState(canaryDeployment).available,
    },
    stableDeployment: stableDeployment && { image: imageOf(stableDeployment), available: rolloutState(stableDeployment).available },
    routerWeight: router.currentWeight(app),
    canaryObjectsExist: canaryDeployment !== undefined || owned(caches.services, app, ownedName(name, 'canary')) !== undefined || router.exists(app),
  };
  const status = app.status ?? {};
  return planCanary(
    {
      image: app.spec.image,
      replicas: app.spec.replicas,
      steps: app.spec.rollout.steps ?? [...DEFAULT_CANARY_STEPS],
      progressDeadlineSeconds: app.spec.rollout.progressDeadlineSeconds,
      annotations: app.metadata.annotations ?? {},
      status: canaryEnabled(app)
        ? { stableImage: status.stableImage, abortedImage: status.abortedImage, canary: status.canary, conditions: status.conditions }
        : {},
    },
    observed,
    now,
  );
}
