// Stands in for a Gateway API implementation, which the local control plane does not have (as
// the pod simulator stands in for the kubelet): reports every HTTPRoute Accepted and
// ResolvedRefs by each of its parents for the route's current generation, unless told to
// withhold that for a route. Tests and `npm run dev` use it; the controller never does.
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';

export const SIMULATED_GATEWAY_CONTROLLER = 'skiff.dev/simulated-gateway';

type Route = {
  metadata: { name: string; namespace: string; generation?: number };
  spec?: { parentRefs?: { name: string; namespace?: string; sectionName?: string; group?: string; kind?: string; port?: number }[] };
  status?: { parents?: { controllerName?: string; conditions?: { type: string; status: string; observedGeneration?: number }[] }[] };
};

export interface RouteStatusSimulatorOptions {
  /** Whether to report a route accepted. Default: every route. */
  accept?: (route: { namespace: string; name: string }) => boolean;
  intervalMs?: number;
}

export interface RouteStatusSimulator {
  stop(): Promise<void>;
}

const ROUTES = { group: 'gateway.networking.k8s.io', version: 'v1', plural: 'httproutes' };

/** Whether the route's status already says what the simulator would write. */
function reported(route: Route): boolean {
  const generation = route.metadata.generation;
  const parents = route.status?.parents ?? [];
  return (route.spec?.parentRefs ?? []).length === parents.filter((p) => p.controllerName === SIMULATED_GATEWAY_CONTROLLER).length
    && parents.every((p) => p.controllerName !== SIMULATED_GATEWAY_CONTROLLER
      || ['Accepted', 'ResolvedRefs'].every((t) => p.conditions?.some((c) => c.type === t && c.status === 'True' && c.observedGeneration === generation)));
}

function acceptedStatus(route: Route) {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const condition = (type: string, reason: string) => ({
    type, status: 'True', reason, message: 'accepted by the simulated Gateway', observedGeneration: route.metadata.generation, lastTransitionTime: now,
  });
  return {
    parents: (route.spec?.parentRefs ?? []).map((ref) => ({
      parentRef: ref,
      controllerName: SIMULATED_GATEWAY_CONTROLLER,
      conditions: [condition('Accepted', 'Accepted'), condition('ResolvedRefs', 'ResolvedRefs')],
    })),
  };
}

export function startRouteStatusSimulator(kc: KubeConfig, opts: RouteStatusSimulatorOptions = {}): RouteStatusSimulator {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const accept = opts.accept ?? (() => true);
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const list = (await custom.listClusterCustomObject(ROUTES)) as { items: Route[] };
        await Promise.all(list.items
          .filter((r) => !reported(r) && accept({ namespace: r.metadata.namespace, name: r.metadata.name }))
          .map((r) => custom.patchNamespacedCustomObjectStatus(
            { ...ROUTES, namespace: r.metadata.namespace, name: r.metadata.name, body: { status: acceptedStatus(r) } },
            setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
          ).catch(() => undefined)));
      } catch {
        // No HTTPRoute API (yet), or the API server is restarting: try again.
      }
      await new Promise((r) => setTimeout(r, opts.intervalMs ?? 250));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
