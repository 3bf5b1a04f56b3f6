// The decisions the blue-green engine makes, each built from values: nothing to roll out (the
// preview, if any, retired), an aborted revision, an abort now, and the rollout held in a phase.
// Pure.
import type { BlueGreenStatus } from '../../shared/app-types.js';
import { ANNOTATION_ABORT, ANNOTATION_PROMOTE, ANNOTATION_RETRY, ANNOTATION_SKIP_CANARY } from '../../shared/labels.js';
import { ignoredWhileWaiting } from '../canary/paused.js';
import { PAUSED_REASON, recordedAbort, type AbortReason, type RolloutEvent } from '../canary/types.js';
import { retirePreview, subject, type Progress, type Retirement } from './running.js';
import type { BlueGreenInput, BlueGreenObserved, BlueGreenPlan, RolloutDecision } from './types.js';

/**
 * The annotations the pass acts upon (removed once the status records the decision): a retry or
 * a skip is acted upon or refused with an Event in this pass (canary/commands.ts); a promotion
 * waits (unconsumed) while the App is paused, for the preview under way or the change the pause
 * holds.
 */
export const consumed = (input: BlueGreenInput) =>
  [ANNOTATION_PROMOTE, ANNOTATION_ABORT, ANNOTATION_RETRY, ANNOTATION_SKIP_CANARY].filter((a) => input.annotations[a] !== undefined && !(a === ANNOTATION_PROMOTE && input.paused));

/**
 * Those of a pass with nothing to promote, paused or not: spec's revision is stable, or aborted (a
 * retry or a new template is a rollout of its own, promoted for itself). A promotion kept here
 * would switch the next preview, after resume, with nobody having promoted it.
 */
const consumedAll = (input: BlueGreenInput) => consumed({ ...input, paused: false });

/**
 * The revision the Service selects while stable serves: by revision once stable's pods all carry the
 * label. A Service that selects that revision already keeps it while the Deployment is briefly not
 * available (a pod lost, the autoscaler adding pods): its pods carry the label, and going back to
 * the track would write the Service twice for nothing. A switch back from a preview while stable is
 * not available goes to the track: stable's pods may not all carry the label yet (the strategy just
 * became BlueGreen), and the track selects every one of them, never the preview's.
 * With no stable Deployment yet (a new App), the one this pass creates labels every pod it will
 * ever have: the Service selects the revision from its first write, not the track and then the
 * revision (a second write, and a selector change nobody asked for).
 */
export const stableActive = (observed: BlueGreenObserved, stableRevision: string) => {
  const d = observed.stableDeployment;
  if (!d) return stableRevision;
  if (!d.labelled || d.revision !== stableRevision) return undefined;
  return d.available || observed.serviceRevision === stableRevision ? stableRevision : undefined;
};

/**
 * The switch back, told by the pass whose write of the Service makes it: sent only when that write
 * succeeds, and by the next pass that writes it when it failed (Retirement.switchesBack).
 */
const switchedBackEvent = (stableRevision: string, r: Retirement, type?: 'Warning'): RolloutEvent => ({
  reason: 'BlueGreenSwitchedBack',
  ...(type ? { type } : {}),
  message: `switched back: the Service selects stable revision ${stableRevision} again; the preview's pods go at ${r.blueGreen?.scaleDownAt ?? 'once'}`,
  saysServiceWritten: true,
});

const field = (blueGreen: BlueGreenStatus | undefined) => (blueGreen ? { blueGreen } : {});

