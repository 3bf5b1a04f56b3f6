// What the status says about spec.rollout.trackConfig (docs/api.md, "Config changes").
//
// A missing source that is not optional: a template on a copy cannot be rendered, and one on the
// source's name would be a dangling reference that leaves new pods waiting. So, as for an invalid
// spec, nothing is rendered: the App's objects stay as they are (stable keeps running what it
// runs, on its own copies) and Degraded=True, reason ConfigNotFound, names what is missing. The
// source's creation enqueues the App (config-sources.ts), and the next pass goes on.
//
// Secrets referenced while the controller runs without --track-secrets are neither read nor
// copied: the condition ConfigTracked says which, so that nobody takes their changes for
// canaried ones.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { App, AppStatus } from '../../shared/app-types.js';
import type { DefaultedApp } from '../../shared/defaults.js';
import type { Logger } from '../../shared/logger.js';
import { writeStatus, type AppClients } from '../apply/app-writes.js';
import { recordedCopies, type SourceRef, type TrackedTemplate } from '../../shared/render/config-copies.js';
import type { Expectations } from '../runtime/expectations.js';
import type { EventSink } from '../runtime/events.js';
import { progressingHoldsAbort } from '../canary/types.js';
import { findCondition, setConditions } from '../state/conditions.js';
import { appRef } from './freshness.js';

export const CONFIG_NOT_FOUND = 'ConfigNotFound';
export const CONFIG_TRACKED = 'ConfigTracked';
export const SECRETS_NOT_TRACKED = 'SecretsNotTracked';
export const COPY_LOST = 'CopyLost';

const describeSources = (refs: readonly SourceRef[]) => refs.map((r) => `${r.kind} ${r.name}`).join(', ');

const READY_WAITS_FOR_SOURCES = 'nothing is rendered until the configuration the pod template references exists (see Degraded)';
const PROGRESS_WAITS_FOR_SOURCES = 'no rollout until the configuration the pod template references exists';
const WAITS_FOR_COPIES = 'nothing is rendered until the copies of the configuration the pod template references can be made (see Degraded)';
/**
 * Absent, or written by one of these gates to say why a new App runs nothing: the gate of this
 * pass says why now (a source that was missing exists, and its copy's name is taken). A condition
 * the App's running objects gave is kept.
 */
const saysWhyNothingRuns = (c: { message?: string } | undefined) => c === undefined || [READY_WAITS_FOR_SOURCES, PROGRESS_WAITS_FOR_SOURCES, WAITS_FOR_COPIES].includes(c.message ?? '');

/**
 * The status of an App held back by missing sources: Degraded says which; the rest stays as it
 * was, but for the scale-down of a finished canary once its objects are gone (`windDownOver`).
 */
export function missingConfigStatus(app: App, missing: readonly SourceRef[], now: Date, windDownOver = false): AppStatus {
  const { scaleDown: _over, ...rest } = app.status ?? {};
  const previous: AppStatus = windDownOver ? rest : (app.status ?? {});
  const generation = app.metadata.generation;
  const runsNothing = saysWhyNothingRuns(findCondition(previous.conditions, 'Ready'));
  const message = `not found in namespace ${app.metadata.namespace}: ${describeSources(missing)}; nothing is rendered until ${missing.length > 1 ? 'they exist' : 'it exists'} (or the reference is optional), ${runsNothing ? 'and the App runs nothing until then' : "and the App's Deployments keep running what they run"}`;
  return {
    ...previous,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    conditions: setConditions(previous.conditions, [
      // A new App has no Ready yet: it gets one saying why nothing runs. An App that runs keeps
      // its own, since its Deployments go on serving what they serve.
      ...(runsNothing ? [{ type: 'Ready', status: 'False' as const, reason: CONFIG_NOT_FOUND, message: READY_WAITS_FOR_SOURCES }] : []),
      ...(progressingHoldsAbort(previous.conditions) ? [] : [{ type: 'Progressing', status: 'False' as const, reason: CONFIG_NOT_FOUND, message: PROGRESS_WAITS_FOR_SOURCES }]),
      { type: 'Degraded', status: 'True', reason: CONFIG_NOT_FOUND, message },
      { type: CONFIG_TRACKED, status: 'False', reason: CONFIG_NOT_FOUND, message: `not found: ${describeSources(missing)}` },
    ], generation, now),
  };
}

