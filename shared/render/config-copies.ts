// spec.rollout.trackConfig (docs/api.md, "Config changes"): the ConfigMaps (and, with
// --track-secrets, the Secrets) a pod template references are replaced by immutable owned copies
// named `<name>-<hash of the data>`. The copy names are part of the template, so a change of a
// source's data makes a new pod-template revision, rolled out like any other; stable keeps
// referencing its own copies until it takes the new template. Pure, but for the memo of copy
// names (see copyName).
import type { KubernetesObject, V1Container, V1PodTemplateSpec, V1Volume } from '@kubernetes/client-node';
import type { DefaultedApp } from '../defaults.js';
import { contentHash } from '../hash.js';
import { ANNOTATION_CONFIG_COPIES, LABEL_TRACK, objectLabels } from '../labels.js';
import { cloneJson } from '../objects.js';
import { ownerReference } from '../owner-reference.js';
import type { PodTemplate } from './pod-template.js';

export type SourceKind = 'configMap' | 'secret';

/** A ConfigMap or Secret a pod template references. Optional only when every reference to it is. */
export interface SourceRef {
  kind: SourceKind;
  name: string;
  optional: boolean;
}

/**
 * What is copied of a source: ConfigMap data/binaryData, or Secret data and type. Never changed
 * once made (copyName's memo relies on it): other content is another object.
 */
export interface SourceContent {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  type?: string;
  /** A Secret's uid: it salts the copy's name (see copyName). */
  uid?: string;
  /**
   * A source the controller holds no data of (it keeps none in memory: a tenant's ConfigMaps are
   * theirs to make as large as the API server allows), for one App whose copy of it exists: the
   * names worked out when the source was last read. No copy is made of it (see isHollowCopy).
   */
  known?: KnownNames;
}

/** The copy names of a source's data for one App and source name (copyName, olderCopyNames). */
export interface KnownNames {
  app: string;
  name: string;
  copy: string;
  older: string[];
}

/** The names of `content` for that App and source, when it carries them instead of its data. */
function knownFor(content: SourceContent, app: string, name: string): KnownNames | undefined {
  const known = content.known;
  if (known === undefined) return undefined;
  // Hashing a content without its data would give a name of nothing: never.
  if (known.app !== app || known.name !== name) throw new Error(`the names of configuration ${name} are known for App ${known.app}'s ${known.name}, not App ${app}'s`);
  return known;
}

/** Copies made of a content without its data: never to be created (ensureCopies refuses them). */
const hollowCopies = new WeakSet<object>();
export const isHollowCopy = (copy: object): boolean => hollowCopies.has(copy);

/** Each referenced source's content by sourceKey, null when it does not exist. */
export type ResolvedSources = ReadonlyMap<string, SourceContent | null>;

export { ANNOTATION_CONFIG_COPIES };

export const sourceKey = (kind: SourceKind, name: string) => `${kind}/${name}`;

/**
 * Names already computed, by SourceContent object and then by App and source name. Hashing a
 * source's whole data (up to 1 MiB a source, a template may reference dozens) on every pass cost
 * one App's reconcile hundreds of milliseconds of the controller's single thread, at the expense
 * of every other App's. ConfigSources hands out the same SourceContent object for as long as the
 * cached source is the same object (the caches replace an object on a change, never edit it), so
 * a pass over unchanged sources hashes nothing; a changed source is a new object, hashed once.
 * Weak: an entry goes with its content. It changes no name: it holds what the hash gave.
 * An unchanged source shared by short-lived Apps (a preview per pull request, each with its own
 * name) would keep an entry per App that ever used it: each content keeps the names of the
 * MEMO_PER_SOURCE Apps that used it last (one entry per App and source, both its names; a use
 * moves it to the back), the least recently used dropped first and hashed again if asked.
 */
const memo = new WeakMap<SourceContent, Map<string, Remembered>>();
export const MEMO_PER_SOURCE = 8192;
type Remembered = { copy?: string; older?: string[] };

function remembered<K extends keyof Remembered>(content: SourceContent, app: string, name: string, which: K, compute: () => NonNullable<Remembered[K]>): NonNullable<Remembered[K]> {
  let names = memo.get(content);
  if (!names) memo.set(content, (names = new Map()));
  const key = JSON.stringify([app, name]);
  const entry = names.get(key) ?? {};
  names.delete(key);
  if (names.size >= MEMO_PER_SOURCE) names.delete(names.keys().next().value!);
  names.set(key, entry);
  return (entry[which] ??= compute()) as NonNullable<Remembered[K]>;
}

