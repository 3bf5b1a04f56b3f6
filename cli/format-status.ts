// The text of `kubectl skiff status`: pure, so it is unit-tested without a cluster.
import type { App } from '../shared/app-types.js';
import type { CliApp } from './model.js';
import { durationMs } from '../shared/durations.js';
import { canarySteps, stepName } from '../shared/steps.js';
import { blueGreenOf, canaryUnavailable, heldChange, heldTemplate, heldText, promotionWaiting, retiringPreview, switchedBack as isSwitchedBack, unobserved } from './model.js';
import { oneLine } from './style.js';

export function formatStatus(app: App, now: Date): string {
  const spec = app.spec;
  const status = app.status ?? {};
  const rows: [string, string][] = [
    ['App', `${app.metadata.namespace}/${app.metadata.name}`],
    ['Strategy', spec.rollout?.strategy ?? 'RollingUpdate'],
    ['Stable image', status.stableImage ?? '(not yet deployed)'],
  ];
  const held = heldChange(app as CliApp);
  // RollingUpdate: status names the paused Deployment's template stable's, but its pods run the one before.
  if (heldTemplate(app as CliApp, status.stableRevision)) rows[2][1] += ' (of the paused Deployment\'s template, held: its pods run the one before)';
  if (status.stableRevision) rows.push(['Stable revision', status.stableRevision]);
  // Said first: every row below is of the generation the controller saw. (Read from the API as
  // JSON, its times are strings, as the plugin's own type has them.)
  const behind = unobserved(app as CliApp);
  if (behind) rows.splice(1, 0, ['Observed', behind]);
  if (held) rows.push(['Held', heldText(held)]);
  const c = status.canary;
  if (c) rows.push(...canaryRows(app, c, now));
  else if (blueGreenOf(app)) rows.push(...blueGreenRows(app, now));
  else if (spec.rollout?.strategy === 'Canary') rows.push(['Canary', status.abortedImage ? `aborted (${status.abortedImage})` : 'none in progress']);
  if (status.scaleDown) {
    const leftS = Math.max(0, Math.ceil((Date.parse(status.scaleDown.deleteAt) - now.getTime()) / 1000));
    // A canary of another revision waiting for them takes them over then, rather than their going.
    const next = status.canary && status.canary.revision !== status.scaleDown.revision ? status.canary : undefined;
    rows.push(['Scale-down', next
      ? `the earlier canary's pods (revision ${status.scaleDown.revision}) get no traffic and take the pod template of revision ${next.revision ?? '?'} (${next.changes && next.changes.length && !next.changes.includes('image') ? next.changes.join(', ') : next.image}) at ${status.scaleDown.deleteAt} (${leftS}s left); its canary starts then`
      : `the finished canary's pods (revision ${status.scaleDown.revision}) get no traffic and go at ${status.scaleDown.deleteAt} (${leftS}s left)`]);
  }
  const left = retiringPreview(app);
  if (left) {
    const going = left.scaleDownAt ? `go at ${left.scaleDownAt} (${secondsLeft(left.scaleDownAt, now)}s left)` : 'go once the controller removes them';
    rows.push(['Old preview', `the blue-green preview's pods (revision ${left.previewRevision}), left from before the strategy became ${app.spec.rollout?.strategy ?? 'RollingUpdate'}, get no traffic and ${going}`]);
  }
  rows.push(['Replicas', `${status.readyReplicas ?? 0}/${status.replicas ?? spec.replicas ?? 0} ready`]);
  if (status.url) rows.push(['URL', status.url]);
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  const lines = rows.map(([k, v]) => `${`${k}:`.padEnd(width)}${v}`);
  const metrics = (status.canary ?? status.blueGreen)?.analysis?.metrics ?? [];
  if (metrics.length) {
    lines.push('Metrics (last check):');
    const nw = Math.max(...metrics.map((x) => x.name.length)) + 2;
    for (const x of metrics) {
      const bounds = [x.min !== undefined ? `min ${x.min}` : '', x.max !== undefined ? `max ${x.max}` : ''].filter(Boolean).join(', ');
      lines.push(`  ${x.name.padEnd(nw)}${(x.value === undefined ? '-' : String(x.value)).padEnd(10)}${(bounds || '-').padEnd(22)}${x.result.padEnd(14)}${oneLine(x.message)}`);
    }
  }
  const conditions = status.conditions ?? [];
  if (conditions.length) {
    lines.push('Conditions:');
    const tw = Math.max(...conditions.map((x) => x.type.length)) + 2;
    const sw = Math.max(...conditions.map((x) => x.status.length)) + 2;
    const rw = Math.max(...conditions.map((x) => x.reason.length)) + 2;
    for (const x of conditions) lines.push(`  ${x.type.padEnd(tw)}${x.status.padEnd(sw)}${x.reason.padEnd(rw)}${oneLine(x.message)}`);
  }
  // Each line one line: messages from outside (Prometheus errors, API errors) may hold line breaks.
  // The messages were also put on one line by themselves, above: line breaks at their ends separate
  // nothing. Nothing here is coloured, so no escape sequence is kept in any Style.
  return lines.map((line) => oneLine(line)).join('\n') + '\n';
}

