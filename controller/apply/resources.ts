// The kinds the reconciler reads and writes through its API client (runtime/api-client.ts), with
// the resource each is served as: the objects an App owns, and the App itself. All are namespaced.
import { KIND, PLURAL } from '../../shared/app-types.js';
import type { ResourcePlurals } from '../runtime/http-api-client.js';

export const RESOURCES: ResourcePlurals = {
  Deployment: 'deployments',
  Service: 'services',
  Ingress: 'ingresses',
  PodDisruptionBudget: 'poddisruptionbudgets',
  HorizontalPodAutoscaler: 'horizontalpodautoscalers',
  HTTPRoute: 'httproutes',
  ControllerRevision: 'controllerrevisions',
  // Sources and copies of spec.rollout.trackConfig (config-copies.ts).
  ConfigMap: 'configmaps',
  Secret: 'secrets',
  [KIND]: PLURAL,
};