/** How many Apps' names are remembered for a content (for tests of the bound). */
export const rememberedNames = (content: SourceContent): number => memo.get(content)?.size ?? 0;

/**
 * The copy of a source's content for one App. The App's name is in the hash: Apps of a namespace
 * that share a source each own a copy, and one App's pruning or deletion never takes away
 * another's. The name keeps within the 253 characters of an object name, and a cut never leaves
 * a dot before the hash (a DNS subdomain's labels start with a letter or digit).
 */
export function copyName(app: string, name: string, content: SourceContent): string {
  const known = knownFor(content, app, name);
  if (known) return known.copy;
  return remembered(content, app, name, 'copy', () => hashedCopyName(app, name, content));
}

function hashedCopyName(app: string, name: string, content: SourceContent): string {
  // A Secret's copy is named in pod specs, which far more people may read than the Secret (the
  // built-in view role): a hash of its data alone would let them test guesses of a short
  // password against the name. The source's uid, which they cannot read, salts it.
  const salt = content.uid !== undefined ? { salt: content.uid } : {};
  return `${namePart(name)}-${contentHash({ app, ...hashedContent(content), ...salt }, 10)}`;
}

/**
 * The names copies had before: before they named their App, and (Secrets) before their name was
 * salted. An App that already owns such a copy keeps it, so that upgrading the controller starts
 * no rollout; every new copy is named by copyName. Remembered as copyName's are.
 */
export function olderCopyNames(app: string, name: string, content: SourceContent): string[] {
  const known = knownFor(content, app, name);
  if (known) return [...known.older];
  // A fresh array each call: the caller's to change, not the memo's.
  return [...remembered(content, app, name, 'older', () => {
    const unsalted = { ...content, uid: undefined };
    return [`${namePart(name)}-${contentHash(hashedContent(content), 10)}`, ...(content.uid !== undefined ? [hashedCopyName(app, name, unsalted)] : [])];
  })];
}

const namePart = (name: string) => name.slice(0, 253 - 11).replace(/\.+$/, '');
const hashedContent = (content: SourceContent) => ({ data: content.data ?? {}, binaryData: content.binaryData ?? {}, type: content.type });

/** Whether the App owns a copy of that name (of that kind). */
export type OwnsCopy = (kind: SourceKind, name: string) => boolean;

/** A visitor over every ConfigMap and Secret reference of a template: `rename` returns the new name, or null to drop the reference. */
type Visit = (kind: SourceKind, name: string, optional: boolean) => string | null;

function visitContainer(c: V1Container, visit: Visit): void {
  if (c.env) {
    c.env = c.env.filter((e) => {
      const cm = e.valueFrom?.configMapKeyRef;
      const secret = e.valueFrom?.secretKeyRef;
      const ref = cm ?? secret;
      if (!ref) return true;
      const name = visit(cm ? 'configMap' : 'secret', ref.name!, ref.optional === true);
      if (name !== null) ref.name = name;
      return name !== null;
    });
  }
  if (c.envFrom) {
    c.envFrom = c.envFrom.filter((e) => {
      const ref = e.configMapRef ?? e.secretRef;
      if (!ref) return true;
      const name = visit(e.configMapRef ? 'configMap' : 'secret', ref.name!, ref.optional === true);
      if (name !== null) ref.name = name;
      return name !== null;
    });
  }
  // A list left empty is left out, as the API server stores it.
  if (c.env?.length === 0) delete c.env;
  if (c.envFrom?.length === 0) delete c.envFrom;
}

function visitVolume(v: V1Volume, visit: Visit): V1Volume {
  if (v.configMap) {
    const name = visit('configMap', v.configMap.name!, v.configMap.optional === true);
    if (name === null) return { name: v.name, emptyDir: {} };
    v.configMap.name = name;
  }
  if (v.secret) {
    const name = visit('secret', v.secret.secretName!, v.secret.optional === true);
    if (name === null) return { name: v.name, emptyDir: {} };
    v.secret.secretName = name;
  }
  return v;
}

