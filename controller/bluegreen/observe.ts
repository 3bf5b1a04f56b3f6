// What the blue-green engine looks at, read from the informer caches: the preview objects, the
// stable Deployment's revision and labels, and the revision the Service `<app>` selects. No API calls.
import type { KubernetesObject, V1Deployment, V1Service } from '@kubernetes/client-node';
import type { App } from '../../shared/app-types.js';
import { ANNOTATION_SELECTED_REVISION, ANNOTATION_SWITCHED_BACK_FROM, LABEL_REVISION, ownedName } from '../../shared/labels.js';
import { deploymentRevision } from '../render/pod-template-record.js';
import { labelledRevision } from '../render/revision-label.js';
import type { ObjectCache } from '../runtime/cache.js';
import { deploymentSummary, rolloutState } from '../state/deployment-state.js';
import type { OwnedCaches } from '../state/owned-caches.js';
import { ownedFromCache } from '../state/ownership.js';
import type { BlueGreenObserved } from './types.js';

/** The cached objects under the preview's names, whoever owns them (applying reports a conflict). */
export interface PreviewCached {
  deployment?: KubernetesObject;
  service?: KubernetesObject;
  ingress?: KubernetesObject;
  httpRoute?: KubernetesObject;
}

export function observeBlueGreen(app: App, caches: OwnedCaches & { httpRoutes?: ObjectCache }): { observed: BlueGreenObserved; cached: PreviewCached; deployment?: V1Deployment } {
  const namespace = app.metadata.namespace!;
  const name = ownedName(app.metadata.name!, 'preview');
  const cached: PreviewCached = {
    deployment: caches.deployments.get(name, namespace),
    service: caches.services.get(name, namespace),
    ingress: caches.ingresses.get(name, namespace),
    httpRoute: caches.httpRoutes?.get(name, namespace),
  };
  const preview = ownedFromCache(caches.deployments, app, name) as V1Deployment | undefined;
  const stable = ownedFromCache(caches.deployments, app, app.metadata.name!) as V1Deployment | undefined;
  const service = ownedFromCache(caches.services, app, app.metadata.name!) as V1Service | undefined;
  const owned = (o: KubernetesObject | undefined, cache: ObjectCache | undefined) => o !== undefined && cache !== undefined && ownedFromCache(cache, app, name) !== undefined;
  const stableRevision = stable && deploymentRevision(stable);
  // What previewHost is reached through, and what the preview's checks read the metrics of: an
  // object of those names that is someone else's would answer for the preview.
  const previewHost = app.spec.rollout?.blueGreen?.previewHost !== undefined;
  // A cluster that serves no HTTPRoutes has no route to look at: the App says RouteAPIUnavailable,
  // and its preview's route waits with its own (as act-preview makes it).
  const routing = new Map<string, ObjectCache>([['Service', caches.services]]);
  if (previewHost && app.spec.ingress) routing.set('Ingress', caches.ingresses);
  if (previewHost && app.spec.route && caches.httpRoutes) routing.set('HTTPRoute', caches.httpRoutes);
  // Which of them is not the App's: someone else's, or not made (its creation refused, by a quota
  // on Services say). The caches hold Skiff's objects only, so which of the two is the Degraded
  // condition's to say (the pass that applies it finds out).
  const notTheApps = [...routing].filter(([, cache]) => ownedFromCache(cache, app, name) === undefined).map(([kind]) => `${kind} ${namespace}/${name}`);
  return {
    cached,
    deployment: preview,
    observed: {
      stableDeployment: stable && {
        revision: stableRevision,
        available: rolloutState(stable).available,
        labelled: stableRevision !== undefined && labelledRevision(stable.spec?.template) === stableRevision,
        replicas: stable.spec?.replicas ?? 1,
      },
      preview: preview && deploymentSummary(preview, deploymentRevision(preview)),
      serviceRevision: service?.spec?.selector?.[LABEL_REVISION],
      serviceRevisionWritten: service?.metadata?.annotations?.[ANNOTATION_SELECTED_REVISION],
      serviceSwitchedBackFrom: service?.metadata?.annotations?.[ANNOTATION_SWITCHED_BACK_FROM],
      previewObjectsExist: preview !== undefined || owned(cached.service, caches.services) || owned(cached.ingress, caches.ingresses) || owned(cached.httpRoute, caches.httpRoutes),
      previewNotTheApps: notTheApps,
    },
  };
}
