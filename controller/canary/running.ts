// A canary of spec's revision in progress: started or resumed, its latest check counted, a
// promotion asked for, and its steps walked as far as what is observed allows. Each function
// takes the canary's state as a value and returns the next one with the Events it caused, so
// the result of a pass never depends on the order in which shared state was written. Pure.
import { failuresOverLimit, recordCheck } from '../analysis/record.js';
import type { CanaryStatus } from '../../shared/app-types.js';
import { durationMs } from '../../shared/durations.js';
import { ANNOTATION_PROMOTE } from '../../shared/labels.js';
import { PROMOTION_STEP, stepLabel, stepName } from '../../shared/steps.js';
import { metaTime, statusTimeMs } from '../../shared/time.js';
import { checksCount, countedNote, countsAs } from '../analysis/evaluate.js';
import { findCondition } from '../state/conditions.js';
import { analysisUnavailableFor, canaryReplicas, keptCanaryReplicas, pauseWeight, routerCarries, type AbortReason, type CanaryDecision, type CanaryInput, type CanaryObserved, type RolloutEvent } from './types.js';

/** The canary's status as the pass has it so far, and the Events so far. */
export interface Progress {
  canary: CanaryStatus;
  events: RolloutEvent[];
}

/** "web:2 (revision 3f2a1b9c0d)": the image alone does not say what changed. */
export const subject = (input: Pick<CanaryInput, 'image' | 'revision'>) => `${input.image} (revision ${input.revision})`;

const isTrue = (v: string | undefined) => v !== undefined && v.toLowerCase() === 'true';

/** The canary at `weight`, noting when it changed (checks wait a full interval at a new weight). */
export function withWeight(canary: CanaryStatus, weight: number, now: Date): CanaryStatus {
  return canary.weight === weight ? canary : { ...released(canary, weight), weight, weightChangedAt: now.toISOString() };
}

/** The canary held at 0% for want of a Prometheus, remembering that it was (and from what weight). */
export function heldAtZero(canary: CanaryStatus, now: Date): CanaryStatus {
  const from = canary.weight > 0 ? canary.weight : canary.heldFromWeight;
  return { ...withWeight(canary, 0, now), ...(from !== undefined ? { heldFromWeight: from } : {}) };
}

/** A weight above 0 again ends a hold for want of a Prometheus. */
function released(canary: CanaryStatus, weight: number): CanaryStatus {
  if (weight === 0 || canary.heldFromWeight === undefined) return canary;
  const { heldFromWeight: _held, ...rest } = canary;
  return rest;
}

/**
 * The canary at a step's weight as decided, before the router carries it: without a
 * weightChangedAt, which no check is due without (schedule.ts). A weight comes into force when
 * the router has it, which may be passes later (an Ingress write that failed and is retried, a
 * route the Gateway has not accepted yet); a check before then would measure the weight before.
 */
export function decidedWeight(canary: CanaryStatus, weight: number): CanaryStatus {
  return canary.weight === weight ? canary : { ...released(canary, weight), weight, weightChangedAt: undefined };
}

/** The canary's weight seen in force, from the first pass that sees it so. */
export function inForce(canary: CanaryStatus, now: Date): CanaryStatus {
  return canary.weightChangedAt === undefined ? { ...canary, weightChangedAt: now.toISOString() } : canary;
}


/** The step at `index` in words, as status records it: "promotion" past the last step. */
const stepAt = (steps: CanaryInput['steps'], index: number) => (steps[index] === undefined ? PROMOTION_STEP : stepName(steps[index]));

/** The canary at step `index`, started now. */
export const atStep = (canary: CanaryStatus, steps: CanaryInput['steps'], index: number, now: Date): CanaryStatus =>
  ({ ...canary, stepIndex: index, stepStartedAt: now.toISOString(), step: stepAt(steps, index) });

/**
 * The canary's current step as spec has it now. The steps are read at every pass and stepIndex
 * points into them, so an edit of the list can put another step at the index: that step starts
 * now (a setWeight step measured against the time an earlier step ran would be past its deadline
 * at once). A pause whose duration was edited goes on counting from its start, and a status that
 * recorded no step keeps its clock.
 */
