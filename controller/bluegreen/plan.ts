// The blue-green engine: a pure function from the App (spec, annotations, status) and what is
// observed in the cluster to what the cluster should look like next. A full-size preview of spec's
// revision runs beside stable; once it is available, passed its analysis check and is promoted, the
// Service `<app>` switches to its revision in one write; the old pods stay scaleDownDelaySeconds
// (checks go on under full traffic, and a failed one or an abort switches back at once); then the
// Deployment `<app>` takes the new template and the preview goes. Everything the engine needs is
// in the App's status, so a controller restarted at any point neither repeats nor skips a step.
//
// planBlueGreen reads as the order of questions it asks; each answer is built by a function of its
// own (decisions.ts, running.ts) from values.
import { ANNOTATION_ABORT, ANNOTATION_PROMOTE, ANNOTATION_RETRY, ANNOTATION_SKIP_CANARY } from '../../shared/labels.js';
import { metaTime, statusTimeMs } from '../../shared/time.js';
import { switchedBack } from '../../shared/rollout-revision.js';
import { nextCheckAt } from '../analysis/schedule.js';
import { unconfirmedBy } from '../analysis/evaluate.js';
import type { BlueGreenStatus } from '../../shared/app-types.js';
import { readCommands } from '../canary/commands.js';
import { abortDecision, abortedDecision, completeDecision, drainingDecision, holdDecision, settledDecision, stableActive, takingOverReplicas, waitingDecision, type Hold } from './decisions.js';
import { countCheck, pauseOrResume, previewPassed, startOrResume, subject, switchedTo, withoutVerdict, type Progress } from './running.js';
import { PAUSED_REASON, type RolloutEvent } from '../canary/types.js';
import type { BlueGreenInput, BlueGreenObserved, RolloutDecision } from './types.js';

export * from './types.js';

const isTrue = (v: string | undefined) => v !== undefined && v.toLowerCase() === 'true';

/**
 * The decision for the App's blue-green rollout now. A retry (skiff.dev/retry) starts the aborted
 * revision's rollout again with a new preview; a verified skip (skiff.dev/skip-canary) makes
 * spec's revision stable at once, without a preview, a switch or analysis, as a Deployment's own
 * rollout.
 */
export function planBlueGreen(input: BlueGreenInput, observed: BlueGreenObserved, now: Date): RolloutDecision {
  const lost = lostSwitch(input, observed, now);
  if (lost) {
    const planned = planBlueGreen(lost.input, observed, now);
    return { ...planned, events: [lost.event, ...planned.events] };
  }
  const before = input.status.blueGreen;
  const stale = stalePromotion(input);
  const withStale = (planned: RolloutDecision): RolloutDecision => (stale
    ? { ...planned, consumedAnnotations: [...planned.consumedAnnotations, ANNOTATION_PROMOTE], events: [stale, ...planned.events] }
    : planned);
  // Once the old pods are going, the rollout finishes whatever spec says now; a retry or a skip
  // waits for it (left on the App, not consumed), and so does a promotion of a newer template,
  // unless that template changed again since (stalePromotion).
  const going = input.status.stableRevision !== undefined && before?.phase === 'ScalingDown' && before.activeRevision === before.previewRevision;
  // So they are when the status lost the pass that began it (its write refused, the controller
  // stopped): the delay over, the Deployment `<app>` already runs the preview's revision.
  if (going || (input.status.stableRevision !== undefined && scaleDownBegun(before, observed, now))) {
    const ready = withoutCommands(stale ? withoutPromotion(input) : input);
    return withStale(scaleDown(ready, observed, { blueGreen: { ...before!, phase: 'ScalingDown' }, events: [] }));
  }
  const read = readCommands(stale ? withoutPromotion(input) : input);
  // A retry starts the rollout afresh, but the pods of another revision switched back from keep
  // their delay (and the preview's name) first: its status stays for the draining to see.
  const commands = read.retried && switchedBack(before) && before!.previewRevision !== input.revision
    ? { ...read, input: { ...read.input, status: { ...read.input.status, blueGreen: before } } }
    : read;
  const planned = commands.skipCanary ? settledDecision(commands.input, observed, now, true) : plan(commands.input, observed, now);
  return withStale({
    ...planned,
    events: [...commands.events, ...planned.events],
    ...(commands.retried ? { retried: true } : {}),
  });
}