/** Calls `visit` on every reference of a copy of the template, and returns the copy as the visitor left it. */
function visitTemplate(template: V1PodTemplateSpec, visit: Visit): V1PodTemplateSpec {
  const out = cloneJson(template);
  const spec = out.spec;
  if (!spec) return out;
  for (const c of [...(spec.initContainers ?? []), ...spec.containers]) visitContainer(c, visit);
  if (spec.volumes) spec.volumes = spec.volumes.map((v) => visitVolume(v, visit));
  return out;
}

/** The ConfigMaps and Secrets a pod template references, each once. */
export function configReferences(template: V1PodTemplateSpec): SourceRef[] {
  const refs = new Map<string, SourceRef>();
  visitTemplate(template, (kind, name, optional) => {
    const known = refs.get(sourceKey(kind, name));
    refs.set(sourceKey(kind, name), { kind, name, optional: optional && (known?.optional ?? true) });
    return name;
  });
  return [...refs.values()];
}

/** The references this controller copies: ConfigMaps, and Secrets only with --track-secrets. */
export const trackedReferences = (refs: readonly SourceRef[], trackSecrets: boolean) => refs.filter((r) => r.kind === 'configMap' || trackSecrets);

export interface TrackedTemplate {
  /** spec's pod template referencing the copies, with its own revision. */
  pod: PodTemplate;
  /** The copies it references, as they are created. */
  copies: KubernetesObject[];
  /** Non-optional sources that do not exist: nothing may be rendered (ConfigNotFound). */
  missing: SourceRef[];
  /** Optional sources that do not exist (and no kept copy stands for): rendered without them. */
  absentOptional: SourceRef[];
  /** Secrets referenced but not copied (no --track-secrets): their changes reach pods without a rollout. */
  untrackedSecrets: string[];
  /**
   * Non-optional sources of spec's template that do not exist, while the rollout under way (this
   * template) runs on copies of them: it goes on, and nothing is rendered once it has ended.
   */
  goneUnderWay?: SourceRef[];
}

/**
 * The Secret type of a copy. A service account token's type needs the annotation naming its
 * account, which a copy must not carry (the token controller would manage it): its copy is Opaque.
 */
const copyType = (type: string | undefined) => (type === 'kubernetes.io/service-account-token' ? 'Opaque' : type);

/** An immutable copy of a source, owned by the App, under `name` (copyName's, or an older copy's it owns). */
export function desiredCopy(app: DefaultedApp, ref: SourceRef, content: SourceContent, name = copyName(app.metadata.name!, ref.name, content)): KubernetesObject {
  const { [LABEL_TRACK]: _track, ...labels } = objectLabels(app, 'stable');
  const metadata = { name, namespace: app.metadata.namespace, labels, ownerReferences: [ownerReference(app)] };
  const type = copyType(content.type);
  const copy = ref.kind === 'configMap'
    ? ({ apiVersion: 'v1', kind: 'ConfigMap', metadata, immutable: true, ...(content.data ? { data: content.data } : {}), ...(content.binaryData ? { binaryData: content.binaryData } : {}) } as KubernetesObject)
    : ({ apiVersion: 'v1', kind: 'Secret', metadata, immutable: true, ...(type ? { type } : {}), ...(content.data ? { data: content.data } : {}) } as KubernetesObject);
  if (content.known) hollowCopies.add(copy);
  return copy;
}

/**
 * spec's pod template with every tracked reference on its copy (`kept`: for sources that no
 * longer exist, the copy a rollout under way uses, by sourceKey). A missing optional source gets
 * no copy and its reference is left out, which is what Kubernetes does for a missing optional
 * source: the variable is not set, envFrom imports nothing, and the volume is an empty
 * directory (read-only like every config mount).
 */