function currentStep(canary: CanaryStatus, steps: CanaryInput['steps'], now: Date): CanaryStatus {
  const step = stepAt(steps, canary.stepIndex);
  if (canary.step === step) return canary;
  const pauses = canary.step?.startsWith('pause') && steps[canary.stepIndex]?.pause !== undefined;
  if (canary.step === undefined || pauses) return { ...canary, step };
  // While spec.rollout.paused holds the canary its clock stands still: the step starts when the pause began.
  return { ...canary, step, stepStartedAt: canary.pausedAt ?? now.toISOString() };
}

/** The canary of spec's revision: resumed as status has it, started, or restarted when the template changed mid-rollout. */
export function startOrResume(input: CanaryInput, stableRevision: string, now: Date): Progress {
  const { image, revision, status } = input;
  if (status.canary && status.canary.revision === revision) {
    const canary = currentStep({ ...status.canary, image }, input.steps, now);
    // Steps cut below the current index: on to the promotion, said as any step reached is (while
    // paused it has not begun: said once resumed).
    const cut = canary.step === PROMOTION_STEP && status.canary.step !== undefined && status.canary.step !== PROMOTION_STEP && !input.paused;
    return { canary, events: cut ? [{ reason: 'CanaryStep', message: `canary of ${subject(input)}: now at ${stepLabel(input.steps, canary.stepIndex)} (spec.rollout.steps now end before step ${status.canary.stepIndex + 1})` }] : [] };
  }
  const canary: CanaryStatus = atStep({ image, revision, weight: 0, stepIndex: 0, stepStartedAt: now.toISOString() }, input.steps, 0, now);
  const event = status.canary
    ? { reason: 'CanaryRestarted', message: `the pod template changed to ${subject(input)} during a canary; restarting at step 1` }
    : { reason: 'CanaryStarted', message: `canary of ${subject(input)} started (stable: revision ${stableRevision})` };
  return { canary, events: [event] };
}

/**
 * The check that ran, counted into the canary's analysis (only ever for this canary: a
 * restarted one starts with none); `abort` when it makes more failures than failureLimit allows.
 */
export function countCheck(input: CanaryInput, progress: Progress): Progress & { abort?: { reason: AbortReason; message: string } } {
  const analysis = input.analysis;
  const check = input.status.canary?.revision === input.revision ? analysis?.check : undefined;
  if (!analysis) return progress;
  if (!check) {
    const abort = failuresOverLimit(progress.canary.analysis, analysis.failureLimit, `the canary of ${subject(input)}`);
    return abort ? { ...progress, abort } : progress;
  }
  const counted = countsAs(check.result.result, analysis.noData);
  const before = progress.canary.analysis ?? { checks: 0, failures: 0 };
  const recorded = recordCheck(progress.canary.analysis, { ...check, counted });
  const failures = recorded.failures;
  const canary: CanaryStatus = { ...progress.canary, analysis: recorded };
  const what = subject(input);
  const events = counted === 'Failed'
    ? [...progress.events, { reason: 'AnalysisCheckFailed', type: 'Warning' as const, message: `analysis check ${before.checks + 1} of the canary of ${what} at ${check.weight}% failed (${failures} failed so far, failureLimit ${analysis.failureLimit}${countedNote(check.result, counted)}): ${check.result.message}` }]
    : progress.events;
  const abort = failures > analysis.failureLimit
    ? { reason: 'AnalysisFailed' as const, message: `analysis of the canary of ${what} failed ${checksCount(failures)} (failureLimit ${analysis.failureLimit}${countedNote(check.result, counted)}): ${check.result.message}` }
    : undefined;
  return { canary, events, abort };
}

/** skiff.dev/promote=true: skip the remaining steps. */
export function applyPromotion(input: CanaryInput, progress: Progress, now: Date): Progress {
  if (!isTrue(input.annotations[ANNOTATION_PROMOTE]) || progress.canary.stepIndex >= input.steps.length) return progress;
  return {
    canary: atStep(progress.canary, input.steps, input.steps.length, now),
    events: [...progress.events, { reason: 'CanaryPromoted', message: `canary of ${subject(input)} promoted by annotation ${ANNOTATION_PROMOTE}; skipping to the end` }],
  };
}

/** The pass stops at a step: the canary objects at `replicas` and the router at `weight`. */
export interface Hold {
  kind: 'hold';
  progress: Progress;
  phase: 'CanaryStep' | 'CanaryPaused';
  replicas: number;
  weight: number;
  message: string;
  /** The Progressing reason, when it is not the phase's. */
  reason?: string;
  /** When the step's deadline or timer runs out. */
  requeueAfterMs?: number;
  degraded?: CanaryDecision['degraded'];
}

