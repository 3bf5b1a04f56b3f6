// What the blue-green engine is asked, from the defaulted App and the canary engine's input (the
// same replicas, annotations and analysis settings). spec.rollout.paused may be absent (a
// version of the schema without it): absent is false. Pure.
import type { DefaultedApp } from '../../shared/defaults.js';
import { DEFAULTS } from '../../shared/defaults.js';
import { durationMs } from '../../shared/durations.js';
import type { CanaryInput } from '../canary/types.js';
import type { BlueGreenInput } from './types.js';

export function blueGreenInput(app: DefaultedApp, input: CanaryInput): BlueGreenInput {
  const status = app.status ?? {};
  const rollout = app.spec.rollout;
  const settings = rollout.blueGreen ?? {};
  // Apps last reconciled by a version that tracked images only: the image stands for the revision.
  const stableRevision = status.stableRevision
    ?? (status.stableImage === undefined ? undefined : status.stableImage === app.spec.image ? input.revision : `image ${status.stableImage}`);
  return {
    image: input.image,
    revision: input.revision,
    replicas: input.replicas,
    autoscaled: app.spec.autoscaling !== undefined,
    progressDeadlineSeconds: rollout.progressDeadlineSeconds,
    scaleDownDelaySeconds: rollout.scaleDownDelaySeconds,
    autoPromote: settings.autoPromote ?? DEFAULTS.blueGreenAutoPromote,
    autoPromoteAfterMs: settings.autoPromoteAfter === undefined ? undefined : durationMs(settings.autoPromoteAfter),
    paused: (rollout as { paused?: boolean }).paused === true,
    annotations: input.annotations,
    promotedRevisions: input.promotedRevisions,
    analysis: input.analysis,
    status: {
      stableRevision,
      stableImage: status.stableImage,
      abortedRevision: status.abortedRevision,
      abortedImage: status.abortedImage,
      blueGreen: status.blueGreen,
      conditions: status.conditions,
      updateRevision: status.updateRevision,
    },
  };
}

/** The input with which another strategy retires a preview left from a blue-green rollout. */
export function retiringInput(app: DefaultedApp, input: CanaryInput): BlueGreenInput {
  return { ...blueGreenInput(app, input), analysis: undefined };
}
