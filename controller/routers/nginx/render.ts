// The canary Ingress of docs/api.md, derived from the rendered main one so that every change of the
// App's ingress reaches both alike. Pure.
import type { V1Ingress } from '@kubernetes/client-node';
import { LABEL_TRACK, ownedName } from '../../../shared/labels.js';
import { cloneJson } from '../../../shared/objects.js';

const retrack = (labels: Record<string, string> | undefined): Record<string, string> => ({ ...labels, [LABEL_TRACK]: 'canary' });

export const NGINX_CANARY = 'nginx.ingress.kubernetes.io/canary';
export const NGINX_CANARY_WEIGHT = 'nginx.ingress.kubernetes.io/canary-weight';
export const NGINX_CANARY_BY_HEADER = 'nginx.ingress.kubernetes.io/canary-by-header';
export const NGINX_CANARY_WEIGHT_TOTAL = 'nginx.ingress.kubernetes.io/canary-weight-total';

/**
 * The canary Ingress: same host and path as the main one (ingress-nginx drops a canary whose
 * main host/path is missing), backed by the canary Service, weighted by annotation.
 */
export function canaryIngress(stable: V1Ingress, appName: string, weight: number, canaryHeader?: string): V1Ingress {
  const out = cloneJson(stable);
  const name = ownedName(appName, 'canary');
  // The total the weight is out of, set as ingress-nginx's default: written by hand to the weight
  // itself (or less), it would send all traffic to the canary; owned, a hand edit is put back.
  const annotations: Record<string, string> = { ...out.metadata?.annotations, [NGINX_CANARY]: 'true', [NGINX_CANARY_WEIGHT]: String(weight), [NGINX_CANARY_WEIGHT_TOTAL]: '100' };
  if (canaryHeader) annotations[NGINX_CANARY_BY_HEADER] = canaryHeader;
  out.metadata = { ...out.metadata, name, labels: retrack(out.metadata?.labels), annotations };
  for (const rule of out.spec?.rules ?? []) {
    for (const path of rule.http?.paths ?? []) {
      if (path.backend.service) path.backend.service = { ...path.backend.service, name };
    }
  }
  // TLS stays on the main Ingress; ingress-nginx serves the host's certificate from there.
  delete out.spec!.tls;
  return out;
}

/**
 * The share (percent) a canary Ingress sends, or undefined when it has no weight. ingress-nginx
 * weighs it against canary-weight-total (100 unless set): a weight written at or above the total
 * by hand sends everything to the canary, and reads as 100, never as more traffic than all.
 */
export function ingressWeight(ingress: V1Ingress | undefined): number | undefined {
  const raw = ingress?.metadata?.annotations?.[NGINX_CANARY_WEIGHT];
  if (raw === undefined || !/^[0-9]+$/.test(raw)) return undefined;
  const rawTotal = ingress?.metadata?.annotations?.[NGINX_CANARY_WEIGHT_TOTAL];
  const total = rawTotal !== undefined && /^[0-9]+$/.test(rawTotal) && Number(rawTotal) > 0 ? Number(rawTotal) : 100;
  return Math.min(Math.round((Number(raw) * 100) / total), 100);
}
