// spec.rollout.trackConfig in a reconcile: which sources spec's template references and what they
// hold (trackedConfig), the copies the plan's Deployments need created before they are written
// (prepareCopies), and the copies no Deployment uses any more deleted after (pruneCopies).
import type { KubernetesObject, V1Deployment, V1PodTemplateSpec } from '@kubernetes/client-node';
import type { DefaultedApp } from '../shared/defaults.js';
import { revisionRolling } from '../shared/rollout-revision.js';
import type { ConfigSources } from './config-sources.js';
import type { ReconcilePlan } from './decide.js';
import type { Observed } from './observe.js';
import { deleteCopies, ensureCopies, type CopiesOutcome, type CopyDeps as CopyWriteDeps } from './apply/config-copies.js';
import { configReferences, copyName, desiredCopy, olderCopyNames, recordedCopies, referencedNames, sourceKey, trackedPodTemplate, trackedReferences, unusedCopies, type SourceKind, type SourceRef, type TrackedTemplate } from '../shared/render/config-copies.js';
import { renderPodTemplate } from '../shared/render/pod-template.js';
import { ANNOTATION_PREVIOUS_POD_TEMPLATE, deploymentRevision } from './render/pod-template-record.js';
import { rolloutState } from './state/deployment-state.js';
import { isControlledBy } from './state/ownership.js';

export interface ConfigTrackingDeps {
  sources: ConfigSources;
  /** The cached Deployments of a namespace: every one the App controls (stable, canary, preview) keeps its copies. */
  deploymentsOf(namespace: string): readonly KubernetesObject[];
}

/**
 * spec's pod template on copies of its sources, or undefined when the App does not track its
 * configuration (it is then forgotten by the source watches).
 */
export async function trackedConfig(key: string, app: DefaultedApp, config: ConfigTrackingDeps | undefined, kept?: ReadonlyMap<string, string>): Promise<TrackedTemplate | undefined> {
  if (!config || !app.spec.rollout.trackConfig) {
    config?.sources.forget(key);
    return undefined;
  }
  const spec = renderPodTemplate(app, 'stable');
  const refs = trackedReferences(configReferences(spec.template), config.sources.trackSecrets);
  config.sources.reference(key, refs);
  // The names of the App's copies, read from the cache once per kind for all its references.
  const owned = new Map<SourceKind, Set<string>>();
  const owns = (kind: SourceKind, name: string) => {
    if (!owned.has(kind)) owned.set(kind, new Set(config.sources.ownedCopies(kind, app.metadata.namespace!, app.metadata.uid!).map((c) => c.metadata!.name!)));
    return owned.get(kind)!.has(name);
  };
  // A source whose copy the App has is not read again (its names are known): no data is held.
  const resolved = await config.sources.resolve(app.metadata.namespace!, refs, { name: app.metadata.name!, owns });
  return trackedPodTemplate(app, spec, resolved, config.sources.trackSecrets, owns, kept);
}

/**
 * The revision a rollout under way runs (a canary's, a blue-green preview's), or the aborted one
 * whose objects may still wind down, if any; else, while a promoted or cancelled canary's pods
 * wait out scaleDownDelaySeconds, the stable revision: the wind-down is the rollout's end, and
 * only a pass that goes on deletes those pods when the delay is over.
 */
export function revisionUnderWay(app: DefaultedApp): string | undefined {
  const status = app.status;
  return revisionRolling(status) ?? status?.abortedRevision ?? (status?.scaleDown ? status.stableRevision : undefined);
}

/**
 * A source deleted while a rollout runs: spec's template with the copies that rollout's pods use
 * for the missing sources, when that gives exactly the revision under way (so abort, promote,
 * the checks and the deadline go on acting on it); undefined otherwise (nothing new is rolled
 * out on a copy of configuration that no longer exists).
 */
export async function trackedUnderWay(key: string, app: DefaultedApp, config: ConfigTrackingDeps): Promise<TrackedTemplate | undefined> {
  const revision = revisionUnderWay(app);
  if (revision === undefined) return undefined;
  const kept = copiesOfRevision(app, config, revision);
  if (kept.size === 0) return undefined;
  const tracked = await trackedConfig(key, app, config, kept);
  return tracked && tracked.missing.length === 0 && tracked.pod.revision === revision ? tracked : undefined;
}

/** The copies the App's Deployments of `revision` run (sourceKey -> copy name). */
export function copiesOfRevision(app: DefaultedApp, config: ConfigTrackingDeps, revision: string): Map<string, string> {
  const kept = new Map<string, string>();
  for (const d of config.deploymentsOf(app.metadata.namespace!) as V1Deployment[]) {
    if (!isControlledBy(d, app.metadata.uid!) || deploymentRevision(d) !== revision) continue;
    for (const [source, copy] of recordedCopies(d.spec?.template)) kept.set(source, copy);
  }
  return kept;
}

