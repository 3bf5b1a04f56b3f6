// The shapes the canary step engine works with: what it is asked (the App's rollout fields and
// status, and what is observed in the cluster) and what it decides. No code but the sizing rule
// and the weight a step holds.
import type { BlueGreenStatus, CanaryStatus, CanaryStep, Condition, ScaleDownStatus } from '../../shared/app-types.js';
import type { CheckResult, NoDataPolicy } from '../analysis/types.js';
import type { RouterReadiness } from '../routers/router.js';

export interface CanaryInput {
  /** spec.image, for messages and status. */
  image: string;
  /** The revision of the pod template spec renders. */
  revision: string;
  /** The stable Deployment's desired replicas now (spec.replicas, or the autoscaler's count). */
  replicas: number;
  steps: CanaryStep[];
  progressDeadlineSeconds: number;
  /** How long a finished canary's pods keep running once its traffic is back on stable. */
  scaleDownDelaySeconds: number;
  /** spec.rollout.canaryHeader: requests carrying it go to the canary whatever its weight. */
  canaryHeader?: string;
  annotations: Record<string, string>;
  /** spec.rollout.paused: the canary holds its weight and step, a new revision waits to start. */
  paused?: boolean;
  /**
   * The revisions the App's history (its ControllerRevisions) records as once Promoted: only
   * these may go to stable without a canary (skiff.dev/skip-canary).
   */
  promotedRevisions?: ReadonlySet<string>;
  /** spec.rollout.analysis, when the App has one. */
  analysis?: AnalysisInput;
  status: RevisionsOnRecord & {
    canary?: CanaryStatus;
    scaleDown?: ScaleDownStatus;
    conditions?: Condition[];
    /** A blue-green rollout the App had under way before its strategy became Canary. */
    blueGreen?: BlueGreenStatus;
  };
}

/** The revisions (and images) an App's status records as stable and as aborted, whatever the strategy. */
export interface RevisionsOnRecord {
  stableRevision?: string;
  stableImage?: string;
  abortedRevision?: string;
  abortedImage?: string;
}

export interface CanaryObserved {
  /**
   * The canary Deployment, when it exists. `available`: rolled out at its spec, all replicas
   * available. `serving`: its available pods while all of them are of its revision (0 otherwise,
   * see samePodsRevision): what carries its traffic while it is resized. `settling`: the Deployment controller has not
   * yet seen its latest spec (a resize just written), so its counts say nothing of it yet.
   */
  canaryDeployment?: { revision?: string; replicas: number; available: boolean; serving?: number; settling?: boolean; replicaFailure?: string };
  /** The stable Deployment, when it exists. */
  stableDeployment?: { revision?: string; available: boolean; oneTemplate?: boolean };
  /** The weight the router currently sends to the canary; undefined when no split exists. */
  routerWeight?: number;
  /**
   * Switching routers (spec.ingress to spec.route or back): the highest weight the routers the App
   * is switching from still send to the canary, until they are retired; undefined when none splits.
   */
  previousRouterWeight?: number;
  /**
   * Switching routers: whether one the App is switching from may still send the canary requests,
   * a canary part in its routing or a change its data plane has not taken yet (a route whose
   * Gateway has not accepted it without its canary backend).
   */
  previousRouterSplit?: boolean;
  /** Whether the data plane has taken the routing as it is (a Gateway accepted the route); default yes. */
  routerReadiness?: RouterReadiness;
  /** Whether any canary object (Deployment, Service, traffic split) still exists. */
  canaryObjectsExist: boolean;
}

/** The Progressing reason (status Unknown) while spec.rollout.paused holds a rollout. */
export const PAUSED_REASON = 'RolloutPaused';

export type AbortReason = 'RolloutAborted' | 'ProgressDeadlineExceeded' | 'AnalysisFailed' | 'AnalysisInconclusive';
export const ABORT_REASONS: readonly string[] = ['RolloutAborted', 'ProgressDeadlineExceeded', 'AnalysisFailed', 'AnalysisInconclusive'];

/**
 * The reason and message of the abort that the App's conditions record: Degraded's while it holds
 * them, else Progressing's. Both say the abort from the pass that made it on; a passing problem
 * (ReconcileError, ResourceConflict, ConfigNotFound) takes Degraded for as long as it lasts, never
 * Progressing, so the abort is still known when it clears.
 */
export function recordedAbort(conditions: readonly { type: string; status: string; reason: string; message: string }[] | undefined): { reason: AbortReason; message?: string } {
  const degraded = conditions?.find((c) => c.type === 'Degraded' && c.status === 'True' && ABORT_REASONS.includes(c.reason));
  const progressing = conditions?.find((c) => c.type === 'Progressing' && c.status === 'False' && ABORT_REASONS.includes(c.reason));
  const found = degraded ?? progressing;
  return found ? { reason: found.reason as AbortReason, message: found.message } : { reason: 'RolloutAborted' };
}

/**
 * Whether Progressing holds an abort (status False, an abort's reason): a gate that stops the App
 * (InvalidSpec, ConfigNotFound) leaves it so, as a passing error leaves it, so that the abort's
 * own reason is still known when the gate opens.
 */
