// What the plugin reads, as plain JSON shapes, and what it derives from them: an App's status
// word, its step and weights, the history's revisions. Pure: no I/O, unit-tested.
import type { AnalysisStatus, App, AppSpec, AppStatus, CanaryStatus, RolloutSpec } from '../shared/app-types.js';
import { commandRevision, switchedBack } from '../shared/rollout-revision.js';
export type { BlueGreenStatus } from '../shared/app-types.js';
export { switchedBack } from '../shared/rollout-revision.js';
import {
  ANNOTATION_HISTORY_CHANGES, ANNOTATION_HISTORY_IMAGES, ANNOTATION_HISTORY_OUTCOME, ANNOTATION_HISTORY_STARTED_AT, ANNOTATION_PROMOTE, ANNOTATION_RETRY, CANARY_SUFFIX, LABEL_REVISION,
} from '../shared/labels.js';
import { canarySteps, PROMOTION_STEP, stepName } from '../shared/steps.js';
import { appHealth, type AppHealth } from '../shared/app-health.js';
import { age } from './age.js';


/** An App as the plugin reads it: with the fields of the rollout commands and blue-green. */
export type CliApp = App & {
  metadata: App['metadata'] & { creationTimestamp?: string };
  spec: AppSpec & { revisionHistoryLimit?: number; rollout?: Omit<RolloutSpec, 'strategy'> & { strategy?: string; paused?: boolean } };
  status?: AppStatus & { canary?: CanaryStatus & { pausedAt?: string } };
};

export interface ObjectMeta {
  name: string;
  namespace?: string;
  creationTimestamp?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: { uid: string; controller?: boolean; apiVersion?: string; kind?: string; name?: string }[];
}

export interface ControllerRevision { metadata: ObjectMeta; revision: number; data?: { spec?: Record<string, unknown>; configCopies?: Record<string, string> } }
export interface Deployment {
  metadata: ObjectMeta;
  spec?: { replicas?: number; template?: { metadata?: { annotations?: Record<string, string> }; spec?: { containers?: { image?: string }[] } } };
  status?: { replicas?: number; updatedReplicas?: number; readyReplicas?: number; availableReplicas?: number };
}
export interface Service { metadata: ObjectMeta; spec?: { type?: string; ports?: { port: number }[]; selector?: Record<string, string> } }

/** The revision a blue-green App's Service selects (the switch is a write of this key), if any. */
export const selectedRevision = (s: Service): string | undefined => s.spec?.selector?.[LABEL_REVISION];
export interface Ingress { metadata: ObjectMeta; spec?: { rules?: { host?: string }[] } }
export interface HTTPRoute { metadata: ObjectMeta; spec?: { hostnames?: string[]; rules?: { backendRefs?: { name: string; weight?: number }[] }[] } }

/** The revision (hash) of the pod template a Deployment of the App runs, as the controller records it. */
export const deploymentRevision = (d: { metadata: { annotations?: Record<string, string> } }): string | undefined => d.metadata.annotations?.['skiff.dev/revision'];

export type StatusWord = AppHealth;

const conditionOf = (app: CliApp, type: string) => app.status?.conditions?.find((c) => c.type === type);
/** Whether the controller has seen the App's current generation. */
export const observedCurrent = (app: CliApp) => (app.status?.observedGeneration ?? 0) >= (app.metadata.generation ?? 0);

export const strategyOf = (app: { spec: { rollout?: { strategy?: string } } }): string => app.spec.rollout?.strategy ?? 'RollingUpdate';

/**
 * status.blueGreen of the App's blue-green rollout. Under another strategy (changed during a
 * blue-green rollout) it describes only the preview left behind: see retiringPreview.
 */
export const blueGreenOf = (app: Pick<App, 'spec' | 'status'>) => (strategyOf(app) === 'BlueGreen' ? app.status?.blueGreen : undefined);

/**
 * The blue-green preview left from before a change of strategy: the Service no longer selects it,
 * its pods wait out the scale-down delay, and no command acts on it. Not a phase of the rollout
 * under way (a canary's, or none), nor is its stable revision "active".
 */
export const retiringPreview = (app: Pick<App, 'spec' | 'status'>) => (strategyOf(app) === 'BlueGreen' ? undefined : app.status?.blueGreen);

