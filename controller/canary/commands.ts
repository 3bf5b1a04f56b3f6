// The rollout commands a person gives through annotations on the App (kubectl skiff retry,
// undo --skip-canary), weighed against the App's status and its history, for either strategy.
// Each is checked here and the strategy's engine is then asked the question the command leaves:
// a retry makes the aborted revision a new rollout again, a verified skip makes spec's revision
// stable at once. A command that does not apply is refused with a Warning saying why. Pure.
import type { Condition } from '../../shared/app-types.js';
import { ANNOTATION_RETRY, ANNOTATION_SKIP_CANARY } from '../../shared/labels.js';
import { subject } from './running.js';
import type { CanaryInput, RevisionsOnRecord, RolloutEvent } from './types.js';

/** What the commands read of a strategy's input: the canary engine's or the blue-green engine's. */
export type CommandInput = Pick<CanaryInput, 'image' | 'revision' | 'annotations' | 'promotedRevisions'> & {
  status: RevisionsOnRecord & { conditions?: Condition[]; canary?: { revision?: string }; blueGreen?: { previewRevision: string } };
};

export interface Commands<T extends CommandInput> {
  /** The input the engine is asked: as given, or with the aborted revision's record cleared (retry). */
  input: T;
  /** skiff.dev/retry was acted upon. */
  retried: boolean;
  /** skiff.dev/skip-canary was verified: spec's revision goes to stable without a canary. */
  skipCanary: boolean;
  events: RolloutEvent[];
}

const isTrue = (v: string | undefined) => v !== undefined && v.toLowerCase() === 'true';

/**
 * skiff.dev/retry: spec's revision is the aborted one, and its rollout runs again from the start
 * (a canary at step 1, a blue-green rollout with a new preview): the abort and the record of the
 * rollout under way, whichever the strategy keeps, are cleared.
 */
function retry<T extends CommandInput>(input: T): Pick<Commands<T>, 'input' | 'retried' | 'events'> {
  const asked = input.annotations[ANNOTATION_RETRY];
  if (asked === undefined) return { input, retried: false, events: [] };
  const { status } = input;
  // Acted on already, its status written but the annotation's removal failed: nothing is aborted
  // and spec's revision rolls out again. Consumed quietly: a Warning would deny a retry that ran.
  const rollingOut = status.canary?.revision ?? status.blueGreen?.previewRevision;
  if (isTrue(asked) && status.abortedRevision === undefined && status.stableRevision !== undefined && status.stableRevision !== input.revision && rollingOut === input.revision) {
    return { input, retried: false, events: [] };
  }
  const why = !isTrue(asked)
    ? `${ANNOTATION_RETRY} is "${asked}", not "true"`
    : status.abortedRevision === undefined || status.stableRevision === undefined
      ? 'no rollout was aborted'
      : status.abortedRevision !== input.revision
        ? `the pod template (revision ${input.revision}) is not the aborted revision ${status.abortedRevision}`
        : undefined;
  if (why !== undefined) return { input, retried: false, events: [{ reason: 'RetryIgnored', type: 'Warning', message: `${ANNOTATION_RETRY} ignored: ${why}` }] };
  const conditions = status.conditions?.filter((c) => c.type !== 'Degraded');
  return {
    input: { ...input, status: { ...status, abortedRevision: undefined, abortedImage: undefined, canary: undefined, blueGreen: undefined, conditions } },
    retried: true,
    events: [{ reason: 'RolloutRetried', message: `rollout of ${subject(input)} retried by annotation ${ANNOTATION_RETRY}; starting again from the beginning` }],
  };
}

/**
 * skiff.dev/skip-canary=<hash>: only when spec's revision is that hash and the App's own history
 * says that revision was promoted before (never on the client's word); already stable: nothing to do.
 */
function skip(input: CommandInput): Pick<Commands<CommandInput>, 'skipCanary' | 'events'> {
  const hash = input.annotations[ANNOTATION_SKIP_CANARY];
  if (hash === undefined || input.revision === input.status.stableRevision) return { skipCanary: false, events: [] };
  const why = hash !== input.revision
    ? `it names revision ${hash}, but the pod template is revision ${input.revision}`
    : !input.promotedRevisions?.has(hash)
      ? `revision ${hash} was never promoted (the App's history has no Promoted entry of it)`
      : undefined;
  if (why !== undefined) {
    return { skipCanary: false, events: [{ reason: 'SkipCanaryRefused', type: 'Warning', message: `${ANNOTATION_SKIP_CANARY} refused: ${why}; rolling out as usual` }] };
  }
  // RollingUpdate keeps no stable revision on record for the engine: then there is none to name.
  const was = input.status.stableRevision === undefined ? '' : `; stable was revision ${input.status.stableRevision}`;
  return {
    skipCanary: true,
    events: [{ reason: 'RollbackWithoutCanary', message: `rolling back to ${subject(input)}, promoted before, straight to stable without steps or analysis (${ANNOTATION_SKIP_CANARY})${was}` }],
  };
}

/** The commands on the App this pass acts upon, and the input they leave for the step engine. */
export function readCommands<T extends CommandInput>(input: T): Commands<T> {
  const skipped = skip(input);
  // A verified skip makes spec's revision stable: no retry is needed then.
  const retried = skipped.skipCanary ? { input, retried: false, events: [] } : retry(input);
  return { input: retried.input, retried: retried.retried, skipCanary: skipped.skipCanary, events: [...skipped.events, ...retried.events] };
}
