// Which revision `kubectl skiff undo` goes back to and the patch that does it. Pure.
import type { AppSpec } from '../shared/app-types.js';
import { stableJson } from '../shared/hash.js';
import { ANNOTATION_SKIP_CANARY } from '../shared/labels.js';
import { POD_TEMPLATE_FIELDS, podTemplatePatch, type PodTemplateField } from '../shared/pod-template-fields.js';
import { CliError } from './errors.js';
import { observedCurrent, strategyOf, templateHashNow, type CliApp, type Revision } from './model.js';
import { withDefaults } from '../shared/defaults.js';

/**
 * Revision `toRevision`, or by default the newest Promoted revision whose template differs from
 * the App's template now (`currentHash`, see templateHashNow: a change held back by
 * spec.rollout.paused is in no revision yet). `revisions` are newest first.
 */
export function undoTarget(app: string, revisions: Revision[], toRevision?: number, currentHash = revisions[0]?.hash): Revision {
  if (!revisions[0]) throw new CliError(`app ${app} has no revision history yet (ControllerRevisions labelled skiff.dev/app): nothing to undo`);
  if (toRevision !== undefined) {
    const found = revisions.find((r) => r.number === toRevision);
    if (!found) throw new CliError(`app ${app} has no revision ${toRevision} (revisions: ${revisions.map((r) => r.number).reverse().join(', ')})`);
    return found;
  }
  const previous = revisions.find((r) => r.outcome === 'Promoted' && r.hash !== currentHash);
  if (!previous) throw new CliError(`app ${app} has no earlier promoted revision to go back to (see kubectl skiff history)`);
  return previous;
}

/** Whether a revision's template (hash) ever became stable, as the controller judges a skip-canary request. */
export const everPromoted = (revisions: Revision[], hash: string) => revisions.some((r) => r.hash === hash && r.outcome === 'Promoted');

/**
 * The JSON merge patch of the App (whose spec is `current`) that undoes to `target`, with the
 * skip-canary annotation when asked.
 */
export function undoPatch(app: string, revisions: Revision[], target: Revision, skipCanary: boolean, current: Partial<AppSpec> = {}): Record<string, unknown> {
  const patch: Record<string, unknown> = { spec: podTemplatePatch(target.spec as Partial<Pick<AppSpec, PodTemplateField>>, current) };
  if (skipCanary) {
    if (!everPromoted(revisions, target.hash)) {
      const how = current.rollout?.strategy === 'BlueGreen' ? 'through a preview' : current.rollout?.strategy === 'Canary' ? 'with its canary steps' : 'as any change';
      throw new CliError(`app ${app}: revision ${target.number} (hash ${target.hash}) was never promoted, so it cannot skip the canary; undo without --skip-canary rolls it out ${how}`);
    }
    patch.metadata = { annotations: { [ANNOTATION_SKIP_CANARY]: target.hash } };
  }
  return patch;
}

/** The sources of tracked configuration (spec.rollout.trackConfig) that revisions name among their changes. */
const TRACKED_SOURCE = /^(configMap|secret) /;

/**
 * Refuses an undo whose patch would change nothing: the App's pod-template fields are the target's
 * already. Either the App asks for that template now, or (spec.rollout.trackConfig) the revisions
 * differ only in the data of the ConfigMaps or Secrets the template references, which lives in
 * those objects and not in the App, so that no patch of the App can bring it back.
 * `currentHash` is the revision of the template the App asks for (status.updateRevision, which a
 * change held back by a pause has before any history entry), or null while the controller has
 * not seen the App's generation: then the fields are all there is to judge by.
 */
export function refuseNoOpUndo(app: string, spec: Partial<AppSpec>, revisions: Revision[], target: Revision, currentHash: string | null | undefined = revisions[0]?.hash): void {
  const refusal = noOpUndoRefusal(app, spec, revisions, target, currentHash);
  if (refusal) throw new CliError(refusal);
}

