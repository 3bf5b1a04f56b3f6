// `kubectl skiff promote|abort|retry` name the rollout they act on (the one they read), and write
// only while the App's rollout is still that revision's: a new pod template whose canary starts
// between the read and the write is refused, not promoted, aborted or retried in its place.
import { strict as assert } from 'node:assert';
import type { Api } from '../../cli/api.js';
import type { CommandLine } from '../../cli/args.js';
import { promoteOrAbort, retry, type Context } from '../../cli/commands.js';
import { CliError } from '../../cli/errors.js';
import type { CliApp } from '../../cli/model.js';
import { racingApi, rolling } from '../support/racing-api.js';
import { plainStyle } from '../../cli/style.js';

/** App shop/web whose canary of `revision` was aborted, at resourceVersion `rv`. */
const aborted = (revision: string, rv: string): CliApp => ({
  ...rolling(revision, `web:${revision}`, rv),
  status: { observedGeneration: 2, stableRevision: 'r1', stableImage: 'web:1', updateRevision: revision, abortedRevision: revision, abortedImage: `web:${revision}` },
});

/** The terminal's Context of `kubectl skiff COMMAND web -n shop`, what it prints kept in out. */
function terminal(api: Api, command: 'promote' | 'abort' | 'retry') {
  const out: string[] = [];
  const cmd = { command, app: 'web', allNamespaces: false, color: false, watch: false, wait: false } as CommandLine;
  const ctx: Context = { cmd, api, namespace: 'shop', style: plainStyle, out: (t) => out.push(t), err: () => {}, now: () => new Date(), isTTY: false, columns: () => 80, rows: () => 24 };
  return { ctx, out };
}

describe('kubectl skiff promote, abort and retry racing the App', () => {
  for (const command of ['promote', 'abort'] as const) {
    it(`${command}: a canary of a new revision after the read and before the write is refused, nothing written`, async () => {
      const { api, written } = racingApi(rolling('r3', 'web:3', '10'), (n) => (n === 1 ? rolling('r4', 'web:4', '11') : undefined));
      const { ctx } = terminal(api, command);
      const err = await promoteOrAbort(ctx).then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof CliError, String(err));
      assert.equal(err.message, "nothing done: the command read revision r3, and the App's rollout is revision r4 now; see kubectl skiff status web -n shop");
      assert.deepEqual(written, []);
    });
  }

  it('promote: only the status written meanwhile (the same canary) is promoted on the next read, guarded by its resourceVersion', async () => {
    let rv = 10;
    const { api, written } = racingApi(rolling('r3', 'web:3', '10'), (n) => (n <= 1 ? rolling('r3', 'web:3', String(++rv)) : undefined));
    const { ctx, out } = terminal(api, 'promote');
    assert.equal(await promoteOrAbort(ctx), 0);
    assert.deepEqual(written, [{ metadata: { annotations: { 'skiff.dev/promote': 'true' }, resourceVersion: '11' } }]);
    assert.deepEqual(out, ['app shop/web: promoting web:3\n']);
  });

  it('retry: another revision aborted after the read is not retried in its place', async () => {
    const { api, written } = racingApi(aborted('r3', '10'), (n) => (n === 1 ? aborted('r4', '11') : undefined));
    const { ctx } = terminal(api, 'retry');
    const err = await retry(ctx).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof CliError, String(err));
    assert.equal(err.message, "nothing done: the command read revision r3, and the App's aborted revision is revision r4 now; see kubectl skiff status web -n shop");
    assert.deepEqual(written, []);
  });
});
