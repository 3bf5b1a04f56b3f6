// When an App's next analysis check is due. Pure.
import type { AnalysisSpec, CanaryStatus } from '../../shared/app-types.js';
import { DEFAULTS } from '../../shared/defaults.js';
import { durationMs } from '../../shared/durations.js';
import { statusTimeMs } from '../../shared/time.js';

/**
 * When the next analysis check is due (ms since the epoch): an interval after the last check,
 * and not before the canary has had its current weight for a whole interval, so that a check
 * at a weight measures traffic at that weight rather than a window reaching back before it.
 * Never (Infinity) while weightChangedAt is absent: the weight is decided but the router does not
 * carry it yet (canary/running.ts).
 */
export function nextCheckAt(canary: Pick<CanaryStatus, 'weightChangedAt' | 'analysis'>, intervalMs: number): number {
  if (canary.weightChangedAt === undefined) return Infinity;
  // A time JavaScript cannot read counts as absent (a check is due), never as NaN (none ever is).
  const since = [canary.analysis?.lastCheckAt, canary.weightChangedAt].map((t) => statusTimeMs(t, -Infinity) + intervalMs);
  return Math.max(...since);
}

/** The App's analysis interval in ms (its default when absent, as the webhook fills it). */
export const intervalMs = (analysis: Pick<AnalysisSpec, 'interval'>) => durationMs(analysis.interval ?? DEFAULTS.analysisInterval) ?? durationMs(DEFAULTS.analysisInterval)!;
