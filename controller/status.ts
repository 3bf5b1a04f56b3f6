// The App's status as a pure function of the App and what the reconcile observed and did
// (docs/api.md, "Status"). Computing the same status twice gives deep-equal results, which is
// what lets the reconciler skip the status write when nothing changed.
import type { App, AppStatus } from '../shared/app-types.js';
import type { DefaultedApp } from '../shared/defaults.js';
import { findCondition, setConditions, type ConditionInput } from './state/conditions.js';
import { sameStatus } from './state/status-compare.js';
import { rolloutState, type RolloutState } from './state/deployment-state.js';
import { containerImage } from '../shared/render/pod-template.js';
import { deploymentRevision } from './render/pod-template-record.js';
import type { ActOutcome } from './act.js';
import { PAUSED_REASON } from './canary/plan.js';
import { ABORT_REASONS } from './canary/types.js';
import type { RolloutDecision } from './bluegreen/types.js';

/**
 * What a status reports besides the App: what the pass's act did (act.ts), the replicas the
 * stable Deployment should run, and the step engine's decision.
 */
export type StatusInputs = Pick<ActOutcome, 'deployment' | 'deploymentError' | 'conflicts' | 'errors' | 'degraded'> & {
  /** The stable Deployment's desired replicas now (with autoscaling: the autoscaler's count). */
  replicas?: number;
  /** The canary step engine's decision; it owns the revisions, stableImage, canary and abortedImage. */
  rollout?: Pick<RolloutDecision, 'phase' | 'status' | 'progressing' | 'degraded'>;
  /** The revision of the pod template spec asks for. */
  updateRevision?: string;
};

const deploymentName = (app: App) => `Deployment ${app.metadata.namespace}/${app.metadata.name}`;

