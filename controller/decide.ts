// Decide: what the App's objects should be now, as a pure function of the defaulted App, what
// was observed and the time. The canary step engine says which pod template stable runs and
// whether a canary exists; rendering turns that into objects.
import type { V1Deployment } from '@kubernetes/client-node';
import { DEFAULT_CANARY_STEPS, type DefaultedApp } from '../shared/defaults.js';
import { intervalMs } from './analysis/schedule.js';
import { templateChanges } from './canary/changes.js';
import { planCanary, type CanaryDecision, type CanaryInput, type RolloutEvent } from './canary/plan.js';
import type { RolloutStrategy } from '../shared/app-types.js';
import type { ServedVersions } from './render/served-versions.js';
import type { Observed } from './observe.js';
import { containerImage, renderPodTemplate, type PodTemplate } from '../shared/render/pod-template.js';
import { render, renderCanary, type CanaryObjects, type StableObjects } from './render/render.js';
import { keptTemplate, previousRecordFor, recordedPodTemplate } from './render/pod-template-record.js';
import { promotedRevisions } from './state/revision-history.js';
import type { HistoryDecision } from './state/history-plan.js';
import { renderPreview, type PreviewObjects } from './render/preview.js';
import { planBlueGreen, type RolloutDecision } from './bluegreen/plan.js';
import { blueGreenInput, retiringInput } from './bluegreen/input.js';
import { retirePreview } from './bluegreen/running.js';
import { switchedBack } from '../shared/rollout-revision.js';
import { recordedCopies } from '../shared/render/config-copies.js';

export interface ReconcilePlan {
  stable: StableObjects;
  /**
   * The traffic split the router should carry, and the canary objects to create or correct.
   * `objects` is absent while a canary of another revision winds down: it keeps what it runs.
   */
  canary?: { objects?: CanaryObjects; image: string; weight: number; decided?: number };
  /** Remove the canary: the traffic split first, then its Service and Deployment. */
  removeCanary: boolean;
  /**
   * The decision in the terms of the App's revision history, and what spec's revision changes
   * against what stable ran (recorded when it gets an entry).
   */
  history: HistoryDecision & {
    changes: string[];
    /** The copies of tracked configuration spec's template runs (sourceKey -> copy name), recorded with its history entry. */
    copies: Record<string, string>;
  };
  /** Blue-green: the preview objects to create or correct (absent while a preview of another revision finishes). */
  preview?: { objects?: PreviewObjects };
  /** Remove the preview objects (the Service no longer sends to them). */
  removePreview: boolean;
  /** The step engine's decision: status fields, conditions, Events, annotations consumed, requeue. */
  rollout: RolloutDecision;
  /** The stable Deployment's desired replicas now: spec.replicas, or the autoscaler's count. */
  replicas: number;
}

/** The image the canary Deployment's pods run, as cached. */
const canaryImage = (observed: Observed) => {
  const deployment = observed.cached.canaryDeployment as V1Deployment | undefined;
  return deployment && containerImage(deployment);
};

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
export function canaryInput(app: DefaultedApp, revision: string, replicas: number, analysis: DecideContext['analysis'] = { available: false }, promotedRevisions?: ReadonlySet<string>): CanaryInput {
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
    canaryHeader: app.spec.rollout.canaryHeader,
    annotations: app.metadata.annotations ?? {},
    paused: spec.paused,
    promotedRevisions,
    analysis: spec.analysis && {
      intervalMs: intervalMs(spec.analysis),
      failureLimit: spec.analysis.failureLimit,
      noData: spec.analysis.noData,
      ...analysis,
    },
    status: canaryEnabled(app)
      ? { stableRevision, stableImage: status.stableImage, abortedRevision, abortedImage: status.abortedImage, canary: status.canary, scaleDown: status.scaleDown, conditions: status.conditions, blueGreen: status.blueGreen }
      // Canary objects left from before a change of strategy wind down with the same delay.
      : { scaleDown: status.scaleDown },
  };
}

/** A rollout strategy: a pure plan from the App's rollout input and what is observed, at a time. */
type Strategy = (app: DefaultedApp, input: CanaryInput, observed: Observed, now: Date) => RolloutDecision;

/** The canary engine; a preview left by a former BlueGreen strategy is retired beside it. */
const canaryPlan: Strategy = (app, input, observed, now) => withPreviewRetired(planCanary(input, observed.canary, now), app, input, observed, now);

/** The blue-green engine; canary objects left by a former Canary strategy wind down beside it. */
const blueGreenPlan: Strategy = (app, input, observed, now) =>
  withCanaryWoundDown(planBlueGreen(blueGreenInput(app, input), observed.blueGreen ?? NOTHING_OBSERVED, now), planCanary(input, observed.canary, now));