/** First deployment, or spec renders what stable runs: nothing to roll out; a preview left over is retired. */
export function settledDecision(input: BlueGreenInput, observed: BlueGreenObserved, now: Date, skipped = false): RolloutDecision {
  const { revision } = input;
  const before = input.status.blueGreen;
  const r = retirePreview(input, observed, revision, now);
  const events: RolloutEvent[] = [];
  // A verified skip (undo --skip-canary) goes to a revision promoted before, not the stable one:
  // the Service leaves the preview for the stable Deployment, which takes that revision.
  const back = skipped
    ? `rolled back to revision ${revision} without a preview (${ANNOTATION_SKIP_CANARY}); the Service leaves the preview of revision ${before?.previewRevision} for the Deployment, which takes revision ${revision}`
    : `the pod template is back to the stable revision ${revision}; the Service selects it again`;
  if (before?.phase === 'Switched') events.push({ reason: 'BlueGreenSwitchedBack', message: back, saysServiceWritten: true });
  else if (r.switchesBack) events.push(switchedBackEvent(revision, r));
  else if (before?.phase === 'Preview') events.push({ reason: 'BlueGreenCancelled', message: `the pod template is back to the stable revision ${revision}; removing the preview` });
  const cleaning = r.removePreview || r.blueGreen !== undefined;
  return {
    consumedAnnotations: consumedAll(input),
    phase: cleaning ? 'CleaningUp' : 'Stable',
    stableRevision: revision,
    removeCanary: false,
    blueGreen: { removePreview: r.removePreview, activeRevision: stableActive(observed, revision) },
    status: { stableRevision: revision, stableImage: input.image, abortedRevision: undefined, abortedImage: undefined, canary: undefined, ...field(r.blueGreen) },
    ...(cleaning ? { progressing: { status: 'True', reason: 'BlueGreenScalingDown', message: r.blueGreen?.scaleDownAt ? `the preview's pods get no traffic and go at ${r.blueGreen.scaleDownAt}` : 'removing the preview objects' } } : {}),
    requeueAfterMs: r.requeueAfterMs,
    events,
  };
}

/** An aborted revision stays aborted until the pod template changes again; its preview is retired. */
export function abortedDecision(input: BlueGreenInput, observed: BlueGreenObserved, stableRevision: string, now: Date): RolloutDecision {
  const { status } = input;
  const { reason, message } = recordedAbort(status.conditions);
  const what = subject(input);
  const r = retirePreview(input, observed, stableRevision, now);
  return {
    ...stableServes(input, observed, stableRevision, r, 'Aborted'),
    consumedAnnotations: consumedAll(input),
    events: r.switchesBack ? [switchedBackEvent(stableRevision, r, 'Warning')] : [],
    status: { stableRevision, stableImage: status.stableImage, abortedRevision: input.revision, abortedImage: status.abortedImage ?? input.image, canary: undefined, ...field(r.blueGreen) },
    degraded: { reason, message: message ?? `the blue-green rollout of ${what} was aborted; stable runs revision ${stableRevision}; change the pod template to roll out again` },
    progressing: { status: 'False', reason, message: message ?? `the blue-green rollout of ${what} was aborted` },
  };
}

/**
 * With an autoscaler, the count the Deployment `<app>` is given as the traffic comes back to it
 * from the preview (see BlueGreenPlan.stableReplicas): at least the preview's, never less than it
 * has; undefined without an autoscaler (spec.replicas holds) or while the preview has no traffic.
 */
export function takingOverReplicas(input: Pick<BlueGreenInput, 'autoscaled'>, observed: BlueGreenObserved): { stableReplicas?: number } {
  if (!input.autoscaled || observed.preview === undefined) return {};
  return { stableReplicas: Math.max(observed.stableDeployment?.replicas ?? 0, observed.preview.replicas) };
}

/** What an aborted or a waiting revision's decisions share: stable serves on, a preview left over is retired. */
function stableServes(input: BlueGreenInput, observed: BlueGreenObserved, stableRevision: string, r: Retirement, settled: 'Aborted' | 'Paused' | 'Promoting') {
  return {
    consumedAnnotations: consumed(input),
    phase: r.removePreview || r.blueGreen ? ('CleaningUp' as const) : settled,
    stableRevision,
    removeCanary: false,
    blueGreen: { removePreview: r.removePreview, activeRevision: stableActive(observed, stableRevision) },
    requeueAfterMs: r.requeueAfterMs,
  };
}

