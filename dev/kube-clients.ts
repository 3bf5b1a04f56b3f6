// Clients of a test or development cluster for the tests, the benchmarks and `npm run dev`:
// client-node's typed APIs (they may load client-node; the controller does not), with the
// controller's own watch and API client (controller/runtime/clients.ts) on the same cluster.
import {
  ApisApi,
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  NetworkingV1Api,
  type KubeConfig,
} from '@kubernetes/client-node';
import { makeClients, type Clients } from '../controller/runtime/clients.js';
import { connectionOf } from './connection-of.js';

export interface KubeClients {
  apis: ApisApi;
  apps: AppsV1Api;
  core: CoreV1Api;
  networking: NetworkingV1Api;
  custom: CustomObjectsApi;
  coordination: CoordinationV1Api;
  objects: KubernetesObjectApi;
  /** The controller's watch, list and API client. */
  watch: Clients['watch'];
  list: Clients['list'];
  apiGroups: Clients['apiGroups'];
  apiResources: Clients['apiResources'];
  api: Clients['api'];
}

export function makeKubeClients(kc: KubeConfig, userAgent: string): KubeClients {
  const own = makeClients(connectionOf(kc), userAgent);
  return {
    apis: kc.makeApiClient(ApisApi),
    apps: kc.makeApiClient(AppsV1Api),
    core: kc.makeApiClient(CoreV1Api),
    networking: kc.makeApiClient(NetworkingV1Api),
    custom: kc.makeApiClient(CustomObjectsApi),
    coordination: kc.makeApiClient(CoordinationV1Api),
    objects: KubernetesObjectApi.makeApiClient(kc),
    watch: own.watch,
    list: own.list,
    apiGroups: own.apiGroups,
    apiResources: own.apiResources,
    api: own.api,
  };
}