export function trackedPodTemplate(app: DefaultedApp, spec: PodTemplate, sources: ResolvedSources, trackSecrets: boolean, owns: OwnsCopy = () => false, kept: ReadonlyMap<string, string> = new Map()): TrackedTemplate {
  const copies = new Map<string, KubernetesObject>();
  const missing = new Map<string, SourceRef>();
  const absentOptional = new Map<string, SourceRef>();
  const untracked = new Set<string>();
  const names: string[] = [];
  const template = visitTemplate(spec.template, (kind, name, optional) => {
    if (kind === 'secret' && !trackSecrets) {
      untracked.add(name);
      return name;
    }
    const key = sourceKey(kind, name);
    const content = sources.get(key);
    // A source gone while a rollout runs: the copy that rollout's pods use stands for it (`kept`).
    const pinned = content ? undefined : kept.get(key);
    if (pinned !== undefined) {
      names.push(`${key}=${pinned}`);
      return pinned;
    }
    if (!content) {
      (optional ? absentOptional : missing).set(key, { kind, name, optional });
      return optional ? null : name;
    }
    const older = olderCopyNames(app.metadata.name!, name, content).find((n) => owns(kind, n));
    const copy = copies.get(key) ?? desiredCopy(app, { kind, name, optional }, content, older);
    copies.set(key, copy);
    names.push(`${key}=${copy.metadata!.name}`);
    return copy.metadata!.name!;
  });
  if (names.length > 0) {
    const annotations = { ...template.metadata?.annotations, [ANNOTATION_CONFIG_COPIES]: [...new Set(names)].sort().join(',') };
    template.metadata = { ...template.metadata, annotations };
  }
  // The hash of the template as it is rendered: without tracked references, spec's revision.
  const revision = contentHash(template, 10);
  return { pod: { revision, template }, copies: [...copies.values()], missing: [...missing.values()], absentOptional: [...absentOptional.values()], untrackedSecrets: [...untracked].sort() };
}

/** The copy of each source a template records (sourceKey -> copy name). */
export function recordedCopies(template: V1PodTemplateSpec | undefined): Map<string, string> {
  const raw = template?.metadata?.annotations?.[ANNOTATION_CONFIG_COPIES] ?? '';
  return new Map(raw.split(',').filter((e) => e.includes('=')).map((e) => e.split('=', 2) as [string, string]));
}

/**
 * For a diff of two templates: the template with each copy named after its source again and
 * without the record of copies, and the sources whose copy it runs.
 */
export function withSourceNames(template: V1PodTemplateSpec): { template: V1PodTemplateSpec; copies: Map<string, string> } {
  const copies = recordedCopies(template);
  if (copies.size === 0) return { template, copies };
  const sources = new Map([...copies].map(([key, copy]) => [`${key.split('/')[0]}/${copy}`, key.slice(key.indexOf('/') + 1)]));
  const out = visitTemplate(template, (kind, name) => sources.get(sourceKey(kind, name)) ?? name);
  const { [ANNOTATION_CONFIG_COPIES]: _record, ...annotations } = out.metadata?.annotations ?? {};
  out.metadata = { ...out.metadata, annotations: Object.keys(annotations).length ? annotations : undefined };
  if (!out.metadata.annotations) delete out.metadata.annotations;
  return { template: out, copies };
}

/**
 * The sources whose copy differs between two templates, in words ("configMap web-cfg"). A source
 * both templates reference (`referenced`, by sourceKey) and only one runs from a copy of: tracking
 * was turned on or off, and its data did not change ("configMap web-cfg copied", "... not copied").
 */
export function configChanges(from: Map<string, string>, to: Map<string, string>, referenced: readonly [Set<string>, Set<string>] = [new Set(), new Set()]): string[] {
  const keys = [...new Set([...from.keys(), ...to.keys()])].sort();
  return keys.filter((k) => from.get(k) !== to.get(k)).map((k) => {
    const words = k.replace('/', ' ');
    const flipped = referenced[0].has(k) && referenced[1].has(k) && from.has(k) !== to.has(k);
    return flipped ? `${words} ${to.has(k) ? 'copied' : 'not copied'}` : words;
  });
}

/** The names of the ConfigMaps and Secrets (as sourceKeys) the templates reference: copies in use are among them. */
export function referencedNames(templates: readonly (V1PodTemplateSpec | undefined)[]): Set<string> {
  const names = new Set<string>();
  for (const t of templates) if (t) for (const r of configReferences(t)) names.add(sourceKey(r.kind, r.name));
  return names;
}

/** The owned copies (of one kind) no template references any more: to be deleted. */
export function unusedCopies<T extends KubernetesObject>(kind: SourceKind, owned: readonly T[], templates: readonly (V1PodTemplateSpec | undefined)[]): T[] {
  const used = referencedNames(templates);
  return owned.filter((c) => !used.has(sourceKey(kind, c.metadata!.name!)));
}