export function progressingHoldsAbort(conditions: readonly { type: string; status: string; reason: string }[] | undefined): boolean {
  return conditions?.some((c) => c.type === 'Progressing' && c.status === 'False' && ABORT_REASONS.includes(c.reason)) ?? false;
}

/** The analysis the engine weighs: the App's settings, and a check to count. */
export interface AnalysisInput {
  intervalMs: number;
  failureLimit: number;
  noData: NoDataPolicy;
  /** Whether the controller has a Prometheus to ask (--prometheus-url). */
  available: boolean;
  /** A check that ran at the router's weight `weight`, to count into status. */
  check?: { at: string; weight: number; result: CheckResult };
  /** A check is running now: its completion reconciles the App, no requeue is needed for it. */
  running?: boolean;
}

/** `Paused`: spec.rollout.paused holds a new revision before its rollout starts. */
export type Phase = 'Stable' | 'CanaryStep' | 'CanaryPaused' | 'Promoting' | 'Aborted' | 'CleaningUp' | 'Paused';

export interface RolloutEvent {
  reason: string;
  message: string;
  type?: 'Normal' | 'Warning';
  /** It says the pass's write of the Service `<app>` took place (a blue-green switch): not sent when that write failed. */
  saysServiceWritten?: true;
}

export interface CanaryDecision {
  phase: Phase;
  /** The pod-template revision the stable Deployment runs next: spec's, or the one it runs now. */
  stableRevision: string;
  /**
   * Canary objects to keep or create (at `revision`), with the weight the router should carry.
   * `decided`: the weight the engine decided, when `weight` holds the router below it (a route
   * not accepted yet may not rise): routers the App is switching from may keep up to it.
   */
  canary?: { revision: string; replicas: number; weight: number; decided?: number };
  /** Delete the canary objects (only ever when the router already carries weight 0). */
  removeCanary: boolean;
  /** The rollout fields of status after this decision. */
  status: { stableRevision?: string; stableImage?: string; abortedRevision?: string; abortedImage?: string; canary?: CanaryStatus; scaleDown?: ScaleDownStatus };
  /** Unknown while spec.rollout.paused holds the rollout (as a paused Deployment's DeploymentPaused). */
  progressing?: { status: 'True' | 'False' | 'Unknown'; reason: string; message: string };
  degraded?: { reason: AbortReason | 'AnalysisUnavailable'; message: string };
  /** Reconcile again after this long even when nothing changes (timed pauses, deadlines). */
  requeueAfterMs?: number;
  /** Annotations acted upon, to remove once the status is written. */
  consumedAnnotations: string[];
  /** skiff.dev/retry started the aborted revision's rollout again in this pass. */
  retried?: boolean;
  /** Things worth an Event on the App. */
  events: RolloutEvent[];
}

export const canaryReplicas = (replicas: number, weight: number) => Math.max(1, Math.ceil((replicas * weight) / 100));

/** Whether the router carries what it was written: an Ingress once written, a route once its Gateway accepted its generation. */
export const routerCarries = (observed: Pick<CanaryObserved, 'routerReadiness'>) => observed.routerReadiness?.ready ?? true;

/**
 * The canary's size for a step's `weight`, never below what the router may still send it: a
 * weight lower than the router's (`routerWeight`) keeps the pods of the higher one until the router
 * has the lower, and while a route's Gateway has not accepted its generation the data plane may
 * still send the weight before, so the canary keeps every pod it has. Its share of traffic never
 * lands on fewer pods than it had.
 */
export function keptCanaryReplicas(input: Pick<CanaryInput, 'replicas' | 'revision'>, observed: CanaryObserved, weight: number, routerWeight = observed.routerWeight ?? 0): number {
  const sized = canaryReplicas(input.replicas, Math.max(weight, routerWeight));
  const dep = observed.canaryDeployment;
  return !routerCarries(observed) && dep?.revision === input.revision ? Math.max(sized, dep.replicas) : sized;
}

/**
 * The weight the step at `index` holds: a setWeight step's own; a pause's, the last setWeight
 * before it (0 when there is none).
 */
export function stepWeight(steps: readonly CanaryStep[], index: number): number {
  return steps.slice(0, index + 1).reverse().find((s) => s.setWeight !== undefined)?.setWeight ?? 0;
}

/**
 * The weight a canary at the pause step `index` is sized for: the weight it has; at 0% when held
 * there for want of a Prometheus (status.canary.heldFromWeight), the weight of the setWeight
 * before the pause, which it gets back: its pods are ready for it. A weight above 0 other than that
 * one (the step before it edited since) is kept, as is the pause's size, and so is a 0% the pause
 * had for another reason (a setWeight 0 before it, edited higher since): no weight rises but by a step.
 */
export function pauseWeight(steps: readonly CanaryStep[], index: number, canary: Pick<CanaryStatus, 'weight' | 'heldFromWeight'>): number {
  return canary.weight > 0 || canary.heldFromWeight === undefined ? canary.weight : stepWeight(steps, index);
}

/** The App has analysis, but the controller has no Prometheus to run it (AnalysisUnavailable). */
export const analysisUnavailableFor = (input: Pick<CanaryInput, 'analysis'>) => input.analysis !== undefined && !input.analysis.available;
