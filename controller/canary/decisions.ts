// The decisions the step engine makes, each built from values: nothing to roll out (stable),
// an aborted revision, an abort now, a running canary held at a step, and the promotion. Pure.
import { ANNOTATION_ABORT, ANNOTATION_PROMOTE, ANNOTATION_RETRY, ANNOTATION_SKIP_CANARY } from '../../shared/labels.js';
import { nextCheckAt } from '../analysis/schedule.js';
import { subject, withWeight, type Hold, type Progress } from './running.js';
import { canaryReplicas, PAUSED_REASON, recordedAbort, type AbortReason, type CanaryDecision, type CanaryInput, type CanaryObserved, type RolloutEvent } from './types.js';
import { scaleDownField, windDown, windingDown } from './wind-down.js';

/**
 * The annotations the pass acts upon (removed once the status records the decision): the
 * commands of a person, each acted upon or refused with an Event (commands.ts) in this pass.
 */
export const consumed = (input: CanaryInput) => [ANNOTATION_PROMOTE, ANNOTATION_ABORT, ANNOTATION_RETRY, ANNOTATION_SKIP_CANARY].filter((a) => input.annotations[a] !== undefined);

/** First deployment, or spec renders what stable runs: nothing to roll out; a canary left over winds down. */
export function stableDecision(input: CanaryInput, observed: CanaryObserved, now: Date): CanaryDecision {
  const { scaleDown, ...c } = windDown(input, observed, now);
  return {
    consumedAnnotations: consumed(input),
    ...c,
    phase: windingDown(observed) ? 'CleaningUp' : 'Stable',
    stableRevision: input.revision,
    status: { stableRevision: input.revision, stableImage: input.image, abortedRevision: undefined, abortedImage: undefined, canary: undefined, ...scaleDownField(scaleDown) },
    events: input.status.canary ? [{ reason: 'CanaryCancelled', message: `the pod template is back to the stable revision ${input.revision}; removing the canary` }] : [],
  };
}

/** An aborted revision stays aborted until the pod template changes again. */
export function abortedDecision(input: CanaryInput, observed: CanaryObserved, stableRevision: string, now: Date): CanaryDecision {
  const { status } = input;
  const { reason, message } = recordedAbort(status.conditions);
  const what = subject(input);
  const { scaleDown, ...c } = windDown(input, observed, now);
  return {
    consumedAnnotations: consumed(input),
    events: [],
    ...c,
    phase: windingDown(observed) ? 'CleaningUp' : 'Aborted',
    stableRevision,
    status: { stableRevision, stableImage: status.stableImage, abortedRevision: input.revision, abortedImage: status.abortedImage ?? input.image, canary: undefined, ...scaleDownField(scaleDown) },
    degraded: { reason, message: message ?? `the canary of ${what} was aborted; stable runs revision ${stableRevision}; change the pod template to roll out again` },
    progressing: { status: 'False', reason, message: message ?? `the canary of ${what} was aborted` },
  };
}

/** Abort now: the weight to 0 first, then the canary objects go (wind-down). */
export function abortDecision(input: CanaryInput, observed: CanaryObserved, stableRevision: string, events: RolloutEvent[], reason: AbortReason, message: string, now: Date): CanaryDecision {
  const { scaleDown, ...c } = windDown(input, observed, now);
  return {
    consumedAnnotations: consumed(input),
    ...c,
    phase: 'Aborted',
    stableRevision,
    status: { stableRevision, stableImage: input.status.stableImage, abortedRevision: input.revision, abortedImage: input.image, canary: undefined, ...scaleDownField(scaleDown) },
    degraded: { reason, message },
    progressing: { status: 'False', reason, message },
    events: [...events, { reason, message, type: 'Warning' }],
  };
}

/**
 * The canary held where it is: its objects at `replicas`, the router at `weight`. Checks run
 * on their schedule while the canary gets traffic: it comes back when the next one is due.
 */