/**
 * The revision of spec's pod template when spec.rollout.paused keeps its rollout from starting (as
 * the controller has seen it): no canary or preview of it runs, so an abort has nothing to act on
 * (the controller consumes it with a Warning AbortIgnored). A canary in status is checked first: a
 * promotion of an earlier revision under way goes on while paused, and an abort takes it back.
 */
function waitingForResume(app: CliApp): string | undefined {
  const s = app.status;
  const next = observedCurrent(app) ? s?.updateRevision : undefined;
  // RollingUpdate: the paused Deployment has the new template already, and status names it as
  // stable's and update's revision (as during any rolling update), while its pods run the one
  // before: Ready says RolloutPaused until the pause ends.
  if (strategyOf(app) === 'RollingUpdate' && app.spec.rollout?.paused === true && next !== undefined && conditionOf(app, 'Ready')?.reason === 'RolloutPaused') return next;
  // A canary of it already runs: the pause holds that canary at its step, which is no change waiting.
  if (app.spec.rollout?.paused !== true || next === undefined || next === s?.stableRevision || next === s?.abortedRevision || next === s?.canary?.revision) return undefined;
  const b = blueGreenOf(app);
  // spec's preview under way (held before the switch while paused) is aborted; one switched back from is not under way.
  const previewOfNext = b?.previewRevision === next && !switchedBack(b);
  return previewOfNext ? undefined : next;
}

/**
 * The pod-template change spec.rollout.paused holds back (no canary or preview of it has
 * started): its revision, and spec's image (which a change of configuration keeps). For every
 * overview (list, get, status, the dashboard): `resume` starts it, `undo` drops it.
 */
export function heldChange(app: CliApp): HeldChange | undefined {
  const revision = waitingForResume(app);
  if (revision === undefined) return undefined;
  const note = dataChangeNote(app);
  return { revision, image: app.spec.image, ...(strategyOf(app) === 'RollingUpdate' ? { rollingUpdate: true } : {}), ...(note ? { note } : {}) };
}

/** Whether `hash` is the template a paused RollingUpdate Deployment has and its pods do not run yet. */
export function heldTemplate(app: CliApp, hash: string | undefined): boolean {
  const held = heldChange(app);
  return held?.rollingUpdate === true && hash !== undefined && held.revision === hash;
}

/** A change a pause holds back, and (with trackConfig) the note on how a change of data is dropped. */
export interface HeldChange {
  revision: string;
  image: string;
  /** RollingUpdate: the paused Deployment has the held template, its pods the one before. */
  rollingUpdate?: true;
  note?: string;
}

/**
 * A blue-green promotion asked for (skiff.dev/promote on the App) that waits for the switch: the
 * preview not ready yet, its check, or a pause. Nothing more to ask for meanwhile.
 */
export const promotionWaiting = (app: CliApp): boolean =>
  blueGreenOf(app)?.phase === 'Preview' && app.metadata.annotations?.[ANNOTATION_PROMOTE]?.toLowerCase() === 'true';

/** What `heldChange` says, as one line of a header: the change, and the two commands that settle it. */
export const heldText = (held: HeldChange) =>
  `revision ${held.revision} (${held.image}) waits for spec.rollout.paused to be false${held.rollingUpdate ? ' (the paused Deployment has its template; its pods run the one before)' : ''}: kubectl skiff resume rolls it out, kubectl skiff undo drops it${held.note ?? ''}`;

/**
 * With trackConfig the change may be in a referenced source's data, which is in no field of the
 * App: no undo takes it back, only putting the data back drops it.
 */
const dataChangeNote = (app: CliApp): string =>
  (app.spec.rollout?.trackConfig === true ? " (a change of the App's fields; one of the data of a ConfigMap or Secret it references is dropped by putting that data back)" : '');

/** How far behind the App's generation the status is: a change the controller has not seen yet, which no row below shows. */
export function unobserved(app: CliApp): string | undefined {
  const generation = app.metadata.generation ?? 0;
  const seen = app.status?.observedGeneration ?? 0;
  return seen < generation ? `generation ${generation} not yet seen by the controller: what follows is as of generation ${seen}` : undefined;
}

/** The revision promote and abort act on now (shared/rollout-revision.ts), spec's counted once the controller has seen it. */
export const commandRevisionOf = (app: CliApp): string | undefined => commandRevision(app.status, observedCurrent(app) ? app.status?.updateRevision : undefined);