/**
 * spec.rollout.paused, and spec's revision is not under way: its rollout waits, no preview starts
 * (as a paused Deployment starts no new ReplicaSet); a rollout of another revision is cancelled,
 * its preview retired (after the delay when the Service had switched to it).
 */
export function waitingDecision(input: BlueGreenInput, observed: BlueGreenObserved, stableRevision: string, now: Date): RolloutDecision {
  return replacedDecision(input, observed, stableRevision, now, 'paused');
}

/**
 * A new revision while the pods of an earlier one have (or just had) the traffic: switched to, or
 * waiting out the delay after a switch back. The Service selects stable again, and those pods keep
 * the preview's name until their delay is over: only then does the new revision's preview start,
 * so pods that served all traffic a moment ago are never rolled away under it.
 */
export function drainingDecision(input: BlueGreenInput, observed: BlueGreenObserved, stableRevision: string, now: Date): RolloutDecision {
  return replacedDecision(input, observed, stableRevision, now, 'draining');
}

function replacedDecision(input: BlueGreenInput, observed: BlueGreenObserved, stableRevision: string, now: Date, why: 'paused' | 'draining'): RolloutDecision {
  const { status } = input;
  const before = status.blueGreen;
  const r = retirePreview(input, observed, stableRevision, now);
  const events: RolloutEvent[] = [];
  const cancelled = `the pod template changed to ${subject(input)} during a blue-green rollout`;
  const then = why === 'paused' ? 'the new rollout waits for spec.rollout.paused to be false' : `the new preview starts once the earlier preview's pods have gone${r.blueGreen?.scaleDownAt ? ` (${r.blueGreen.scaleDownAt})` : ''}`;
  if (before?.phase === 'Switched') events.push({ reason: 'BlueGreenSwitchedBack', message: `${cancelled}; the Service selects stable revision ${stableRevision} again, and ${then}`, saysServiceWritten: true });
  else if (r.switchesBack) events.push(switchedBackEvent(stableRevision, r));
  else if (before?.phase === 'Preview') events.push({ reason: 'BlueGreenCancelled', message: `${cancelled}; removing the preview, and ${then}` });
  // Only while paused: an abort while the earlier pods drain is the new revision's (plan.ts).
  if (why === 'paused') events.push(...ignoredWhileWaiting('abort', input.annotations, subject(input), stableRevision));
  const serves = stableServes(input, observed, stableRevision, r, why === 'paused' ? 'Paused' : 'Promoting');
  return {
    ...serves,
    ...(before?.phase === 'Switched' ? { blueGreen: { ...serves.blueGreen, ...takingOverReplicas(input, observed) } } : {}),
    // A promotion given with the new template is its own (the earlier revision's preview already
    // switched and was switched back from): it waits on the App for the new preview, as it does
    // when no preview is under way.
    consumedAnnotations: why === 'draining' ? serves.consumedAnnotations.filter((a) => a !== ANNOTATION_PROMOTE) : serves.consumedAnnotations,
    status: { stableRevision, stableImage: status.stableImage, abortedRevision: status.abortedRevision, abortedImage: status.abortedImage, canary: undefined, ...field(r.blueGreen) },
    progressing: why === 'paused'
      ? { status: 'Unknown', reason: PAUSED_REASON, message: `the pod template changed to ${subject(input)}; its rollout starts once spec.rollout.paused is false (stable stays on revision ${stableRevision})` }
      : { status: 'True', reason: 'BlueGreenScalingDown', message: `the pod template changed to ${subject(input)}; the Service selects stable revision ${stableRevision}, and ${then}` },
    events,
  };
}

