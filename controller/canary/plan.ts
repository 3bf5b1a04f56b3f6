// The canary step engine: a pure function from the App (spec, annotations, status) and what
// is observed in the cluster to what the cluster should look like next. The reconciler applies
// the decision; nothing here talks to the API server, so every situation is a table row in
// the unit tests, including a controller restart in the middle of any step (all the state
// the engine needs is in the App's status).
import type { CanaryStatus, CanaryStep, Condition } from '../../shared/app-types.js';
import { ANNOTATION_ABORT, ANNOTATION_PROMOTE } from '../../shared/labels.js';
import { durationMs } from '../../shared/durations.js';
import { stepLabel } from '../../shared/steps.js';
import { metaTime } from '../../shared/time.js';

export interface CanaryInput {
  image: string;
  replicas: number;
  steps: CanaryStep[];
  progressDeadlineSeconds: number;
  annotations: Record<string, string>;
  status: {
    stableImage?: string;
    abortedImage?: string;
    canary?: CanaryStatus;
    conditions?: Condition[];
  };
}

export interface CanaryObserved {
  /** The canary Deployment, when it exists. `available`: rolled out at its spec, all replicas available. */
  canaryDeployment?: { image?: string; replicas: number; available: boolean };
  /** The stable Deployment, when it exists. */
  stableDeployment?: { image?: string; available: boolean };
  /** The weight the router currently sends to the canary; undefined when no split exists. */
  routerWeight?: number;
  /** Whether any canary object (Deployment, Service, Ingress) still exists. */
  canaryObjectsExist: boolean;
}

export type Phase = 'Stable' | 'CanaryStep' | 'CanaryPaused' | 'Promoting' | 'Aborted' | 'CleaningUp';

export interface CanaryDecision {
  phase: Phase;
  /** Image for the stable Deployment. */
  stableImage: string;
  /** Canary objects to keep or create, with the weight the router should carry. */
  canary?: { image: string; replicas: number; weight: number };
  /** Delete the canary objects (only ever when the router already carries weight 0). */
  removeCanary: boolean;
  /** The canary and rollout fields of status after this decision. */
  status: { stableImage?: string; abortedImage?: string; canary?: CanaryStatus };
  progressing?: { status: 'True' | 'False'; reason: string; message: string };
  degraded?: { reason: 'RolloutAborted' | 'ProgressDeadlineExceeded'; message: string };
  /** Reconcile again after this long even when nothing changes (timed pauses, deadlines). */
  requeueAfterMs?: number;
  /** Annotations acted upon, to remove once the status is written. */
  consumedAnnotations: string[];
  /** Things worth an Event on the App. */
  events: { reason: string; message: string; type?: 'Normal' | 'Warning' }[];
}

export const canaryReplicas = (replicas: number, weight: number) => Math.max(1, Math.ceil((replicas * weight) / 100));

const isTrue = (v: string | undefined) => v !== undefined && v.toLowerCase() === 'true';

/** Winding down canary objects that should not exist: weight to 0 first, then delete. */
function cleanup(observed: CanaryObserved): Pick<CanaryDecision, 'canary' | 'removeCanary'> {
  if (!observed.canaryObjectsExist) return { removeCanary: false };
  if ((observed.routerWeight ?? 0) > 0 && observed.canaryDeployment) {
    return { canary: { image: observed.canaryDeployment.image ?? '', replicas: observed.canaryDeployment.replicas, weight: 0 }, removeCanary: false };
  }
  return { removeCanary: true };
}