export type StepsOutcome = Hold | { kind: 'abort'; progress: Progress; reason: AbortReason; message: string } | { kind: 'promote'; progress: Progress };

type OneStep = Hold | { kind: 'abort'; reason: AbortReason; message: string; canary: CanaryStatus } | { kind: 'done'; canary: CanaryStatus };

/** Runs through every step that is already complete under what is observed now. */
export function walkSteps(input: CanaryInput, observed: CanaryObserved, start: Progress, now: Date): StepsOutcome {
  let progress = analysisBack(input, start, now);
  for (;;) {
    // The promotion does not watch the canary's availability (stable takes the traffic): no record of it.
    if (progress.canary.stepIndex >= input.steps.length) return { kind: 'promote', progress: { ...progress, canary: availableAgain(progress.canary) } };
    const outcome = oneStep(input, observed, progress, now);
    if (outcome.kind === 'hold') return outcome;
    if (outcome.kind === 'abort') return { kind: 'abort', progress: { ...progress, canary: outcome.canary }, reason: outcome.reason, message: outcome.message };
    const canary = atStep(outcome.canary, input.steps, outcome.canary.stepIndex + 1, now);
    progress = { canary, events: [...progress.events, { reason: 'CanaryStep', message: `canary of ${subject(input)}: now at ${stepLabel(input.steps, canary.stepIndex)}` }] };
  }
}

type HoldAt = (phase: Hold['phase'], replicas: number, weight: number, message: string, extra?: Partial<Hold>, next?: CanaryStatus) => Hold;

/** Degraded while no check can run: one message wherever the canary is held, so that holding it in another way writes no new Event. */
export const ANALYSIS_UNAVAILABLE = { reason: 'AnalysisUnavailable' as const, message: 'spec.rollout.analysis is set but the controller has no Prometheus address (--prometheus-url, SKIFF_PROMETHEUS_URL); the canary is held at weight 0' };

/**
 * A setWeight step held for want of a Prometheus did not time out meanwhile: once the controller
 * has one, its progressDeadlineSeconds counts from then (the step starts again), or a step held
 * longer than that would be aborted the moment it got its weight, before any check could run. Told
 * by the App's Degraded condition, which says AnalysisUnavailable until the pass that has a
 * Prometheus writes its status. A pause keeps its start: its timer is the pause itself, and it
 * gets its weight back with no deadline (pauseStep).
 */
function analysisBack(input: CanaryInput, start: Progress, now: Date): Progress {
  const degraded = findCondition(input.status.conditions, 'Degraded');
  const held = degraded?.status === 'True' && degraded.reason === ANALYSIS_UNAVAILABLE.reason;
  const step = input.steps[start.canary.stepIndex];
  if (!held || !input.analysis?.available || step?.setWeight === undefined) return start;
  return { ...start, canary: { ...start.canary, stepStartedAt: now.toISOString() } };
}

/** The canary held at 0%: its analysis cannot run. */
function analysisUnavailable(hold: HoldAt, replicas: number, canary: CanaryStatus, now: Date): Hold {
  return hold('CanaryStep', replicas, 0, 'holding the canary at 0%: its analysis needs a Prometheus, and the controller has no --prometheus-url', {
    reason: 'AnalysisUnavailable',
    degraded: ANALYSIS_UNAVAILABLE,
  }, heldAtZero(canary, now));
}

/** The canary without a record of being unavailable. */
function availableAgain(canary: CanaryStatus): CanaryStatus {
  if (canary.unavailableSince === undefined) return canary;
  const { unavailableSince: _since, ...rest } = canary;
  return rest;
}

/**
 * A canary with traffic on fewer available pods than that traffic needs (its pods crashed or
 * were evicted, or the stable replicas grew; see oneStep): it keeps its weight (weights follow
 * the steps only) and does not move on, and once it has been unavailable for
 * progressDeadlineSeconds it is aborted, which takes its weight to 0. Since when is kept in status.canary.unavailableSince, so that a restarted
 * controller neither forgets the time nor starts it over.
 */
