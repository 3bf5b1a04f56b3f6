// The canary step engine: a pure function from the App (spec, annotations, status) and what
// is observed in the cluster to what the cluster should look like next. The reconciler applies
// the decision; nothing here talks to the API server, so every situation is a table row in
// the unit tests, including a controller restart in the middle of any step (all the state
// the engine needs is in the App's status).
//
// What rolls out is a pod-template revision (a hash of everything the pods run), not only an
// image: a new env var or a new probe gets a canary like a new image does.
//
// planCanary reads as the order of questions it asks; each answer is built by a function of its
// own (decisions.ts, running.ts, wind-down.ts) from values, never from state shared between them.
import { ANNOTATION_ABORT, ANNOTATION_PROMOTE } from '../../shared/labels.js';
import { readCommands } from './commands.js';
import { abortDecision, abortedDecision, consumed, holdDecision, promotionDecision, stableDecision } from './decisions.js';
import { pauseHolds, pauseOrResume, pausedHold, waitingDecision } from './paused.js';
import { applyPromotion, countCheck, startOrResume, stepDeadline, subject, walkSteps, withWeight, type Progress } from './running.js';
import type { CanaryStatus, ScaleDownStatus } from '../../shared/app-types.js';
import { statusTimeMs } from '../../shared/time.js';
import { unconfirmedBy } from '../analysis/evaluate.js';
import type { CanaryDecision, CanaryInput, CanaryObserved } from './types.js';
import { weightRiseAllowed } from './weight-ceiling.js';
import { scaleDownField, windDown, type WindDown } from './wind-down.js';

export * from './types.js';

/**
 * The decision for the App's canary now. Whatever the inputs, the weight the decision carries
 * rises above the router's current weight only in a running step, to what that step holds (a
 * setWeight step's weight, or the weight a pause keeps): promotion, aborts and wind-downs keep
 * or lower it (see weightRiseAllowed).
 */
export function planCanary(input: CanaryInput, observed: CanaryObserved, now: Date): CanaryDecision {
  const commands = readCommands(input);
  const planned = commands.skipCanary ? stableDecision(input, observed, now) : plan(commands.input, observed, now);
  const decision: CanaryDecision = {
    ...planned,
    events: [...commands.events, ...planned.events],
    ...(commands.retried ? { retried: true } : {}),
  };
  if (!decision.canary || weightRiseAllowed(input, observed, decision)) return decision;
  return { ...decision, canary: { ...decision.canary, weight: observed.routerWeight ?? 0, decided: decision.canary.weight } };
}

/**
 * Whether the promotion of `canary` has begun: its first act puts the stable Deployment on the
 * canary's revision, which nothing else does. From then on the promotion runs to its end,
 * whatever else changes (steps added, a new pod template).
 */
const promotionBegun = (canary: CanaryStatus, observed: CanaryObserved) => observed.stableDeployment?.revision === canary.revision;

