// spec.rollout.paused, as a Deployment's spec.paused: a running canary holds its weight and its
// step, and its clock stops (a timed pause and the progress deadline are measured from
// stepStartedAt and unavailableSince, which move forward by the time paused on resume); a new
// revision waits to start. What a person asks explicitly (promote, abort) and the analysis checks still act. Pure.
import { PROMOTION_STEP, stepLabel } from '../../shared/steps.js';
import { ANNOTATION_ABORT, ANNOTATION_PROMOTE } from '../../shared/labels.js';
import { holdDecision } from './decisions.js';
import { ANALYSIS_UNAVAILABLE, decidedWeight, heldAtZero, inForce, subject, type Hold, type Progress } from './running.js';
import { analysisUnavailableFor, keptCanaryReplicas, PAUSED_REASON, pauseWeight, type CanaryDecision, type CanaryInput, type CanaryObserved, type RolloutEvent } from './types.js';
import { scaleDownField, windDown, windingDown } from './wind-down.js';
import { statusTimeMs } from '../../shared/time.js';

const isTrue = (v: string | undefined) => v !== undefined && v.toLowerCase() === 'true';

/**
 * The canary's clock as the pause leaves it (`holds`: pauseHolds): pausedAt set when the pause
 * begins; on resume, stepStartedAt (and unavailableSince) moved forward by the time paused (the
 * step's timers go on where they stopped).
 */
export function pauseOrResume(input: CanaryInput, progress: Progress, now: Date, holds: boolean): Progress {
  const { canary } = progress;
  const at = subject(input);
  if (holds) {
    if (canary.pausedAt !== undefined) return progress;
    return {
      canary: { ...canary, pausedAt: now.toISOString() },
      events: [...progress.events, { reason: PAUSED_REASON, message: `rollout of ${at} paused at ${stepLabel(input.steps, canary.stepIndex)} (spec.rollout.paused)` }],
    };
  }
  if (canary.pausedAt === undefined) return progress;
  const pausedMs = Math.max(0, now.getTime() - statusTimeMs(canary.pausedAt, now.getTime()));
  const { pausedAt: _pausedAt, ...running } = canary;
  // Still paused in spec, the pause no longer holds a promotion asked for (or one under way): that
  // has Events of its own, and nothing was resumed.
  const resumed: RolloutEvent[] = input.paused ? [] : [{ reason: 'RolloutResumed', message: `rollout of ${at} resumed at ${stepLabel(input.steps, canary.stepIndex)} after ${Math.round(pausedMs / 1000)}s paused` }];
  const later = (t: string) => new Date(statusTimeMs(t, now.getTime()) + pausedMs).toISOString();
  // The time a canary with traffic has been unavailable stood still too: the deadline is not
  // counted while paused (running.ts, unavailableWithTraffic).
  const unavailable = running.unavailableSince !== undefined ? { unavailableSince: later(running.unavailableSince) } : {};
  return {
    canary: { ...running, stepStartedAt: later(canary.stepStartedAt), ...unavailable },
    events: [...progress.events, ...resumed],
  };
}

/**
 * Whether the pause holds the canary now: while paused, unless its steps are done (a promotion
 * under way finishes) or a person asked for the promotion. Steps were done when the canary had
 * reached its promotion before this pass (status.canary.step; a status without it: by its index):
 * steps cut short below the current index while paused do not start a promotion, as the step
 * they replace would not have.
 */
export const pauseHolds = (input: CanaryInput, progress: Progress) => {
  const recorded = input.status.canary?.step;
  const promoting = progress.canary.stepIndex >= input.steps.length && (recorded === undefined || recorded === PROMOTION_STEP);
  return input.paused === true && !promoting && !isTrue(input.annotations[ANNOTATION_PROMOTE]);
};

/**
 * The canary held by the pause: at the weight the router carries (no rise, no fall), its
 * Deployment at the size its step has. Checks go on: holdDecision brings the pass back for them.
 */