/**
 * Why `retry` would change nothing, or undefined when the controller retries: an aborted revision
 * that is still the pod template it has seen (a template changed since, held back by a pause,
 * still leaves the abort in status, and the controller answers RetryIgnored).
 */
export function retryRefusal(app: CliApp): string | undefined {
  const aborted = app.status?.abortedRevision;
  if (!aborted) return 'has no aborted rollout to retry';
  const now = observedCurrent(app) ? app.status?.updateRevision : undefined;
  if (now === undefined || now === aborted) return undefined;
  return `the pod template (revision ${now}) is not the aborted revision ${aborted}, so there is nothing to retry${app.spec.rollout?.paused ? ' (the App is paused: kubectl skiff resume rolls the new template out)' : ''}`;
}

/** A preview of `revision` switched back from (its pods going): a promotion would not switch to it again. */
const switchedBackFrom = (b: NonNullable<CliApp['status']>['blueGreen'], revision: string) => b !== undefined && b.previewRevision === revision && switchedBack(b);

/**
 * Why `promote` or `abort` would change nothing for the App now (the controller would take the
 * annotation away and do nothing), or undefined when it acts: a canary under way takes both; a
 * blue-green rollout takes a promotion before its switch, an abort until its old pods start to go.
 */
export function rolloutCommandRefusal(app: CliApp, command: 'promote' | 'abort'): string | undefined {
  const strategy = strategyOf(app);
  const s = app.status;
  if (strategy !== 'Canary' && strategy !== 'BlueGreen') return `does not use the Canary or BlueGreen strategy (spec.rollout.strategy is ${strategy}); there is nothing to ${command}`;
  // A canary that waits for an earlier canary's pods to go (status.scaleDown of another revision) has not started: the controller ignores a promotion (PromoteIgnored).
  if (s?.canary && command === 'promote' && s.scaleDown !== undefined && s.scaleDown.revision !== s.canary.revision && s.canary.stepIndex === 0 && s.canary.weight === 0) {
    return `has a canary of revision ${s.canary.revision ?? '?'} that has not started: the earlier canary's pods (revision ${s.scaleDown.revision}) go first, at ${s.scaleDown.deleteAt}; there is nothing to promote yet`;
  }
  // A promotion under way: the stable Deployment is taking the canary's pod template (the controller drops another promote).
  if (s?.canary?.step === PROMOTION_STEP && command === 'promote') {
    return `is promoting the canary of ${s.canary.image} (revision ${s.canary.revision ?? '?'}) already: the stable Deployment takes its pod template; there is nothing to promote`;
  }
  if (s?.canary) return undefined;
  const waiting = waitingForResume(app);
  const held = waiting === undefined || command !== 'abort' ? undefined : `has a pod-template change (revision ${waiting}) that waits for spec.rollout.paused to be false: its rollout has not started, so there is nothing to abort; kubectl skiff undo drops the change${dataChangeNote(app)} (kubectl skiff resume rolls it out)`;
  const b = blueGreenOf(app);
  // Paused, a blue-green App keeps a promotion for the preview of the change it holds (the preview
  // still has to be ready, and checked, before it switches); a canary's would skip every step.
  if (waiting !== undefined && command === 'promote' && strategy === 'BlueGreen' && !switchedBackFrom(b, waiting)) return undefined;
  if (!b) return held ?? noRolloutRefusal(app, strategy, command, waiting);
  const revision = b.previewRevision;
  // A new pod template waits for the pods switched back from to go: a promotion stays on the App
  // for its preview, and an abort aborts it (no preview of it starts); paused, the change waits for
  // resume instead, and an abort has nothing to act on (held).
  const next = observedCurrent(app) ? s?.updateRevision : undefined;
  const newTemplateWaits = next !== undefined && next !== revision && next !== s?.stableRevision && next !== s?.abortedRevision;
  if (b.phase === 'ScalingDown' && b.activeRevision !== revision && newTemplateWaits) return held;
  if (b.phase === 'ScalingDown' && b.activeRevision !== revision) {
    // Switched back by an abort (status.abortedRevision, which retry runs again), or because the
    // pod template went back to stable (an undo): the rollout was cancelled, and there is nothing to retry.
    const aborted = s?.abortedRevision === revision;
    return `had its blue-green rollout of revision ${revision} ${aborted ? 'aborted' : 'cancelled (the pod template went back to stable)'} (the Service selects stable again), and the preview's pods are going; there is nothing to ${command}${command === 'promote' && aborted ? ' (kubectl skiff retry rolls it out again)' : ''}`;
  }
  // A new pod template while the old pods go: a promotion stays on the App for its preview, which
  // starts once the scale-down ends (the controller keeps it); an abort has nothing to act on yet.
  if (b.phase === 'ScalingDown' && newTemplateWaits && command === 'promote') return undefined;
  if (b.phase === 'ScalingDown') {
    return `has switched to revision ${revision} and its old pods are going; there is nothing to ${command}${command === 'abort' ? ' (to roll back, change the pod template: kubectl skiff undo)' : ''}`;
  }
  if (b.phase === 'Switched' && command === 'promote') {
    return `is switched already: the Service selects revision ${revision}, and the old pods go at ${b.scaleDownAt ?? 'the end of the scale-down delay'} (kubectl skiff abort switches back until then); there is nothing to promote`;
  }
  // Paused, a preview of an earlier revision is cancelled (or switched back from) for the change that waits: nothing is left to abort.
  return held;
}

