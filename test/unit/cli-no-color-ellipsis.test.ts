// With --no-color, NO_COLOR or an output that is not a terminal, colours and symbols are off
// (docs/api.md), yet `get --watch` ended every line it cut to the terminal's width in "…". It
// ends them in "..." then, and in "…" only with symbols on.
import { strict as assert } from 'node:assert';
import { get } from '../../cli/get.js';
import { frame } from '../../cli/screen.js';
import { fancyStyle, plainStyle } from '../../cli/style.js';
import { followedApp, followingContext } from '../support/cli-context.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('kubectl skiff get --watch: a line cut to the width', () => {
  it('ends in the style\'s ellipsis: "..." without symbols, "…" with them', () => {
    assert.equal(frame(['a very long line'], 8, 10, plainStyle.ellipsis), '\u001b[Ha ver...\u001b[K\u001b[J');
    assert.equal(frame(['a very long line'], 8, 10, fancyStyle.ellipsis), '\u001b[Ha very …\u001b[K\u001b[J');
  });

  it('with --no-color on a terminal: no "…" on the screen', async () => {
    const app = followedApp(1);
    const { ctx, out } = followingContext((path) => (path.endsWith('/apps/web') ? app : { metadata: { resourceVersion: '5' }, items: path.includes('/apps?') ? [app] : [] }), { command: 'get', watch: true, color: false });
    const narrow = { ...ctx, isTTY: true, columns: () => 12 };
    const running = get(narrow);
    await sleep(400);
    process.emit('SIGTERM');
    assert.equal(await running, 0);
    const screen = out.join('');
    assert.match(screen, /Replicas:\.\.\./);
    assert.doesNotMatch(screen, /…/);
  });
});