/** A canary under way: its image, revision and changes, step and time left, weight, and its analysis. */
function canaryRows(app: App, c: NonNullable<NonNullable<App['status']>['canary']>, now: Date): [string, string][] {
  const steps = canarySteps(app.spec.rollout);
  const spec = app.spec;
  const rows: [string, string][] = [];
  const step = steps[c.stepIndex];
  let progress = `${Math.min(c.stepIndex + 1, steps.length)}/${steps.length} ${step ? stepName(step) : 'promoting'}`;
  const waitMs = step?.pause?.duration ? durationMs(step.pause.duration) : undefined;
  if (waitMs !== undefined) {
    // A paused rollout's timer stands still from pausedAt: what is left then is left on resume.
    const at = c.pausedAt !== undefined ? Date.parse(c.pausedAt) : now.getTime();
    const leftS = Math.max(0, Math.ceil((Date.parse(c.stepStartedAt) + waitMs - at) / 1000));
    progress += c.pausedAt !== undefined ? `, ${leftS}s left once resumed (rollout paused)` : `, ${leftS}s left`;
  } else if (step?.pause) {
    progress += ' (kubectl skiff promote to continue)';
  }
  rows.push(['Canary image', c.image]);
  if (c.revision) rows.push(['Canary revision', c.revision]);
  if (c.changes) rows.push(['Changes', c.changes.length ? c.changes.join(', ') : '(none in the pod template)']);
  rows.push(['Step', progress], ['Canary weight', `${c.weight}%`]);
  const unavailable = canaryUnavailable(app, now);
  if (unavailable) rows.push(['Canary', unavailable]);
  const a = c.analysis;
  if (a) {
    rows.push(['Analysis', `${a.checks} check${a.checks === 1 ? '' : 's'}, ${a.failures} failed${a.lastResult ? `; last ${a.lastResult}${a.lastWeight !== undefined ? ` at ${a.lastWeight}%` : ''}${a.lastCheckAt ? ` (${a.lastCheckAt})` : ''}` : ''}`]);
  } else if (spec.rollout?.analysis) {
    rows.push(['Analysis', 'no check yet (checks run while the canary gets traffic)']);
  }
  return rows;
}

const secondsLeft = (at: string, now: Date) => Math.max(0, Math.ceil((Date.parse(at) - now.getTime()) / 1000));

/** A blue-green rollout: its phase, the revisions the preview runs and the Service selects, and what it waits for. */
function blueGreenRows(app: App, now: Date): [string, string][] {
  const b = app.status!.blueGreen!;
  const switchedBack = isSwitchedBack(b);
  const rows: [string, string][] = [['Blue-green', switchedBack ? 'switched back' : b.phase]];
  if (b.image) rows.push(['Preview image', b.image]);
  rows.push(['Preview revision', b.previewRevision]);
  // A change of tracked configuration keeps the image: this row says what rolls out.
  if (b.changes) rows.push(['Changes', b.changes.length ? b.changes.join(', ') : '(none in the pod template)']);
  rows.push(['Service selects', `revision ${b.activeRevision}`]);
  if (b.phase === 'Preview') {
    // Promoted already (the annotation waits on the App until the switch): no command to give.
    const promote = promotionWaiting(app as CliApp) ? 'promoted: switches once the controller can (see Progressing)' : app.spec.rollout?.blueGreen?.autoPromote === false ? 'kubectl skiff promote to switch' : 'switches automatically';
    rows.push(['Preview', b.previewReadyAt ? `ready since ${b.previewReadyAt} (${promote})` : 'waiting for the preview Deployment to be available']);
    // Held before the switch: neither a promotion nor autoPromoteAfter switches until resumed.
    if (b.pausedAt) rows.push(['Paused', `since ${b.pausedAt}: no switch until kubectl skiff resume`]);
  }
  if (b.switchedAt) rows.push([switchedBack ? 'Switched back' : 'Switched', b.switchedAt]);
  if (b.scaleDownAt && b.phase !== 'Preview') {
    const who = switchedBack ? "the preview's pods" : 'the old pods';
    rows.push(['Scale-down', `${who} get no traffic and go at ${b.scaleDownAt} (${secondsLeft(b.scaleDownAt, now)}s left)${b.phase === 'Switched' ? '; kubectl skiff abort switches back until then' : ''}`]);
  }
  const a = b.analysis;
  if (a) {
    const where = a.lastWeight === 0 ? 'of the preview' : 'under full traffic';
    rows.push(['Analysis', `${a.checks} check${a.checks === 1 ? '' : 's'}, ${a.failures} failed${a.lastResult ? `; last ${a.lastResult} ${where}${a.lastCheckAt ? ` (${a.lastCheckAt})` : ''}` : ''}`]);
    // What the switch rests on: an inconclusive check since leaves it as it was.
    if (b.phase === 'Preview' && b.previewVerdict) rows.push(['Preview verdict', `${b.previewVerdict.result} (the check at ${b.previewVerdict.at}; the switch needs Passed)`]);
  } else if (app.spec.rollout?.analysis) {
    rows.push(['Analysis', 'no check yet (the preview is checked once ready, the new revision again after the switch)']);
  }
  return rows;
}