export function holdDecision(
  input: CanaryInput,
  observed: CanaryObserved,
  stableRevision: string,
  hold: Omit<Hold, 'kind' | 'phase'> & { phase: CanaryDecision['phase'] },
  now: Date,
  stableNext = stableRevision,
): CanaryDecision {
  const { canary, events } = hold.progress;
  const analysis = input.analysis;
  let requeueAfterMs = hold.requeueAfterMs;
  if (analysis?.available && !analysis.running && (observed.routerWeight ?? 0) > 0) {
    const dueInMs = Math.max(0, nextCheckAt(canary, analysis.intervalMs) - now.getTime());
    requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, Math.max(dueInMs, 100));
  }
  return {
    consumedAnnotations: consumed(input),
    phase: hold.phase,
    stableRevision: stableNext,
    canary: { revision: input.revision, replicas: hold.replicas, weight: hold.weight },
    removeCanary: false,
    status: { stableRevision, stableImage: input.status.stableImage, canary },
    progressing: { status: hold.reason === PAUSED_REASON ? 'Unknown' : 'True', reason: hold.reason ?? (hold.phase === 'CanaryPaused' ? 'CanaryPaused' : 'CanaryStep'), message: hold.message },
    ...(hold.degraded ? { degraded: hold.degraded } : {}),
    requeueAfterMs,
    events,
  };
}

/**
 * Promotion: stable takes spec's template; once it is available the weight goes to 0; the
 * canary's pods stay for scaleDownDelaySeconds, then go, and only then does stable officially
 * run the new revision. The canary keeps the size of its last weight until no traffic reaches it.
 */
export function promotionDecision(input: CanaryInput, observed: CanaryObserved, stableRevision: string, progress: Progress, now: Date): CanaryDecision {
  const { revision } = input;
  const { canary, events } = progress;
  const what = subject(input);
  const stable = observed.stableDeployment;
  const promoting = { progress, phase: 'Promoting' as const, replicas: canaryReplicas(input.replicas, canary.weight) };
  // Once the canary's pods wait out the scale-down delay (stable was available, traffic is back on
  // it), a moment of stable being unavailable (a pod restarting, a scale-up) starts nothing over.
  // With a canary header, the delay is recorded only once the canary's routing is gone, a pass
  // after its removal: gone, it is not put back for such a moment either.
  const headerRoutingGone = input.canaryHeader !== undefined && canary.weight === 0 && observed.routerWeight === undefined;
  const waitingOut = (input.status.scaleDown?.revision === revision && (observed.routerWeight ?? 0) === 0) || headerRoutingGone;
  if (!waitingOut && !(stable && stable.revision === revision && stable.available)) {
    return holdDecision(input, observed, stableRevision, { ...promoting, weight: canary.weight, message: `promoting ${what}: waiting for the stable Deployment to be available` }, now, revision);
  }
  if ((observed.routerWeight ?? 0) > 0) {
    const toStable = { ...progress, canary: withWeight(canary, 0, now) };
    return holdDecision(input, observed, stableRevision, { ...promoting, progress: toStable, weight: 0, message: `promoting ${what}: moving all traffic back to stable` }, now, revision);
  }
  if (observed.canaryObjectsExist) {
    const { scaleDown, ...c } = windDown(input, observed, now);
    const until = c.removeCanary ? 'removing the canary objects' : scaleDown ? `keeping the canary's pods until ${scaleDown.deleteAt}` : 'waiting for the routing to take all traffic back to stable';
    return {
      consumedAnnotations: consumed(input),
      ...c,
      phase: 'Promoting',
      stableRevision: revision,
      status: { stableRevision, stableImage: input.status.stableImage, canary: { ...canary, weight: 0 }, ...scaleDownField(scaleDown) },
      progressing: { status: 'True', reason: 'CanaryStep', message: `promoting ${what}: ${until}` },
      events,
    };
  }
  // A check of the canary still running may yet fail it (and take stable back): the promotion ends
  // once it is counted (its completion reconciles the App), never with its verdict dropped.
  if (input.analysis?.running) {
    return {
      consumedAnnotations: consumed(input),
      phase: 'Promoting',
      stableRevision: revision,
      removeCanary: false,
      status: { stableRevision, stableImage: input.status.stableImage, canary: { ...canary, weight: 0 } },
      progressing: { status: 'True', reason: 'CanaryStep', message: `promoting ${what}: waiting for the analysis check of the canary that is running now to be counted` },
      events,
    };
  }
  return {
    consumedAnnotations: consumed(input),
    phase: 'Stable',
    stableRevision: revision,
    removeCanary: false,
    status: { stableRevision: revision, stableImage: input.image, canary: undefined },
    progressing: { status: 'False', reason: 'RolloutComplete', message: `${what} is stable` },
    events: [...events, { reason: 'CanaryComplete', message: `canary of ${what} completed; stable runs revision ${revision}` }],
  };
}