function unavailableWithTraffic(input: CanaryInput, canary: CanaryStatus, here: string, now: Date, hold: (message: string, requeueAfterMs: number, next: CanaryStatus) => Hold): OneStep {
  // A time that does not parse starts the count now, rather than every pass.
  const recorded = statusTimeMs(canary.unavailableSince, NaN);
  const since = Number.isFinite(recorded) ? canary.unavailableSince! : now.toISOString();
  const sinceMs = Number.isFinite(recorded) ? recorded : now.getTime();
  const abortAtMs = sinceMs + input.progressDeadlineSeconds * 1000;
  const sinceText = metaTime(new Date(sinceMs));
  if (now.getTime() >= abortAtMs) {
    return { kind: 'abort', canary, reason: 'ProgressDeadlineExceeded', message: `canary of ${subject(input)} was not available for ${input.progressDeadlineSeconds}s at ${here} (unavailable since ${sinceText}) while it had ${canary.weight}% of the traffic` };
  }
  // Times, not durations: the message is written once, not every pass.
  const message = `waiting for the canary to be available again at ${here}: unavailable since ${sinceText}; aborting at ${metaTime(new Date(abortAtMs))}`;
  return hold(message, abortAtMs - now.getTime(), { ...canary, unavailableSince: since });
}

/**
 * A pause step: the canary keeps its share of traffic, sized for the stable replicas now. Its
 * share is the weight of the last setWeight step before it: a canary that lost it (held at 0% by
 * a controller without a Prometheus) gets it back as a setWeight step sets it, since the pause is
 * there for checks at that weight.
 */
function pauseStep(input: CanaryInput, observed: CanaryObserved, canary: CanaryStatus, lost: boolean, duration: string | undefined, now: Date, hold: HoldAt): OneStep {
  const here = stepLabel(input.steps, canary.stepIndex);
  // Sized for the pause's weight also while held at 0%: the pods are ready when it comes back.
  const weight = pauseWeight(input.steps, canary.stepIndex, canary);
  // And never fewer pods than a route not yet accepted may still send traffic to (not for a weight raised by hand).
  const replicas = keptCanaryReplicas(input, observed, weight, Math.min(observed.routerWeight ?? 0, weight));
  // Unless no check can run (a controller started without a Prometheus): never unchecked traffic.
  // Degraded for as long as that keeps the pause from its weight, not only in the pass that took it.
  if (analysisUnavailableFor(input) && weight > 0) return analysisUnavailable(hold, replicas, canary, now);
  if (lost) return unavailableWithTraffic(input, canary, here, now, (message, requeueAfterMs, next) => hold('CanaryPaused', replicas, canary.weight, message, { requeueAfterMs }, next));
  const waitMs = duration !== undefined ? durationMs(duration) : undefined;
  const startedMs = statusTimeMs(canary.stepStartedAt, now.getTime());
  const elapsedMs = now.getTime() - startedMs;
  // The pause's own timer runs from its start, whatever its weight did meanwhile.
  if (waitMs !== undefined && elapsedMs >= waitMs) return { kind: 'done', canary };
  // A weight got back in an earlier pass (decided, not yet in force) is in force once the data
  // plane carries it, as a setWeight step's is: checks are due from then.
  const carried = canary.weight > 0 && observed.routerWeight === canary.weight && observed.routerReadiness?.ready !== false;
  // No deadline: the pause began long ago, maybe; its timer, or a promote, ends the wait.
  const restored = canary.weight < weight ? toWeight(input, observed, canary, lost, weight, NO_DEADLINE, now, hold) : { kind: 'done' as const, canary: carried ? inForce(canary, now) : canary };
  if (restored.kind !== 'done') return restored;
  const at = restored.canary;
  if (waitMs === undefined) return hold('CanaryPaused', replicas, at.weight, `paused at ${here}; annotate ${ANNOTATION_PROMOTE}=true to continue`, {}, at);
  // The end time, not the time left: the message is written once, not every second.
  const until = metaTime(new Date(startedMs + waitMs));
  return hold('CanaryPaused', replicas, at.weight, `paused at ${here} until ${until}`, { requeueAfterMs: waitMs - elapsedMs }, at);
}

/**
 * The canary brought to `weight` at its step (a setWeight step's, or the one a pause gets back):
 * done once the router carries it. Traffic moves only to a canary available at the weight's size,
 * once the data plane has taken the split as it is, within `deadline` (a setWeight step's: progressDeadlineSeconds from its start).
 */