/**
 * The switch of a pass whose status was lost: its write of the Service went through, and the
 * status after it did not (refused as stale when the App changed meanwhile, or the controller
 * stopped between the two). The status still says Preview while the Service selects the preview's
 * revision: all traffic is on the preview. Taken as switched from this pass, whose time starts the
 * old pods' delay; planned from the status it would have had, a pause or a new pod template meanwhile
 * would switch back unsaid, or give the pods that have the traffic a new template at once.
 * Only a selector Skiff wrote is such a switch: one edited by hand (kubectl edit, a patch) to the
 * preview's revision is drift, which this pass's write of the Service puts back; taken for a
 * switch, it would promote a preview nobody promoted.
 */
function lostSwitch(input: BlueGreenInput, observed: BlueGreenObserved, now: Date): { input: BlueGreenInput; event: RolloutEvent } | undefined {
  const before = input.status.blueGreen;
  if (before?.phase !== 'Preview' || before.previewRevision === input.status.stableRevision) return undefined;
  if (observed.serviceRevision !== before.previewRevision || observed.serviceRevisionWritten !== before.previewRevision || observed.preview?.revision !== before.previewRevision) return undefined;
  const blueGreen = switchedTo({ ...before, phase: 'Switched' }, before.previewRevision, input, now);
  // Said whatever this pass's own write of the Service does: the switch took place before it.
  const { saysServiceWritten: _written, ...event } = switchedEvent({ image: before.image ?? input.image }, blueGreen);
  return { input: { ...input, status: { ...input.status, blueGreen } }, event };
}

/** A switched rollout whose scale-down a pass began: its delay over, `<app>` on the preview's revision. */
function scaleDownBegun(before: BlueGreenInput['status']['blueGreen'], observed: BlueGreenObserved, now: Date): boolean {
  if (before?.phase !== 'Switched' || before.activeRevision !== before.previewRevision) return false;
  const over = statusTimeMs(before.scaleDownAt, Infinity) <= now.getTime();
  return over && observed.stableDeployment?.revision === before.previewRevision;
}

/**
 * A promotion left on the App was given for the pod template the App had then: for the revision in
 * preview (kubectl skiff promote before the preview was ready), or one kept for a preview still to
 * start (a change held by spec.rollout.paused, or one waiting for the pods switched back from). A
 * pod template that changed since the last pass (status.updateRevision) gets none of it, or a
 * release nobody promoted would take all the traffic. Consumed, with a Warning that says so. A
 * promotion given in the same moment as the change is taken for the one before: promote again.
 */
function stalePromotion(input: BlueGreenInput): RolloutEvent | undefined {
  if (!isTrue(input.annotations[ANNOTATION_PROMOTE])) return undefined;
  const before = input.status.blueGreen;
  const inPreview = before?.phase === 'Preview' ? before.previewRevision : undefined;
  const earlier = inPreview ?? input.status.updateRevision;
  if (earlier === undefined || earlier === input.revision) return undefined;
  const what = inPreview !== undefined ? `the preview of revision ${inPreview}` : `revision ${earlier}, the pod template the App had then`;
  return {
    reason: 'PromoteIgnored',
    type: 'Warning',
    message: `${ANNOTATION_PROMOTE} was asked for ${what}, which the pod template's change to ${subject(input)} replaced; promote again to switch to it`,
  };
}

const withoutPromotion = (input: BlueGreenInput): BlueGreenInput => ({
  ...input,
  annotations: Object.fromEntries(Object.entries(input.annotations).filter(([k]) => k !== ANNOTATION_PROMOTE)),
});

const withoutCommands = (input: BlueGreenInput): BlueGreenInput => ({
  ...input,
  annotations: Object.fromEntries(Object.entries(input.annotations).filter(([k]) => k !== ANNOTATION_RETRY && k !== ANNOTATION_SKIP_CANARY)),
});