export function planCanary(input: CanaryInput, observed: CanaryObserved, now: Date): CanaryDecision {
  const { image, status } = input;
  const consumed = [ANNOTATION_PROMOTE, ANNOTATION_ABORT].filter((a) => input.annotations[a] !== undefined);
  const base = { consumedAnnotations: [] as string[], events: [] as CanaryDecision['events'] };

  // First deployment, or the image is what stable runs: nothing to roll out.
  if (status.stableImage === undefined || image === status.stableImage) {
    const c = cleanup(observed);
    return {
      ...base,
      ...c,
      phase: c.canary || c.removeCanary ? 'CleaningUp' : 'Stable',
      stableImage: image,
      status: { stableImage: status.stableImage, abortedImage: undefined, canary: undefined },
      consumedAnnotations: consumed,
      events: status.canary ? [{ reason: 'CanaryCancelled', message: `spec.image is back to the stable image ${image}; removing the canary` }] : [],
    };
  }

  // An aborted image stays aborted until spec.image changes.
  if (image === status.abortedImage) {
    const previous = status.conditions?.find((c) => c.type === 'Degraded' && c.status === 'True');
    const reason = previous?.reason === 'ProgressDeadlineExceeded' ? 'ProgressDeadlineExceeded' : 'RolloutAborted';
    const c = cleanup(observed);
    return {
      ...base,
      ...c,
      phase: c.canary || c.removeCanary ? 'CleaningUp' : 'Aborted',
      stableImage: status.stableImage,
      status: { stableImage: status.stableImage, abortedImage: image, canary: undefined },
      degraded: { reason, message: previous?.message ?? `the canary of ${image} was aborted; stable runs ${status.stableImage}; change spec.image to roll out again` },
      progressing: { status: 'False', reason, message: `the canary of ${image} was aborted` },
      consumedAnnotations: consumed,
    };
  }

  // A canary for spec.image: start it, or restart it when the image changed mid-rollout.
  let canary: CanaryStatus = status.canary && status.canary.image === image
    ? { ...status.canary }
    : { image, weight: 0, stepIndex: 0, stepStartedAt: now.toISOString() };
  const events: CanaryDecision['events'] = [];
  if (!status.canary) events.push({ reason: 'CanaryStarted', message: `canary of ${image} started (stable: ${status.stableImage})` });
  else if (status.canary.image !== image) events.push({ reason: 'CanaryRestarted', message: `spec.image changed to ${image} during the canary of ${status.canary.image}; restarting at step 1` });

  const abort = (reason: 'RolloutAborted' | 'ProgressDeadlineExceeded', message: string): CanaryDecision => ({
    ...base,
    ...cleanup(observed),
    phase: 'Aborted',
    stableImage: status.stableImage!,
    status: { stableImage: status.stableImage, abortedImage: image, canary: undefined },
    degraded: { reason, message },
    progressing: { status: 'False', reason, message },
    consumedAnnotations: consumed,
    events: [...events, { reason, message, type: 'Warning' }],
  });

  if (isTrue(input.annotations[ANNOTATION_ABORT])) {
    return abort('RolloutAborted', `canary of ${image} aborted by annotation ${ANNOTATION_ABORT}; stable stays on ${status.stableImage}`);
  }
  if (isTrue(input.annotations[ANNOTATION_PROMOTE]) && canary.stepIndex < input.steps.length) {
    events.push({ reason: 'CanaryPromoted', message: `canary of ${image} promoted by annotation ${ANNOTATION_PROMOTE}; skipping to the end` });
    canary = { ...canary, stepIndex: input.steps.length, stepStartedAt: now.toISOString() };
  }

  const deadlineMs = input.progressDeadlineSeconds * 1000;
  let requeueAfterMs: number | undefined;
  const advance = () => {
    canary = { ...canary, stepIndex: canary.stepIndex + 1, stepStartedAt: now.toISOString() };
    events.push({ reason: 'CanaryStep', message: `canary of ${image}: now at ${stepLabel(input.steps, canary.stepIndex)}` });
  };

  // Run through every step that is already complete under what is observed now.
  for (;;) {
    const step = input.steps[canary.stepIndex];
    if (!step) break; // promotion
    const elapsedMs = now.getTime() - Date.parse(canary.stepStartedAt);
    if (step.setWeight !== undefined) {
      const replicas = canaryReplicas(input.replicas, step.setWeight);
      const dep = observed.canaryDeployment;
      const ready = dep !== undefined && dep.image === image && dep.replicas === replicas && dep.available;
      if (!ready) {
        // Traffic never moves to a canary that is not available at the step's size.
        if (elapsedMs >= deadlineMs) {
          return abort('ProgressDeadlineExceeded', `canary of ${image} was not available within ${input.progressDeadlineSeconds}s at ${stepLabel(input.steps, canary.stepIndex)}`);
        }
        requeueAfterMs = deadlineMs - elapsedMs;
        return decision('CanaryStep', replicas, canary.weight, `waiting for the canary to be available at ${stepLabel(input.steps, canary.stepIndex)}`);
      }
      if (observed.routerWeight !== step.setWeight) {
        canary = { ...canary, weight: step.setWeight };
        return decision('CanaryStep', replicas, step.setWeight, `setting the canary weight to ${step.setWeight}% at ${stepLabel(input.steps, canary.stepIndex)}`);
      }
      canary = { ...canary, weight: step.setWeight };
      advance();
      continue;
    }
    // A pause.
    const currentReplicas = observed.canaryDeployment?.replicas ?? canaryReplicas(input.replicas, canary.weight);
    const waitMs = step.pause?.duration !== undefined ? durationMs(step.pause.duration) : undefined;
    if (waitMs === undefined) {
      return decision('CanaryPaused', currentReplicas, canary.weight, `paused at ${stepLabel(input.steps, canary.stepIndex)}; annotate ${ANNOTATION_PROMOTE}=true to continue`);
    }
    if (elapsedMs < waitMs) {
      requeueAfterMs = waitMs - elapsedMs;
      // The end time, not the time left: the message is written once, not every second.
      const until = metaTime(new Date(Date.parse(canary.stepStartedAt) + waitMs));
      return decision('CanaryPaused', currentReplicas, canary.weight, `paused at ${stepLabel(input.steps, canary.stepIndex)} until ${until}`);
    }
    advance();
  }

  // Promotion: stable takes the image; once it is available the weight goes to 0, then the
  // canary objects go, and only then does stable officially run the new image.
  const canaryReplicasNow = observed.canaryDeployment?.replicas ?? canaryReplicas(input.replicas, canary.weight);
  const stable = observed.stableDeployment;
  if (!(stable && stable.image === image && stable.available)) {
    return decision('Promoting', canaryReplicasNow, canary.weight, `promoting ${image}: waiting for the stable Deployment to be available`, image);
  }
  if ((observed.routerWeight ?? 0) > 0) {
    canary = { ...canary, weight: 0 };
    return decision('Promoting', canaryReplicasNow, 0, `promoting ${image}: moving all traffic back to stable`, image);
  }
  if (observed.canaryObjectsExist) {
    return {
      ...base,
      phase: 'Promoting',
      stableImage: image,
      removeCanary: true,
      status: { stableImage: status.stableImage, canary: { ...canary, weight: 0 } },
      progressing: { status: 'True', reason: 'CanaryStep', message: `promoting ${image}: removing the canary objects` },
      consumedAnnotations: consumed,
      events,
    };
  }
  return {
    ...base,
    phase: 'Stable',
    stableImage: image,
    removeCanary: false,
    status: { stableImage: image, canary: undefined },
    progressing: { status: 'False', reason: 'RolloutComplete', message: `${image} is stable` },
    consumedAnnotations: consumed,
    events: [...events, { reason: 'CanaryComplete', message: `canary of ${image} completed; stable runs ${image}` }],
  };

  function decision(phase: Phase, replicas: number, weight: number, message: string, stableImage = status.stableImage!): CanaryDecision {
    return {
      ...base,
      phase,
      stableImage,
      canary: { image, replicas, weight },
      removeCanary: false,
      status: { stableImage: status.stableImage, canary },
      progressing: { status: 'True', reason: phase === 'CanaryPaused' ? 'CanaryPaused' : 'CanaryStep', message },
      requeueAfterMs,
      consumedAnnotations: consumed,
      events,
    };
  }
}
