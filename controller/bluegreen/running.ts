// A blue-green rollout of spec's revision in progress: started or resumed, its latest analysis
// check counted, and the preview's pods retired once no traffic reaches them. Each function takes
// the rollout's state as a value and returns the next one with the Events it caused. Pure.
import { failuresOverLimit, recordCheck } from '../analysis/record.js';
import type { AnalysisStatus, BlueGreenStatus } from '../../shared/app-types.js';
import { checksCount, countedNote, countsAs } from '../analysis/evaluate.js';
import type { AbortReason, RolloutEvent } from '../canary/types.js';
import type { BlueGreenInput, BlueGreenObserved } from './types.js';
import { statusTimeMs } from '../../shared/time.js';
import { switchedBack } from '../../shared/rollout-revision.js';

/** The rollout's status as the pass has it so far, and the Events so far. */
export interface Progress {
  blueGreen: BlueGreenStatus;
  events: RolloutEvent[];
}

/** "web:2 (revision 3f2a1b9c0d)". */
export const subject = (input: Pick<BlueGreenInput, 'image' | 'revision'>) => `${input.image} (revision ${input.revision})`;

const later = (now: Date, ms: number) => new Date(now.getTime() + ms).toISOString();

/** The blue-green status after a switch at `now` to `activeRevision`: the pods left without traffic go after the delay. */
export function switchedTo(blueGreen: BlueGreenStatus, activeRevision: string, input: Pick<BlueGreenInput, 'scaleDownDelaySeconds'>, now: Date): BlueGreenStatus {
  return { ...blueGreen, activeRevision, switchedAt: now.toISOString(), scaleDownAt: later(now, input.scaleDownDelaySeconds * 1000) };
}

/**
 * The rollout of spec's revision: resumed as status has it, or started (a new preview; a rollout of
 * another revision before it is replaced, switching back first when it was switched).
 */
export function startOrResume(input: BlueGreenInput, stableRevision: string, now: Date): Progress {
  const { revision, image, status } = input;
  const before = status.blueGreen;
  if (before && before.previewRevision === revision && !switchedBack(before)) return { blueGreen: { ...before, image }, events: [] };
  const blueGreen: BlueGreenStatus = { previewRevision: revision, activeRevision: stableRevision, phase: 'Preview', image, startedAt: now.toISOString() };
  const events: RolloutEvent[] = [];
  if (before?.phase === 'Switched') events.push({ reason: 'BlueGreenSwitchedBack', message: `the pod template changed to ${subject(input)} after the switch to revision ${before.previewRevision}; the Service selects stable revision ${stableRevision} again` });
  events.push(before && !switchedBack(before)
    ? { reason: 'BlueGreenRestarted', message: `the pod template changed to ${subject(input)} during a blue-green rollout; a new preview starts` }
    : { reason: 'BlueGreenStarted', message: `blue-green rollout of ${subject(input)} started: preview Deployment at the stable replica count (stable: revision ${stableRevision})` });
  return { blueGreen, events };
}

/**
 * The check that ran, counted into the rollout's analysis (only ever for this revision, and in the
 * phase it measured: the preview's before the switch, full traffic after it); `abort` when it makes
 * more failures than failureLimit allows.
 */
export function countCheck(input: BlueGreenInput, progress: Progress): Progress & { abort?: { reason: AbortReason; message: string } } {
  const analysis = input.analysis;
  const check = input.status.blueGreen?.previewRevision === input.revision ? analysis?.check : undefined;
  const measuring = progress.blueGreen.phase === 'Preview' ? 0 : 100;
  if (!analysis) return progress;
  const what = `${measuring === 0 ? 'the preview' : 'full traffic'} of ${subject(input)}`;
  if (!check || check.weight !== measuring) {
    const abort = failuresOverLimit(progress.blueGreen.analysis, analysis.failureLimit, what);
    return abort ? { ...progress, abort } : progress;
  }
  const counted = countsAs(check.result.result, analysis.noData);
  const before = progress.blueGreen.analysis ?? { checks: 0, failures: 0 };
  const counts = recordCheck(progress.blueGreen.analysis, { ...check, counted });
  // A check of a preview lost since it began measured pods that are gone: it counts, but the
  // switch waits for one of the pods that come back. So does a check begun before the preview was
  // last ready (lost and back while the check ran, or an earlier preview of the same revision).
  const readyAt = progress.blueGreen.previewReadyAt;
  const beforeReady = readyAt === undefined || statusTimeMs(check.at, -Infinity) < statusTimeMs(readyAt, Infinity);
  const recorded = measuring === 0 && beforeReady ? withoutVerdict(counts) : counts;
  const failures = recorded.failures;
  // What the switch rests on: the last check of the ready preview that passed or failed. One that
  // says nothing (inconclusive under noData Wait: too few requests of previewHost in its window)
  // leaves it, so a preview that passed and waits for its promotion is not aborted by such a check.
  const decided = measuring === 0 && !beforeReady && counted !== 'Wait' ? { previewVerdict: { result: counted, at: check.at } } : {};
  const blueGreen: BlueGreenStatus = { ...progress.blueGreen, analysis: recorded, ...decided };
  const events = counted === 'Failed'
    ? [...progress.events, { reason: 'AnalysisCheckFailed', type: 'Warning' as const, message: `analysis check ${before.checks + 1} of ${what} failed (${failures} failed so far, failureLimit ${analysis.failureLimit}${countedNote(check.result, counted)}): ${check.result.message}` }]
    : progress.events;
  const abort = failures > analysis.failureLimit
    ? { reason: 'AnalysisFailed' as const, message: `analysis of ${what} failed ${checksCount(failures)} (failureLimit ${analysis.failureLimit}${countedNote(check.result, counted)}): ${check.result.message}` }
    : undefined;
  return { blueGreen, events, abort };
}

