// The canary step engine: a pure function from the App (spec, annotations, status) and what
// is observed in the cluster to what the cluster should look like next. The reconciler applies
// the decision; nothing here talks to the API server, so every situation is a table row in
// the unit tests, including a controller restart in the middle of any step (all the state
// the engine needs is in the App's status).
//
// What rolls out is a pod-template revision (a hash of everything the pods run), not only an
// image: a new env var or a new probe gets a canary like a new image does.
import type { CanaryStatus, CanaryStep, Condition, ScaleDownStatus } from '../../shared/app-types.js';
import { ANNOTATION_ABORT, ANNOTATION_PROMOTE } from '../../shared/labels.js';
import { durationMs } from '../../shared/durations.js';
import { stepLabel } from '../../shared/steps.js';
import { metaTime } from '../../shared/time.js';
import { countsAs } from '../analysis/evaluate.js';
import type { CheckResult, NoDataPolicy } from '../analysis/types.js';

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
  annotations: Record<string, string>;
  /** spec.rollout.analysis, when the App has one. */
  analysis?: AnalysisInput;
  status: {
    stableRevision?: string;
    stableImage?: string;
    abortedRevision?: string;
    abortedImage?: string;
    canary?: CanaryStatus;
    scaleDown?: ScaleDownStatus;
    conditions?: Condition[];
  };
}

export interface CanaryObserved {
  /** The canary Deployment, when it exists. `available`: rolled out at its spec, all replicas available. */
  canaryDeployment?: { revision?: string; replicas: number; available: boolean };
  /** The stable Deployment, when it exists. */
  stableDeployment?: { revision?: string; available: boolean };
  /** The weight the router currently sends to the canary; undefined when no split exists. */
  routerWeight?: number;
  /** Whether the data plane has taken the routing as it is (a Gateway accepted the route); default yes. */
  routerReadiness?: { ready: boolean; message?: string };
  /** Whether any canary object (Deployment, Service, traffic split) still exists. */
  canaryObjectsExist: boolean;
}

export type AbortReason = 'RolloutAborted' | 'ProgressDeadlineExceeded' | 'AnalysisFailed' | 'AnalysisInconclusive';
const ABORT_REASONS: readonly string[] = ['RolloutAborted', 'ProgressDeadlineExceeded', 'AnalysisFailed', 'AnalysisInconclusive'];

/** The analysis the engine weighs: the App's settings, and a check the reconcile just ran. */
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

export type Phase = 'Stable' | 'CanaryStep' | 'CanaryPaused' | 'Promoting' | 'Aborted' | 'CleaningUp';

export interface CanaryDecision {
  phase: Phase;
  /** The pod-template revision the stable Deployment runs next: spec's, or the one it runs now. */
  stableRevision: string;
  /** Canary objects to keep or create (at `revision`), with the weight the router should carry. */
  canary?: { revision: string; replicas: number; weight: number };
  /** Delete the canary objects (only ever when the router already carries weight 0). */
  removeCanary: boolean;
  /** The rollout fields of status after this decision. */
  status: { stableRevision?: string; stableImage?: string; abortedRevision?: string; abortedImage?: string; canary?: CanaryStatus; scaleDown?: ScaleDownStatus };
  progressing?: { status: 'True' | 'False'; reason: string; message: string };
  degraded?: { reason: AbortReason | 'AnalysisUnavailable'; message: string };
  /** Reconcile again after this long even when nothing changes (timed pauses, deadlines). */
  requeueAfterMs?: number;
  /** Annotations acted upon, to remove once the status is written. */
  consumedAnnotations: string[];
  /** Things worth an Event on the App. */
  events: { reason: string; message: string; type?: 'Normal' | 'Warning' }[];
}

export const canaryReplicas = (replicas: number, weight: number) => Math.max(1, Math.ceil((replicas * weight) / 100));

const isTrue = (v: string | undefined) => v !== undefined && v.toLowerCase() === 'true';

/** "web:2 (revision 3f2a1b9c0d)": the image alone does not say what changed. */
const subject = (image: string, revision: string) => `${image} (revision ${revision})`;

type WindDown = Pick<CanaryDecision, 'canary' | 'removeCanary' | 'requeueAfterMs'> & { scaleDown?: ScaleDownStatus };

