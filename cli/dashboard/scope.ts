// The collections the dashboard watches, one watch per kind for the whole dashboard: every App in
// its scope (a namespace, or all with -A), and of the other kinds only the objects an App owns
// (labelled skiff.dev/app) and the Events about Apps, so that the caches hold nothing else.
// Secrets (copies made with --track-secrets) are never watched: the page shows no credentials.
// The ConfigMap copies are listed and watched as metadata only: the page shows their names.
import { LABEL_APP } from '../../shared/labels.js';
import type { Api } from '../api.js';
import { ApiError } from '../errors.js';
import { ROUTE_VERSIONS } from '../paths.js';

export const OWNED_KINDS = ['deployments', 'services', 'ingresses', 'routes', 'revisions', 'disruptionBudgets', 'autoscalers', 'configMaps'] as const;
export type OwnedKind = (typeof OWNED_KINDS)[number];
export type Kind = 'apps' | 'events' | OwnedKind;

/**
 * The kinds a cluster serves in one of several versions or not at all, each with its versions
 * newest first, as the controller picks them (served-versions.ts): HTTPRoute v1 came with Gateway
 * API 1.0, PodDisruptionBudget policy/v1 with Kubernetes 1.21, HorizontalPodAutoscaler
 * autoscaling/v2 with 1.23, and the older versions are gone from newer clusters.
 */
export const VERSIONED = {
  routes: { versions: ROUTE_VERSIONS.map((v) => `gateway.networking.k8s.io/${v}`), plural: 'httproutes' },
  disruptionBudgets: { versions: ['policy/v1', 'policy/v1beta1'], plural: 'poddisruptionbudgets' },
  autoscalers: { versions: ['autoscaling/v2', 'autoscaling/v2beta2'], plural: 'horizontalpodautoscalers' },
} as const;
export type VersionedKind = keyof typeof VERSIONED;
/** The group/version the cluster serves of each versioned kind; a kind it serves in none is absent. */
export type ServedVersions = Partial<Record<VersionedKind, string>>;

/**
 * The Accept headers that ask for objects without their content (PartialObjectMetadataList for a
 * list, PartialObjectMetadata for each watch event; served since Kubernetes 1.15), as client-go's
 * metadata client sends them: a ConfigMap copy may hold 1 MiB of data, which the page does not
 * show. `application/json` after it: a server or proxy that does not know it answers the full
 * objects, which slim.ts then trims. Items so listed say `kind: PartialObjectMetadata`: nothing
 * downstream reads an item's kind.
 */
export const METADATA_ONLY = {
  list: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
  watch: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json',
} as const;

/** The kinds whose metadata is all the page shows. */
export const METADATA_ONLY_KINDS: ReadonlySet<Kind> = new Set<Kind>(['configMaps']);

const enc = encodeURIComponent;
const OWNED = `?labelSelector=${enc(LABEL_APP)}`;
const APP_EVENTS = `?fieldSelector=${enc('involvedObject.kind=App')}`;

/** `/apis/GROUP/VERSION[/namespaces/NS]/PLURAL`: the collection in a namespace, or in all of them. */
function collection(groupVersion: string, plural: string, ns: string | undefined): string {
  const base = groupVersion === 'v1' ? '/api/v1' : `/apis/${groupVersion}`;
  return `${base}${ns ? `/namespaces/${enc(ns)}` : ''}/${plural}`;
}

/** The path (with its query) each kind is watched at; a versioned kind only in the version `served` names. */
export function watchPaths(ns: string | undefined, served: ServedVersions): Partial<Record<Kind, string>> {
  const versioned = Object.entries(served).filter(([, v]) => v !== undefined)
    .map(([kind, version]) => [kind, `${collection(version, VERSIONED[kind as VersionedKind].plural, ns)}${OWNED}`]);
  return {
    apps: collection('skiff.dev/v1alpha1', 'apps', ns),
    deployments: `${collection('apps/v1', 'deployments', ns)}${OWNED}`,
    services: `${collection('v1', 'services', ns)}${OWNED}`,
    ingresses: `${collection('networking.k8s.io/v1', 'ingresses', ns)}${OWNED}`,
    revisions: `${collection('apps/v1', 'controllerrevisions', ns)}${OWNED}`,
    // The copies trackConfig makes: labelled as the App's other objects; listed and watched as
    // metadata only (METADATA_ONLY), and their data, should a server send it, is not kept (slim.ts).
    configMaps: `${collection('v1', 'configmaps', ns)}${OWNED}`,
    events: `${collection('v1', 'events', ns)}${APP_EVENTS}`,
    ...Object.fromEntries(versioned),
  };
}

/** The first of `versions` (group/version, newest first) whose discovery lists `plural`, or undefined when none does. */
export async function servedVersion(api: Api, versions: readonly string[], plural: string): Promise<string | undefined> {
  for (const version of versions) {
    try {
      const list = await api.get<{ resources?: { name: string }[] }>(`/apis/${version}`);
      if (list.resources?.some((r) => r.name === plural)) return version;
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }
  return undefined;
}

/** The version the cluster serves of each versioned kind (discovery, which every authenticated user may read). */
export async function servedVersions(api: Api): Promise<ServedVersions> {
  const kinds = Object.keys(VERSIONED) as VersionedKind[];
  const found = await Promise.all(kinds.map((k) => servedVersion(api, VERSIONED[k].versions, VERSIONED[k].plural)));
  return Object.fromEntries(kinds.map((k, i) => [k, found[i]]).filter(([, v]) => v !== undefined));
}
