// Credentials Skiff does not compute itself (exec credential plugins, auth-provider): the request
// options come from client-node's KubeConfig, imported only when such a user is in use, so that
// every other run starts without loading it.
import type { RequestOptions } from 'node:https';
import type { Connection } from './kube-connection.js';

/**
 * TLS material and headers for each request, as client-node computes them for the same context.
 * One KubeConfig serves every call: client-node keeps an exec plugin's credential until it
 * expires and runs the plugin again then, so a long-running process asks for each request.
 */
export function fallbackAuthentication(conn: Connection): () => Promise<RequestOptions> {
  const loaded = (async () => {
    const { KubeConfig } = await import('@kubernetes/client-node');
    const kc = new KubeConfig();
    if (conn.files.length === 1) kc.loadFromFile(conn.files[0]);
    else kc.loadFromDefault();
    kc.setCurrentContext(conn.context);
    return kc;
  })();
  return async () => {
    const opts: RequestOptions = { headers: {} };
    await (await loaded).applyToHTTPSOptions(opts);
    return opts;
  };
}