/** Why promote or abort has nothing to act on without a rollout in status, with the command that does act. */
function noRolloutRefusal(app: CliApp, strategy: string, command: 'promote' | 'abort', waiting: string | undefined): string {
  const none = `has no ${strategy === 'Canary' ? 'canary' : 'blue-green'} rollout in progress`;
  if (waiting !== undefined) return `${none}: the pod-template change (revision ${waiting}) waits for spec.rollout.paused to be false, and no canary of it runs yet; there is nothing to ${command} (kubectl skiff resume starts its canary, which can be promoted then)`;
  const aborted = app.status?.abortedRevision;
  if (aborted !== undefined && retryRefusal(app) === undefined) return `${none}: the rollout of revision ${aborted} was aborted; there is nothing to ${command}${command === 'promote' ? ' (kubectl skiff retry runs it again)' : ''}`;
  return `${none}; there is nothing to ${command}`;
}

/**
 * The revision (hash) of the pod template the App asks for now: status.updateRevision once the
 * controller has seen the App's generation (a change held back by spec.rollout.paused has one,
 * and no history entry yet), else the newest history entry's. `revisions` are newest first.
 */
export const templateHashNow = (app: CliApp, revisions: Revision[]): string | undefined =>
  (observedCurrent(app) ? app.status?.updateRevision : undefined) ?? revisions[0]?.hash;

/** Degraded > Paused > Progressing > Healthy: the same word as the dashboard and the skiff_app_phase metric. */
export const statusWord = (app: CliApp): StatusWord => appHealth(app);

export type WaitDecision = { done: true; code: 0 | 1; message: string } | { done: false; message: string };

const pausedRolledOut = (app: CliApp): boolean => {
  const s = app.status;
  return s?.updateRevision !== undefined && s.updateRevision === s.stableRevision && !s.canary && !s.blueGreen;
};

/** For `status --wait`: rolled out (0), failed (1), or not yet. */
export function waitDecision(app: CliApp): WaitDecision {
  // A condition's message without the line breaks (and spaces) at its ends: inside the line that
  // status --wait prints, they would show as a separator (LINE_BREAK) with nothing on one side.
  const said = (c: { message: string }) => c.message.trim();
  const name = `app ${app.metadata.namespace}/${app.metadata.name}`;
  if (!observedCurrent(app)) return { done: false, message: `${name}: generation ${app.metadata.generation} not yet observed by the controller` };
  // `retry` changes no generation: until the controller takes it up, the status is the abort's
  // (`kubectl skiff retry web && kubectl skiff status web --wait` would fail on it at once).
  if (app.metadata.annotations?.[ANNOTATION_RETRY] !== undefined) return { done: false, message: `${name}: a retry not yet taken up by the controller` };
  const degraded = conditionOf(app, 'Degraded');
  if (degraded?.status === 'True') return { done: true, code: 1, message: `${name}: Degraded (${degraded.reason}): ${said(degraded)}` };
  const progressing = conditionOf(app, 'Progressing');
  const ready = conditionOf(app, 'Ready');
  // A rollout that completed for a revision the App had moved on from says so with Progressing
  // (controller/status.ts); a controller before that said RolloutComplete. Either way spec's
  // revision is not stable yet.
  const s = app.status;
  if (s?.updateRevision !== undefined && s.stableRevision !== undefined && s.updateRevision !== s.stableRevision && progressing?.reason === 'RolloutComplete') {
    return { done: false, message: `${name}: revision ${s.stableRevision} is stable; the App asks for revision ${s.updateRevision}, whose rollout has not started` };
  }
  if (progressing?.status === 'False' && progressing.reason === 'RolloutComplete' && ready?.status === 'True') {
    return { done: true, code: 0, message: `${name}: rolled out (${app.status?.stableImage ?? app.spec.image})` };
  }
  // Paused, Progressing stays Unknown (as a paused Deployment's does) even once nothing is left to
  // roll out: spec's revision being stable and ready says that it is.
  if (progressing?.reason === 'RolloutPaused' && ready?.status === 'True' && pausedRolledOut(app)) {
    return { done: true, code: 0, message: `${name}: rolled out (${app.status?.stableImage ?? app.spec.image}); rollouts of the App are paused` };
  }
  return { done: false, message: `${name}: ${progressing ? `${progressing.reason}: ${said(progressing)}` : 'waiting for the rollout'}` };
}