/**
 * Winding down canary objects that should not exist (promoted, aborted or cancelled canary):
 * the weight to 0 first; once no traffic reaches the canary, its pods keep running for
 * scaleDownDelaySeconds, so that requests already routed to them finish and routers that apply
 * changes late never send to a pod that is gone; then its Service and Deployment go. The time
 * is in status, so a restarted controller neither shortens nor repeats the delay.
 */
function windDown(input: CanaryInput, observed: CanaryObserved, now: Date): WindDown {
  if (!observed.canaryObjectsExist) return { removeCanary: false };
  const recorded = input.status.scaleDown;
  if ((observed.routerWeight ?? 0) > 0 && observed.canaryDeployment) {
    const { revision, replicas } = observed.canaryDeployment;
    return { canary: { revision: revision ?? '', replicas, weight: 0 }, removeCanary: false, scaleDown: recorded };
  }
  // No delay: nothing to wait for or to remember.
  if (input.scaleDownDelaySeconds <= 0) return { removeCanary: true };
  const revision = observed.canaryDeployment?.revision ?? recorded?.revision ?? '';
  const scaleDown = recorded?.revision === revision
    ? recorded
    // Milliseconds kept: a time cut to the second would let the pods go up to a second early.
    : { revision, deleteAt: new Date(now.getTime() + input.scaleDownDelaySeconds * 1000).toISOString() };
  const leftMs = Date.parse(scaleDown.deleteAt) - now.getTime();
  // Kept in status until the objects are gone: a failed delete must not start a new delay.
  if (leftMs <= 0) return { removeCanary: true, scaleDown };
  return { removeCanary: false, scaleDown, requeueAfterMs: leftMs };
}

/** Whether canary objects are still there (being wound down, or kept until scaleDown.deleteAt). */
const windingDown = (c: WindDown) => c.canary !== undefined || c.removeCanary || c.scaleDown !== undefined;

/** The canary at `weight`, noting when it changed (checks wait a full interval at a new weight). */
function withWeight(canary: CanaryStatus, weight: number, now: Date): CanaryStatus {
  return canary.weight === weight ? canary : { ...canary, weight, weightChangedAt: now.toISOString() };
}

/**
 * When the next analysis check is due (ms since the epoch): an interval after the last check,
 * and not before the canary has had its current weight for a whole interval, so that a check
 * at a weight measures traffic at that weight rather than a window reaching back before it.
 */
export function nextCheckAt(canary: Pick<CanaryStatus, 'weightChangedAt' | 'analysis'>, intervalMs: number): number {
  const since = [canary.analysis?.lastCheckAt, canary.weightChangedAt].filter((t): t is string => t !== undefined).map((t) => Date.parse(t) + intervalMs);
  return since.length ? Math.max(...since) : 0;
}

/**
 * The decision for the App's canary now. Whatever the inputs, the weight the decision carries
 * rises above the router's current weight only in a running step, to what that step holds (a
 * setWeight step's weight, or the weight a pause keeps): promotion, aborts and wind-downs keep
 * or lower it (see weightRiseAllowed).
 */
export function planCanary(input: CanaryInput, observed: CanaryObserved, now: Date): CanaryDecision {
  const decision = plan(input, observed, now);
  if (!decision.canary || weightRiseAllowed(input, observed, decision)) return decision;
  return { ...decision, canary: { ...decision.canary, weight: observed.routerWeight ?? 0 } };
}

/** Whether the decision may carry the weight it does: at most the router's, or a running step's own. */
export function weightRiseAllowed(input: Pick<CanaryInput, 'steps'>, observed: Pick<CanaryObserved, 'routerWeight'>, decision: Pick<CanaryDecision, 'phase' | 'canary' | 'status'>): boolean {
  const weight = decision.canary?.weight ?? 0;
  if (weight <= (observed.routerWeight ?? 0)) return true;
  const canary = decision.status.canary;
  if (!canary || canary.weight !== weight) return false;
  const step = input.steps[canary.stepIndex];
  if (decision.phase === 'CanaryStep') return step?.setWeight === weight;
  return decision.phase === 'CanaryPaused' && step?.pause !== undefined;
}