function conditionsFor(app: App, observed: StatusInputs, rollout: RolloutState | undefined): ConditionInput[] {
  const name = deploymentName(app);
  const deadline = app.spec.rollout?.progressDeadlineSeconds;
  let ready: ConditionInput;
  let progressing: ConditionInput;
  if (!rollout) {
    const conflict = observed.conflicts.find((c) => c.startsWith('Deployment '));
    ready = conflict
      ? { type: 'Ready', status: 'False', reason: 'ResourceConflict', message: conflict }
      : { type: 'Ready', status: 'False', reason: 'Creating', message: `${name} does not exist yet` };
    // A creation the API server refused (a quota, a 422) is retried with backoff, but nothing is
    // rolling out meanwhile, as with a refused update (DeploymentUpdateFailed below).
    progressing = conflict
      ? { type: 'Progressing', status: 'False', reason: 'ResourceConflict', message: conflict }
      : observed.deploymentError
        ? { type: 'Progressing', status: 'False', reason: 'DeploymentCreateFailed', message: `${name} could not be created: ${observed.deploymentError}` }
        : { type: 'Progressing', status: 'True', reason: 'RollingOut', message: `creating ${name}` };
  } else {
    // With RollingUpdate a pause is the Deployment's own: a new template it holds is not rolling out.
    const held = !rollout.updated && app.spec.rollout?.paused === true && (app.spec.rollout.strategy ?? 'RollingUpdate') === 'RollingUpdate';
    // The pods that served before a new generation its controller has not seen yet still serve:
    // Ready does not flap for a change outside the pod template (Progressing says a rollout may follow).
    ready = rollout.available || rollout.servingBefore
      ? { type: 'Ready', status: 'True', reason: 'Available', message: `${name} is available with all replicas ready` }
      : held
        ? { type: 'Ready', status: 'False', reason: PAUSED_REASON, message: `${name}: ${rollout.message}; the Deployment is paused (spec.rollout.paused): its pods keep the template before until the pause ends` }
        : { type: 'Ready', status: 'False', reason: rollout.updated || rollout.rolledOut ? 'Unavailable' : 'RollingOut', message: `${name}: ${rollout.message}` };
    // The Service `<app>` is someone else's: the App's host is not routed to its pods (act.ts).
    const service = observed.conflicts.find((c) => c.startsWith(`Service ${app.metadata.namespace}/${app.metadata.name} `));
    if (service) ready = { type: 'Ready', status: 'False', reason: 'ResourceConflict', message: `${service}: the App's traffic does not reach its pods` };
    // Pods lost after a completed rollout (a crash, an eviction) take Ready, but are no rollout:
    // Progressing stays as the pass that saw the rollout complete wrote it, for this generation.
    const before = findCondition(app.status?.conditions, 'Progressing');
    const stillComplete = rollout.rolledOut && before?.status === 'False' && before.reason === 'RolloutComplete' && before.observedGeneration === app.metadata.generation;
    // A refused write (a quota, a 422) leaves the Deployment on what it had: its rollout state is
    // that of the spec before, and says nothing of this generation's, which has not started.
    if (observed.deploymentError) progressing = { type: 'Progressing', status: 'False', reason: 'DeploymentUpdateFailed', message: `${name} was not updated to the App's spec (generation ${app.metadata.generation}); it still runs what it ran: ${observed.deploymentError}` };
    else if (rollout.complete || stillComplete) progressing = { type: 'Progressing', status: 'False', reason: 'RolloutComplete', message: `${name} is rolled out` };
    else if (rollout.deadlineExceeded) progressing = { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: `${name} made no progress within ${deadline}s: ${rollout.message}` };
    else progressing = { type: 'Progressing', status: 'True', reason: 'RollingOut', message: `${name}: ${rollout.message}` };
  }

  let degraded: ConditionInput = { type: 'Degraded', status: 'False', reason: 'AsExpected', message: 'no problems found' };
  if (observed.conflicts.length > 0) {
    degraded = { type: 'Degraded', status: 'True', reason: 'ResourceConflict', message: observed.conflicts.join('; ') };
  } else if (observed.degraded) {
    degraded = { type: 'Degraded', status: 'True', ...observed.degraded };
  } else if (observed.errors.length > 0) {
    degraded = { type: 'Degraded', status: 'True', reason: 'ReconcileError', message: observed.errors.join('; ') };
  } else if (observed.rollout?.degraded) {
    degraded = { type: 'Degraded', status: 'True', ...observed.rollout.degraded };
  } else if (rollout?.replicaFailure !== undefined) {
    // Pods refused by a quota, a LimitRange or an admission policy never come: said now, not at the deadline.
    degraded = { type: 'Degraded', status: 'True', reason: 'ReplicaFailure', message: `${name} cannot create pods: ${rollout.replicaFailure}` };
  } else if (rollout && !rollout.complete && rollout.deadlineExceeded) {
    degraded = { type: 'Degraded', status: 'True', reason: 'ProgressDeadlineExceeded', message: `${name} made no progress within ${deadline}s: ${rollout.message}` };
  }
  // During a canary (and after an abort) the step engine says how the rollout is going. A
  // conflict of the Deployment takes Progressing from a running rollout, but not from an abort:
  // a passing problem holds Degraded only, so that the abort's reason is still recorded when it
  // clears (recordedAbort), and the alert on it neither ends nor pages again meanwhile.
  // The step engine completes a rollout only once the stable Deployment is available; from the
  // next pass on, the status reports that Deployment's own RolloutComplete. The completing pass
  // (a blue-green preview still going) reports the same, so that its status is the final one and
  // the pass after has nothing to reword: one status write fewer per rollout.
  const canary = observed.rollout;
  const abort = canary?.progressing?.status === 'False' && ABORT_REASONS.includes(canary.progressing.reason);
  const completed = canary?.progressing?.status === 'False' && canary.progressing.reason === 'RolloutComplete';
  if (canary?.progressing && canary.phase !== 'Stable' && !completed && (abort || !progressing.reason.startsWith('ResourceConflict'))) {
    progressing = { type: 'Progressing', ...canary.progressing };
  } else if (app.spec.rollout?.paused && !progressing.reason.startsWith('ResourceConflict')) {
    // As a paused Deployment's DeploymentPaused: nothing rolls out until the pause ends.
    progressing = { type: 'Progressing', status: 'Unknown', reason: PAUSED_REASON, message: `rollouts of the App are paused (spec.rollout.paused); nothing new rolls out until it is false` };
  } else if (completed && !progressing.reason.startsWith('ResourceConflict') && !observed.deploymentError) {
    progressing = nextRollout(app, canary.status, observed.updateRevision) ?? progressing;
  }
  return [ready, progressing, degraded];
}

/**
 * A rollout completed for a revision the App has moved on from (a new pod template set while a
 * promotion or a blue-green scale-down, which finish first, waited for the Deployment): the
 * current generation has not rolled out, and the next pass starts its rollout. Said so, rather
 * than RolloutComplete for a generation whose template nothing runs yet (`status --wait` would end).
 */
function nextRollout(app: App, decided: { stableRevision?: string; stableImage?: string }, updateRevision: string | undefined): ConditionInput | undefined {
  if (updateRevision === undefined || decided.stableRevision === undefined || decided.stableRevision === updateRevision) return undefined;
  const strategy = app.spec.rollout?.strategy;
  const [reason, what] = strategy === 'BlueGreen' ? ['BlueGreenPreview', 'the preview'] : strategy === 'Canary' ? ['CanaryStep', 'the canary'] : ['RollingOut', 'the rollout'];
  return {
    type: 'Progressing',
    status: 'True',
    reason,
    message: `${decided.stableImage ?? 'the promoted image'} (revision ${decided.stableRevision}) is stable; ${what} of ${app.spec.image} (revision ${updateRevision}) starts next`,
  };
}

