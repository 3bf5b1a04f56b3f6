// Canary steps in words, for condition messages, Events and `kubectl skiff status`.
import type { CanaryStep } from './app-types.js';
import { DEFAULT_CANARY_STEPS } from './defaults.js';

/** What status.canary.step records past the last step: the promotion, begun or to begin. */
export const PROMOTION_STEP = 'promotion';

/**
 * The steps of an App's canary: spec's, else for the Canary strategy the default four, which the
 * controller runs for an App stored without the webhook (no steps in its stored spec).
 */
export const canarySteps = (rollout: { strategy?: string; steps?: CanaryStep[] } | undefined): readonly CanaryStep[] =>
  rollout?.steps ?? (rollout?.strategy === 'Canary' ? DEFAULT_CANARY_STEPS : []);

/** "setWeight 20%", "pause 60s" or "pause until promoted". */
export function stepName(step: CanaryStep): string {
  if (step.setWeight !== undefined) return `setWeight ${step.setWeight}%`;
  return step.pause?.duration ? `pause ${step.pause.duration}` : 'pause until promoted';
}

/** "step 2/4 (pause 60s)", or "promotion" past the last step. */
export function stepLabel(steps: readonly CanaryStep[], index: number): string {
  const step = steps[index];
  return step ? `step ${index + 1}/${steps.length} (${stepName(step)})` : PROMOTION_STEP;
}