/** Why refuseNoOpUndo refuses, or undefined: for callers that show the reason rather than fail. */
function noOpUndoRefusal(app: string, spec: Partial<AppSpec>, revisions: Revision[], target: Revision, currentHash: string | null | undefined): string | undefined {
  const same = POD_TEMPLATE_FIELDS.every((f) => stableJson(spec[f] ?? null) === stableJson(target.spec[f] ?? null));
  if (!same) return undefined;
  if (currentHash === null || target.hash === currentHash) return `app ${app} has revision ${target.number}'s pod template already (hash ${target.hash}): nothing to undo`;
  // What else tells the templates apart: whether they run on copies at all (trackConfig turned
  // on or off since), or else the data of the copies.
  const tracking = spec.rollout?.trackConfig === true;
  if (target.onCopies !== tracking) {
    return `app ${app}: revision ${target.number} (hash ${target.hash}) has the pod-template fields the App has now; it ran ${target.onCopies ? 'on copies of the configuration it references' : 'on the configuration it references itself, not on copies'}, and spec.rollout.trackConfig is ${tracking} now: set it to ${target.onCopies} to go back to that`;
  }
  const sources = [...new Set(revisions.filter((r) => r.number > target.number).flatMap((r) => r.changes.filter((c) => TRACKED_SOURCE.test(c))))];
  return `app ${app}: revision ${target.number} (hash ${target.hash}) has the pod-template fields the App has now; it differs in the data of what the template references${sources.length ? ` (${sources.join(', ')})` : ''}, which undo cannot put back: restore that data to go back to it (rolled out as any change; at once, with nothing to roll out, when it is the stable revision)`;
}

/**
 * Why an undo of the App as read to a target would be refused as changing nothing (refuseNoOpUndo),
 * for any number of targets: its defaulted fields (as revisions hold them) and the template it
 * asks for, worked out once.
 */
export function noOpUndoCheck(app: CliApp, revisions: Revision[]): (target: Revision) => string | undefined {
  const name = `${app.metadata.namespace}/${app.metadata.name}`;
  const spec = withDefaults(app).spec;
  const currentHash = observedCurrent(app) ? templateHashNow(app, revisions) : null;
  return (target) => noOpUndoRefusal(name, spec, revisions, target, currentHash);
}

/**
 * What an undo to the template `hash` does in the App's phase, as the dashboard's confirmation
 * says it: as a change (`rollout`) and with the canary skipped (`skipCanary`, for a revision
 * promoted once). Going back to the stable revision starts no rollout: what the App asked for
 * beyond it (a rollout under way, a change a pause holds) is dropped, and, as with RollingUpdate,
 * there is no canary or preview to skip (no `skipCanary`: the page does not offer it).
 */
export function undoMeans(app: CliApp, hash: string): { rollout: string; skipCanary?: string } {
  const strategy = strategyOf(app);
  if (hash === app.status?.stableRevision) {
    return { rollout: 'It is the stable revision: nothing new rolls out, and what the App asks for beyond it (a rollout under way, or a change the pause holds) is dropped.' };
  }
  const how = strategy === 'Canary' ? 'It rolls out as a canary, like any change' : strategy === 'BlueGreen' ? 'It rolls out through a blue-green preview, like any change' : 'The Deployment rolls it out, like any change';
  const rollout = `${how}${app.spec.rollout?.paused ? ', once the App is resumed (it is paused now)' : ''}.`;
  if (strategy === 'RollingUpdate') return { rollout };
  return { rollout, skipCanary: `It goes straight to stable at once, without ${strategy === 'BlueGreen' ? 'a preview' : 'the canary'}: no steps and no analysis.` };
}

/** Whether revision fields reference a ConfigMap, which trackConfig always copies (Secrets only with the controller's --track-secrets). */
function referencesConfigMap(spec: Record<string, unknown>): boolean {
  const env = (spec.env ?? []) as { valueFrom?: { configMapKeyRef?: unknown } }[];
  const envFrom = (spec.envFrom ?? []) as { configMapRef?: unknown }[];
  const volumes = (spec.volumes ?? []) as { configMap?: unknown }[];
  return env.some((e) => e.valueFrom?.configMapKeyRef) || envFrom.some((e) => e.configMapRef) || volumes.some((v) => v.configMap);
}

/**
 * What undo cannot promise of a revision that ran on copies of its configuration (or without
 * them): the patch puts back the App's fields, while the revision's hash also covers the data of
 * the sources it copied, and whether it copied at all. Said after the undo is written, so that an
 * emergency rollback that does not land on revision N (its canary not skipped) is no surprise.
 */
export function configCaveat(app: CliApp, target: Revision, skipCanary: boolean): string {
  const tracking = app.spec.rollout?.trackConfig === true;
  const skip = skipCanary ? ', and its canary is not skipped (Warning SkipCanaryRefused)' : '';
  const n = target.number;
  if (target.onCopies && !tracking) return `; revision ${n} ran on copies of its configuration and spec.rollout.trackConfig is false now: the template is not revision ${n}'s${skip}`;
  if (!target.onCopies && tracking && referencesConfigMap(target.spec)) return `; revision ${n} ran on its ConfigMaps themselves, not on copies, and spec.rollout.trackConfig is true now: the template is not revision ${n}'s${skip}`;
  if (!tracking || !target.onCopies) return '';
  return `; with trackConfig the template is revision ${n}'s only while the ConfigMaps and Secrets it references hold the data they held then: else it rolls out as a new revision${skip}`;
}
