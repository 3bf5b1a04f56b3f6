// How far a Deployment has rolled out, read the way `kubectl rollout status` reads it. Pure.
import type { V1Deployment } from '@kubernetes/client-node';
import { contentHash } from '../../shared/hash.js';

export interface RolloutState {
  /** Rolled out at the current generation: every replica updated and available (kubectl rollout status). */
  complete: boolean;
  /** Every pod runs the current template (none left to replace), ready or not. */
  updated: boolean;
  /** Complete, and the Deployment reports Available. */
  available: boolean;
  readyReplicas: number;
  /**
   * Every pod runs the current template and the Deployment controller says that template was
   * rolled out (Progressing reason NewReplicaSetAvailable), though pods may be unavailable now,
   * or fewer than wanted (lost, and not replaced yet; a scale under way).
   */
  rolledOut: boolean;
  /**
   * The Deployment controller has seen the current generation and every pod it has runs the
   * current template (none of an earlier one left), ready or not, whatever their number: true
   * through pods lost or added (an eviction, a scale), false while a template change rolls.
   */
  oneTemplate: boolean;
  /**
   * The Deployment controller has not seen the current generation yet, and its status of the one
   * before says every pod of it is updated and available, at the current spec's count: the pods
   * that serve now, which a change outside the pod template (progressDeadlineSeconds, minReadySeconds)
   * leaves as they are. Never a sign that a new template rolled out: for what serves now only.
   */
  servingBefore: boolean;
  /** The Deployment controller gave up waiting on the current generation (its Progressing condition says ProgressDeadlineExceeded). */
  deadlineExceeded: boolean;
  /**
   * Why the Deployment's ReplicaSet cannot create pods (its ReplicaFailure condition: a quota, a
   * LimitRange, an admission webhook refusing them): pods the rollout waits for that never come.
   */
  replicaFailure?: string;
  /** Why it is not complete, for condition messages. */
  message: string;
}

/**
 * What a rollout engine reads of a canary or preview Deployment: its revision (the caller's
 * reading of its record), size, availability and why its pods cannot be created.
 */
export function deploymentSummary(d: V1Deployment, revision: string | undefined, seen?: SeenTemplate): { revision?: string; replicas: number; available: boolean; serving: number; settling?: true; replicaFailure?: string } {
  const state = rolloutState(d);
  // Pods of its revision only: while the Deployment controller has not seen the latest spec, or
  // pods of another revision may remain, none is counted.
  const observed = seenByItsController(d);
  const serving = state.oneTemplate || samePodsRevision(d, revision, seen) ? d.status?.availableReplicas ?? 0 : 0;
  return { revision, replicas: d.spec?.replicas ?? 1, available: state.available, serving, ...(observed ? {} : { settling: true as const }), ...(state.replicaFailure !== undefined ? { replicaFailure: state.replicaFailure } : {}) };
}

export function rolloutState(d: V1Deployment): RolloutState {
  const want = d.spec?.replicas ?? 1;
  const s = d.status ?? {};
  const observed = seenByItsController(d);
  const updated = s.updatedReplicas ?? 0;
  const ready = s.readyReplicas ?? 0;
  const availableReplicas = s.availableReplicas ?? 0;
  const total = s.replicas ?? 0;
  const allUp = updated === want && total === want && availableReplicas === want && ready === want;
  const complete = observed && allUp;
  const availableCondition = s.conditions?.find((c) => c.type === 'Available')?.status === 'True';
  const progressing = s.conditions?.find((c) => c.type === 'Progressing');
  // The Deployment controller rolled its current template out (NewReplicaSetAvailable, which it
  // keeps through pods lost and scales) and every pod it has runs it: fewer pods than wanted are
  // pods lost or still coming (a crash, an eviction, an autoscaler's scale), no rollout.
  const oneTemplate = observed && updated === total;
  const settled = oneTemplate && progressing?.status === 'True' && progressing.reason === 'NewReplicaSetAvailable';
  let message: string;
  if (!observed) message = 'the Deployment controller has not yet seen the latest spec';
  else if (updated < want && !settled) message = `${updated} of ${want} replicas updated`;
  // Pods beyond the count of the template itself (a scale down, by hand or by an autoscaler) are no old ones.
  else if (total > want) message = oneTemplate ? `${total - want} replicas beyond ${want} being scaled down` : `${total - updated} old replica${total - updated === 1 ? '' : 's'} pending termination`;
  else message = `${availableReplicas} of ${want} replicas available`;
  const failure = s.conditions?.find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
  const replicaFailure = failure ? (failure.message || failure.reason || 'ReplicaFailure') : undefined;
  if (replicaFailure !== undefined) message += `; pods cannot be created: ${replicaFailure}`;
  return {
    complete,
    updated: observed && updated === want && total === want,
    available: complete && availableCondition,
    // The Deployment controller sets NewReplicaSetAvailable once its current template is complete,
    // and keeps it while pods come and go (a crash, an eviction, a scale); a new template replaces it.
    rolledOut: complete || settled,
    oneTemplate,
    servingBefore: !observed && allUp && availableCondition,
    readyReplicas: ready,
    // Of the generation the Deployment controller has seen: a fix of a stuck rollout (a new template)
    // is not past its deadline before that controller has even read it (as kubectl rollout status).
    deadlineExceeded: observed && progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded',
    ...(replicaFailure !== undefined ? { replicaFailure } : {}),
    message,
  };
}