function url(app: DefaultedApp): string | undefined {
  const route = app.spec.route;
  if (route) {
    // TLS ends at the Gateway's listener, which the route cannot see: spec.route.tls says.
    const host = route.hostnames?.[0];
    return host ? `${route.tls ? 'https' : 'http'}://${host}${urlPath(route.path)}` : undefined;
  }
  const ingress = app.spec.ingress;
  if (!ingress) return undefined;
  return `${ingress.tlsSecretName ? 'https' : 'http'}://${ingress.host}${urlPath(ingress.path)}`;
}

/**
 * A path as a URL has it: a space or a character outside URL paths percent-encoded (a path may
 * hold them: `/a b` reaches ingress-nginx as `/a%20b`), a `%` that starts an escape kept.
 */
export const urlPath = (path: string) =>
  path.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/gu, (c) => encodeURIComponent(c));

/**
 * The status the App should have. Fields this function does not own (canary, abortedImage) are
 * carried over from the current status unchanged.
 */
export function computeStatus(app: DefaultedApp, observed: StatusInputs, now: Date): AppStatus {
  const previous = app.status ?? {};
  const replicas = observed.replicas ?? app.spec.replicas;
  const rollout = observed.deployment ? rolloutState(observed.deployment) : undefined;
  const readyReplicas = rollout?.readyReplicas ?? 0;
  const status: AppStatus = {
    observedGeneration: app.metadata.generation,
    replicas,
    readyReplicas,
    ready: `${readyReplicas}/${replicas}`,
    url: url(app),
    ...(refusedTemplate(app, observed)
      // The revision and image the Deployment still runs.
      ? { stableImage: containerImage(observed.deployment!) ?? previous.stableImage, stableRevision: deploymentRevision(observed.deployment) ?? previous.stableRevision }
      : {
          stableImage: observed.rollout?.status.stableImage ?? (observed.deployment && containerImage(observed.deployment)) ?? previous.stableImage,
          stableRevision: observed.rollout ? observed.rollout.status.stableRevision : previous.stableRevision,
        }),
    updateRevision: observed.updateRevision ?? previous.updateRevision,
    canary: observed.rollout ? observed.rollout.status.canary : previous.canary,
    blueGreen: observed.rollout ? observed.rollout.status.blueGreen : previous.blueGreen,
    abortedImage: observed.rollout ? observed.rollout.status.abortedImage : previous.abortedImage,
    abortedRevision: observed.rollout ? observed.rollout.status.abortedRevision : previous.abortedRevision,
    scaleDown: observed.rollout ? observed.rollout.status.scaleDown : previous.scaleDown,
    conditions: setConditions(previous.conditions, conditionsFor(app, observed, rollout), app.metadata.generation, now),
  };
  return withoutUndefined(status);
}

/**
 * A RollingUpdate App's Deployment refused the pass's pod template (a quota, an admission
 * policy): the decision made spec's revision stable, as a RollingUpdate does once the Deployment
 * has it, but the Deployment does not have it. With the Canary and BlueGreen strategies the step
 * engine itself waits for the Deployment (its promotion begins when stable runs the revision).
 */
const refusedTemplate = (app: DefaultedApp, observed: StatusInputs) =>
  observed.deploymentError !== undefined && observed.deployment !== undefined && app.spec.rollout.strategy === 'RollingUpdate'
  && deploymentRevision(observed.deployment) !== observed.rollout?.status.stableRevision;

function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/**
 * Whether `next` differs from `current` only in how far a rollout has got, while the App is not
 * Ready: replica counts, and the reasons and messages of Ready and Progressing. Such a status is
 * superseded within moments by the next one (a new App's Deployment goes from no pods to one
 * unavailable to one available in a second or two), so the reconciler may hold it back briefly
 * instead of writing each step. Everything else (observedGeneration, the canary's state, the
 * revisions, any condition's status, Degraded's reason or message) is never held back.
 */
export function progressOnly(current: AppStatus | undefined, next: AppStatus): boolean {
  if (!current || next.conditions?.find((c) => c.type === 'Ready')?.status === 'True') return false;
  const settled = (s: AppStatus): AppStatus => ({
    ...s,
    replicas: undefined,
    readyReplicas: undefined,
    ready: undefined,
    conditions: (s.conditions ?? []).map((c) => (c.type === 'Degraded' ? c : { ...c, reason: '', message: '', lastTransitionTime: '' })),
  });
  return sameStatus(settled(current), settled(next));
}
