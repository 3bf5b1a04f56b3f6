// The canary Ingress of docs/api.md, derived from the rendered main one so that every change of the
// App's ingress reaches both alike. Pure.
import type { V1Ingress } from '@kubernetes/client-node';
import { LABEL_TRACK, ownedName } from '../../../shared/labels.js';
import { cloneJson } from '../../../shared/objects.js';

const retrack = (labels: Record<string, string> | undefined): Record<string, string> => ({ ...labels, [LABEL_TRACK]: 'canary' });

export const NGINX_CANARY = 'nginx.ingress.kubernetes.io/canary';
export const NGINX_CANARY_WEIGHT = 'nginx.ingress.kubernetes.io/canary-weight';
export const NGINX_CANARY_BY_HEADER = 'nginx.ingress.kubernetes.io/canary-by-header';

/**
 * The canary Ingress: same host and path as the main one (ingress-nginx drops a canary whose
 * main host/path is missing), backed by the canary Service, weighted by annotation.
 */
export function canaryIngress(stable: V1Ingress, appName: string, weight: number, canaryHeader?: string): V1Ingress {
  const out = cloneJson(stable);
  const name = ownedName(appName, 'canary');
  const annotations: Record<string, string> = { ...out.metadata?.annotations, [NGINX_CANARY]: 'true', [NGINX_CANARY_WEIGHT]: String(weight) };
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
 * The weight (percent) a canary Ingress carries, or undefined when it has none. ingress-nginx
 * weighs it against canary-weight-total, 100 unless set (Skiff sets none): a weight written above
 * that by hand sends everything to the canary, and reads as 100, never as more traffic than all.
 */
export function ingressWeight(ingress: V1Ingress | undefined): number | undefined {
  const raw = ingress?.metadata?.annotations?.[NGINX_CANARY_WEIGHT];
  if (raw === undefined || !/^[0-9]+$/.test(raw)) return undefined;
  return Math.min(Number(raw), 100);
}