function plan(input: CanaryInput, observed: CanaryObserved, now: Date): CanaryDecision {
  const { revision, status } = input;
  if (status.stableRevision === undefined || revision === status.stableRevision) return stableDecision(input, observed, now);
  // A promotion asked for a blue-green rollout (the strategy was changed to Canary since) was for
  // its preview, not for a canary that has not run yet: removed without promoting, with a word.
  const forBlueGreen = input.status.blueGreen !== undefined && status.canary?.revision !== revision;
  if (forBlueGreen && input.annotations[ANNOTATION_PROMOTE]?.toLowerCase() === 'true') {
    const { [ANNOTATION_PROMOTE]: _promote, ...annotations } = input.annotations;
    const decided = plan({ ...input, annotations }, observed, now);
    return {
      ...decided,
      consumedAnnotations: [...new Set([...decided.consumedAnnotations, ANNOTATION_PROMOTE])],
      events: [...decided.events, { reason: 'PromoteIgnored', type: 'Warning', message: `${ANNOTATION_PROMOTE} was for the blue-green rollout the change of strategy to Canary replaced: the canary of ${subject(input)} is not promoted by it; promote again to skip its steps` }],
    };
  }
  const stableRevision = status.stableRevision;
  // A new template while an earlier revision is being promoted: that promotion ends first (stable
  // keeps the promoted revision), then spec's revision starts a canary against it. It is still the
  // rollout under way: its checks count and an abort (asked for, or by analysis) takes stable back.
  const earlier = status.canary;
  if (earlier?.revision !== undefined && earlier.revision !== revision && promotionBegun(earlier, observed)) {
    const promoted = { ...input, revision: earlier.revision, image: earlier.image };
    const counted = countCheck(promoted, { canary: earlier, events: [] });
    if (input.annotations[ANNOTATION_ABORT]?.toLowerCase() === 'true') {
      return abortDecision(promoted, observed, stableRevision, counted.events, 'RolloutAborted', `promotion of ${subject(promoted)} aborted by annotation ${ANNOTATION_ABORT}; stable goes back to revision ${stableRevision}`, now);
    }
    if (counted.abort) return abortDecision(promoted, observed, stableRevision, counted.events, counted.abort.reason, counted.abort.message, now);
    return promotionDecision(promoted, observed, stableRevision, counted, now);
  }
  if (revision === status.abortedRevision) return abortedDecision(input, observed, stableRevision, now);
  // A new revision on a paused App waits; one under way goes on below and is held at its step.
  if (input.paused && status.canary?.revision !== revision) return waitingDecision(input, observed, stableRevision, consumed(input), now);

  // A promotion begun runs to its end as recorded: steps edited meanwhile neither reopen it nor
  // make its status read as one of them (status.canary.step stays `promotion`).
  const recorded = status.canary?.revision === revision ? status.canary : undefined;
  const promoting = recorded !== undefined && promotionBegun(recorded, observed);
  const started = promoting ? { canary: { ...recorded, image: input.image }, events: [] } : startOrResume(input, stableRevision, now);
  if (input.annotations[ANNOTATION_ABORT]?.toLowerCase() === 'true') {
    return abortDecision(input, observed, stableRevision, started.events, 'RolloutAborted', abortedByAnnotation(input, stableRevision, promoting), now);
  }
  // The canary's pods are of another revision (the template changed) and still get traffic: the
  // traffic goes back to stable before they take the new template. Through any router: one the App
  // is switching from still sends its share until it is retired (act drops its split at weight 0),
  // and a route at 0 sends it until its Gateway has accepted that (one no Gateway ever accepted sends nothing).
  const other = observed.canaryDeployment;
  // A route without the canary's backend (the pass that waits out the earlier pods' delay removed
  // it, once the route at 0 was accepted) sends them nothing new while its Gateway takes that in:
  // the wait begins once it has (wind-down), not a drain over again.
  const lagging = observed.routerReadiness?.ready === false && observed.routerReadiness.served !== false && observed.routerWeight !== undefined;
  const routed = Math.max(observed.routerWeight ?? 0, observed.previousRouterWeight ?? 0) > 0 || lagging;
  const earlierPods = other && other.revision !== revision ? other : undefined;
  if (earlierPods && routed) return drainFirst(input, observed, stableRevision, started, earlierPods, now);
  // Its traffic back on stable, those pods keep running scaleDownDelaySeconds before they take the
  // new template, as the pods of a finished canary do before they go: requests already sent to
  // them finish, and a router that takes the change late sends to them, not to pods of a revision
  // before its first step. A delay already recorded for them (an abort's) is kept as it is.
  if (earlierPods && input.scaleDownDelaySeconds > 0) {
    const wound = windDown(input, observed, now);
    if (!wound.removeCanary) return earlierPodsWait(input, stableRevision, started, earlierPods, wound);
  }
  const counted = countCheck(input, afterEarlierPods(started, input.status.scaleDown, revision));
  if (counted.abort) return abortDecision(input, observed, stableRevision, counted.events, counted.abort.reason, counted.abort.message, now);
  if (promotionBegun(counted.canary, observed)) return promotionDecision(input, observed, stableRevision, counted, now);
  const holds = pauseHolds(input, counted);
  const clock = pauseOrResume(input, counted, now, holds);
  if (holds) return pausedHold(input, observed, stableRevision, clock, now);
  const steps = walkSteps(input, observed, applyPromotion(input, clock, now), now);
  switch (steps.kind) {
    case 'hold':
      return holdDecision(input, observed, stableRevision, steps, now);
    case 'abort':
      return abortDecision(input, observed, stableRevision, steps.progress.events, steps.reason, steps.message, now);
    case 'promote':
      return promotionDecision(input, observed, stableRevision, withUnconfirmed(input, steps.progress), now);
  }
}

/**
 * The steps are done and the promotion begins, but the last analysis check did not pass: it was
 * inconclusive (Prometheus down, too few requests) under noData Wait or Fail, or failed within
 * failureLimit, during a pause that needs no passing check. The promotion goes on, as the steps
 * say; a Warning says what the last check found, since from here only a change rolls back. Not
 * for a promotion asked for (kubectl skiff promote skips the checks on purpose).
 */
function withUnconfirmed(input: CanaryInput, progress: Progress): Progress {
  const a = progress.canary.analysis;
  const found = input.analysis && unconfirmedBy(a, input.analysis);
  if (found === undefined || progress.events.some((e) => e.reason === 'CanaryPromoted')) return progress;
  const event = { reason: 'PromotionUnconfirmed', type: 'Warning' as const, message: `canary of ${subject(input)} is promoted at the end of its steps, but its last analysis check${a?.lastWeight !== undefined ? ` (at ${a.lastWeight}%)` : ''} ${found}` };
  return { ...progress, events: [...progress.events, event] };
}

/** An abort asked for: once the promotion began, stable runs the canary's revision, and the abort takes it back. */
const abortedByAnnotation = (input: CanaryInput, stableRevision: string, promoting: boolean) => promoting
  ? `promotion of ${subject(input)} aborted by annotation ${ANNOTATION_ABORT}; stable goes back to revision ${stableRevision}`
  : `canary of ${subject(input)} aborted by annotation ${ANNOTATION_ABORT}; stable stays on revision ${stableRevision}`;

