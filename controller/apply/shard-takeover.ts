// An App relabelled from another shard (skiff.dev/shard): the objects it controls still carry the
// other shard's label, so this controller's caches, which watch only its own shard's objects,
// hold none of them. A pass deciding from those caches would find no stable Deployment, render
// it from spec and apply that over the running one: a canary under way would reach stable with
// nobody promoting it. So before anything is decided, every object the App controls is found by
// its App label, whatever its shard, and relabelled for this shard (the stable Deployment last:
// should a relabel fail, the next pass takes over again); the pass waits for the watches to
// bring them, and the next one goes on from the App's status as the other shard would have.
import type { KubernetesObject } from '@kubernetes/client-node';
import { LABEL_APP, LABEL_MANAGED_BY, LABEL_SHARD, MANAGED_BY } from '../../shared/labels.js';
import type { ServedVersions } from '../render/served-versions.js';
import { objectRef } from '../runtime/expectations.js';
import { namespacedCollectionPath } from '../runtime/http-api-client.js';
import { isControlledBy } from '../state/ownership.js';
import type { ApplyClients } from './apply.js';
import { RESOURCES } from './resources.js';

export interface TakeoverDeps {
  clients: ApplyClients;
  /** Every object of a collection path with this label selector. */
  list(path: string, labelSelector: string): Promise<KubernetesObject[]>;
  versions: ServedVersions;
  /** Whether Secrets are copied (--track-secrets): without it no Secret is read. */
  trackSecrets: boolean;
  /** Whether the App is still this controller's, as its watch says; checked before each relabel. */
  stillOurs?: () => boolean;
}

/** The kinds an App's objects are of, the stable Deployment's last. */
type OwnedType = { apiVersion: string; kind: string };

function ownedTypes(versions: ServedVersions, trackSecrets: boolean): OwnedType[] {
  const versioned: OwnedType[] = [];
  if (versions.podDisruptionBudget) versioned.push({ apiVersion: versions.podDisruptionBudget, kind: 'PodDisruptionBudget' });
  if (versions.horizontalPodAutoscaler) versioned.push({ apiVersion: versions.horizontalPodAutoscaler, kind: 'HorizontalPodAutoscaler' });
  if (versions.httpRoute) versioned.push({ apiVersion: versions.httpRoute, kind: 'HTTPRoute' });
  return [
    { apiVersion: 'v1', kind: 'ConfigMap' },
    ...(trackSecrets ? [{ apiVersion: 'v1', kind: 'Secret' }] : []),
    { apiVersion: 'apps/v1', kind: 'ControllerRevision' },
    { apiVersion: 'v1', kind: 'Service' },
    { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' },
    ...versioned,
    { apiVersion: 'apps/v1', kind: 'Deployment' },
  ];
}

/**
 * Relabels for the App's shard (`skiff.dev/shard`, or none) every object it controls that carries
 * another's; resolves with those objects, as "Kind/name" (none: nothing was another shard's).
 * Stops before the next relabel once `stillOurs` says the App has left this shard (relabelled back
 * at once): going on would take objects from the shard the App is on now, which decides from them.
 */
export async function takeOverObjects(app: KubernetesObject, deps: TakeoverDeps): Promise<string[]> {
  const namespace = app.metadata!.namespace!;
  const uid = app.metadata!.uid!;
  const shard = app.metadata!.labels?.[LABEL_SHARD] ?? null;
  const selector = `${LABEL_MANAGED_BY}=${MANAGED_BY},${LABEL_APP}=${app.metadata!.name}`;
  const moved: string[] = [];
  for (const type of ownedTypes(deps.versions, deps.trackSecrets)) {
    const found = await deps.list(namespacedCollectionPath(type.apiVersion, namespace, RESOURCES[type.kind]!), selector);
    for (const obj of stableLast(found, app.metadata!.name!)) {
      if (!isControlledBy(obj, uid) || (obj.metadata?.labels?.[LABEL_SHARD] ?? null) === shard) continue;
      if (deps.stillOurs && !deps.stillOurs()) return moved;
      const name = obj.metadata!.name!;
      const stored = await deps.clients.api.patch({ ...type, namespace, name }, { metadata: { labels: { [LABEL_SHARD]: shard } } }, { type: 'merge' });
      // Until the cache has it, a pass would decide from what it still lacks (read your own writes
      // covers the kinds passes decide from; copies are only ever created or pruned).
      if (type.kind !== 'ConfigMap' && type.kind !== 'Secret') deps.clients.expectations?.written(objectRef(type.kind, namespace, name), stored);
      moved.push(`${type.kind}/${name}`);
    }
  }
  return moved;
}

/** The objects in list order (by name: `web` before `web-canary`), the one of the App's own name last. */
function stableLast(objects: KubernetesObject[], name: string): KubernetesObject[] {
  return [...objects.filter((o) => o.metadata?.name !== name), ...objects.filter((o) => o.metadata?.name === name)];
}