/** Abort now: the Service back to stable at once (when it was switched), the preview retired. */
export function abortDecision(input: BlueGreenInput, observed: BlueGreenObserved, stableRevision: string, progress: Progress, reason: AbortReason, message: string, now: Date): RolloutDecision {
  const switched = progress.blueGreen.phase === 'Switched';
  const r = retirePreview({ ...input, status: { ...input.status, blueGreen: progress.blueGreen } }, observed, stableRevision, now);
  const events = [...progress.events];
  if (switched) events.push(switchedBackEvent(stableRevision, r, 'Warning'));
  return {
    // A promotion kept while paused was this preview's: it goes with it, or the next revision's
    // preview would switch on it with nobody having promoted it.
    consumedAnnotations: consumedAll(input),
    phase: 'Aborted',
    stableRevision,
    removeCanary: false,
    blueGreen: { removePreview: r.removePreview, activeRevision: stableActive(observed, stableRevision), ...(switched ? { ...takingOverReplicas(input, observed), switchedBackFrom: progress.blueGreen.previewRevision } : {}) },
    status: { stableRevision, stableImage: input.status.stableImage, abortedRevision: input.revision, abortedImage: input.image, canary: undefined, ...field(r.blueGreen) },
    degraded: { reason, message },
    progressing: { status: 'False', reason, message },
    requeueAfterMs: r.requeueAfterMs,
    events: [...events, { reason, message, type: 'Warning' }],
  };
}

export interface Hold {
  progress: Progress;
  plan: BlueGreenPlan;
  message: string;
  /** The Progressing reason, when it is not the phase's. */
  reason?: string;
  /** The revision the Deployment `<app>` runs next, when it is not stable's. */
  stableNext?: string;
  requeueAfterMs?: number;
  degraded?: RolloutDecision['degraded'];
  /** skiff.dev/promote stays on the App: asked before the preview can switch, it acts once it can. */
  keepPromote?: boolean;
}

/** Progressing's reason in each phase. */
const PHASE_REASONS = { Preview: 'BlueGreenPreview', Switched: 'BlueGreenSwitched', ScalingDown: 'BlueGreenScalingDown' } as const;

/** The rollout held in its phase: the preview and the Service as `plan` has them. */
export function holdDecision(input: BlueGreenInput, stableRevision: string, hold: Hold): RolloutDecision {
  const { blueGreen, events } = hold.progress;
  const reason = hold.reason ?? PHASE_REASONS[blueGreen.phase];
  return {
    consumedAnnotations: consumed(input).filter((a) => !(hold.keepPromote && a === ANNOTATION_PROMOTE)),
    phase: 'Promoting',
    stableRevision: hold.stableNext ?? stableRevision,
    removeCanary: false,
    blueGreen: hold.plan,
    status: { stableRevision, stableImage: input.status.stableImage, canary: undefined, blueGreen },
    progressing: { status: reason === 'RolloutPaused' ? 'Unknown' : 'True', reason, message: hold.message },
    ...(hold.degraded ? { degraded: hold.degraded } : {}),
    requeueAfterMs: hold.requeueAfterMs,
    events,
  };
}

/** The rollout is done: the Deployment `<app>` runs the new revision, the preview goes. */
export function completeDecision(input: BlueGreenInput, observed: BlueGreenObserved, progress: Progress): RolloutDecision {
  const { previewRevision: revision, image } = progress.blueGreen;
  return {
    consumedAnnotations: consumed(input),
    phase: observed.previewObjectsExist ? 'CleaningUp' : 'Stable',
    stableRevision: revision,
    removeCanary: false,
    blueGreen: { removePreview: observed.previewObjectsExist, activeRevision: revision },
    status: { stableRevision: revision, stableImage: image ?? input.image, canary: undefined },
    progressing: { status: 'False', reason: 'RolloutComplete', message: `${image ?? input.image} (revision ${revision}) is stable` },
    events: [...progress.events, { reason: 'BlueGreenComplete', message: `blue-green rollout of ${image ?? input.image} (revision ${revision}) completed: the Deployment runs it, the preview is removed` }],
  };
}
