// Decide: what the App's objects should be now, as a pure function of the defaulted App, what
// was observed and the time. The canary step engine says which pod template stable runs and
// whether a canary exists; rendering turns that into objects.
import type { V1Deployment } from '@kubernetes/client-node';
import { DEFAULT_CANARY_STEPS, type DefaultedApp } from '../shared/defaults.js';
import { intervalMs } from './analysis/schedule.js';
import { templateChanges } from './canary/changes.js';
import { planCanary, type CanaryDecision, type CanaryInput, type CanaryObserved } from './canary/plan.js';
import type { RolloutStrategy } from '../shared/app-types.js';
import type { ServedVersions } from './render/served-versions.js';
import type { Observed } from './observe.js';
import { renderPodTemplate, type PodTemplate } from './render/pod-template.js';
import { render, renderCanary, type CanaryObjects, type StableObjects } from './render/render.js';
import { keptTemplate, previousRecordFor } from './render/pod-template-record.js';

export interface ReconcilePlan {
  stable: StableObjects;
  /**
   * The traffic split the router should carry, and the canary objects to create or correct.
   * `objects` is absent while a canary of another revision winds down: it keeps what it runs.
   */
  canary?: { objects?: CanaryObjects; image: string; weight: number };
  /** Remove the canary: the traffic split first, then its Service and Deployment. */
  removeCanary: boolean;
  /** The step engine's decision: status fields, conditions, Events, annotations consumed, requeue. */
  rollout: CanaryDecision;
  /** The stable Deployment's desired replicas now: spec.replicas, or the autoscaler's count. */
  replicas: number;
}

/** Whether the App has a route (an Ingress or an HTTPRoute) where traffic can be split. */
const routed = (app: DefaultedApp) => app.spec.ingress !== undefined || app.spec.route !== undefined;

/** A canary rollout applies only to the Canary strategy with a route to split traffic at. */
const canaryEnabled = (app: DefaultedApp) => app.spec.rollout.strategy === 'Canary' && routed(app);

/** The replicas an autoscaled Deployment starts with: spec.replicas, within the autoscaler's bounds. */
const startingReplicas = (app: DefaultedApp) => {
  const { minReplicas = 1, maxReplicas } = app.spec.autoscaling!;
  return Math.min(maxReplicas, Math.max(minReplicas, app.spec.replicas));
};

/** The stable Deployment's replicas now: with autoscaling, whatever the autoscaler last set. */
export function currentReplicas(app: DefaultedApp, stable: V1Deployment | undefined): number {
  if (!app.spec.autoscaling) return app.spec.replicas;
  return stable?.spec?.replicas ?? startingReplicas(app);
}

/**
 * What the step engine is asked. Without the Canary strategy it is still asked, with no stable
 * revision on record: it then keeps stable on spec and winds down any canary objects left from
 * before a strategy change.
 */
export function canaryInput(app: DefaultedApp, revision: string, replicas: number, analysis: DecideContext['analysis'] = { available: false }): CanaryInput {
  const status = app.status ?? {};
  const spec = app.spec.rollout;
  // Apps last reconciled by a version that tracked images only: the image stands for the revision.
  const stableRevision = status.stableRevision
    ?? (status.stableImage === undefined ? undefined : status.stableImage === app.spec.image ? revision : `image ${status.stableImage}`);
  const abortedRevision = status.abortedRevision ?? (status.abortedImage !== undefined && status.abortedImage === app.spec.image ? revision : undefined);
  return {
    image: app.spec.image,
    revision,
    replicas,
    steps: app.spec.rollout.steps ?? [...DEFAULT_CANARY_STEPS],
    progressDeadlineSeconds: app.spec.rollout.progressDeadlineSeconds,
    scaleDownDelaySeconds: app.spec.rollout.scaleDownDelaySeconds,
    annotations: app.metadata.annotations ?? {},
    analysis: spec.analysis && {
      intervalMs: intervalMs(spec.analysis),
      failureLimit: spec.analysis.failureLimit,
      noData: spec.analysis.noData,
      ...analysis,
    },
    status: canaryEnabled(app)
      ? { stableRevision, stableImage: status.stableImage, abortedRevision, abortedImage: status.abortedImage, canary: status.canary, scaleDown: status.scaleDown, conditions: status.conditions }
      // Canary objects left from before a change of strategy wind down with the same delay.
      : { scaleDown: status.scaleDown },
  };
}

/** A rollout strategy: a pure plan from the App's rollout input and what is observed, at a time. */
type Strategy = (input: CanaryInput, observed: CanaryObserved, now: Date) => CanaryDecision;

/**
 * The step engine's plan for each strategy. RollingUpdate leaves the rolling to the Deployment;
 * the canary engine, asked with no stable revision on record (canaryInput), only winds down what
 * a former Canary left. A new strategy (blue-green) joins here with a plan of its own over the
 * same input, and its own objects beside the canary's in the decision.
 */
const STRATEGIES: Record<RolloutStrategy, Strategy> = {
  RollingUpdate: planCanary,
  Canary: planCanary,
};

/** What decide weighs besides the App and the cluster: what the cluster serves, and the analysis. */
export interface DecideContext {
  versions: ServedVersions;
  analysis?: { available: boolean; check?: NonNullable<CanaryInput['analysis']>['check']; running?: boolean };
  /** spec's pod template when it differs from what the App renders by itself: on copies of its configuration (trackConfig). */
  pod?: PodTemplate;
}

export function decide(app: DefaultedApp, observed: Observed, context: DecideContext, now: Date): ReconcilePlan {
  const { versions } = context;
  const spec = context.pod ?? renderPodTemplate(app, 'stable');
  const replicas = currentReplicas(app, observed.stable);
  const rollout = STRATEGIES[app.spec.rollout.strategy](canaryInput(app, spec.revision, replicas, context.analysis), observed.canary, now);
  const template = rollout.stableRevision === spec.revision ? spec : keptTemplate(spec, observed.stable, rollout.stableRevision);
  const previousRecord = previousRecordFor(observed.stable, template.revision);
  // With autoscaling the autoscaler owns the count of a Deployment that exists.
  const stableReplicas = app.spec.autoscaling ? (observed.stable ? undefined : startingReplicas(app)) : app.spec.replicas;
  const stable = render(app, { template, replicas: stableReplicas, versions, previousRecord });
  if (rollout.status.canary) {
    rollout.status.canary = { ...rollout.status.canary, changes: templateChanges(template.template, spec.template) };
  }
  // Without a route there is nothing to split: a canary the engine still wants is wound down.
  const canary = rollout.canary && routed(app)
    ? {
        objects: rollout.canary.revision === spec.revision ? renderCanary(app, rollout.canary.replicas, spec) : undefined,
        image: app.spec.image,
        weight: rollout.canary.weight,
      }
    : undefined;
  return { stable, canary, removeCanary: !canary && (rollout.removeCanary || rollout.canary !== undefined), rollout, replicas };
}
