// Credentials Skiff does not compute itself (an auth-provider): the request
// options come from client-node's KubeConfig, imported only when such a user is in use, so that
// every other run starts without loading it.
import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Connection } from './kube-connection.js';

/**
 * TLS material and headers for each request, as client-node computes them for the same context.
 * One KubeConfig serves every call: client-node keeps what the auth-provider gave until it
 * expires, so a long-running process asks for each request.
 */
export function fallbackAuthentication(conn: Connection): () => Promise<RequestOptions> {
  const loaded = (async () => {
    const { KubeConfig } = await import('@kubernetes/client-node');
    // The files merged as kubectl merges them (and as kube-connection.ts read them): each entry
    // from the first file that names it, missing files already left out. client-node's own
    // KUBECONFIG merge fails on a missing file and on a name in two files.
    const merged = { clusters: [] as KubeConfig['clusters'], users: [] as KubeConfig['users'], contexts: [] as KubeConfig['contexts'] };
    for (const file of conn.files) {
      const one = new KubeConfig();
      // An entry client-node cannot read (kubectl passes over what it does not use) is left out.
      one.loadFromFile(file, { onInvalidEntry: 'filter' });
      for (const list of ['clusters', 'users', 'contexts'] as const) {
        for (const e of one[list]) if (!merged[list].some((m) => m.name === e.name)) (merged[list] as { name: string }[]).push(e);
      }
    }
    const kc = new KubeConfig();
    kc.loadFromOptions({ ...merged, currentContext: conn.context });
    return kc;
  })();
  return async () => {
    const opts: RequestOptions = { headers: {} };
    await (await loaded).applyToHTTPSOptions(opts);
    return opts;
  };
}