/**
 * The step engine's plan for each strategy. RollingUpdate leaves the rolling to the Deployment;
 * the canary engine, asked with no stable revision on record (canaryInput), only winds down what
 * a former Canary left; BlueGreen has a plan of its own over the same input, and its own objects
 * beside the canary's in the decision.
 */
const STRATEGIES: Record<RolloutStrategy, Strategy> = {
  RollingUpdate: canaryPlan,
  Canary: canaryPlan,
  BlueGreen: blueGreenPlan,
};

const NOTHING_OBSERVED = { previewObjectsExist: false };

const minDelay = (a?: number, b?: number) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));

/** A decision of another strategy, with the retirement of a preview left from a blue-green rollout. */
function withPreviewRetired(decision: CanaryDecision, app: DefaultedApp, input: CanaryInput, observed: Observed, now: Date): RolloutDecision {
  if (!observed.blueGreen?.previewObjectsExist) return decision;
  // The other strategies' Service selects the stable track: it leaves a preview it sent to.
  const r = retirePreview(retiringInput(app, input), observed.blueGreen, decision.stableRevision, now, true);
  // The strategy changed after a switch: the Service leaves the preview's pods, which had all the
  // traffic. Told as the blue-green switch back it is, by the pass whose write of the Service makes it.
  const switchBack: RolloutEvent[] = r.switchesBack
    ? [{ reason: 'BlueGreenSwitchedBack', message: `the strategy is ${app.spec.rollout.strategy} now: the Service selects the stable track again instead of the blue-green preview (revision ${observed.blueGreen.preview?.revision ?? app.status?.blueGreen?.previewRevision ?? '?'}), whose pods go at ${r.blueGreen?.scaleDownAt ?? 'once'}`, saysServiceWritten: true }]
    : [];
  return {
    ...decision,
    events: [...decision.events, ...switchBack],
    blueGreen: { removePreview: r.removePreview },
    status: { ...decision.status, ...(r.blueGreen ? { blueGreen: r.blueGreen } : {}) },
    requeueAfterMs: minDelay(decision.requeueAfterMs, r.requeueAfterMs),
  };
}

/** A blue-green decision, with the wind-down of canary objects left from a canary rollout. */
function withCanaryWoundDown(decision: RolloutDecision, canary: CanaryDecision): RolloutDecision {
  return {
    ...decision,
    canary: canary.canary,
    removeCanary: canary.removeCanary,
    status: { ...decision.status, ...(canary.status.scaleDown ? { scaleDown: canary.status.scaleDown } : {}) },
    requeueAfterMs: minDelay(decision.requeueAfterMs, canary.requeueAfterMs),
  };
}

/**
 * The blue-green revision under way: the preview's, until it was aborted or replaced. After a
 * switch back (an abort, or a new pod template, or the template back at stable's)
 * status.blueGreen stays while the preview's pods wait out the delay: no rollout of it is under way.
 */
const rollingPreview = (status: RolloutDecision['status']) => {
  const preview = status.blueGreen?.previewRevision;
  return preview !== undefined && preview !== status.abortedRevision && !switchedBack(status.blueGreen) ? preview : undefined;
};

/**
 * status.blueGreen with what spec's preview changes against stable (a tracked ConfigMap's change
 * leaves the image as it was: only this says what rolls out). Computed while the Deployment `<app>`
 * keeps the template before (Preview, Switched); once it takes the new one (ScalingDown) the two
 * are the same, so the changes of the rollout's start, carried in status, are kept, as are those of
 * a preview switched back from.
 */
function withBlueGreenChanges(status: RolloutDecision['status'], stable: PodTemplate, spec: PodTemplate): RolloutDecision['status'] {
  const b = status.blueGreen;
  if (!b || b.previewRevision !== spec.revision || switchedBack(b) || stable.revision === spec.revision) return status;
  return { ...status, blueGreen: { ...b, changes: templateChanges(stable.template, spec.template) } };
}

/**
 * spec's revision made stable without a canary or a preview (an App's first, any RollingUpdate, a
 * skipped canary) is Running in the history until the Deployment has rolled it out (every pod
 * updated and available, which a paused Deployment with a new template never is), and only then
 * Promoted: a revision whose pods never came up is not one to go back to.
 */
const stableUnderWay = (status: RolloutDecision['status'], revision: string, observed: Observed) => {
  if (status.stableRevision !== revision) return undefined;
  const stable = observed.canary.stableDeployment;
  return stable?.revision === revision && stable.available ? undefined : revision;
};