function plan(input: BlueGreenInput, observed: BlueGreenObserved, now: Date): RolloutDecision {
  const { revision, status } = input;
  if (status.stableRevision === undefined || revision === status.stableRevision) return settledDecision(input, observed, now);
  const stableRevision = status.stableRevision;
  if (revision === status.abortedRevision) return abortedDecision(input, observed, stableRevision, now);
  // A new revision on a paused App waits; one under way goes on below and holds before the switch.
  if (input.paused && (status.blueGreen?.previewRevision !== revision || switchedBack(status.blueGreen))) return waitingDecision(input, observed, stableRevision, now);
  // The pods of an earlier revision have (or just had) the traffic: they wait out their delay first.
  const earlier = status.blueGreen;
  if (earlier && earlier.previewRevision !== revision && (earlier.phase === 'Switched' || switchedBack(earlier)) && observed.previewObjectsExist) {
    // An abort given meanwhile is the new revision's, as a promotion is: it stays aborted and no
    // preview of it starts once those pods are gone (the annotation is consumed either way).
    if (isTrue(input.annotations[ANNOTATION_ABORT])) {
      return abortDecision(input, observed, stableRevision, { blueGreen: earlier, events: [] }, 'RolloutAborted', `blue-green rollout of ${subject(input)} aborted by annotation ${ANNOTATION_ABORT} before its preview started; stable stays on revision ${stableRevision}`, now);
    }
    return drainingDecision(input, observed, stableRevision, now);
  }

  const started = startOrResume(input, stableRevision, now);
  if (isTrue(input.annotations[ANNOTATION_ABORT])) {
    return abortDecision(input, observed, stableRevision, started, 'RolloutAborted', `blue-green rollout of ${subject(input)} aborted by annotation ${ANNOTATION_ABORT}; stable stays on revision ${stableRevision}`, now);
  }
  const counted = countCheck(input, started);
  if (counted.abort) return abortDecision(input, observed, stableRevision, counted, counted.abort.reason, counted.abort.message, now);
  return counted.blueGreen.phase === 'Switched'
    ? switched(input, observed, stableRevision, counted, now)
    : preview(input, observed, stableRevision, pauseOrResume(input, counted, now), now);
}

/** When the next analysis check is due, as a requeue (none while one runs: its completion reconciles). */
function checkRequeue(input: BlueGreenInput, progress: Progress, since: string | undefined, now: Date): number | undefined {
  const analysis = input.analysis;
  if (!analysis?.available || analysis.running || since === undefined) return undefined;
  const due = nextCheckAt({ weightChangedAt: since, analysis: progress.blueGreen.analysis }, analysis.intervalMs);
  return Math.max(100, due - now.getTime());
}

const min = (...ms: (number | undefined)[]) => {
  const defined = ms.filter((m): m is number => m !== undefined);
  return defined.length ? Math.min(...defined) : undefined;
};

/**
 * A ready preview no check has passed yet (or whose last decisive check failed): why, in words,
 * and when a passing check is due by. That is within the progress deadline of its readiness or,
 * after a failed check (one within failureLimit), of that check: each failure gets a deadline of its own.
 */
function awaitingPass(input: BlueGreenInput, blueGreen: Progress['blueGreen'], readyAt: number): { why: string; dueBy: number } {
  const last = blueGreen.analysis;
  const verdict = blueGreen.previewVerdict;
  const lastSaid = last?.lastResult && last.lastWeight === 0 ? `last check ${last.lastResult}: ${last.message}` : 'no check of the preview yet';
  const why = verdict?.result === 'Failed' && last?.lastResult !== 'Failed' ? `${lastSaid}; the last to decide, at ${verdict.at}, failed` : lastSaid;
  const failedAt = verdict?.result === 'Failed' ? statusTimeMs(verdict.at, readyAt) : readyAt;
  return { why, dueBy: Math.max(readyAt, failedAt) + input.progressDeadlineSeconds * 1000 };
}