/**
 * The earlier revision's canary pods waiting out their delay: no canary routing (the canary
 * Ingress, or the route's canary backend and header rule, goes: the requests carrying the header
 * would reach them too), the objects left as they are, the new canary recorded and not begun.
 */
function earlierPodsWait(input: CanaryInput, stableRevision: string, started: Progress, pods: NonNullable<CanaryObserved['canaryDeployment']>, wound: WindDown): CanaryDecision {
  const until = wound.scaleDown ? `keep running until ${wound.scaleDown.deleteAt}` : `keep running for ${input.scaleDownDelaySeconds}s once the routing has taken their traffic back to stable,`;
  // A promotion now would take a revision no pod has run yet straight to stable (a canary's
  // promotion skips its steps and checks): consumed as every command is, with a Warning, as while
  // spec.rollout.paused holds a change; the canary can be promoted once it runs.
  const promote = input.annotations[ANNOTATION_PROMOTE]?.toLowerCase() === 'true'
    ? [{ reason: 'PromoteIgnored', type: 'Warning' as const, message: `${ANNOTATION_PROMOTE} ignored: the canary of ${subject(input)} has not started (the earlier canary's pods, revision ${pods.revision ?? '?'}, go first); promote it once it runs` }]
    : [];
  return {
    consumedAnnotations: consumed(input),
    phase: 'CanaryStep',
    stableRevision,
    removeCanary: false,
    status: { stableRevision, stableImage: input.status.stableImage, canary: { ...started.canary, weight: 0 }, ...scaleDownField(wound.scaleDown) },
    progressing: { status: 'True', reason: 'CanaryStep', message: `the pod template changed to ${subject(input)}: the earlier canary's pods (revision ${pods.revision ?? '?'}) ${until} before they take the new pod template` },
    requeueAfterMs: wound.requeueAfterMs,
    events: [...started.events, ...promote],
  };
}

/**
 * A canary that waited for an earlier one's pods: its first step starts when they were due to go,
 * so that the wait (up to an hour) takes nothing of that step's progress deadline.
 */
function afterEarlierPods(started: Progress, scaleDown: ScaleDownStatus | undefined, revision: string): Progress {
  const { canary } = started;
  if (!scaleDown || scaleDown.revision === revision || canary.stepIndex !== 0 || canary.weight !== 0) return started;
  const due = statusTimeMs(scaleDown.deleteAt, -Infinity);
  return due > statusTimeMs(canary.stepStartedAt, Infinity) ? { ...started, canary: { ...canary, stepStartedAt: new Date(due).toISOString() } } : started;
}

/**
 * The pass that moves the traffic of an earlier revision's canary pods back to stable: the
 * objects stay as they are (at their revision), the router goes to 0, and spec's canary starts at
 * its first step once the router has taken that.
 */
function drainFirst(input: CanaryInput, observed: CanaryObserved, stableRevision: string, started: Progress, pods: NonNullable<CanaryObserved['canaryDeployment']>, now: Date): CanaryDecision {
  // A promotion asked for as the template changed was meant for the canary it replaced: it does
  // not promote a revision nobody has seen run, and is not dropped without a word either.
  const promoteIgnored = input.annotations[ANNOTATION_PROMOTE]?.toLowerCase() === 'true'
    ? [{ reason: 'PromoteIgnored', type: 'Warning' as const, message: `${ANNOTATION_PROMOTE} was for the canary of revision ${pods.revision ?? '?'}, which the new pod template replaced: ${subject(input)} is not promoted by it` }]
    : [];
  // Held to the new canary's first step's deadline, as a route not accepted at a step is: a
  // router that never takes the traffic back leaves the new revision aborted, not waiting for ever.
  const deadline = stepDeadline(input, started.canary, now);
  if (deadline.past) {
    const why = observed.routerReadiness?.ready === false ? `: ${observed.routerReadiness.message ?? 'the route is not accepted'}` : '';
    return abortDecision(input, observed, stableRevision, [...started.events, ...promoteIgnored], 'ProgressDeadlineExceeded', `the traffic of the earlier canary (revision ${pods.revision ?? '?'}) did not go back to stable within ${input.progressDeadlineSeconds}s, so the canary of ${subject(input)} could not start${why}`, now);
  }
  return {
    consumedAnnotations: consumed(input),
    phase: 'CanaryStep',
    stableRevision,
    canary: { revision: pods.revision ?? '', replicas: pods.replicas, weight: 0 },
    removeCanary: false,
    status: { stableRevision, stableImage: input.status.stableImage, canary: withWeight(started.canary, 0, now) },
    progressing: { status: 'True', reason: 'CanaryStep', message: `the pod template changed to ${subject(input)}: moving the traffic of the earlier canary back to stable before its pods take the new template` },
    requeueAfterMs: deadline.leftMs,
    events: [...started.events, ...promoteIgnored],
  };
}