function plan(input: CanaryInput, observed: CanaryObserved, now: Date): CanaryDecision {
  const { image, revision, status } = input;
  const what = subject(image, revision);
  const consumed = [ANNOTATION_PROMOTE, ANNOTATION_ABORT].filter((a) => input.annotations[a] !== undefined);
  const base = { consumedAnnotations: consumed, events: [] as CanaryDecision['events'] };

  // First deployment, or spec renders what stable runs: nothing to roll out.
  if (status.stableRevision === undefined || revision === status.stableRevision) {
    const { scaleDown, ...c } = windDown(input, observed, now);
    return {
      ...base,
      ...c,
      phase: windingDown({ ...c, scaleDown }) ? 'CleaningUp' : 'Stable',
      stableRevision: revision,
      status: { stableRevision: revision, stableImage: image, abortedRevision: undefined, abortedImage: undefined, canary: undefined, ...(scaleDown && { scaleDown }) },
      events: status.canary ? [{ reason: 'CanaryCancelled', message: `the pod template is back to the stable revision ${revision}; removing the canary` }] : [],
    };
  }
  const stableRevision = status.stableRevision;

  // An aborted revision stays aborted until the pod template changes again.
  if (revision === status.abortedRevision) {
    const previous = status.conditions?.find((c) => c.type === 'Degraded' && c.status === 'True');
    const reason = (previous && ABORT_REASONS.includes(previous.reason) ? previous.reason : 'RolloutAborted') as AbortReason;
    const { scaleDown, ...c } = windDown(input, observed, now);
    return {
      ...base,
      ...c,
      phase: windingDown({ ...c, scaleDown }) ? 'CleaningUp' : 'Aborted',
      stableRevision,
      status: { stableRevision, stableImage: status.stableImage, abortedRevision: revision, abortedImage: status.abortedImage ?? image, canary: undefined, ...(scaleDown && { scaleDown }) },
      degraded: { reason, message: previous?.message ?? `the canary of ${what} was aborted; stable runs revision ${stableRevision}; change the pod template to roll out again` },
      progressing: { status: 'False', reason, message: `the canary of ${what} was aborted` },
    };
  }

  // A canary of spec's revision: start it, or restart it when the template changed mid-rollout.
  let canary: CanaryStatus = status.canary && status.canary.revision === revision
    ? { ...status.canary, image }
    : { image, revision, weight: 0, stepIndex: 0, stepStartedAt: now.toISOString() };
  const events: CanaryDecision['events'] = [];
  if (!status.canary) events.push({ reason: 'CanaryStarted', message: `canary of ${what} started (stable: revision ${stableRevision})` });
  else if (status.canary.revision !== revision) events.push({ reason: 'CanaryRestarted', message: `the pod template changed to ${what} during a canary; restarting at step 1` });

  const abort = (reason: AbortReason, message: string): CanaryDecision => {
    const { scaleDown, ...c } = windDown(input, observed, now);
    return {
    ...base,
    ...c,
    phase: 'Aborted',
    stableRevision,
    status: { stableRevision, stableImage: status.stableImage, abortedRevision: revision, abortedImage: image, canary: undefined, ...(scaleDown && { scaleDown }) },
    degraded: { reason, message },
    progressing: { status: 'False', reason, message },
    events: [...events, { reason, message, type: 'Warning' }],
    };
  };

  if (isTrue(input.annotations[ANNOTATION_ABORT])) {
    return abort('RolloutAborted', `canary of ${what} aborted by annotation ${ANNOTATION_ABORT}; stable stays on revision ${stableRevision}`);
  }

  // A check that just ran (only ever for this canary: a restarted one starts with none).
  const analysis = input.analysis;
  const check = status.canary?.revision === revision ? analysis?.check : undefined;
  if (analysis && check) {
    const counted = countsAs(check.result.result, analysis.noData);
    const before = canary.analysis ?? { checks: 0, failures: 0 };
    canary = {
      ...canary,
      analysis: {
        checks: before.checks + 1,
        failures: before.failures + (counted === 'Failed' ? 1 : 0),
        lastCheckAt: check.at,
        lastResult: check.result.result,
        lastWeight: check.weight,
        message: check.result.message,
        metrics: check.result.metrics,
      },
    };
    const { failures } = canary.analysis!;
    if (counted === 'Failed') {
      events.push({ reason: 'AnalysisCheckFailed', type: 'Warning', message: `analysis check ${before.checks + 1} of the canary of ${what} at ${check.weight}% failed (${failures} failed so far, failureLimit ${analysis.failureLimit}): ${check.result.message}` });
    }
    if (failures > analysis.failureLimit) {
      return abort('AnalysisFailed', `analysis of the canary of ${what} failed ${failures} checks (failureLimit ${analysis.failureLimit}): ${check.result.message}`);
    }
  }
  if (isTrue(input.annotations[ANNOTATION_PROMOTE]) && canary.stepIndex < input.steps.length) {
    events.push({ reason: 'CanaryPromoted', message: `canary of ${what} promoted by annotation ${ANNOTATION_PROMOTE}; skipping to the end` });
    canary = { ...canary, stepIndex: input.steps.length, stepStartedAt: now.toISOString() };
  }

  const deadlineMs = input.progressDeadlineSeconds * 1000;
  let requeueAfterMs: number | undefined;
  const advance = () => {
    canary = { ...canary, stepIndex: canary.stepIndex + 1, stepStartedAt: now.toISOString() };
    events.push({ reason: 'CanaryStep', message: `canary of ${what}: now at ${stepLabel(input.steps, canary.stepIndex)}` });
  };

  // Run through every step that is already complete under what is observed now.
  for (;;) {
    const step = input.steps[canary.stepIndex];
    if (!step) break; // promotion
    const elapsedMs = now.getTime() - Date.parse(canary.stepStartedAt);
    if (step.setWeight !== undefined) {
      const replicas = canaryReplicas(input.replicas, step.setWeight);
      const dep = observed.canaryDeployment;
      const ready = dep !== undefined && dep.revision === revision && dep.replicas === replicas && dep.available;
      if (!ready) {
        // Traffic never moves to a canary that is not available at the step's size.
        if (elapsedMs >= deadlineMs) {
          return abort('ProgressDeadlineExceeded', `canary of ${what} was not available within ${input.progressDeadlineSeconds}s at ${stepLabel(input.steps, canary.stepIndex)}`);
        }
        requeueAfterMs = deadlineMs - elapsedMs;
        return decision('CanaryStep', replicas, canary.weight, `waiting for the canary to be available at ${stepLabel(input.steps, canary.stepIndex)}`);
      }
      // The weight rises only once the data plane has taken the split as it is now, and a step
      // is done only once it has taken the step's weight.
      const routerReady = observed.routerReadiness?.ready ?? true;
      if (!routerReady && (observed.routerWeight !== step.setWeight || step.setWeight > 0)) {
        if (elapsedMs >= deadlineMs) {
          return abort('ProgressDeadlineExceeded', `the route of the canary of ${what} was not accepted within ${input.progressDeadlineSeconds}s at ${stepLabel(input.steps, canary.stepIndex)}: ${observed.routerReadiness?.message ?? 'not ready'}`);
        }
        requeueAfterMs = deadlineMs - elapsedMs;
        return decision('CanaryStep', replicas, canary.weight, `waiting for the route at ${stepLabel(input.steps, canary.stepIndex)}: ${observed.routerReadiness?.message ?? 'not ready'}`, stableRevision, 'WaitingForRoute');
      }
      // Never an unchecked rollout: without a Prometheus to ask, the canary gets no traffic.
      if (analysis && !analysis.available && step.setWeight > 0) {
        canary = withWeight(canary, 0, now);
        return {
          ...decision('CanaryStep', replicas, 0, 'holding the canary at 0%: its analysis needs a Prometheus, and the controller has no --prometheus-url', stableRevision, 'AnalysisUnavailable'),
          degraded: { reason: 'AnalysisUnavailable', message: 'spec.rollout.analysis is set but the controller has no Prometheus address (--prometheus-url, SKIFF_PROMETHEUS_URL); the canary is held at weight 0' },
        };
      }
      if (observed.routerWeight !== step.setWeight) {
        canary = withWeight(canary, step.setWeight, now);
        return decision('CanaryStep', replicas, step.setWeight, `setting the canary weight to ${step.setWeight}% at ${stepLabel(input.steps, canary.stepIndex)}`);
      }
      canary = withWeight(canary, step.setWeight, now);
      // With analysis, a step is done only after a check at its weight passed.
      if (analysis && step.setWeight > 0) {
        const last = canary.analysis;
        const passed = last?.lastResult !== undefined && last.lastWeight === step.setWeight && countsAs(last.lastResult, analysis.noData) === 'Passed';
        if (!passed) {
          const why = last?.lastResult && last.lastWeight === step.setWeight ? `last check ${last.lastResult}: ${last.message}` : 'no check at this weight yet';
          if (elapsedMs >= deadlineMs) {
            return abort('AnalysisInconclusive', `no passing analysis check of the canary of ${what} at ${step.setWeight}% within ${input.progressDeadlineSeconds}s (${why})`);
          }
          requeueAfterMs = deadlineMs - elapsedMs;
          return decision('CanaryStep', replicas, step.setWeight, `waiting for a passing analysis check at ${stepLabel(input.steps, canary.stepIndex)} (${why})`);
        }
      }
      advance();
      continue;
    }
    // A pause: the canary keeps its share of traffic, sized for the stable replicas now.
    const replicas = canaryReplicas(input.replicas, canary.weight);
    const waitMs = step.pause?.duration !== undefined ? durationMs(step.pause.duration) : undefined;
    if (waitMs === undefined) {
      return decision('CanaryPaused', replicas, canary.weight, `paused at ${stepLabel(input.steps, canary.stepIndex)}; annotate ${ANNOTATION_PROMOTE}=true to continue`);
    }
    if (elapsedMs < waitMs) {
      requeueAfterMs = waitMs - elapsedMs;
      // The end time, not the time left: the message is written once, not every second.
      const until = metaTime(new Date(Date.parse(canary.stepStartedAt) + waitMs));
      return decision('CanaryPaused', replicas, canary.weight, `paused at ${stepLabel(input.steps, canary.stepIndex)} until ${until}`);
    }
    advance();
  }

  // Promotion: stable takes spec's template; once it is available the weight goes to 0, then
  // the canary objects go, and only then does stable officially run the new revision. The
  // canary keeps the size of its last weight until no traffic reaches it.
  const promotingReplicas = canaryReplicas(input.replicas, canary.weight);
  const stable = observed.stableDeployment;
  if (!(stable && stable.revision === revision && stable.available)) {
    return decision('Promoting', promotingReplicas, canary.weight, `promoting ${what}: waiting for the stable Deployment to be available`, revision);
  }
  if ((observed.routerWeight ?? 0) > 0) {
    const weight = canary.weight;
    canary = withWeight(canary, 0, now);
    return decision('Promoting', canaryReplicas(input.replicas, weight), 0, `promoting ${what}: moving all traffic back to stable`, revision);
  }
  if (observed.canaryObjectsExist) {
    // All traffic is on the new stable; the canary's pods stay for scaleDownDelaySeconds.
    const { scaleDown, ...c } = windDown(input, observed, now);
    const until = scaleDown && !c.removeCanary ? `keeping the canary's pods until ${scaleDown.deleteAt}` : 'removing the canary objects';
    return {
      ...base,
      ...c,
      phase: 'Promoting',
      stableRevision: revision,
      status: { stableRevision, stableImage: status.stableImage, canary: { ...canary, weight: 0 }, ...(scaleDown && { scaleDown }) },
      progressing: { status: 'True', reason: 'CanaryStep', message: `promoting ${what}: ${until}` },
      events,
    };
  }
  return {
    ...base,
    phase: 'Stable',
    stableRevision: revision,
    removeCanary: false,
    status: { stableRevision: revision, stableImage: image, canary: undefined },
    progressing: { status: 'False', reason: 'RolloutComplete', message: `${what} is stable` },
    events: [...events, { reason: 'CanaryComplete', message: `canary of ${what} completed; stable runs revision ${revision}` }],
  };

  function decision(phase: Phase, replicas: number, weight: number, message: string, stableNext = stableRevision, reason?: string): CanaryDecision {
    // Checks run on their schedule while the canary gets traffic: come back when the next is due.
    if (analysis?.available && !analysis.running && (observed.routerWeight ?? 0) > 0) {
      const dueInMs = Math.max(0, nextCheckAt(canary, analysis.intervalMs) - now.getTime());
      requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, Math.max(dueInMs, 100));
    }
    return {
      ...base,
      phase,
      stableRevision: stableNext,
      canary: { revision, replicas, weight },
      removeCanary: false,
      status: { stableRevision, stableImage: status.stableImage, canary },
      progressing: { status: 'True', reason: reason ?? (phase === 'CanaryPaused' ? 'CanaryPaused' : 'CanaryStep'), message },
      requeueAfterMs,
      events,
    };
  }
}
