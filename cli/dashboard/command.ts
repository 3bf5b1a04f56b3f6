// `kubectl skiff dashboard`: starts the dashboard with the user's kubeconfig, prints its URL (with
// the per-run token) and serves until Ctrl-C.
import { randomBytes } from 'node:crypto';
import type { Context } from '../commands.js';
import { isLoopback } from './security.js';
import { startDashboard } from './server.js';

/** A token from SKIFF_DASHBOARD_TOKEN (to keep open pages working across a restart), else a new one per run. */
export function dashboardToken(env: NodeJS.ProcessEnv): string {
  const given = env.SKIFF_DASHBOARD_TOKEN;
  if (given !== undefined && given.length >= 16) return given;
  return randomBytes(24).toString('base64url');
}

export async function dashboard(ctx: Context): Promise<number> {
  const address = ctx.cmd.address ?? '127.0.0.1';
  const d = await startDashboard({
    api: ctx.api,
    namespace: ctx.cmd.allNamespaces ? undefined : ctx.namespace,
    address,
    port: ctx.cmd.port ?? 3100,
    token: dashboardToken(process.env),
  });
  const scope = ctx.cmd.allNamespaces ? 'every namespace' : `namespace ${ctx.namespace}`;
  ctx.out(`Skiff dashboard for ${scope} (context ${ctx.api.connection.context}), acting with your kubeconfig's credentials:\n${d.url}\n`);
  if (!isLoopback(address)) ctx.err(`warning: listening on ${address}, not loopback: the token travels in plain HTTP; prefer an SSH tunnel to 127.0.0.1\n`);
  return new Promise<number>((done) => {
    const finish = () => void d.stop().then(() => done(0));
    process.once('SIGINT', finish);
    process.once('SIGTERM', finish);
  });
}
