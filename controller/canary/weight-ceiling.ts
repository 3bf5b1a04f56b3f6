// Once the wind-down of a canary has begun (promotion moving traffic back, an abort, a
// cancellation), its weight never rises again. planCanary keeps that within one pass; this keeps
// it across passes, whatever a later pass reads: the reconciler remembers, per App, which
// revision is winding down in which generation of the App, and a plan that would raise that
// revision's weight in the same generation (or an older one: a stale read) is held at the
// router's weight. Pure.
//
// Within one generation no raise after a wind-down is ever right: an aborted revision starts
// again only after the pod template changes (a new generation), a promoted one is stable, and a
// cancelled one was cancelled by a change of the template. Nor in an older generation, which
// only a cache behind the App can show.
import { stepWeight, type CanaryDecision, type CanaryInput, type CanaryObserved } from './types.js';

export interface WeightCeiling {
  /** The canary revision whose traffic is winding down. */
  revision: string;
  /** The App's metadata.generation when the wind-down began. */
  generation: number;
}

/** What a wind-down is told by. */
export type WindDownDecision = Pick<CanaryDecision, 'phase' | 'canary' | 'removeCanary'> & { status?: Pick<CanaryDecision['status'], 'canary'> };

/** Whether a decision winds a canary's traffic down (or keeps it wound down). */
export function windsDown(decision: WindDownDecision): boolean {
  if (decision.phase === 'Aborted' || decision.phase === 'CleaningUp') return true;
  // A cancellation by a new pod template: the earlier revision's pods (not the revision the
  // status now rolls out) go back to weight 0 before they take the new template.
  const { canary } = decision;
  const rolling = decision.status?.canary?.revision;
  if (decision.phase === 'CanaryStep' && canary?.weight === 0 && rolling !== undefined && rolling !== canary.revision) return true;
  return decision.phase === 'Promoting' && (decision.removeCanary || canary?.weight === 0);
}

/**
 * The ceiling after this pass: begun by a wind-down of `revision` (the canary's, as decided or
 * observed), kept while the App's generation stays (or a pass reads an older one), dropped once
 * it grows.
 */
export function nextCeiling(
  previous: WeightCeiling | undefined,
  decision: WindDownDecision,
  revision: string | undefined,
  generation: number,
): WeightCeiling | undefined {
  // An older generation than the ceiling's is a stale read of the App: it neither ends the
  // ceiling nor replaces it.
  const kept = previous && previous.generation >= generation ? previous : undefined;
  if (windsDown(decision) && revision !== undefined && kept?.revision !== revision && (kept === undefined || kept.generation === generation)) return { revision, generation };
  return kept;
}

/**
 * The weight to send: the plan's, unless it would raise the weight of a revision that is
 * winding down in this generation (or a pass read the App of an older one), in which case the
 * router keeps the weight it has.
 */
export function cappedWeight(
  ceiling: WeightCeiling | undefined,
  canary: { revision: string; weight: number },
  routerWeight: number | undefined,
  generation: number,
): number {
  const current = routerWeight ?? 0;
  // Generations only grow: one older than the ceiling's is a stale read, which the ceiling holds too.
  if (!ceiling || ceiling.generation < generation || ceiling.revision !== canary.revision || canary.weight <= current) return canary.weight;
  return current;
}

/**
 * Whether a decision may carry the weight it does: at most the router's, or a running step's own,
 * and a rise only once the data plane has taken the routing as it is (a route its Gateway has not
 * accepted yet, such as one just made for an App switched from spec.ingress to spec.route during
 * a canary, keeps the weight it has, 0 when new).
 */
export function weightRiseAllowed(input: Pick<CanaryInput, 'steps'>, observed: Pick<CanaryObserved, 'routerWeight' | 'routerReadiness'>, decision: Pick<CanaryDecision, 'phase' | 'canary' | 'status'>): boolean {
  const weight = decision.canary?.weight ?? 0;
  if (weight <= (observed.routerWeight ?? 0)) return true;
  if (observed.routerReadiness?.ready === false) return false;
  const canary = decision.status.canary;
  if (!canary || canary.weight !== weight) return false;
  const step = input.steps[canary.stepIndex];
  // A running step's own: a setWeight step's weight, or the one a pause gets back (running.ts, pauseStep).
  if (decision.phase === 'CanaryStep') return step !== undefined && stepWeight(input.steps, canary.stepIndex) === weight;
  return decision.phase === 'CanaryPaused' && step?.pause !== undefined;
}
