// The controller's Connection (shared/kube-connection.ts) for a client-node KubeConfig, as the
// tests, the benchmarks and `npm run dev` hold one: its exported kubeconfig resolved the way the
// controller resolves a file.
import type { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { resolveConnection, type Connection } from '../shared/kube-connection.js';

export function connectionOf(kc: KubeConfig): Connection {
  return resolveConnection([{ path: '(in memory)', config: parse(kc.exportConfig()) as Record<string, unknown> }]);
}