/**
 * spec.rollout.paused before the switch stops the rollout's clocks, as a paused Deployment's
 * progress deadline stops: pausedAt set when the pause begins; on resume startedAt and
 * previewReadyAt move forward by the time paused since each (a preview that became ready during
 * the pause counts as ready from the resume), so the progress deadline, the deadline for a passing
 * check and autoPromoteAfter go on where they stopped.
 */
export function pauseOrResume(input: BlueGreenInput, progress: Progress, now: Date): Progress {
  const { blueGreen } = progress;
  if (blueGreen.phase !== 'Preview') return progress;
  if (input.paused) return blueGreen.pausedAt !== undefined ? progress : { ...progress, blueGreen: { ...blueGreen, pausedAt: now.toISOString() } };
  if (blueGreen.pausedAt === undefined) return progress;
  const nowMs = now.getTime();
  const pausedAtMs = statusTimeMs(blueGreen.pausedAt, nowMs);
  const moved = (t: string | undefined) => {
    if (t === undefined) return undefined;
    const ms = statusTimeMs(t, nowMs);
    return new Date(ms + Math.max(0, nowMs - Math.max(ms, pausedAtMs))).toISOString();
  };
  const { pausedAt: _pausedAt, ...running } = blueGreen;
  const previewReadyAt = moved(blueGreen.previewReadyAt);
  // A failed verdict's time is where the deadline for the next passing check counts from.
  const verdict = blueGreen.previewVerdict && { previewVerdict: { ...blueGreen.previewVerdict, at: moved(blueGreen.previewVerdict.at)! } };
  return { ...progress, blueGreen: { ...running, startedAt: moved(blueGreen.startedAt), ...(previewReadyAt !== undefined ? { previewReadyAt } : {}), ...verdict } };
}

/**
 * The analysis without the last check's verdict (lastResult, lastWeight): no switch rests on it.
 * For a preview lost and back, whose pods the check measured are gone; counts, message and history stay.
 */
export function withoutVerdict(analysis: AnalysisStatus): AnalysisStatus {
  const { lastResult: _result, lastWeight: _weight, ...kept } = analysis;
  return kept;
}

/**
 * Whether the preview's verdict lets it switch: its last check that passed or failed passed.
 * A status written before the verdict was kept has only the last check: then that one decides.
 */
export function previewPassed(input: BlueGreenInput, blueGreen: BlueGreenStatus): boolean {
  if (blueGreen.previewVerdict) return blueGreen.previewVerdict.result === 'Passed';
  const a = blueGreen.analysis;
  return a?.lastResult !== undefined && a.lastWeight === 0 && countsAs(a.lastResult, input.analysis!.noData) === 'Passed';
}

export interface Retirement {
  removePreview: boolean;
  /** What status keeps while the preview's pods wait for their delay. */
  blueGreen?: BlueGreenStatus;
  requeueAfterMs?: number;
  /**
   * The Service selects the preview's pods now, and this pass's write takes it off them: the switch
   * back, told by this pass (only once that write succeeds). A blue-green decision whose status
   * said Switched tells it in its own words; otherwise the status says the switch back was made
   * already, by a pass whose write of the Service failed.
   */
  switchesBack?: true;
}

/**
 * The preview objects go: at once when the Service never sent to them, else after
 * scaleDownDelaySeconds from the switch back, so that requests already routed to them finish and a
 * kube-proxy that applies the selector late never sends to a pod that is gone. The time is in
 * status: a restarted controller neither shortens nor repeats the delay.
 */
export function retirePreview(input: BlueGreenInput, observed: BlueGreenObserved, stableRevision: string, now: Date, serviceToStableTrack = false): Retirement {
  const before = input.status.blueGreen;
  if (!observed.previewObjectsExist) return { removePreview: false };
  const previewRevision = observed.preview?.revision ?? before?.previewRevision;
  // The Service selects the preview's pods now and, after this pass, no longer does: it goes to
  // stable's revision, or (`serviceToStableTrack`, the other strategies) to the stable track.
  const servedByService = previewRevision !== undefined && (serviceToStableTrack || previewRevision !== stableRevision) && observed.serviceRevision === previewRevision;
  // Already waiting out its delay: a switch back, or (the Service no longer on it) a preview another
  // strategy took the Service off in an earlier pass, whose status names the same revision on both
  // sides when that strategy made it stable. Its time stands; it is not started again, unless the
  // Service still selects the preview (the write that switched back failed): its delay begins
  // with the write of this pass.
  const waiting = (switchedBack(before) || (before?.phase === 'ScalingDown' && before.scaleDownAt !== undefined)) && !servedByService;
  const hadTraffic = waiting || before?.phase === 'Switched' || servedByService;
  const again = servedByService ? { switchesBack: true as const } : {};
  if (!hadTraffic || input.scaleDownDelaySeconds <= 0) return { removePreview: true, ...again };
  const blueGreen = waiting
    ? before!
    // The changes and the analysis stay in view: what was switched back from, and why.
    : switchedTo({ previewRevision: previewRevision ?? '', activeRevision: stableRevision, phase: 'ScalingDown', ...(before?.image ? { image: before.image } : {}), ...(before?.changes ? { changes: before.changes } : {}), ...(before?.analysis ? { analysis: before.analysis } : {}) }, stableRevision, input, now);
  const leftMs = statusTimeMs(blueGreen.scaleDownAt, now.getTime()) - now.getTime();
  return leftMs > 0 ? { removePreview: false, blueGreen, requeueAfterMs: leftMs, ...again } : { removePreview: true, blueGreen, ...again };
}
