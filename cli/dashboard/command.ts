// `kubectl skiff dashboard`: starts the dashboard with the user's kubeconfig, prints its URL (with
// the per-run token) and serves until Ctrl-C.
import { randomBytes } from 'node:crypto';
import type { Context } from '../commands.js';
import { CliError } from '../errors.js';
import { isLoopback } from './security.js';
import { startDashboard } from './server.js';
import { actingAs } from './acting-as.js';

/**
 * A token from SKIFF_DASHBOARD_TOKEN (to keep open pages working across a restart), else a new one
 * per run. One the pages could not use (shorter than 16 characters, or with a character a browser
 * does not send as it is in a header: not ASCII, a control character, white space at either end)
 * is an error: replaced by a new token without a word, it broke the pages it was set to keep.
 */
export function dashboardToken(env: NodeJS.ProcessEnv): string {
  const given = env.SKIFF_DASHBOARD_TOKEN;
  if (!given) return randomBytes(24).toString('base64url');
  if (given.length < 16 || !/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(given)) {
    throw new CliError('SKIFF_DASHBOARD_TOKEN must be 16 characters or more, printable ASCII, without spaces at either end; unset it for a new token each run');
  }
  return given;
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
  ctx.out(`Skiff dashboard for ${scope} (context ${ctx.api.connection.context}), ${actingAs(ctx.api.connection.impersonate)}:\n${d.url}\n`);
  if (!isLoopback(address)) ctx.err(`warning: listening on ${address}, not loopback: the token travels in plain HTTP; prefer an SSH tunnel to 127.0.0.1\n`);
  return new Promise<number>((done) => {
    const finish = () => void d.stop().then(() => done(0));
    process.once('SIGINT', finish);
    process.once('SIGTERM', finish);
  });
}