/** Before the switch: the preview up at full size, checked, promoted; then the one write of the Service. */
function preview(input: BlueGreenInput, observed: BlueGreenObserved, stableRevision: string, progress: Progress, now: Date): RolloutDecision {
  const { revision } = input;
  const what = subject(input);
  const plan = { preview: { revision, replicas: input.replicas }, removePreview: false, activeRevision: stableActive(observed, stableRevision) };
  const deadlineMs = input.progressDeadlineSeconds * 1000;
  let { blueGreen, events } = progress;
  // Until the switch, a promotion asked for waits on the App (kubectl skiff promote before the preview is ready).
  const hold = (message: string, extra: Partial<Hold> = {}) => holdDecision(input, stableRevision, { progress: { blueGreen, events }, plan, message, keepPromote: true, ...extra });
  const abort = (reason: 'ProgressDeadlineExceeded' | 'AnalysisInconclusive', message: string) => abortDecision(input, observed, stableRevision, { blueGreen, events }, reason, message, now);

  const p = observed.preview;
  // The preview's Service, Ingress or route someone else's: what previewHost reaches and what its
  // checks measure would be theirs. No check of it, no switch, as a canary gets no share then.
  const notTheApps = observed.previewNotTheApps ?? [];
  const deploymentUp = p !== undefined && p.revision === revision && p.replicas === input.replicas && p.available;
  if (!deploymentUp || notTheApps.length > 0) {
    // Pods refused (a quota, a LimitRange) never come: the wait, and the abort at its deadline, say why.
    const refused = p?.revision === revision && p.replicaFailure !== undefined ? `: its pods cannot be created: ${p.replicaFailure}` : '';
    const waiting = deploymentUp
      ? `waiting for ${notTheApps.join(', ')} to be the App's (made by it; someone else's object of that name, or its creation refused: the Degraded condition says which)`
      : `waiting for the preview Deployment to be available at ${input.replicas} replicas${refused}`;
    const lost = blueGreen.previewReadyAt !== undefined;
    if (lost) {
      // Ready once, not now (pods lost, or the autoscaler asks for more): readiness counts anew,
      // so autoPromoteAfter is a time the preview was ready without a break, and the progress
      // deadline runs from the loss, as a Deployment's runs from its last progress.
      // A passing check of the pods that were lost says nothing of those that come back: the
      // switch waits for a check of them (the counts, the message and the history are kept).
      // Also while paused: else the pods that come back would switch on resume with the lost ones' check and time.
      const { previewReadyAt: _lost, previewVerdict: _verdict, ...rest } = blueGreen;
      blueGreen = { ...rest, startedAt: now.toISOString(), ...(rest.analysis ? { analysis: withoutVerdict(rest.analysis) } : {}) };
    }
    // While paused the deadline stands still (pauseOrResume): nothing to abort, nothing to come back for.
    if (input.paused) return hold(`paused before the switch (spec.rollout.paused); ${waiting}`, { reason: PAUSED_REASON });
    if (lost) return hold(waiting, { requeueAfterMs: deadlineMs });
    const leftMs = statusTimeMs(blueGreen.startedAt, now.getTime()) + deadlineMs - now.getTime();
    if (leftMs <= 0) return abort('ProgressDeadlineExceeded', `the preview of ${what} was not available within ${input.progressDeadlineSeconds}s${deploymentUp ? `: not the App's (someone else's, or its creation refused): ${notTheApps.join(', ')}` : refused}`);
    return hold(waiting, { requeueAfterMs: leftMs });
  }
  if (blueGreen.previewReadyAt === undefined) {
    blueGreen = { ...blueGreen, previewReadyAt: now.toISOString() };
    events = [...events, { reason: 'BlueGreenPreviewReady', message: `the preview of ${what} is available at ${input.replicas} replicas` }];
  }
  const readyAt = statusTimeMs(blueGreen.previewReadyAt, now.getTime());
  const analysis = input.analysis;
  if (analysis && !analysis.available) {
    return hold('holding before the switch: the analysis needs a Prometheus, and the controller has no --prometheus-url', {
      reason: 'AnalysisUnavailable',
      degraded: { reason: 'AnalysisUnavailable', message: 'spec.rollout.analysis is set but the controller has no Prometheus address (--prometheus-url, SKIFF_PROMETHEUS_URL); the blue-green rollout holds before the switch' },
    });
  }
  if (analysis && !previewPassed(input, blueGreen)) {
    const { why, dueBy } = awaitingPass(input, blueGreen, readyAt);
    const checkDue = checkRequeue(input, { blueGreen, events }, blueGreen.previewReadyAt, now);
    if (input.paused) return hold(`paused before the switch (spec.rollout.paused); waiting for a passing analysis check of the preview (${why})`, { reason: PAUSED_REASON, requeueAfterMs: checkDue });
    if (now.getTime() >= dueBy) return abort('AnalysisInconclusive', `no passing analysis check of the preview of ${what} within ${input.progressDeadlineSeconds}s (${why})`);
    return hold(`waiting for a passing analysis check of the preview (${why})`, { requeueAfterMs: min(checkDue, dueBy - now.getTime()) });
  }
  // Checks of the preview go on at their interval while it waits (paused, or for its promotion):
  // a failing one aborts, rather than a promotion switching to a preview since found bad.
  const checkDue = analysis ? checkRequeue(input, { blueGreen, events }, blueGreen.previewReadyAt, now) : undefined;
  if (input.paused) return hold('paused before the switch (spec.rollout.paused)', { reason: 'RolloutPaused', requeueAfterMs: checkDue });
  const autoAt = readyAt + (input.autoPromoteAfterMs ?? 0);
  const promoted = isTrue(input.annotations[ANNOTATION_PROMOTE]) || (input.autoPromote && now.getTime() >= autoAt);
  if (!promoted) {
    return input.autoPromote
      ? hold(`the preview is ready; switching at ${metaTime(new Date(autoAt))}`, { requeueAfterMs: min(autoAt - now.getTime(), checkDue) })
      : hold(`the preview is ready; annotate ${ANNOTATION_PROMOTE}=true (kubectl skiff promote) to switch`, { requeueAfterMs: checkDue });
  }
  // A check of the preview still running may yet fail it: the switch waits for it to be counted
  // (its completion reconciles the App), rather than moving all traffic to a preview it finds bad.
  if (analysis?.running) return hold('the preview is promoted; switching once the analysis check of the preview that is running now is counted');
  // The switch: one write of the Service's selector.
  blueGreen = switchedTo({ ...blueGreen, phase: 'Switched' }, revision, input, now);
  events = [...events, switchedEvent(input, blueGreen)];
  return switchedHold(input, observed, stableRevision, { blueGreen, events }, now);
}