export interface ConfigGateDeps {
  clients: AppClients;
  events: EventSink;
  log: Logger;
  expectations?: Expectations;
}

/** Records that the App waits for missing sources (written only when the status says otherwise so far). */
/**
 * Sources the rollout under way runs on copies of, deleted since: said on ConfigTracked (and in a
 * Warning Event, once) while the rollout goes on, before its end leaves the App rendering nothing.
 */
export function goneUnderWayMessage(app: App, gone: readonly SourceRef[]): string {
  const them = gone.length > 1 ? 'they exist' : 'it exists';
  return `not found in namespace ${app.metadata.namespace}: ${describeSources(gone)}; the rollout under way goes on with the copies its pods use, and once it has ended nothing is rendered until ${them} again (or the reference is optional)`;
}

export async function refuseMissingConfig(key: string, app: App, missing: readonly SourceRef[], deps: ConfigGateDeps, now: Date, opts: { windDownOver?: boolean } = {}): Promise<void> {
  const degraded = await writeRefusal(app, missingConfigStatus(app, missing, now, opts.windDownOver), deps);
  if (degraded) {
    deps.events.event(app, 'Warning', CONFIG_NOT_FOUND, degraded.message);
    deps.log.warn({ app: key, missing: describeSources(missing) }, 'configuration not found: not acted on until it exists');
  }
}

/**
 * Writes the status of a pass that acted on nothing (unless the App has it already), and
 * resolves with its Degraded condition when that is news (another reason or message), for a
 * Warning Event.
 */
async function writeRefusal(app: App, status: AppStatus, deps: ConfigGateDeps): Promise<{ reason: string; message: string } | undefined> {
  const written = await writeStatus(deps.clients, app, status);
  if (!written) return undefined;
  deps.expectations?.written(appRef(app.metadata.namespace!, app.metadata.name!), written as KubernetesObject);
  const before = findCondition(app.status?.conditions, 'Degraded');
  const after = findCondition(status.conditions, 'Degraded')!;
  return before?.status !== 'True' || before.reason !== after.reason || before.message !== after.message ? after : undefined;
}

/**
 * The status of an App whose pass wrote nothing because a copy its Deployments would reference
 * could not be created: Degraded says why (ResourceConflict for a name another object holds, else
 * ReconcileError), and the generation is seen; the rest stays as it was, since nothing was acted
 * upon, but for a new App's Ready and Progressing, which say why nothing runs yet (as for a
 * missing source).
 */
export function uncopiedStatus(app: App, copies: { errors: readonly string[]; conflicts: readonly string[] }, now: Date): AppStatus {
  const previous = app.status ?? {};
  const generation = app.metadata.generation;
  const degraded = copies.conflicts.length > 0
    ? { reason: 'ResourceConflict', message: copies.conflicts.join('; ') }
    : { reason: 'ReconcileError', message: copies.errors.join('; ') };
  const runsNothing = saysWhyNothingRuns(findCondition(previous.conditions, 'Ready'));
  return {
    ...previous,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    conditions: setConditions(previous.conditions, [
      ...(runsNothing ? [{ type: 'Ready', status: 'False' as const, reason: degraded.reason, message: WAITS_FOR_COPIES }] : []),
      ...(saysWhyNothingRuns(findCondition(previous.conditions, 'Progressing')) ? [{ type: 'Progressing', status: 'False' as const, reason: degraded.reason, message: WAITS_FOR_COPIES }] : []),
      { type: 'Degraded', status: 'True', ...degraded },
      // The sources may all exist now: ConfigTracked no longer says one is missing.
      { type: CONFIG_TRACKED, status: 'False', reason: degraded.reason, message: `a copy of the configuration the pod template references cannot be made (see Degraded); ${runsNothing ? 'the App runs nothing until then' : "the App's Deployments keep running what they run"}` },
    ], generation, now),
  };
}

