// Observe: everything a reconcile decides on, read from the informer caches and the router.
// No API calls: the caches are the controller's view of the cluster.
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import type { DefaultedApp } from '../shared/defaults.js';
import { ownedName } from '../shared/labels.js';
import type { CanaryObserved } from './canary/plan.js';
import { deploymentSummary, rolloutState, settledRevision, type SeenRevision, type SeenTemplate } from './state/deployment-state.js';
import { ownedFromCache } from './state/ownership.js';
import { deploymentRevision } from './render/pod-template-record.js';
import type { OwnedCaches } from './state/owned-caches.js';
import type { TrafficRouter } from './routers/router.js';
import { historyOf, type RevisionEntry } from './state/revision-history.js';
import { observeBlueGreen, type PreviewCached } from './bluegreen/observe.js';
import type { BlueGreenObserved } from './bluegreen/types.js';
import type { FreshnessCaches } from './guards/freshness.js';

export interface Observed {
  /**
   * The cached objects under each owned name, whoever owns them: applying compares with these
   * and reports a name taken by someone else's object as a conflict.
   */
  cached: {
    deployment?: KubernetesObject;
    service?: KubernetesObject;
    ingress?: KubernetesObject;
    canaryDeployment?: KubernetesObject;
    canaryService?: KubernetesObject;
    podDisruptionBudget?: KubernetesObject;
    horizontalPodAutoscaler?: KubernetesObject;
  };
  /** The stable Deployment, when this App controls it. */
  stable?: V1Deployment;
  /** What the canary step engine looks at: the App's own objects and the router's split. */
  canary: CanaryObserved;
  /** The App's revision history, oldest first; absent when the controller keeps none. */
  history?: RevisionEntry[];
  /** What the blue-green engine looks at, and the cached objects under the preview's names. */
  blueGreen?: BlueGreenObserved;
  preview?: PreviewCached;
  /**
   * The Deployment `<app>-preview`, when this App controls it. Its record of the template it runs
   * is what a scale-down gives the Deployment `<app>` when that one's own record lacks it.
   */
  previewDeployment?: V1Deployment;
}

/** The highest weight any of `routers` sends to the canary; undefined when none splits. */
export function highestWeight(app: DefaultedApp, routers: readonly TrafficRouter[]): number | undefined {
  const weights = routers.map((r) => r.currentWeight(app)).filter((w): w is number => w !== undefined);
  return weights.length ? Math.max(...weights) : undefined;
}

/**
 * `others`: the routers besides the App's, which still carry its traffic while it switches from
 * them. `stableRevisions`: per App key, the stable Deployment's revision and whether it was seen
 * rolled out, read and kept up to date here (see settledRevision). `canaryTemplates`: per App key,
 * its canary Deployment as last seen rolled out alone (kept up to date by act), which tells when
 * its pods of two templates are all of its revision (samePodsRevision).
 */
export function observe(app: DefaultedApp, caches: OwnedCaches & Pick<FreshnessCaches, 'httpRoutes'>, router: TrafficRouter, others: readonly TrafficRouter[] = [], stableRevisions?: Map<string, SeenRevision>, canaryTemplates?: ReadonlyMap<string, SeenTemplate>): Observed {
  const namespace = app.metadata.namespace!;
  const stableName = ownedName(app.metadata.name!, 'stable');
  const canaryName = ownedName(app.metadata.name!, 'canary');
  const stable = ownedFromCache(caches.deployments, app, stableName) as V1Deployment | undefined;
  const stableState = stable && rolloutState(stable);
  // A revision the Deployment was seen running alone is no rollout any more while it keeps it:
  // through a scale its controller has not seen yet, a restart, a hand edit (settledRevision).
  const key = `${namespace}/${app.metadata.name}`;
  const revision = stable && stableState && settledRevision(stable.metadata?.uid ?? '', deploymentRevision(stable), stableState.oneTemplate, stableRevisions?.get(key));
  if (revision) stableRevisions?.set(key, revision);
  const canary = ownedFromCache(caches.deployments, app, canaryName) as V1Deployment | undefined;
  const blueGreen = observeBlueGreen(app, caches);
  return {
    blueGreen: blueGreen.observed,
    preview: blueGreen.cached,
    previewDeployment: blueGreen.deployment,
    cached: {
      deployment: caches.deployments.get(stableName, namespace),
      service: caches.services.get(stableName, namespace),
      ingress: caches.ingresses.get(stableName, namespace),
      canaryDeployment: caches.deployments.get(canaryName, namespace),
      canaryService: caches.services.get(canaryName, namespace),
      podDisruptionBudget: caches.podDisruptionBudgets?.get(stableName, namespace),
      horizontalPodAutoscaler: caches.horizontalPodAutoscalers?.get(stableName, namespace),
    },
    stable,
    history: caches.controllerRevisions && historyOf(caches.controllerRevisions, app),
    canary: {
      canaryDeployment: canary && deploymentSummary(canary, deploymentRevision(canary), canaryTemplates?.get(key)),
      // oneTemplate is for the history only: a revision rolled out once is not rolling out again
      // while its Deployment keeps it (a scale its controller has not seen, a restart: settledRevision).
      stableDeployment: stable && stableState && { revision: deploymentRevision(stable), available: stableState.available, oneTemplate: revision?.settled === true || stableState.servingBefore },
      routerWeight: router.currentWeight(app),
      previousRouterWeight: highestWeight(app, others),
      previousRouterSplit: others.some((r) => r.exists(app) || !r.readiness(app).ready),
      routerReadiness: router.readiness(app),
      canaryObjectsExist: canary !== undefined || ownedFromCache(caches.services, app, canaryName) !== undefined || router.exists(app),
    },
  };
}
