// The rows of the Objects section for what an App owns besides its workload and routing: the
// PodDisruptionBudget, the HorizontalPodAutoscaler and the ConfigMap copies of trackConfig,
// each with its readiness. Pure.
import { ANNOTATION_CONFIG_COPIES } from '../../shared/labels.js';
import type { Deployment } from '../model.js';
import type { SlimAutoscaler, SlimBudget, SlimConfigMap } from './slim.js';

export interface ObjectRow { kind: string; name: string; ready: boolean; text: string }

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Ready when as many pods are healthy as the budget needs: evicting one then waits for none. */
export function budgetRow(b: SlimBudget): ObjectRow {
  const { minAvailable, maxUnavailable } = b.spec ?? {};
  const budget = minAvailable !== undefined ? `minAvailable ${minAvailable}` : `maxUnavailable ${maxUnavailable ?? '-'}`;
  const s = b.status;
  if (!b.observed || !s) return { kind: 'PodDisruptionBudget', name: b.metadata.name, ready: false, text: `${budget} · not counted yet` };
  const [current, desired] = [s.currentHealthy ?? 0, s.desiredHealthy ?? 0];
  return {
    kind: 'PodDisruptionBudget', name: b.metadata.name, ready: current >= desired,
    text: `${budget} · ${current}/${desired} healthy · ${plural(s.disruptionsAllowed ?? 0, 'disruption')} allowed`,
  };
}

/** Ready when it can scale and has as many replicas as it wants. */
export function autoscalerRow(h: SlimAutoscaler): ObjectRow {
  const range = `${h.spec?.minReplicas ?? 1}..${h.spec?.maxReplicas ?? '-'} replicas`;
  const s = h.status;
  if (!h.observed || !s) return { kind: 'HorizontalPodAutoscaler', name: h.metadata.name, ready: false, text: `${range} · not measured yet` };
  const [current, desired] = [s.currentReplicas ?? 0, s.desiredReplicas ?? 0];
  return {
    kind: 'HorizontalPodAutoscaler', name: h.metadata.name, ready: h.inactive === undefined && current === desired,
    text: `${range} · ${current} now, ${desired} desired${h.inactive ? ` · cannot scale: ${h.inactive}` : ''}`,
  };
}

/**
 * The ConfigMap copies, each with the ConfigMap it is of and the Deployments that use it, both
 * from the Deployments' record of copies. A ConfigMap has no readiness: a copy is there or not.
 * One no Deployment uses is left from an earlier revision, for the controller to prune.
 */
export function configCopyRows(copies: SlimConfigMap[], deployments: Deployment[]): ObjectRow[] {
  const sourceOf = new Map<string, string>();
  const usersOf = new Map<string, string[]>();
  for (const d of deployments) {
    for (const entry of (d.spec?.template?.metadata?.annotations?.[ANNOTATION_CONFIG_COPIES] ?? '').split(',')) {
      const [key, copy] = entry.split('=', 2);
      if (!key?.startsWith('configMap/') || !copy) continue;
      sourceOf.set(copy, key.slice('configMap/'.length));
      usersOf.set(copy, [...(usersOf.get(copy) ?? []), d.metadata.name].sort());
    }
  }
  return copies.map((c) => {
    const source = sourceOf.get(c.metadata.name);
    const users = usersOf.get(c.metadata.name) ?? [];
    return {
      kind: 'ConfigMap', name: c.metadata.name, ready: true,
      text: `${source ? `copy of ${source}` : 'copy'} · ${users.length ? `used by ${users.join(', ')}` : 'used by no Deployment'}`,
    };
  });
}