/**
 * The copies the App's Deployments run on that are no longer the App's (deleted by hand, or
 * replaced by an object of the same name it does not own) and that this pass does not make
 * again (their source holds other data now), as "configMap <copy> (Deployment <name>)". Their
 * pods cannot start again as they ran. Only kinds whose copies are cached, once synced.
 */
export function lostCopies(app: DefaultedApp, tracked: TrackedTemplate, config: ConfigTrackingDeps): string[] {
  return lostCopyRefs(app, tracked, config).map(({ ref, copy, deployment }) => `${ref.kind} ${copy} (Deployment ${deployment})`).sort();
}

/**
 * `tracked` with the copies the App's Deployments run on that are gone (deleted by hand) and are
 * of a source spec's template no longer references (its reference renamed: stable runs on the
 * copy until the change is promoted), made again where their source still holds the data they
 * were made of (the copy's name is that data's). A source that holds other data now cannot give
 * them back: lostCopies says so. Sources spec references are tracked's own to make again.
 */
export async function withRestorableCopies(app: DefaultedApp, tracked: TrackedTemplate, config: ConfigTrackingDeps): Promise<TrackedTemplate> {
  const gone = lostCopyRefs(app, tracked, config);
  if (gone.length === 0) return tracked;
  const resolved = await config.sources.resolve(app.metadata.namespace!, gone.map((g) => g.ref));
  const restorable = gone.flatMap(({ ref, copy }) => {
    const content = resolved.get(sourceKey(ref.kind, ref.name));
    if (!content) return [];
    const names = [copyName(app.metadata.name!, ref.name, content), ...olderCopyNames(app.metadata.name!, ref.name, content)];
    return names.includes(copy) ? [desiredCopy(app, ref, content, copy)] : [];
  });
  return restorable.length ? { ...tracked, copies: [...tracked.copies, ...restorable] } : tracked;
}

/** The copies the App's Deployments record that are neither the App's nor among `tracked`'s, each once. */
function lostCopyRefs(app: DefaultedApp, tracked: TrackedTemplate, config: ConfigTrackingDeps): { ref: SourceRef; copy: string; deployment: string }[] {
  const { sources } = config;
  if (!sources.copiesSynced) return [];
  const made = new Set(tracked.copies.map((c) => `${kindOf(c)}/${c.metadata!.name}`));
  const owned = new Map<SourceKind, Set<string>>();
  const ownedOf = (kind: SourceKind) => {
    let names = owned.get(kind);
    if (!names) owned.set(kind, (names = new Set(sources.ownedCopies(kind, app.metadata.namespace!, app.metadata.uid!).map((c) => c.metadata!.name!))));
    return names;
  };
  const out: { ref: SourceRef; copy: string; deployment: string }[] = [];
  for (const d of config.deploymentsOf(app.metadata.namespace!) as V1Deployment[]) {
    if (!isControlledBy(d, app.metadata.uid!)) continue;
    for (const [source, copy] of recordedCopies(d.spec?.template)) {
      const kind = source.slice(0, source.indexOf('/')) as SourceKind;
      if (!sources.copies[kind] || made.has(`${kind}/${copy}`) || ownedOf(kind).has(copy)) continue;
      out.push({ ref: { kind, name: source.slice(kind.length + 1), optional: false }, copy, deployment: d.metadata!.name! });
    }
  }
  return out;
}

/**
 * The Deployments a plan writes, wherever a strategy puts them (stable, canary, a preview):
 * every Deployment among the plan's objects, two levels down.
 */
function plannedDeployments(plan: ReconcilePlan): V1Deployment[] {
  const out: V1Deployment[] = [];
  const visit = (v: unknown, depth: number) => {
    if (!v || typeof v !== 'object' || depth > 3) return;
    if ((v as KubernetesObject).kind === 'Deployment') return void out.push(v as V1Deployment);
    for (const child of Object.values(v)) visit(child, depth + 1);
  };
  visit(plan, 0);
  return out;
}

/** What the copies' writes need (apply/config-copies.ts), and the watches of sources and copies. */
interface CopyDeps extends CopyWriteDeps {
  config?: ConfigTrackingDeps;
}

const kindOf = (copy: KubernetesObject): SourceKind => (copy.kind === 'Secret' ? 'secret' : 'configMap');

/**
 * Creates the copies the plan's Deployments reference (a canary's new one; not an aborted
 * revision's), and those a Deployment of the App runs on already that were deleted by hand (an
 * aborted canary's, whose pods wait out the scale-down delay: a pod restarted then needs it).
 * `fresh`: how it went for the copies no Deployment of the App references yet, which the pass
 * must not write a reference to unless they exist; `again`: for those some Deployment already
 * references, whose failure writing the plan cannot make worse.
 */
