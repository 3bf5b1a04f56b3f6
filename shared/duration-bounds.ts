// Bounds on the App's durations (api.md, "Tenant safety"): a pause or an analysis interval becomes
// a requeue of the App, and a very long one overflows Node's timers (clamped to 1 ms: the App
// would be reconciled without pause); a very short analysis interval asks Prometheus and writes
// the App's status several times a second. The schema checks the syntax; these the numbers. Pure.
import { durationMs } from './durations.js';
import { itemsOf, objectAt, stringAt, type SpecCheck } from './field-checks.js';

export const MAX_PAUSE = '24h';
export const MIN_ANALYSIS_INTERVAL = '10s';
export const MAX_ANALYSIS_INTERVAL = '24h';

const ms = (d: string) => durationMs(d)!;

export const checkDurations: SpecCheck = (spec, out) => {
  const rollout = objectAt(spec.rollout);
  for (const [i, step] of itemsOf(rollout?.steps)) {
    const duration = stringAt(objectAt(step.pause)?.duration);
    const value = duration === undefined ? undefined : durationMs(duration);
    if (value !== undefined && value > ms(MAX_PAUSE)) out.push({ path: `spec.rollout.steps[${i}].pause.duration`, message: `must be at most ${MAX_PAUSE}` });
  }
  const after = stringAt(objectAt(rollout?.blueGreen)?.autoPromoteAfter);
  const afterMs = after === undefined ? undefined : durationMs(after);
  if (afterMs !== undefined && afterMs > ms(MAX_PAUSE)) out.push({ path: 'spec.rollout.blueGreen.autoPromoteAfter', message: `must be at most ${MAX_PAUSE}` });
  const interval = stringAt(objectAt(rollout?.analysis)?.interval);
  const value = interval === undefined ? undefined : durationMs(interval);
  if (value !== undefined && value < ms(MIN_ANALYSIS_INTERVAL)) out.push({ path: 'spec.rollout.analysis.interval', message: `must be at least ${MIN_ANALYSIS_INTERVAL}` });
  if (value !== undefined && value > ms(MAX_ANALYSIS_INTERVAL)) out.push({ path: 'spec.rollout.analysis.interval', message: `must be at most ${MAX_ANALYSIS_INTERVAL}` });
};
