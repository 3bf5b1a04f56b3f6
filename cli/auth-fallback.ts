// Credentials the plugin does not compute itself (exec credential plugins, auth-provider): the
// request options come from client-node's KubeConfig, imported only when such a user is in use,
// so that every other run starts without loading it.
import type { RequestOptions } from 'node:https';
import type { Connection } from './kubeconfig.js';

/** TLS material and headers for a request, as client-node computes them for the same context. */
export async function fallbackRequestOptions(conn: Connection): Promise<RequestOptions> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  if (conn.files.length === 1) kc.loadFromFile(conn.files[0]);
  else kc.loadFromDefault();
  kc.setCurrentContext(conn.context);
  const opts: RequestOptions = { headers: {} };
  await kc.applyToHTTPSOptions(opts);
  return opts;
}