const switchedEvent = (input: Pick<BlueGreenInput, 'image'>, blueGreen: Progress['blueGreen']): RolloutEvent => ({
  reason: 'BlueGreenSwitched',
  message: `switched: the Service selects revision ${blueGreen.previewRevision} (${input.image}); the old pods stay until ${blueGreen.scaleDownAt}`,
  saysServiceWritten: true,
});

/**
 * The preview's size once the Service sends all traffic to it. The autoscaler targets the Deployment
 * `<app>`, whose old pods get no traffic after the switch: the count it then sets (down to
 * minReplicas) measures idle pods, so the preview follows it up but never down.
 */
const servingReplicas = (input: BlueGreenInput, observed: BlueGreenObserved) =>
  input.autoscaled ? Math.max(input.replicas, observed.preview?.replicas ?? 0) : input.replicas;

/** After the switch, within the delay: the new revision under full traffic, the old pods still there. */
function switched(input: BlueGreenInput, observed: BlueGreenObserved, stableRevision: string, progress: Progress, now: Date): RolloutDecision {
  // The Service does not select the new revision yet (its write failed): the traffic is still on
  // the old pods, so the delay has not begun. It begins again with this pass's write of the Service.
  // Its Event is this pass's, as the pass whose write failed sent none. A selector someone edited
  // after Skiff's write of the switch (its annotation still names the preview) is drift: this
  // pass's write puts it back, and the switch, its delay and its Event stand as they were.
  const { blueGreen } = progress;
  // An abort's switch back whose status was lost (the controller stopped between the Service's
  // write and the status's): the Service says so. Its reason (a failed check, counted only in
  // the memory of the process that stopped) is gone with it; switched forward again instead, the
  // revision the abort took the traffic from would have it all again.
  if (observed.serviceRevision !== blueGreen.previewRevision && observed.serviceSwitchedBackFrom === blueGreen.previewRevision) {
    const message = `the Service was switched back from revision ${blueGreen.previewRevision} by a pass whose status was not recorded (the controller stopped, or its write failed): the rollout stays aborted; change the pod template or annotate ${ANNOTATION_RETRY}=true to roll it out again`;
    return abortDecision(input, observed, stableRevision, progress, 'RolloutAborted', message, now);
  }
  if (observed.serviceRevision !== blueGreen.previewRevision && observed.serviceRevisionWritten !== blueGreen.previewRevision) {
    const again = switchedTo(blueGreen, blueGreen.previewRevision, input, now);
    return switchedHold(input, observed, stableRevision, { blueGreen: again, events: [...progress.events, switchedEvent(input, again)] }, now);
  }
  const leftMs = statusTimeMs(progress.blueGreen.scaleDownAt, now.getTime()) - now.getTime();
  if (leftMs > 0) return switchedHold(input, observed, stableRevision, progress, now);
  // A check under full traffic begun within the delay still runs: once the old pods go no check
  // counts, and a failing one would make stable a revision found bad. The scale-down waits for it
  // (its completion reconciles the App); the switch back stays instant meanwhile.
  if (input.analysis?.running) return switchedHold(input, observed, stableRevision, progress, now, 'the analysis check under full traffic that is running now is counted');
  const events = [...progress.events, ...unconfirmedEvent(input, progress.blueGreen)];
  return scaleDown(input, observed, { events, blueGreen: { ...progress.blueGreen, phase: 'ScalingDown' } });
}

