// API clients of the controller, all sending one User-Agent so that its requests can be told
// apart in the API server's audit log (client-node's own makeApiClient hard-codes its agent).
import type { AgentOptions } from 'node:https';
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
import { Agent, type Dispatcher } from 'undici';
import type { ApiClient } from './api-client.js';
import { httpApiClient, jsonSender, type Authenticate, type ResourcePlurals } from './http-api-client.js';

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
  /** The controller's own client for the calls it makes per App (api-client.ts), on the same pool. */
  api: ApiClient;
}

/** What the runtime itself writes (events.ts); callers add the kinds they write. */
const RUNTIME_RESOURCES: ResourcePlurals = { Event: 'events' };

type AuthContext = Parameters<KubeConfig['applySecurityAuthentication']>[0];

/** What the kubeconfig says about TLS to the API server (CA, client certificate, server name). */
async function tlsOptions(kc: KubeConfig): Promise<AgentOptions> {
  const o: AgentOptions = {};
  await kc.applyToHTTPSOptions(o);
  const { ca, cert, key, pfx, passphrase, rejectUnauthorized, servername } = o;
  return { ca, cert, key, pfx, passphrase, rejectUnauthorized, servername };
}

/**
 * The kubeconfig's authentication with one connection pool for every request.
 *
 * client-node's KubeConfig hands each request a new undici Agent, so every API call opens its
 * own TLS connection (and, the server offering HTTP/2, its own session) that lingers until it
 * idles out: a handshake's CPU on both ends per call, and hundreds of open sessions in the heap
 * while a controller converges a fleet. Here every request shares one Agent, made once from the
 * kubeconfig's TLS settings, as client-go keeps one transport per config. It speaks HTTP/1.1
 * with keep-alive: undici's HTTP/1.1 client costs less CPU per request than its HTTP/2 one
 * (npm run bench), and a watch then holds a connection of its own. Headers (tokens an exec
 * plugin or a token file renews) are still taken from the kubeconfig for every request. Through
 * a proxy, client-node's own dispatcher for it is kept instead, also once.
 */
export function pooledAuthentication(kc: KubeConfig): Pick<KubeConfig, 'applySecurityAuthentication'> {
  let pool: Promise<Dispatcher> | undefined;
  return {
    async applySecurityAuthentication(ctx: AuthContext) {
      const { headers, dispatcher: offered } = await captureAuthentication(kc);
      for (const [key, value] of Object.entries(headers)) ctx.setHeaderParam(key, value);
      if (!offered) return; // plain HTTP without a proxy: the default dispatcher
      pool ??= (async () => {
        const o = kc.createDispatcherOptions(kc.getCurrentCluster(), await tlsOptions(kc));
        return o.type === 'agent' ? new Agent({ connect: o.connect, allowH2: false }) : offered;
      })();
      // The Agent offered for this request never connected; it is simply dropped.
      ctx.setDispatcher(await pool);
    },
  };
}

/** The headers and the dispatcher an authentication step sets on one request, as values. */
async function captureAuthentication(auth: Pick<KubeConfig, 'applySecurityAuthentication'>): Promise<{ headers: Record<string, string>; dispatcher?: Dispatcher }> {
  const headers: Record<string, string> = {};
  let dispatcher: Dispatcher | undefined;
  const capture = { setHeaderParam: (key: string, value: string) => { headers[key] = value; }, setDispatcher: (d: Dispatcher) => { dispatcher = d; } } as unknown as AuthContext;
  await auth.applySecurityAuthentication(capture);
  return { headers, dispatcher };
}

/** The headers and dispatcher `auth` gives one request, for requests sent without client-node. */
export const authenticator = (auth: Pick<KubeConfig, 'applySecurityAuthentication'>): Authenticate => () => captureAuthentication(auth);

/** Clients of the kubeconfig's cluster; `api` reaches the kinds in `resources` (and Events). */
export function makeClients(kc: KubeConfig, userAgent = USER_AGENT, resources: ResourcePlurals = {}): Clients {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const auth = pooledAuthentication(kc);
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: { getName: () => 'kubeconfig authentication, pooled', applySecurityAuthentication: (ctx: AuthContext) => auth.applySecurityAuthentication(ctx) } },
    middleware: [setHeaderMiddleware('User-Agent', userAgent)],
  });
  // The watch takes its headers from the authentication step only; it shares the pool.
  const watchConfig = {
    getCurrentCluster: () => kc.getCurrentCluster(),
    applySecurityAuthentication: async (ctx: AuthContext) => {
      await auth.applySecurityAuthentication(ctx);
      ctx.setHeaderParam('User-Agent', userAgent);
    },
  } as unknown as KubeConfig;
  // The reconciler's calls (read and apply owned objects, the App's status, Events) skip
  // client-node's fetch and model layer; see http-api-client.ts.
  const send = jsonSender(cluster.server, authenticator(auth), userAgent);
  return {
    apis: new ApisApi(configuration),
    apps: new AppsV1Api(configuration),
    core: new CoreV1Api(configuration),
    networking: new NetworkingV1Api(configuration),
    custom: new CustomObjectsApi(configuration),
    coordination: new CoordinationV1Api(configuration),
    objects: new KubernetesObjectApi(configuration),
    watch: new Watch(watchConfig),
    api: httpApiClient(send, { ...RUNTIME_RESOURCES, ...resources }),
  };
}
