// `kubectl skiff status APP --wait [--timeout D]`: follows the App with a watch until
// waitDecision says it is rolled out (exit 0) or failed (exit 1), or the timeout passes (exit 3).
import type { Context } from './commands.js';
import { formatStatus } from './format-status.js';
import { liveList } from './live-list.js';
import { waitDecision, type CliApp } from './model.js';
import { appsPath, readApp } from './paths.js';

export const EXIT_TIMEOUT = 3;

export async function statusWait(ctx: Context): Promise<number> {
  const ns = ctx.namespace;
  const name = ctx.cmd.app!;
  await readApp(ctx.api, ns, name);
  return new Promise<number>((done) => {
    let said = '';
    let timer: NodeJS.Timeout | undefined;
    let finished = false;
    const finish = (code: number, message: string) => {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      list.stop();
      ctx.err(`${message}\n`);
      done(code);
    };
    const check = () => {
      if (finished) return;
      const app = list.items()[0];
      if (!app) return finish(1, `app "${name}" not found in namespace "${ns}" (deleted while waiting)`);
      const decision = waitDecision(app);
      if (decision.done) {
        ctx.out(formatStatus(app, ctx.now()));
        return finish(decision.code, decision.message);
      }
      if (decision.message !== said) ctx.err(`${decision.message}\n`);
      said = decision.message;
    };
    const list = liveList<CliApp>(ctx.api, `${appsPath(ns)}?fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`, check, (err) => ctx.err(`watch: ${err.message} (retrying)\n`));
    if (ctx.cmd.timeoutMs !== undefined) {
      timer = setTimeout(() => finish(EXIT_TIMEOUT, `timed out after ${ctx.cmd.timeoutMs! / 1000}s waiting for app ${ns}/${name}: ${said || 'no answer yet'}`), ctx.cmd.timeoutMs);
    }
  });
}