/**
 * A Deployment (by uid) at a generation the Deployment controller had rolled out alone: every pod
 * it counted ran that generation's pod template (by content hash), of Skiff's `revision` then.
 */
export interface SeenTemplate {
  uid: string;
  generation: number;
  template: string;
  revision?: string;
  /** The Deployment controller's number of that template (its deployment.kubernetes.io/revision). */
  rollout?: number;
}

/** Whether the Deployment controller has seen the Deployment's latest spec, so that its status counts it. */
const seenByItsController = (d: V1Deployment) => (d.status?.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0);

/** The Deployment controller's number of the template it rolls out: one more at each change of template. */
const rolloutNumber = (d: V1Deployment): number | undefined => {
  const n = Number(d.metadata?.annotations?.['deployment.kubernetes.io/revision']);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

/**
 * Whether every pod the Deployment counts is of its Skiff revision though it runs two templates:
 * it was seen rolled out alone at that revision, and the Deployment controller has seen exactly
 * one change of template since, to one of the same revision (the spreading a scale across one pod
 * adds or takes away). Pods of the template before are pods of the revision all the same. Any
 * other history (another revision in between and back, several changes, the template not yet
 * seen by its controller, nothing remembered after a restart) tells nothing: none counts.
 */
export function samePodsRevision(d: V1Deployment, revision: string | undefined, seen: SeenTemplate | undefined): boolean {
  if (seen === undefined || seen.uid !== (d.metadata?.uid ?? '') || revision === undefined || seen.revision !== revision || seen.rollout === undefined) return false;
  const observed = seenByItsController(d);
  const now = rolloutNumber(d);
  return observed && now !== undefined && now <= seen.rollout + 1;
}

/**
 * How many pods of the Deployment's current pod template are ready, and the template to remember
 * for the next call. Until the Deployment controller has seen the current generation, its status
 * counts the pods of the one before: those are pods of the current template when that generation
 * was seen rolled out alone and the template has not changed since (a scale, which raises the
 * generation as a new template does), or a template of the same Skiff `revision`. Seen by its
 * controller with two templates, pods of both count when both are of that revision
 * (samePodsRevision). Otherwise none is known to be ready.
 */
export function readyOfCurrentTemplate(d: V1Deployment, seen: SeenTemplate | undefined, revision?: string): { ready: number; seen: SeenTemplate | undefined } {
  const uid = d.metadata?.uid ?? '';
  const generation = d.metadata?.generation ?? 0;
  const s = d.status ?? {};
  const state = rolloutState(d);
  if (state.oneTemplate) {
    const same = seen?.uid === uid && seen.generation === generation;
    const rollout = rolloutNumber(d);
    return { ready: state.readyReplicas, seen: same ? seen : { uid, generation, template: contentHash(d.spec?.template), ...(revision !== undefined ? { revision } : {}), ...(rollout !== undefined ? { rollout } : {}) } };
  }
  if (samePodsRevision(d, revision, seen)) return { ready: s.readyReplicas ?? 0, seen };
  // Not yet seen by its controller: the status still counts the generation seen rolled out alone,
  // whose pods run the current template (a scale) or one of the same revision (the spreading).
  const behind = !seenByItsController(d);
  const scaledSince = behind && seen?.uid === uid && seen.generation === s.observedGeneration && (s.updatedReplicas ?? 0) === (s.replicas ?? 0)
    && (seen.template === contentHash(d.spec?.template) || (revision !== undefined && seen.revision === revision));
  return { ready: scaledSince ? s.readyReplicas ?? 0 : 0, seen };
}

/**
 * A Deployment (by uid) at a pod-template revision of Skiff's (its revision annotation), and
 * whether it was seen running that revision alone since it took it.
 */
export interface SeenRevision {
  uid: string;
  revision: string | undefined;
  settled: boolean;
}

/**
 * Whether the Deployment (`uid`, at Skiff's `revision`) has rolled that revision out, for the
 * history: once seen running it alone (`oneTemplate`, of its rolloutState: its controller has seen
 * its generation and every pod runs its template), it stays so for as long as the Deployment keeps
 * that revision. Pods of another ReplicaSet beside them are then of the same revision (a `kubectl
 * rollout restart`, a hand edit of the template, which Skiff puts back), and a generation its
 * controller has not seen changes no field of the revision (a scale, or the spreading constraints
 * a scale across one pod adds or takes away): a new template of the App's is a new revision. A new
 * revision, or another Deployment of the name, is not settled until seen so.
 */
export function settledRevision(uid: string, revision: string | undefined, oneTemplate: boolean, seen: SeenRevision | undefined): SeenRevision {
  const same = seen?.uid === uid && seen.revision === revision;
  if (same && (seen.settled || !oneTemplate)) return seen;
  return { uid, revision, settled: oneTemplate };
}