export function pausedHold(input: CanaryInput, observed: CanaryObserved, stableRevision: string, progress: Progress, now: Date): CanaryDecision {
  const { canary } = progress;
  const step = input.steps[canary.stepIndex];
  // What the router carries, up to what the step engine last decided: a weight raised by hand on
  // the canary Ingress or the route while paused is no weight the steps gave (and is put back).
  const routerWeight = Math.min(observed.routerWeight ?? 0, canary.weight);
  // Without a Prometheus no check runs, so none could abort: the pause holds the canary at 0%, as a
  // running step does (never unchecked traffic), and says why.
  const unchecked = analysisUnavailableFor(input);
  const weight = unchecked ? 0 : routerWeight;
  // Sized for the step (a pause: the weight it holds, also while held at 0% for want of a
  // Prometheus, as pauseStep sizes it), and never below what the router may still send it (a step
  // down to a lower weight, a route not yet accepted).
  const replicas = keptCanaryReplicas(input, observed, step?.setWeight ?? (step ? pauseWeight(input.steps, canary.stepIndex, canary) : canary.weight), routerWeight);
  // The router carries the held weight: in force from now if it was only decided before the
  // pause (no weightChangedAt yet), or no check would ever be due while paused. Not while the
  // router has not taken it (a route its Gateway has not accepted for its generation still splits
  // as before): a check then would measure the weight before; the route's status change brings
  // the pass that puts it in force.
  // Steps cut below the current index while paused: the index now reads as the promotion, which
  // has not begun (pauseHolds). The status keeps the step it recorded, so that the next pass, reading
  // it back, still holds; the promotion begins once resumed.
  const recorded = input.status.canary?.step;
  const kept = canary.step === PROMOTION_STEP && recorded !== undefined && recorded !== PROMOTION_STEP ? { ...canary, step: recorded } : canary;
  const held = unchecked ? heldAtZero(kept, now) : decidedWeight(kept, weight);
  const hold: Omit<Hold, 'kind' | 'phase'> & { phase: Hold['phase'] } = {
    progress: { ...progress, canary: observed.routerReadiness?.ready === false || unchecked ? held : inForce(held, now) },
    phase: 'CanaryPaused',
    replicas,
    weight,
    reason: PAUSED_REASON,
    message: `paused (spec.rollout.paused) at ${stepLabel(input.steps, canary.stepIndex)} with ${weight}% of the traffic on ${subject(input)}; set spec.rollout.paused to false to continue`,
    ...(unchecked ? { degraded: ANALYSIS_UNAVAILABLE } : {}),
  };
  return holdDecision(input, observed, stableRevision, hold, now);
}

/**
 * What skiff.dev/abort or skiff.dev/promote does while spec's revision waits for
 * spec.rollout.paused: nothing, since no rollout of it has begun. The annotation is consumed as
 * every command is, and a Warning says that it did nothing and what does.
 * - abort (canary and blue-green): marking the waiting revision aborted would keep it from rolling
 *   out on resume with nothing on the App that shows why.
 * - promote (canary only: a paused blue-green App keeps it for the preview that starts on resume,
 *   which still waits to be ready): it is not kept for resume either, since a canary's promotion
 *   skips its steps and analysis and would take a revision nobody has seen run straight to stable.
 */
const IGNORED_WHILE_WAITING = {
  abort: { annotation: ANNOTATION_ABORT, reason: 'AbortIgnored', started: 'no rollout of it has started, so there is nothing to abort', then: 'To drop the change, put the pod template back (kubectl skiff undo); to roll it out, resume' },
  promote: { annotation: ANNOTATION_PROMOTE, reason: 'PromoteIgnored', started: 'no canary of it has started, so there is nothing to promote', then: 'To roll it out, resume (kubectl skiff resume): its canary starts at the first step, and can be promoted then' },
} as const;

export function ignoredWhileWaiting(command: keyof typeof IGNORED_WHILE_WAITING, annotations: Record<string, string>, what: string, stableRevision: string): RolloutEvent[] {
  const { annotation, reason, started, then } = IGNORED_WHILE_WAITING[command];
  if (!isTrue(annotations[annotation])) return [];
  return [{
    reason,
    type: 'Warning',
    message: `${annotation} ignored: the pod template's change to ${what} waits for spec.rollout.paused to be false and ${started}; stable stays on revision ${stableRevision}. ${then}`,
  }];
}

/**
 * A new revision on a paused App: it waits to start and stable keeps its template; a canary of an
 * earlier revision (replaced by this one) winds down as any cancelled canary does.
 */
export function waitingDecision(input: CanaryInput, observed: CanaryObserved, stableRevision: string, consumedAnnotations: string[], now: Date): CanaryDecision {
  const { status } = input;
  const { scaleDown, ...c } = windDown(input, observed, now);
  const message = `the pod template changed to ${subject(input)}; its rollout starts once spec.rollout.paused is false (stable stays on revision ${stableRevision})`;
  return {
    consumedAnnotations,
    ...c,
    phase: windingDown(observed) ? 'CleaningUp' : 'Paused',
    stableRevision,
    status: { stableRevision, stableImage: status.stableImage, abortedRevision: status.abortedRevision, abortedImage: status.abortedImage, canary: undefined, ...scaleDownField(scaleDown) },
    progressing: { status: 'Unknown', reason: PAUSED_REASON, message },
    events: [
      ...(status.canary ? [{ reason: 'CanaryCancelled', message: `the pod template changed to ${subject(input)} during a canary; removing the canary, and the new rollout waits for spec.rollout.paused to be false` }] : []),
      ...ignoredWhileWaiting('abort', input.annotations, subject(input), stableRevision),
      ...ignoredWhileWaiting('promote', input.annotations, subject(input), stableRevision),
    ],
  };
}
