// Loads a kubeconfig the way kubectl does (--kubeconfig, KUBECONFIG, ~/.kube/config, or the
// in-cluster service account). client-node silently falls back to http://localhost:8080 when it
// finds none; that would look like a connection problem later, so fail clearly here instead.
import { KubeConfig } from '@kubernetes/client-node';

export class KubeConfigError extends Error {}

export function loadKubeConfig(opts: { path?: string; context?: string } = {}): KubeConfig {
  const kc = new KubeConfig();
  try {
    if (opts.path) kc.loadFromFile(opts.path);
    else kc.loadFromDefault();
  } catch (err) {
    throw new KubeConfigError(`cannot read kubeconfig ${opts.path ?? process.env.KUBECONFIG ?? '~/.kube/config'}: ${(err as Error).message}`);
  }
  if (opts.context) {
    if (!kc.getContextObject(opts.context)) throw new KubeConfigError(`context "${opts.context}" not found in the kubeconfig`);
    kc.setCurrentContext(opts.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster || (cluster.name === 'cluster' && cluster.server === 'http://localhost:8080')) {
    throw new KubeConfigError(
      'no Kubernetes configuration found: set KUBECONFIG (or pass --kubeconfig), create ~/.kube/config, or run in a cluster with a service account',
    );
  }
  return kc;
}

/** The namespace of the current context, as kubectl uses it when -n is not given. */
export function currentNamespace(kc: KubeConfig): string {
  return kc.getContextObject(kc.getCurrentContext())?.namespace || 'default';
}
