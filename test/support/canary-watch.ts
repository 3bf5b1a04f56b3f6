// Every change of a canary's weight, recorded from watches (never sampled): the tests that hold
// a canary's traffic to an order of events (the steps, weight 0 before its objects go, never
// rising after a fall) read these records.
import { strict as assert } from 'node:assert';
import { Watch, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { App } from '../../shared/app-types.js';

export const WEIGHT = 'nginx.ingress.kubernetes.io/canary-weight';

/**
 * One change seen by a watch: the canary's weight (undefined: no split; `deleted`: the object
 * that carried it, the canary Ingress or the HTTPRoute, was deleted), or its Deployment gone.
 */
export interface Change {
  atMs: number;
  /** deploymentReplaced: the canary Deployment took another image (a new pod template took it over). */
  what: 'weight' | 'deploymentDeleted' | 'deploymentReplaced';
  weight?: number;
  deleted?: true;
}

const canaryBackendWeight = (route: KubernetesObject) =>
  (route as { spec?: { rules?: { backendRefs?: { name: string; weight?: number }[] }[] } }).spec?.rules
    ?.flatMap((r) => r.backendRefs ?? [])
    .find((b) => b.name === 'web-canary')?.weight;

/** Records, from watches, every weight the canary of App `web` in `ns` gets and when its Deployment goes; and every status of the App. */
export async function recordCanary(cluster: { kc: KubeConfig }, ns: string) {
  const changes: Change[] = [];
  const statuses: { atMs: number; status: App['status'] }[] = [];
  const watch = new Watch(cluster.kc);
  let canaryImage: string | undefined;
  const seen = (weight: number | undefined, deleted: boolean) => {
    const last = [...changes].reverse().find((c) => c.what === 'weight');
    if (!last || last.weight !== weight) changes.push({ atMs: Date.now(), what: 'weight', weight, ...(deleted ? { deleted: true } : {}) });
  };
  // client-node ends a watch that has had no event for 30 s: a canary Ingress held through a
  // pause is quiet longer than that. Each watch is resumed from the last version it saw whenever
  // it ends, so that no change in between is missed.
  let stopped = false;
  const current = new Set<AbortController>();
  const follow = async (path: string, handler: (type: string, obj: KubernetesObject) => void, resourceVersion?: string): Promise<void> => {
    let last = resourceVersion;
    let request: AbortController | undefined;
    const ended = (err: unknown) => {
      if (request) current.delete(request);
      // Only a watch ended for quiet (or closed by the server) is resumed: one that failed (a kind
      // this cluster does not serve) stays ended, as it did before.
      const quiet = !err || (err as { name?: string }).name === 'TimeoutError';
      if (!stopped && quiet) setTimeout(() => void follow(path, handler, last).catch(() => {}), 50);
    };
    request = await watch.watch(path, last ? { resourceVersion: last } : {}, (type: string, obj: KubernetesObject) => {
      last = obj.metadata?.resourceVersion ?? last;
      handler(type, obj);
    }, ended);
    if (stopped) request.abort();
    else current.add(request);
  };
  await Promise.all([
    follow(`/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`, (type, obj) => {
      if (obj.metadata?.name !== 'web-canary') return;
      seen(type === 'DELETED' ? undefined : Number(obj.metadata.annotations?.[WEIGHT]), type === 'DELETED');
    }),
    follow(`/apis/gateway.networking.k8s.io/v1/namespaces/${ns}/httproutes`, (type, obj) => {
      if (obj.metadata?.name === 'web') seen(type === 'DELETED' ? undefined : canaryBackendWeight(obj), type === 'DELETED');
    }),
    follow(`/apis/apps/v1/namespaces/${ns}/deployments`, (type, obj) => {
      if (obj.metadata?.name !== 'web-canary') return;
      if (type === 'DELETED') {
        changes.push({ atMs: Date.now(), what: 'deploymentDeleted' });
        canaryImage = undefined;
        return;
      }
      const image = (obj as { spec?: { template?: { spec?: { containers?: { image?: string }[] } } } }).spec?.template?.spec?.containers?.[0]?.image;
      if (canaryImage !== undefined && image !== canaryImage) changes.push({ atMs: Date.now(), what: 'deploymentReplaced' });
      canaryImage = image;
    }),
    follow(`/apis/skiff.dev/v1alpha1/namespaces/${ns}/apps`, (_type, obj) => {
      if (obj.metadata?.name === 'web') statuses.push({ atMs: Date.now(), status: (obj as App).status });
    }),
  ]);
  return {
    changes,
    statuses,
    /** The weights in the order they were set, undefined (no split) left out. */
    weights: () => changes.filter((c) => c.what === 'weight' && c.weight !== undefined).map((c) => c.weight!),
    /** Every change of the weight in order: a number, 'none' (no split) or 'deleted' (its object deleted). */
    sequence: () => changes.filter((c) => c.what === 'weight').map((c) => (c.deleted ? 'deleted' : c.weight ?? 'none')),
    stop: () => { stopped = true; current.forEach((r) => r.abort()); },
  };
}

export type CanaryRecorder = Awaited<ReturnType<typeof recordCanary>>;

/** Asserts that the weights never rise once they have fallen. */
export function neverRisesAfterFalling(weights: number[], what: string): void {
  const firstFall = weights.findIndex((w, i) => i > 0 && w < weights[i - 1]);
  if (firstFall < 0) return;
  for (let i = firstFall + 1; i < weights.length; i++) assert.ok(weights[i] <= weights[i - 1], `${what}: the weight rose again after it fell: ${weights.join(' → ')}`);
}
