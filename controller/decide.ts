// Decide: what the App's objects should be now, as a pure function of the defaulted App, what
// was observed and the time. The canary step engine says which image stable runs and whether a
// canary exists; rendering turns that into objects.
import { DEFAULT_CANARY_STEPS, type DefaultedApp } from '../shared/defaults.js';
import { planCanary, type CanaryDecision, type CanaryInput, type CanaryObserved } from './canary/plan.js';
import { render, renderCanary, type CanaryObjects, type StableObjects } from './render.js';

export interface ReconcilePlan {
  stable: StableObjects;
  /** Canary objects to create or correct, and the weight the router should carry once they are. */
  canary?: CanaryObjects & { image: string; weight: number };
  /** Remove the canary: the traffic split first, then its Service and Deployment. */
  removeCanary: boolean;
  /** The step engine's decision: status fields, conditions, Events, annotations consumed, requeue. */
  rollout: CanaryDecision;
}

/** A canary rollout applies only to the Canary strategy with an ingress to split traffic at. */
const canaryEnabled = (app: DefaultedApp) => app.spec.rollout.strategy === 'Canary' && app.spec.ingress !== undefined;

/**
 * What the step engine is asked. Without the Canary strategy it is still asked, with no stable
 * image on record: it then keeps stable on spec.image and winds down any canary objects left from
 * before a strategy change.
 */
export function canaryInput(app: DefaultedApp): CanaryInput {
  const status = app.status ?? {};
  return {
    image: app.spec.image,
    replicas: app.spec.replicas,
    steps: app.spec.rollout.steps ?? [...DEFAULT_CANARY_STEPS],
    progressDeadlineSeconds: app.spec.rollout.progressDeadlineSeconds,
    annotations: app.metadata.annotations ?? {},
    status: canaryEnabled(app)
      ? { stableImage: status.stableImage, abortedImage: status.abortedImage, canary: status.canary, conditions: status.conditions }
      : {},
  };
}

export function decide(app: DefaultedApp, observed: CanaryObserved, now: Date): ReconcilePlan {
  const rollout = planCanary(canaryInput(app), observed, now);
  const stable = render(app, rollout.stableImage);
  // Without an ingress there is nothing to split: a canary the engine still wants is wound down.
  const canary = rollout.canary && stable.ingress
    ? { ...renderCanary(app, rollout.canary.image, rollout.canary.replicas), image: rollout.canary.image, weight: rollout.canary.weight }
    : undefined;
  return { stable, canary, removeCanary: !canary && (rollout.removeCanary || rollout.canary !== undefined), rollout };
}
