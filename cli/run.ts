// Runs a parsed command: loads the connection, picks the style, dispatches. Loaded by the entry
// point only once the command line is known to be good.
import { makeApi } from './api.js';
import type { CommandLine } from './args.js';
import * as commands from './commands.js';
import type { Context } from './commands.js';
import { get } from './get.js';
import { loadConnection } from '../shared/kube-connection.js';
import { drawingSize } from './screen.js';
import { chooseStyle } from './style.js';
import { statusWait } from './wait.js';

const HANDLERS: Record<CommandLine['command'], (ctx: Context) => Promise<number>> = {
  list: commands.list,
  get,
  history: commands.history,
  status: (ctx) => (ctx.cmd.wait ? statusWait(ctx) : commands.status(ctx)),
  ...commands.ACTION_COMMANDS,
  'set-image': commands.setImage,
  // Loaded only when asked for: the other commands start without the server's code.
  dashboard: async (ctx) => (await import('./dashboard/command.js')).dashboard(ctx),
};

/** Prints each of the API server's warnings once, on stderr, as kubectl does ("Warning: ..."). */
function warn(): (text: string) => void {
  const said = new Set<string>();
  return (text) => {
    if (said.has(text)) return;
    said.add(text);
    process.stderr.write(`Warning: ${text}\n`);
  };
}

export async function run(cmd: CommandLine): Promise<number> {
  const connection = loadConnection({ path: cmd.kubeconfig, context: cmd.context, impersonate: cmd.impersonate });
  const isTTY = process.stdout.isTTY === true;
  const ctx: Context = {
    cmd,
    api: makeApi(connection, warn()),
    namespace: cmd.namespace ?? connection.namespace,
    style: chooseStyle({ color: cmd.color, isTTY, env: process.env }),
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    now: () => new Date(),
    isTTY,
    columns: () => drawingSize(process.stdout).columns,
    rows: () => drawingSize(process.stdout).rows,
  };
  return HANDLERS[cmd.command](ctx);
}
