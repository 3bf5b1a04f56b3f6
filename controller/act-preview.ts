// The blue-green preview objects, made to match a plan: created or corrected while the plan has
// them, deleted once it says so (only ever when the Service no longer sends to them). The writes go
// through act's own steps (compare with the cache, write only what differs, Events), handed in.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReconcilePlan } from './decide.js';
import type { Observed } from './observe.js';
import { HTTP_ROUTE_TYPE } from './render/preview.js';
import { routeReadiness, type RouteWithStatus } from '../shared/route-readiness.js';
import type { ServedVersions } from './render/served-versions.js';

export interface PreviewStep {
  object?: KubernetesObject;
  conflict?: string;
  error?: string;
  requeueAfterMs?: number;
  degraded?: { reason: string; message: string };
}

export interface PreviewSteps {
  apply(want: KubernetesObject, cached: KubernetesObject | undefined): Promise<PreviewStep>;
  remove(type: { apiVersion: string; kind: string }, cached: KubernetesObject | undefined, why?: string): Promise<PreviewStep>;
}

const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;
const SERVICE = { apiVersion: 'v1', kind: 'Service' } as const;
const INGRESS = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' } as const;

/**
 * `service`: what this pass's write of the Service `<app>` did. The plan removes the preview only
 * once that Service selects other pods; a write of it that failed leaves it as it was, perhaps on
 * the preview's pods, so they stay until a pass whose write succeeds.
 */
export async function actPreview(plan: ReconcilePlan, observed: Observed, versions: ServedVersions, steps: PreviewSteps, service: PreviewStep = {}): Promise<PreviewStep[]> {
  const cached = observed.preview ?? {};
  const objects = plan.preview?.objects;
  if (objects) {
    const results = await Promise.all([steps.apply(objects.deployment, cached.deployment), steps.apply(objects.service, cached.service)]);
    const ingress = objects.ingress && await steps.apply(objects.ingress, cached.ingress);
    // Without the Gateway API the App's own route reports RouteAPIUnavailable; the preview's waits with it.
    const route = objects.httpRoute && versions.httpRoute ? await steps.apply(objects.httpRoute, cached.httpRoute) : undefined;
    // Switching between spec.ingress and spec.route, the old preview Ingress or route serves
    // previewHost until the new one does, as the App's own: a route once every parent accepted it
    // (as the cache shows it before this pass), an Ingress once it is the App's. Without
    // previewHost, both go at once.
    const routeCarries = objects.httpRoute !== undefined && routeReadiness(cached.httpRoute as RouteWithStatus | undefined, (objects.httpRoute as RouteWithStatus).spec?.parentRefs).ready;
    const ingressCarries = ingress?.object !== undefined && !ingress.conflict && !ingress.error;
    if (ingress) results.push(ingress);
    else if (!objects.httpRoute || routeCarries) results.push(await steps.remove(INGRESS, cached.ingress, objects.httpRoute ? ' (the App has no spec.ingress)' : ' (the App has no previewHost)'));
    if (route) results.push(route);
    else if (!objects.httpRoute && (!objects.ingress || ingressCarries)) results.push(await steps.remove(HTTP_ROUTE_TYPE, cached.httpRoute));
    return results;
  }
  if (!plan.removePreview || service.error !== undefined) return [];
  // The routes first, then the Service, then the pods.
  const results: PreviewStep[] = [];
  for (const [type, object] of [[INGRESS, cached.ingress], [HTTP_ROUTE_TYPE, cached.httpRoute], [SERVICE, cached.service], [DEPLOYMENT, cached.deployment]] as const) {
    const result = await steps.remove(type, object, ' (the blue-green preview is over)');
    results.push(result);
    if (result.error) break;
  }
  return results;
}
