// API clients of the controller, all sending one User-Agent so that its requests can be told
// apart in the API server's audit log (client-node's own makeApiClient hard-codes its agent).
import {
  ApisApi,
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  NetworkingV1Api,
  ServerConfiguration,
  Watch,
  createConfiguration,
  setHeaderMiddleware,
  type KubeConfig,
} from '@kubernetes/client-node';

export const USER_AGENT = 'skiff-controller/0.1.0';

export interface Clients {
  /** API discovery: the groups and versions the server serves. */
  apis: ApisApi;
  apps: AppsV1Api;
  core: CoreV1Api;
  networking: NetworkingV1Api;
  custom: CustomObjectsApi;
  coordination: CoordinationV1Api;
  objects: KubernetesObjectApi;
  watch: Watch;
}

export function makeClients(kc: KubeConfig, userAgent = USER_AGENT): Clients {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: kc },
    middleware: [setHeaderMiddleware('User-Agent', userAgent)],
  });
  // The watch takes its headers from the authentication step only.
  const watchConfig = {
    getCurrentCluster: () => kc.getCurrentCluster(),
    applySecurityAuthentication: async (ctx: { setHeaderParam(k: string, v: string): void }) => {
      await kc.applySecurityAuthentication(ctx as Parameters<KubeConfig['applySecurityAuthentication']>[0]);
      ctx.setHeaderParam('User-Agent', userAgent);
    },
  } as unknown as KubeConfig;
  return {
    apis: new ApisApi(configuration),
    apps: new AppsV1Api(configuration),
    core: new CoreV1Api(configuration),
    networking: new NetworkingV1Api(configuration),
    custom: new CustomObjectsApi(configuration),
    coordination: new CoordinationV1Api(configuration),
    objects: new KubernetesObjectApi(configuration),
    watch: new Watch(watchConfig),
  };
}