/** What decide weighs besides the App and the cluster: what the cluster serves, and the analysis. */
export interface DecideContext {
  versions: ServedVersions;
  analysis?: { available: boolean; check?: NonNullable<CanaryInput['analysis']>['check']; running?: boolean };
  /** spec's pod template when it differs from what the App renders by itself: on copies of its configuration (trackConfig). */
  pod?: PodTemplate;
  /** Stable's template from the App's history, when its Deployment is gone mid-rollout (render/history-template.ts). */
  stableFromHistory?: PodTemplate;
}

export function decide(app: DefaultedApp, observed: Observed, context: DecideContext, now: Date): ReconcilePlan {
  const { versions } = context;
  const spec = context.pod ?? renderPodTemplate(app, 'stable');
  const replicas = currentReplicas(app, observed.stable);
  const input = canaryInput(app, spec.revision, replicas, context.analysis, promotedRevisions(observed.history));
  const rollout = STRATEGIES[app.spec.rollout.strategy](app, input, observed, now);
  const template = rollout.stableRevision === spec.revision ? spec : keptTemplate(spec, observed.stable, rollout.stableRevision, { fromHistory: context.stableFromHistory, preview: observed.previewDeployment });
  const previousRecord = previousRecordFor(observed.stable, template.revision);
  // With autoscaling the autoscaler owns the count of a Deployment that exists; where the cluster
  // serves no autoscaling API there is none, and the count stays `replicas` within its bounds.
  // A blue-green Deployment taking the traffic back from the preview is given the preview's count first.
  const autoscaler = app.spec.autoscaling !== undefined && versions.horizontalPodAutoscaler !== undefined;
  const stableReplicas = autoscaler
    ? (rollout.blueGreen?.stableReplicas ?? (observed.stable ? undefined : startingReplicas(app)))
    : app.spec.autoscaling ? startingReplicas(app) : app.spec.replicas;
  // Without a canary or a blue-green switch the Deployment rolls its own pods: a pause is the Deployment's own.
  const paused = app.spec.rollout.paused && !canaryEnabled(app) && app.spec.rollout.strategy !== 'BlueGreen';
  const stable = render(app, { template, replicas: stableReplicas, versions, previousRecord, paused, serviceRevision: rollout.blueGreen?.activeRevision, switchedBackFrom: rollout.blueGreen?.switchedBackFrom });
  // Only a canary of spec's template is compared with stable's: once stable runs that template (the
  // promotion), or a canary of an earlier template is promoted to its end, its changes stay as they were.
  if (rollout.status.canary && rollout.status.canary.revision === spec.revision && template.revision !== spec.revision) {
    rollout.status.canary = { ...rollout.status.canary, changes: templateChanges(template.template, spec.template) };
  }
  rollout.status = withBlueGreenChanges(rollout.status, template, spec);
  // Without a route there is nothing to split: a canary the engine still wants is wound down.
  const canary = rollout.canary && routed(app)
    ? {
        objects: rollout.canary.revision === spec.revision ? renderCanary(app, rollout.canary.replicas, spec) : undefined,
        // The pods of an earlier revision (drained, or promoted to its end) run their own image, not spec's.
        image: (rollout.canary.revision === spec.revision ? undefined : canaryImage(observed)) ?? app.spec.image,
        weight: rollout.canary.weight,
        ...(rollout.canary.decided !== undefined ? { decided: rollout.canary.decided } : {}),
      }
    : undefined;
  // What stable ran before spec's revision: the kept template during a rollout, else the record.
  const before = template.revision !== spec.revision ? template : recordedPodTemplate(observed.stable);
  const history = {
    spec: spec.revision,
    stable: rollout.status.stableRevision,
    aborted: rollout.status.abortedRevision,
    // The revision under way, as the strategy's status says: a canary's, or a blue-green preview's.
    rolling: rollout.status.canary?.revision ?? rollingPreview(rollout.status) ?? stableUnderWay(rollout.status, spec.revision, observed),
    stablePending: rollout.status.stableRevision !== undefined && stableUnderWay(rollout.status, rollout.status.stableRevision, observed) !== undefined,
    stableOneTemplate: observed.canary.stableDeployment?.revision === rollout.status.stableRevision && observed.canary.stableDeployment?.oneTemplate === true,
    changes: rollout.status.canary?.changes ?? (before && before.revision !== spec.revision ? templateChanges(before.template, spec.template) : []),
    copies: Object.fromEntries(recordedCopies(spec.template)),
  };
  const wanted = rollout.blueGreen?.preview;
  const preview = wanted && { objects: wanted.revision === spec.revision ? renderPreview(app, wanted.replicas, spec) : undefined };
  const removePreview = rollout.blueGreen?.removePreview ?? false;
  return { stable, canary, removeCanary: !canary && (rollout.removeCanary || rollout.canary !== undefined), preview, removePreview, rollout, replicas, history };
}