/**
 * What `kubectl skiff pause` holds, in the App's phase (docs/api.md, "Pausing a rollout"): a
 * running canary and a preview before its switch hold; a promotion under way and a blue-green
 * rollout switched already go on to their end; a new pod template waits in every case.
 */
export function pauseMeans(app: CliApp): string {
  const s = app.status;
  const strategy = strategyOf(app);
  const b = blueGreenOf(app);
  if (strategy === 'Canary' && s?.canary?.step === PROMOTION_STEP) return `the promotion of ${s.canary.image} under way goes on to its end; a new pod template waits`;
  if (strategy === 'Canary') return `${s?.canary ? 'the canary holds its weight and step' : 'no canary runs'}; a new pod template waits`;
  if (b?.phase === 'Switched') return `the Service has switched already: the old pods still go at ${b.scaleDownAt ?? 'the end of the scale-down delay'} (kubectl skiff abort switches back until then); a new pod template waits`;
  if (b?.phase === 'ScalingDown' && !switchedBack(b)) return 'the scale-down after the switch goes on to its end; a new pod template waits';
  if (strategy === 'BlueGreen') return `${b?.phase === 'Preview' ? 'the preview holds before the switch' : 'no preview runs'}; a new pod template waits`;
  return 'the Deployment is paused: a new pod template waits';
}

/** "2/4" of a canary, the phase of a blue-green rollout, or "-". */
export function stepText(app: CliApp): string {
  const c = app.status?.canary;
  if (c) {
    const n = canarySteps(app.spec.rollout).length;
    // A promotion under way is past the last step, whatever steps were added since it began.
    return c.step === PROMOTION_STEP ? `${n}/${n}` : `${Math.min(c.stepIndex + 1, n)}/${n}`;
  }
  // Switched back (an abort, a failed check): the old pods serve; the preview's wait out the delay.
  const b = blueGreenOf(app);
  return b ? (switchedBack(b) ? 'switched back' : b.phase) : '-';
}

/**
 * "unavailable since <time> (<age> ago)" while a canary with traffic has no available pods
 * (status.canary.unavailableSince): it holds its step meanwhile and is aborted once that is
 * progressDeadlineSeconds ago, which nothing else in the output tells.
 */
export function canaryUnavailable(app: Pick<App, 'status'>, now: Date): string | undefined {
  const since = app.status?.canary?.unavailableSince;
  return since ? `unavailable since ${since} (${age(since, now)} ago)` : undefined;
}

/** The canary's current step in words: "pause 60s", "setWeight 20%", "promoting". */
export function stepDetail(app: CliApp): string | undefined {
  const c = app.status?.canary;
  if (!c) return undefined;
  const step = c.step === PROMOTION_STEP ? undefined : canarySteps(app.spec.rollout)[c.stepIndex];
  return step ? stepName(step) : 'promoting';
}