export async function prepareCopies(app: DefaultedApp, tracked: TrackedTemplate | undefined, plan: ReconcilePlan, deps: CopyDeps): Promise<{ fresh: CopiesOutcome; again: CopiesOutcome }> {
  const none = { errors: [], conflicts: [] };
  if (!tracked || !deps.config) return { fresh: none, again: none };
  const used = referencedNames(plannedDeployments(plan).map((d) => d.spec?.template));
  const { sources } = deps.config;
  const owned = (kind: string, name: string) => sources.ownedCopies(kind === 'Secret' ? 'secret' : 'configMap', app.metadata.namespace!, app.metadata.uid!).find((c) => c.metadata?.name === name);
  const controlled = deps.config.deploymentsOf(app.metadata.namespace!).filter((d) => isControlledBy(d, app.metadata.uid!)) as V1Deployment[];
  const inUse = referencedNames(controlled.map((d) => d.spec?.template));
  const referenced = (c: KubernetesObject) => inUse.has(sourceKey(kindOf(c), c.metadata!.name!));
  const needed = tracked.copies.filter((c) => used.has(sourceKey(kindOf(c), c.metadata!.name!)) || referenced(c));
  const [fresh, again] = await Promise.all([
    ensureCopies(deps, app, needed.filter((c) => !referenced(c)), owned),
    ensureCopies(deps, app, needed.filter(referenced), owned),
  ]);
  return { fresh, again };
}

/**
 * Deletes the App's copies that neither the plan's Deployments nor any Deployment it controls
 * references, nor (while a rollout is under way) the template stable ran before, which an abort
 * during promotion goes back to; none while a Deployment of the App is still rolling.
 * Without trackConfig too: turning it off leaves copies nobody uses.
 */
export async function pruneCopies(app: DefaultedApp, plan: ReconcilePlan, observed: Observed, deps: CopyDeps): Promise<CopiesOutcome> {
  const inFlight = plan.rollout.status.canary !== undefined || rolloutInStatus(app);
  const templates = plannedDeployments(plan).map((d) => d.spec?.template);
  return pruneUnused(app, inFlight ? [...templates, previousTemplate(observed.stable)] : templates, deps);
}

/**
 * The copies to go while spec's template cannot be rendered (a source is missing) and no rollout
 * is under way: those no Deployment of the App references. An aborted canary's copy, say, whose
 * source was deleted before its pods had gone, goes once they have, as it would have otherwise.
 */
export async function pruneUnrendered(app: DefaultedApp, deps: CopyDeps): Promise<CopiesOutcome> {
  return rolloutInStatus(app) ? { errors: [], conflicts: [] } : pruneUnused(app, [], deps);
}

const rolloutInStatus = (app: DefaultedApp) => app.status?.canary !== undefined || (app.status as Record<string, unknown> | undefined)?.blueGreen !== undefined;

/**
 * Deletes the App's copies that neither `templates` nor any Deployment the App controls
 * references; none while one of those Deployments is still rolling.
 */
async function pruneUnused(app: DefaultedApp, templates: (V1PodTemplateSpec | undefined)[], deps: CopyDeps): Promise<CopiesOutcome> {
  const config = deps.config;
  if (!config || !config.sources.copiesSynced) return { errors: [], conflicts: [] };
  const namespace = app.metadata.namespace!;
  const uid = app.metadata.uid!;
  const owned = (Object.keys({ configMap: 1, secret: 1 }) as SourceKind[]).map((kind) => [kind, config.sources.ownedCopies(kind, namespace, uid)] as const);
  if (owned.every(([, copies]) => copies.length === 0)) return { errors: [], conflicts: [] };
  const controlled = config.deploymentsOf(namespace).filter((d) => isControlledBy(d, uid)) as V1Deployment[];
  // A Deployment still rolling has older ReplicaSets whose pods may use any earlier copy (a source
  // edited twice while stable rolled): nothing goes until every one has rolled out, that is until
  // all its pods are of its current template. Whether they are ready does not matter: a pod that
  // crash-loops or waits for a node uses the current copy, and waiting for it to be ready would
  // keep every older copy for as long as one pod is unwell.
  if (controlled.some((d) => !rolloutState(d).updated)) return { errors: [], conflicts: [] };
  const used = [...templates, ...controlled.map((d) => d.spec?.template)];
  const unused = owned.flatMap(([kind, copies]) => unusedCopies(kind, copies, used));
  return deleteCopies(deps, app, unused);
}

function previousTemplate(stable: V1Deployment | undefined): V1PodTemplateSpec | undefined {
  const raw = stable?.metadata?.annotations?.[ANNOTATION_PREVIOUS_POD_TEMPLATE];
  try {
    return raw ? (JSON.parse(raw) as V1PodTemplateSpec) : undefined;
  } catch {
    return undefined;
  }
}
