// `kubectl skiff status APP --wait [--timeout D]`: follows the App with a watch until
// waitDecision says it is rolled out (exit 0) or failed (exit 1), or the timeout passes (exit 3).
import type { Context } from './commands.js';
import { formatStatus } from './format-status.js';
import { liveList } from './live-list.js';
import { waitDecision, type CliApp } from './model.js';
import { APP_API_MISSING, appsPath, readApp } from './paths.js';
import { isRefusal } from './errors.js';
import { oneLine } from './style.js';

export const EXIT_TIMEOUT = 3;

/** Node's timers hold at most 2^31-1 ms (24.8 days); a longer wait re-arms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** 5400000 → "1h30m", 1500 → "1.5s": how the timeout is named back to the user. */
export function durationText(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  const text = `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
  return text || '0s';
}

/** Calls `fire` at `deadline` (ms since the epoch), however far off: a timer holds at most MAX_TIMER_MS. Returns what cancels it. */
function atDeadline(deadline: number, fire: () => void): () => void {
  let timer: NodeJS.Timeout;
  const arm = () => {
    const left = deadline - Date.now();
    timer = left > MAX_TIMER_MS ? setTimeout(arm, MAX_TIMER_MS) : setTimeout(fire, Math.max(0, left));
  };
  arm();
  return () => clearTimeout(timer);
}

/** `read` within `deadline` (ms since the epoch; none: however long it takes), or 'timeout'. */
function within<T>(read: Promise<T>, deadline: number | undefined): Promise<T | 'timeout'> {
  if (deadline === undefined) return read;
  let cancel = () => {};
  const timeout = new Promise<'timeout'>((done) => {
    cancel = atDeadline(deadline, () => done('timeout'));
  });
  return Promise.race([read, timeout]).finally(() => cancel());
}

export async function statusWait(ctx: Context): Promise<number> {
  const ns = ctx.namespace;
  const name = ctx.cmd.app!;
  // --timeout 0 waits without end, as kubectl's does. The time counts from the command's start:
  // an API server slow to answer the first read uses it up as well.
  const timeoutMs = ctx.cmd.timeoutMs || undefined;
  // Each message one line, as the plugin's other output: a condition's may hold line breaks.
  const say = (message: string) => ctx.err(`${oneLine(message)}\n`);
  const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
  // The App as it is now decides first: one already rolled out (or failed) needs no watch, however short the timeout.
  const current = await within(readApp(ctx.api, ns, name), deadline);
  if (current === 'timeout') {
    ctx.err(`timed out after ${durationText(timeoutMs!)} waiting for app ${ns}/${name}: the API server at ${ctx.api.connection.server} had not answered the first read of the App by then\n`);
    return EXIT_TIMEOUT;
  }
  const first = waitDecision(current);
  if (first.done) {
    ctx.out(formatStatus(current, ctx.now()));
    say(first.message);
    return first.code;
  }
  return new Promise<number>((done) => {
    let said = '';
    let cancelTimeout: (() => void) | undefined;
    let finished = false;
    const finish = (code: number, message: string) => {
      if (finished) return;
      finished = true;
      cancelTimeout?.();
      list.stop();
      say(message);
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
      if (decision.message !== said) say(decision.message);
      said = decision.message;
    };
    const list = liveList<CliApp>(ctx.api, `${appsPath(ns)}?fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`, check, (err) => {
      // Waiting needs list and watch as well as get: a refusal of those ends the wait, as an error.
      if (isRefusal(err)) finish(1, `error: cannot follow app ${ns}/${name}: ${err.message}`);
      else say(`watch: ${oneLine(err.message)} (retrying)`);
    }, () => {
      // The list of Apps answered 404: the App API itself is not served (the CRD deleted since the
      // App was read, or while the watch was down). No App can come of waiting: an error, now.
      finish(1, `error: ${APP_API_MISSING}`);
    });
    if (deadline !== undefined && !finished) cancelTimeout = atDeadline(deadline, () => finish(EXIT_TIMEOUT, `timed out after ${durationText(timeoutMs!)} waiting for ${said || first.message}`));
  });
}