export function imageText(app: CliApp): string {
  const s = app.status;
  const stable = s?.stableImage ?? app.spec.image;
  // A blue-green rollout switched back rolls nothing out any more: stable's image only, as after a canary's abort.
  const b = blueGreenOf(app);
  const next = s?.canary?.image ?? (b && !switchedBack(b) ? app.spec.image : undefined);
  if (next && next !== stable) return `${stable} -> ${next}`;
  // A change held by a pause: what resume rolls out. With RollingUpdate stable's image is already
  // the held one's (the paused Deployment's template): the same image, held.
  const held = heldChange(app);
  if (!held) return stable;
  return held.image !== stable ? `${stable} -> ${held.image} (held)` : `${stable} (held)`;
}

export const NGINX_CANARY = 'nginx.ingress.kubernetes.io/canary';
export const NGINX_CANARY_WEIGHT = 'nginx.ingress.kubernetes.io/canary-weight';

/** The share of traffic the router gives the canary now: the canary Ingress's weight or the route's backend weights. */
export function actualWeight(app: CliApp, ingresses: Ingress[], routes: HTTPRoute[]): number | undefined {
  const canaryName = `${app.metadata.name}${CANARY_SUFFIX}`;
  const ingress = ingresses.find((i) => i.metadata.name === canaryName && i.metadata.annotations?.[NGINX_CANARY] === 'true');
  const route = routes.find((r) => r.metadata.name === app.metadata.name);
  const refs = route?.spec?.rules?.at(-1)?.backendRefs;
  const total = refs?.reduce((sum, r) => sum + (r.weight ?? 1), 0) ?? 0;
  const canary = refs?.filter((r) => r.name === canaryName).reduce((sum, r) => sum + (r.weight ?? 1), 0) ?? 0;
  const throughRoute = refs?.length ? (total > 0 ? Math.round((canary * 100) / total) : 0) : undefined;
  const throughIngress = ingress ? Number(ingress.metadata.annotations?.[NGINX_CANARY_WEIGHT] ?? 0) : undefined;
  // Switching routers, both may split the host's traffic: the one switched from keeps the canary's
  // share until the other takes over (the controller never gives either more than the step's).
  if (throughIngress !== undefined || throughRoute !== undefined) return Math.max(throughIngress ?? 0, throughRoute ?? 0);
  return routes.length || ingresses.length ? 0 : undefined;
}

/**
 * `new`: the image of an App that has never been rolled out (no stable image yet), as `status` says
 * "(not yet deployed)". `held`: with RollingUpdate, the paused Deployment's template, which status
 * names stable's while its pods still run the one before (see `heldChange`).
 */
export type Role = 'stable' | 'canary' | 'preview' | 'active' | 'new' | 'held';

/** The analysis of the rollout under way, whichever the strategy: the canary's, or the blue-green rollout's. */
export const rolloutAnalysis = (app: CliApp): AnalysisStatus | undefined => (app.status?.canary ? app.status.canary.analysis : blueGreenOf(app)?.analysis);

/** Where a check ran, as people say it: the canary's weight, or a blue-green preview (0) and full traffic (100). */
export function checkedAt(app: CliApp, weight: number | undefined): string {
  if (weight === undefined) return '';
  if (!blueGreenOf(app) || app.status?.canary) return ` at ${weight}%`;
  return weight === 0 ? ' of the preview' : ' under full traffic';
}

/**
 * The newest revision of each hash (`revisions` newest first): the entry a template's role and its
 * Deployments belong to; an older entry of the same template ran before.
 */
export function newestByHash(revisions: Revision[]): Map<string, Revision> {
  const out = new Map<string, Revision>();
  for (const r of revisions) if (!out.has(r.hash)) out.set(r.hash, r);
  return out;
}

/** What a pod-template revision (hash) is to the App now, if anything. */
export function roleOf(app: CliApp, hash: string | undefined): Role | undefined {
  if (!hash) return undefined;
  const s = app.status;
  const b = blueGreenOf(app);
  if (b) {
    if (hash === b.activeRevision) return 'active';
    if (hash === b.previewRevision) return 'preview';
  }
  if (hash === s?.canary?.revision) return 'canary';
  // RollingUpdate: the paused Deployment's held template, which status names stable's.
  if (hash === s?.stableRevision) return heldTemplate(app, hash) ? 'held' : 'stable';
  // Left from a blue-green rollout before a change of strategy, its pods waiting out the delay.
  if (hash === retiringPreview(app)?.previewRevision) return 'preview';
  return undefined;
}

