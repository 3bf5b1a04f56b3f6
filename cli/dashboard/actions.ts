// The rollout actions of the page: each runs the plugin's own command (commands.ts) with the
// user's API client, so the dashboard writes exactly the patch `kubectl skiff promote` (abort,
// pause, resume, retry, undo) writes, and the API server judges it by the user's RBAC.
import type { Api } from '../api.js';
import type { Command, CommandLine } from '../args.js';
import * as commands from '../commands.js';
import type { Context } from '../commands.js';
import { ApiError, CliError, NotFoundError, UnreachableError } from '../errors.js';
import { chooseStyle } from '../style.js';

export const ACTIONS = ['promote', 'abort', 'pause', 'resume', 'retry', 'undo'] as const;
export type Action = (typeof ACTIONS)[number];

const RUN: Record<Action, (ctx: Context) => Promise<number>> = commands.ACTION_COMMANDS;

export interface ActionRequest {
  revision?: number;
  skipCanary?: boolean;
  /**
   * The revision the page showed the action acting on (promote and abort: the canary's or the
   * preview's; retry: the aborted one). When the App's rollout is another's by now, nothing is done.
   */
  expectRevision?: string;
}

/**
 * What the action did, in the command's words; `ok: false` with the API server's status code and
 * message when it refused (403 RBAC, a webhook's denial, 404 no such App), 409 when there was nothing to do, or 502
 * when the API server could not be reached.
 */
export type ActionResult = { ok: true; message: string } | { ok: false; status: number; reason?: string; message: string };

export async function runAction(api: Api, namespace: string, app: string, action: Action, body: ActionRequest): Promise<ActionResult> {
  let out = '';
  const cmd: CommandLine = {
    command: action as Command, app, namespace, allNamespaces: false, color: false, watch: false, wait: false,
    toRevision: action === 'undo' ? body.revision : undefined, skipCanary: action === 'undo' && body.skipCanary === true,
    // The command checks it on the read its write is guarded by (commands.ts, patchDecided).
    ...(action === 'promote' || action === 'abort' || action === 'retry' ? { expectRevision: body.expectRevision } : {}),
  };
  const ctx: Context = {
    cmd, api, namespace,
    style: chooseStyle({ color: false, isTTY: false, env: {} }),
    out: (text) => void (out += text),
    err: (text) => void (out += text),
    now: () => new Date(),
    isTTY: false,
    columns: () => 200,
    rows: () => 50,
  };
  try {
    await RUN[action](ctx);
    return { ok: true, message: out.trim() };
  } catch (err) {
    // The page shows the status and reason ("Refused (403 Forbidden): ..."): the API server's words
    // follow, without the terminal's "forbidden (403): " before them.
    if (err instanceof ApiError) return { ok: false, status: err.code, reason: err.reason, message: err.serverMessage ?? err.message };
    // The API server out of reach is the gateway's failure, not a refusal of the action.
    if (err instanceof UnreachableError) return { ok: false, status: 502, message: err.message };
    // No such App (or no App API): the API server's 404, which the plugin words for the user; it
    // is not "nothing to do" (409), which would tell the page the App is there.
    if (err instanceof NotFoundError) return { ok: false, status: 404, reason: 'NotFound', message: err.message };
    if (err instanceof CliError) return { ok: false, status: 409, message: err.message };
    throw err;
  }
}