/** Records that the App waits for copies it could not create, or sources it could not read (a Warning when the reason or message is new). */
export async function refuseUncopied(app: App, copies: { errors: readonly string[]; conflicts: readonly string[] }, deps: ConfigGateDeps, now: Date): Promise<void> {
  const degraded = await writeRefusal(app, uncopiedStatus(app, copies, now), deps);
  if (degraded) deps.events.event(app, 'Warning', degraded.reason, degraded.message);
}

/** What ConfigTracked says when every source is tracked: the copies, and the optional sources that do not exist yet. */
function trackedMessage(copied: number, absent: readonly SourceRef[]): string {
  const copies = copied === 0 ? 'no source copied' : `${copied} source${copied === 1 ? '' : 's'} copied; a change of one rolls out as a new revision`;
  if (absent.length === 0) return copied === 0 ? `${copies}: the pod template's env, envFrom and volumes reference no ConfigMap or Secret` : copies;
  const them = absent.length > 1 ? 'they are' : 'it is';
  return `${copies}; optional ${describeSources(absent)} not found (left out of the pod template): once ${them} made, a new revision rolls out`;
}

/**
 * The status with the condition ConfigTracked: True when every source is tracked, False with
 * reason CopyLost naming the copies in `lost` (lostCopies), else ResourceConflict for copies in
 * use whose names objects the App does not own hold (`taken`: someone deleted the copy and made
 * an object of that name, or took the copy's ownerReference off), else SecretsNotTracked naming
 * the Secrets that are not tracked; absent without trackConfig.
 */
export function withConfigCondition(status: AppStatus, app: DefaultedApp, tracked: TrackedTemplate | undefined, now: Date, lost: readonly string[] = [], taken: readonly string[] = []): AppStatus {
  const others = (status.conditions ?? []).filter((c) => c.type !== CONFIG_TRACKED);
  if (!tracked) return others.length === (status.conditions ?? []).length ? status : { ...status, conditions: others };
  const secrets = tracked.untrackedSecrets;
  // The sources the template runs from copies, as it records them: also those whose copy stands
  // for a source deleted while a rollout goes on, which are in no list of copies to create.
  const copied = recordedCopies(tracked.pod.template).size;
  const condition = lost.length
    ? { type: CONFIG_TRACKED, status: 'False' as const, reason: COPY_LOST, message: `pods run on ${lost.join(', ')}, which is no longer the App's copy (deleted, or replaced by an object it does not own) and cannot be made again from the source's data as it is now: their pods cannot start again as they ran; roll out a change (or put the source's data back) to move them off it` }
    : taken.length
    ? { type: CONFIG_TRACKED, status: 'False' as const, reason: 'ResourceConflict', message: `a copy the App's pods run on cannot be made again: ${taken.join('; ')}; nothing is written over it, and pods that start meanwhile get its data; delete that object to have the copy made again from the source, or roll out a change` }
    : tracked.goneUnderWay?.length
    ? { type: CONFIG_TRACKED, status: 'False' as const, reason: CONFIG_NOT_FOUND, message: goneUnderWayMessage(app, tracked.goneUnderWay) }
    : secrets.length
    ? { type: CONFIG_TRACKED, status: 'False' as const, reason: SECRETS_NOT_TRACKED, message: `the controller runs without --track-secrets: secret ${secrets.join(', secret ')} ${secrets.length > 1 ? 'are' : 'is'} referenced as it is, neither read nor copied, and a change reaches the pods without a rollout` }
    : { type: CONFIG_TRACKED, status: 'True' as const, reason: CONFIG_TRACKED, message: trackedMessage(copied, tracked.absentOptional) };
  const previous = findCondition(app.status?.conditions, CONFIG_TRACKED);
  return { ...status, conditions: [...others, ...setConditions(previous ? [previous] : [], [condition], app.metadata.generation, now)] };
}