function toWeight(input: CanaryInput, observed: CanaryObserved, canary: CanaryStatus, lost: boolean, weight: number, deadline: Deadline, now: Date, hold: HoldAt): OneStep {
  const dep = observed.canaryDeployment;
  const here = stepLabel(input.steps, canary.stepIndex);
  // Never fewer pods than the router may still send traffic to: see keptCanaryReplicas.
  const replicas = keptCanaryReplicas(input, observed, weight);
  const untilDeadline = deadline.leftMs === undefined ? {} : { requeueAfterMs: deadline.leftMs };
  const what = subject(input);
  // A step that waits (for the canary's pods, for its route) keeps the canary's weight, unless no
  // check can run (a controller restarted without a Prometheus while the canary had traffic): that
  // traffic goes back to stable meanwhile, never unchecked, whatever the step waits for.
  const unchecked = analysisUnavailableFor(input) && (observed.routerWeight ?? 0) > 0;
  const waiting = (message: string, extra: Partial<Hold>) => unchecked
    ? hold('CanaryStep', replicas, 0, message, { ...extra, degraded: ANALYSIS_UNAVAILABLE }, withWeight(canary, 0, now))
    : hold('CanaryStep', replicas, canary.weight, message, extra);
  if (!(dep !== undefined && dep.revision === input.revision && dep.replicas === replicas && dep.available)) {
    // Pods refused (a quota, a LimitRange) never come: the wait, and the abort at its deadline, say why.
    const refused = dep?.revision === input.revision && dep.replicaFailure !== undefined ? `: its pods cannot be created: ${dep.replicaFailure}` : '';
    // Traffic never moves to a canary that is not available at the step's size.
    if (deadline.past) return { kind: 'abort', canary, reason: 'ProgressDeadlineExceeded', message: `canary of ${what} was not available within ${input.progressDeadlineSeconds}s at ${here}${refused}` };
    // One that already has traffic (and is checked) is also held to the time it has been
    // unavailable (a step edited in place starts anew, the loss it follows does not); whichever
    // deadline comes first.
    if (lost && !unchecked) return unavailableWithTraffic(input, canary, here, now, (message, requeueAfterMs, next) => hold('CanaryStep', replicas, canary.weight, message, { requeueAfterMs: Math.min(requeueAfterMs, deadline.leftMs ?? Infinity) }, next));
    return waiting(`waiting for the canary to be available at ${here}${refused}`, untilDeadline);
  }
  // The weight rises only once the data plane has taken the split as it is now, and a step is
  // done only once it has taken the step's weight.
  if (!routerCarries(observed) && (observed.routerWeight !== weight || weight > 0)) {
    const why = observed.routerReadiness?.message ?? 'not ready';
    if (deadline.past) return { kind: 'abort', canary, reason: 'ProgressDeadlineExceeded', message: `the route of the canary of ${what} was not accepted within ${input.progressDeadlineSeconds}s at ${here}: ${why}` };
    return waiting(`waiting for the route at ${here}: ${why}`, { ...untilDeadline, reason: 'WaitingForRoute' });
  }
  // Never an unchecked rollout: without a Prometheus to ask, the canary gets no traffic.
  if (analysisUnavailableFor(input) && weight > 0) return analysisUnavailable(hold, replicas, canary, now);
  // A step's weight goes to the router only in a pass whose stored status is at that step. Were
  // the status write of the pass that took the step to fail (a 409, the controller stopping), the
  // next pass would read the step before from the status and set the router back to its weight:
  // traffic that went up a step, down, and up again. The step is recorded first, at the weight
  // the router has; the weight follows in the next pass.
  const stepStored = input.status.canary?.revision === input.revision && input.status.canary.stepIndex === canary.stepIndex;
  if (observed.routerWeight !== weight && !stepStored) return hold('CanaryStep', replicas, canary.weight, `setting the canary weight to ${weight}% at ${here}`, { requeueAfterMs: 0 });
  const decided = decidedWeight(canary, weight);
  if (observed.routerWeight !== weight) {
    // A router the pass cannot write (the canary's Service refused by a quota, a canary name that
    // is someone else's object: the Degraded condition and the Events say which) never takes the
    // weight: held to the step's deadline as a canary that never becomes available is. Only once
    // a pass before has decided the weight (stored in status) and so asked the router for it: a
    // canary that became available just before the deadline gets its weight, not an abort.
    const asked = stepStored && input.status.canary?.weight === weight;
    if (asked && deadline.past) return { kind: 'abort', canary, reason: 'ProgressDeadlineExceeded', message: `the router did not take the weight ${weight}% of the canary of ${what} within ${input.progressDeadlineSeconds}s at ${here} (see the Degraded condition and the App's Events for why)` };
    return hold('CanaryStep', replicas, weight, `setting the canary weight to ${weight}% at ${here}`, untilDeadline, decided);
  }
  return { kind: 'done', canary: inForce(decided, now) };
}