/**
 * The delay is over and the last check under full traffic did not pass: inconclusive (Prometheus
 * down, too few requests) under noData Wait or Fail, or failed within failureLimit. The old pods go
 * as the delay says, as with no check at all in the delay, but that check did not confirm the new
 * revision, and that is said, since from here only a change of the pod template rolls back.
 */
function unconfirmedEvent(input: BlueGreenInput, blueGreen: BlueGreenStatus): RolloutEvent[] {
  const a = blueGreen.analysis;
  // Only a check under full traffic since the switch: the preview's was what the switch rested on.
  if (!input.analysis || a?.lastWeight !== 100 || statusTimeMs(a.lastCheckAt, -Infinity) < statusTimeMs(blueGreen.switchedAt, Infinity)) return [];
  const found = unconfirmedBy(a, input.analysis);
  if (found === undefined) return [];
  return [{
    reason: 'ScaleDownUnconfirmed',
    type: 'Warning',
    message: `the old pods go after the scale-down delay, but the last analysis check of ${subject(input)} under full traffic ${found}`,
  }];
}

function switchedHold(input: BlueGreenInput, observed: BlueGreenObserved, stableRevision: string, progress: Progress, now: Date, checkRunning?: string): RolloutDecision {
  const { blueGreen } = progress;
  const leftMs = statusTimeMs(blueGreen.scaleDownAt, now.getTime()) - now.getTime();
  const until = checkRunning === undefined ? blueGreen.scaleDownAt : `${blueGreen.scaleDownAt} and ${checkRunning}`;
  return holdDecision(input, stableRevision, {
    progress,
    plan: { preview: { revision: blueGreen.previewRevision, replicas: servingReplicas(input, observed) }, removePreview: false, activeRevision: blueGreen.previewRevision },
    message: `switched to revision ${blueGreen.previewRevision}; the old pods stay until ${until} (annotate ${ANNOTATION_ABORT}=true to switch back)`,
    requeueAfterMs: checkRunning === undefined ? min(Math.max(leftMs, 0), input.analysis ? checkRequeue(input, progress, blueGreen.switchedAt, now) : undefined) : undefined,
  });
}

/**
 * A promotion given while the old pods go, with the pod template changed since: it is for the
 * preview of that template, which starts once this rollout ends, and stays on the App for it (as
 * one given while the pods switched back from drain). Removed here, nothing would say it was not
 * acted on, and the next preview would wait for a promotion its author believed given.
 */
const promotesNext = (input: BlueGreenInput, scalingDown: string) => input.revision !== scalingDown && isTrue(input.annotations[ANNOTATION_PROMOTE]);

/** After the delay: the Deployment `<app>` takes the new template; once it is available the preview goes. */
function scaleDown(input: BlueGreenInput, observed: BlueGreenObserved, progress: Progress): RolloutDecision {
  const { blueGreen } = progress;
  const revision = blueGreen.previewRevision;
  const stableRevision = input.status.stableRevision ?? revision;
  const events = isTrue(input.annotations[ANNOTATION_ABORT])
    ? [...progress.events, { reason: 'AbortIgnored', type: 'Warning' as const, message: `the old pods are already going (the scale-down delay is over): revision ${revision} stays; change the pod template to roll back` }]
    : progress.events;
  const main = observed.stableDeployment;
  // Only pods that carry the revision label are selected by it: the Deployment's pods may not (the
  // strategy was another one for a while, which rolled them without it), and the preview's, until
  // then the only labelled ones, are not deleted before they are all labelled and available.
  if (main && main.revision === revision && main.labelled && main.available) {
    const done = completeDecision(input, observed, { blueGreen, events });
    return promotesNext(input, revision) ? { ...done, consumedAnnotations: done.consumedAnnotations.filter((a) => a !== ANNOTATION_PROMOTE) } : done;
  }
  return holdDecision(input, stableRevision, {
    progress: { blueGreen, events },
    // A Service on the stable track (left there by another strategy) stays on it: the track selects every pod of the Deployment.
    plan: { preview: { revision, replicas: servingReplicas(input, observed) }, removePreview: false, activeRevision: observed.serviceRevision === undefined ? undefined : revision, ...takingOverReplicas(input, observed) },
    // A pod template changed since waits for this to finish: said, or the message would read as the App's whole rollout.
    message: `the Deployment takes revision ${revision}; the preview goes once it is available${input.revision !== revision ? `; then ${subject(input)} rolls out` : ''}`,
    stableNext: revision,
    keepPromote: promotesNext(input, revision),
  });
}
