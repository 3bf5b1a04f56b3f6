// Stands in for the kubelet, which the local control plane does not have (as KWOK does): binds
// Pending pods to a fake Node, marks them Running and Ready, and finishes the deletion of pods
// being terminated. Everything else (Deployment and ReplicaSet controllers, the garbage
// collector) is the real thing. Tests and `npm run dev` on the local control plane use it; the
// webhook and the controller never do.
import type { CoreV1Api, KubeConfig, V1Pod } from '@kubernetes/client-node';
import { makeKubeClients } from './kube-clients.js';
import { forEachLimited } from './concurrency.js';

export const SIMULATED_NODE = 'skiff-simulated-node';
const STEP_CONCURRENCY = 16;

export interface PodSimulatorOptions {
  /** Whether a pod becomes Ready. Default: unless an image mentions "never-ready". */
  ready?: (pod: V1Pod) => boolean;
  intervalMs?: number;
}

export interface PodSimulator {
  stop(): Promise<void>;
  /** Pods bound so far (a running count, for assertions and debugging). */
  bound(): number;
}

const readyUnlessNeverReadyImage = (pod: V1Pod) => !(pod.spec?.containers ?? []).some((c) => (c.image ?? '').includes('never-ready'));

async function ensureNode(core: CoreV1Api): Promise<void> {
  try {
    await core.createNode({ body: { metadata: { name: SIMULATED_NODE, labels: { 'kubernetes.io/hostname': SIMULATED_NODE } } } });
  } catch (err) {
    if ((err as { code?: number }).code !== 409) throw err;
  }
  // The node lifecycle controller may update the new Node between our read and write: read
  // again and retry on a conflict, as any client of a shared object must.
  for (let attempt = 1; ; attempt++) {
    const node = await core.readNode({ name: SIMULATED_NODE });
    const now = new Date();
    node.status = {
      ...node.status,
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'simulated', lastHeartbeatTime: now, lastTransitionTime: now }],
      capacity: { cpu: '64', memory: '256Gi', pods: '1000' },
      allocatable: { cpu: '64', memory: '256Gi', pods: '1000' },
    };
    try {
      await core.replaceNodeStatus({ name: SIMULATED_NODE, body: node });
      return;
    } catch (err) {
      if ((err as { code?: number }).code !== 409 || attempt >= 10) throw err;
    }
  }
}

function runningStatus(pod: V1Pod, ready: boolean, index: number): V1Pod['status'] {
  const now = new Date();
  const status = ready ? 'True' : 'False';
  return {
    ...pod.status,
    phase: 'Running',
    hostIP: '10.244.0.1',
    podIP: `10.244.${(index >> 8) & 255}.${index & 255}`,
    startTime: pod.status?.startTime ?? now,
    conditions: [
      { type: 'Initialized', status: 'True', lastTransitionTime: now },
      { type: 'Ready', status, lastTransitionTime: now },
      { type: 'ContainersReady', status, lastTransitionTime: now },
      { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
    ],
    containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
      name: c.name,
      image: c.image ?? '',
      imageID: '',
      ready,
      restartCount: 0,
      started: true,
      state: { running: { startedAt: now } },
    })),
  };
}

export async function startPodSimulator(kc: KubeConfig, opts: PodSimulatorOptions = {}): Promise<PodSimulator> {
  // One connection pool (client-node alone opens a connection per request: thousands of pods
  // at once would be thousands of TLS handshakes).
  const core = makeKubeClients(kc, 'skiff-pod-simulator').core;
  const isReady = opts.ready ?? readyUnlessNeverReadyImage;
  await ensureNode(core);
  let stopped = false;
  let bound = 0;
  let counter = 0;

  const step = async (pod: V1Pod) => {
    const namespace = pod.metadata!.namespace!;
    const name = pod.metadata!.name!;
    if (pod.metadata?.deletionTimestamp) {
      // The kubelet would stop the containers and confirm; do it at once.
      await core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 });
      return;
    }
    if (!pod.spec?.nodeName) {
      await core.createNamespacedPodBinding({ name, namespace, body: { metadata: { name, namespace }, target: { kind: 'Node', name: SIMULATED_NODE } } });
      bound++;
      return;
    }
    if (pod.spec.nodeName !== SIMULATED_NODE) return;
    const ready = isReady(pod);
    const isRunning = pod.status?.phase === 'Running';
    const readyNow = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    if (isRunning && readyNow === ready) return;
    await core.replaceNamespacedPodStatus({ name, namespace, body: { ...pod, status: runningStatus(pod, ready, ++counter) } });
  };

  const loop = (async () => {
    while (!stopped) {
      try {
        const pods = await core.listPodForAllNamespaces({});
        // Conflicts and vanished pods are settled on the next round. A few at a time, as a
        // kubelet per node would: thousands of requests at once only queue in the API server.
        await forEachLimited(pods.items, STEP_CONCURRENCY, (pod) => step(pod).catch(() => undefined), () => stopped);
      } catch {
        // The API server may be restarting in a test; try again.
      }
      await new Promise((r) => setTimeout(r, opts.intervalMs ?? 250));
    }
  })();

  return {
    bound: () => bound,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