/** Whether a wait's deadline is over, and how long it has left (undefined: it has none). */
interface Deadline { past: boolean; leftMs?: number }

/** A pause getting its weight back: held to no deadline of its own (the pause's start is no measure of it). */
const NO_DEADLINE: Deadline = { past: false };

/** Whether the step's progressDeadlineSeconds, counted from its start, is over, and how long it has left. */
export function stepDeadline(input: Pick<CanaryInput, 'progressDeadlineSeconds'>, canary: CanaryStatus, now: Date): Required<Deadline> {
  const leftMs = input.progressDeadlineSeconds * 1000 - (now.getTime() - statusTimeMs(canary.stepStartedAt, now.getTime()));
  return { past: leftMs <= 0, leftMs };
}

/** Whether the current step is done, holds, or aborts the rollout. */
function oneStep(input: CanaryInput, observed: CanaryObserved, progress: Progress, now: Date): OneStep {
  const dep = observed.canaryDeployment;
  // Traffic on a canary whose pods are not available: see unavailableWithTraffic. One being
  // resized (grown for the next step's weight, shrunk after a lower one) is not: the pods for the
  // weight it has are up. One with fewer (pods crashed or evicted, or the stable replicas grew) is.
  // (While a route has not accepted a lower weight, the canary keeps more pods than that weight
  // needs, for the weight before; a loss among those is bounded by the step's deadline.) Right
  // after a resize, before the Deployment controller has seen it, nothing new is known: no count
  // starts, and one under way goes on.
  const ours = dep !== undefined && dep.revision === input.revision;
  const needed = canaryReplicas(input.replicas, Math.max(progress.canary.weight, observed.routerWeight ?? 0));
  const serves = ours && (dep.available || (dep.serving ?? 0) >= needed);
  const unknown = ours && dep.settling === true && progress.canary.unavailableSince === undefined;
  const lost = progress.canary.weight > 0 && !serves && !unknown;
  const canary = lost ? progress.canary : availableAgain(progress.canary);
  const step = input.steps[canary.stepIndex];
  const hold = (phase: Hold['phase'], replicas: number, weight: number, message: string, extra: Partial<Hold> = {}, next = canary): Hold =>
    ({ kind: 'hold', progress: { ...progress, canary: next }, phase, replicas, weight, message, ...extra });

  if (step.setWeight === undefined) return pauseStep(input, observed, canary, lost, step.pause?.duration, now, hold);

  const weight = step.setWeight;
  const deadline = stepDeadline(input, canary, now);
  const reached = toWeight(input, observed, canary, lost, weight, deadline, now, hold);
  const analysis = input.analysis;
  if (reached.kind !== 'done' || !analysis || weight === 0) return reached;
  // With analysis, a step is done only after a check at its weight passed.
  const atWeight = reached.canary;
  const last = atWeight.analysis;
  // A check of this time at the weight: one that passed before the weight went elsewhere (to
  // 0, where no check runs, or the hold of AnalysisUnavailable) and came back measured other traffic.
  const sinceWeight = statusTimeMs(atWeight.weightChangedAt, -Infinity);
  const passed = last?.lastResult !== undefined && last.lastWeight === weight && countsAs(last.lastResult, analysis.noData) === 'Passed'
    && !(statusTimeMs(last.lastCheckAt, Infinity) < sinceWeight);
  if (passed) return reached;
  const why = last?.lastResult && last.lastWeight === weight ? `last check ${last.lastResult}: ${last.message}` : 'no check at this weight yet';
  if (deadline.past) return { kind: 'abort', canary: atWeight, reason: 'AnalysisInconclusive', message: `no passing analysis check of the canary of ${subject(input)} at ${weight}% within ${input.progressDeadlineSeconds}s (${why})` };
  return hold('CanaryStep', canaryReplicas(input.replicas, weight), weight, `waiting for a passing analysis check at ${stepLabel(input.steps, canary.stepIndex)} (${why})`, { requeueAfterMs: deadline.leftMs }, atWeight);
}