/**
 * What one of the App's Deployments is to it, by the revision it runs; during a promotion the
 * stable Deployment (the App's own name) takes the canary's template and is still the stable one.
 */
export function deploymentRole(app: CliApp, deployment: { metadata: { name?: string; annotations?: Record<string, string> } }): Role | undefined {
  // A preview left from a former BlueGreen strategy may run the template a canary runs now: it is still the preview.
  if (deployment.metadata.name === `${app.metadata.name}-preview` && retiringPreview(app)) return 'preview';
  // The canary's Deployment with no canary running (a finished canary's pods waiting out
  // scaleDownDelaySeconds, or a canary left by a change of strategy): no traffic goes to it, whatever
  // template it runs, so it takes no role of the revisions that do get some.
  if (deployment.metadata.name === `${app.metadata.name}-canary` && !app.status?.canary) return undefined;
  const byRevision = roleOf(app, deploymentRevision(deployment));
  return byRevision === 'canary' && deployment.metadata.name === app.metadata.name ? 'stable' : byRevision;
}

/** The images of the App with their role: stable and canary, or active and preview. */
export function imageRoles(app: CliApp): { image: string; role: Role }[] {
  const s = app.status;
  const out: { image: string; role: Role }[] = [];
  const bg = blueGreenOf(app);
  // Blue-green: the Service selects the active revision, stable's before the switch and the
  // preview's after it; the other one is the preview (before) or the old pods kept (after).
  const switched = bg !== undefined && bg.activeRevision === bg.previewRevision;
  const previewImage = bg?.image ?? app.spec.image;
  if (s?.stableImage) out.push({ image: s.stableImage, role: bg ? (switched ? 'stable' : 'active') : heldTemplate(app, s.stableRevision) ? 'held' : 'stable' });
  if (s?.canary) out.push({ image: s.canary.image, role: 'canary' });
  else if (bg) out.push({ image: previewImage, role: switched ? 'active' : 'preview' });
  if (!out.length) out.push({ image: app.spec.image, role: 'new' });
  return out;
}

/** One entry of the App's history. */
export interface Revision {
  number: number;
  name: string;
  hash: string;
  images: string[];
  changes: string[];
  outcome: string;
  startedAt?: string;
  spec: Record<string, unknown>;
  /** Whether it ran on copies of tracked configuration (spec.rollout.trackConfig). */
  onCopies: boolean;
}

const list = (s: string | undefined) => (s ? s.split(',').map((x) => x.trim()).filter(Boolean) : []);

/**
 * Whether a ControllerRevision is an entry of the App's history as the controller reads it: one
 * the App controls (ownerReference with its uid), named <app>-<revision>. Others found by the label
 * (an earlier App of the same name, orphaned or not yet collected; someone else's) are not.
 */
/**
 * Whether the App controls an object (an ownerReference with its uid and controller: true): what
 * carries its label but not that (left by an earlier App of the same name, or someone else's) is
 * not the App's.
 */
export const controlledBy = (app: { metadata: { uid?: string } }) => (o: { metadata: ObjectMeta }) =>
  app.metadata.uid !== undefined && (o.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === app.metadata.uid);

const entryOf = (app: { metadata: { name?: string; uid?: string } }) => (cr: ControllerRevision) =>
  cr.metadata.name === `${app.metadata.name}-${cr.revision}` && controlledBy(app)(cr);

/** The history's entries, newest first: of `app` only, when given. */
export function revisionsOf(items: ControllerRevision[], app?: { metadata: { name?: string; uid?: string } }): Revision[] {
  return (app ? items.filter(entryOf(app)) : items).map((cr) => {
    const a = cr.metadata.annotations ?? {};
    return {
      number: cr.revision,
      name: cr.metadata.name,
      hash: cr.metadata.labels?.[LABEL_REVISION] ?? '',
      images: list(a[ANNOTATION_HISTORY_IMAGES]),
      changes: list(a[ANNOTATION_HISTORY_CHANGES]),
      outcome: a[ANNOTATION_HISTORY_OUTCOME] ?? 'Unknown',
      startedAt: a[ANNOTATION_HISTORY_STARTED_AT] ?? cr.metadata.creationTimestamp,
      spec: cr.data?.spec ?? {},
      onCopies: Object.keys(cr.data?.configCopies ?? {}).length > 0,
    };
  }).sort((x, y) => y.number - x.number);
}
