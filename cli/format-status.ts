// The text of `kubectl skiff status`: pure, so it is unit-tested without a cluster.
import type { App } from '../shared/app-types.js';
import { durationMs } from '../shared/durations.js';
import { stepName } from '../shared/steps.js';

export function formatStatus(app: App, now: Date): string {
  const spec = app.spec;
  const status = app.status ?? {};
  const steps = spec.rollout?.steps ?? [];
  const rows: [string, string][] = [
    ['App', `${app.metadata.namespace}/${app.metadata.name}`],
    ['Strategy', spec.rollout?.strategy ?? 'RollingUpdate'],
    ['Stable image', status.stableImage ?? '(not yet deployed)'],
  ];
  if (status.stableRevision) rows.push(['Stable revision', status.stableRevision]);
  const c = status.canary;
  if (c) {
    const step = steps[c.stepIndex];
    let progress = `${Math.min(c.stepIndex + 1, steps.length)}/${steps.length} ${step ? stepName(step) : 'promoting'}`;
    const waitMs = step?.pause?.duration ? durationMs(step.pause.duration) : undefined;
    if (waitMs !== undefined) {
      const leftS = Math.max(0, Math.ceil((Date.parse(c.stepStartedAt) + waitMs - now.getTime()) / 1000));
      progress += `, ${leftS}s left`;
    } else if (step?.pause) {
      progress += ' (kubectl skiff promote to continue)';
    }
    rows.push(['Canary image', c.image]);
    if (c.revision) rows.push(['Canary revision', c.revision]);
    if (c.changes) rows.push(['Changes', c.changes.length ? c.changes.join(', ') : '(none in the pod template)']);
    rows.push(['Step', progress], ['Canary weight', `${c.weight}%`]);
  } else if (spec.rollout?.strategy === 'Canary') {
    rows.push(['Canary', status.abortedImage ? `aborted (${status.abortedImage})` : 'none in progress']);
  }
  rows.push(['Replicas', `${status.readyReplicas ?? 0}/${status.replicas ?? spec.replicas ?? 0} ready`]);
  if (status.url) rows.push(['URL', status.url]);
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  const lines = rows.map(([k, v]) => `${`${k}:`.padEnd(width)}${v}`);
  const conditions = status.conditions ?? [];
  if (conditions.length) {
    lines.push('Conditions:');
    const tw = Math.max(...conditions.map((x) => x.type.length)) + 2;
    const rw = Math.max(...conditions.map((x) => x.reason.length)) + 2;
    for (const x of conditions) lines.push(`  ${x.type.padEnd(tw)}${x.status.padEnd(7)}${x.reason.padEnd(rw)}${x.message}`);
  }
  return lines.join('\n') + '\n';
}
