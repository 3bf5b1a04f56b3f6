// metav1.Condition bookkeeping: lastTransitionTime moves only when a condition's status changes,
// so a reconcile that sees the same situation produces the same conditions (and no status write).
import type { Condition, ConditionStatus } from '../../shared/app-types.js';
import { boundedText, CONDITION_MESSAGE_BYTES } from '../../shared/text.js';
import { metaTime } from '../../shared/time.js';

export interface ConditionInput {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
}

/**
 * `next` in its order, each carrying over lastTransitionTime from the previous condition of its
 * type when the status is unchanged, followed by previous conditions of other types untouched.
 */
export function setConditions(previous: Condition[] | undefined, next: ConditionInput[], generation: number | undefined, now: Date): Condition[] {
  const before = new Map((previous ?? []).map((c) => [c.type, c]));
  const out: Condition[] = next.map((c) => {
    const old = before.get(c.type);
    const lastTransitionTime = old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : metaTime(now);
    return {
      type: c.type,
      status: c.status,
      ...(generation !== undefined ? { observedGeneration: generation } : {}),
      lastTransitionTime,
      reason: c.reason,
      // Messages quote what others said (API errors, Prometheus, validation): held to a size
      // that keeps the status write well under the API server's request limit.
      message: boundedText(c.message, CONDITION_MESSAGE_BYTES),
    };
  });
  const types = new Set(next.map((c) => c.type));
  return [...out, ...(previous ?? []).filter((c) => !types.has(c.type))];
}

export function findCondition(conditions: Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}
