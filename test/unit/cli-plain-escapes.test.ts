// Plain output (--no-color, NO_COLOR, or not a terminal) holds no terminal escape sequence at all:
// a message from the cluster (a condition's, an analysis check's, a history entry's CHANGES) may
// carry colours, cursor moves or a window title, and in a log, a pipe or a script they are noise
// or worse. Fancy output keeps the plugin's own colours, and nothing else that moves the cursor or
// changes the terminal's state.
import { strict as assert } from 'node:assert';
import { formatGet } from '../../cli/format-get.js';
import { formatHistory } from '../../cli/format-list.js';
import { formatStatus } from '../../cli/format-status.js';
import type { CliApp } from '../../cli/model.js';
import { fancyStyle, oneLine, plainStyle } from '../../cli/style.js';
import { statusWait } from '../../cli/wait.js';
import { appFixture } from '../support/app-fixture.js';
import { followingContext } from '../support/cli-context.js';

const now = new Date('2026-11-22T12:00:00Z');
const RED = '\u001b[31m';
const RESET = '\u001b[0m';
// A terminal reset, a colour, a window title (OSC ended by BEL), clear screen, a cursor move, an
// 8-bit CSI colour and a hyperlink (OSC 8, ended by ST): what shows is only "bad query failed: link".
const hostile = `\u001bc${RED}bad${RESET} \u001b]0;owned\u0007\u001b[2J\u001b[10;1Hquery \u009b31mfailed: \u001b]8;;http://x\u001b\\link\u001b]8;;\u001b\\`;
const shown = 'bad query failed: link';
/** Any ESC, or any C1 control (8-bit CSI, OSC, ST...). */
const ANY_ESCAPE = /[\u001b\u0080-\u009f]/;
/** An escape sequence other than an SGR colour: what fancy output must not hold either. */
const NOT_SGR = /\u001b(?!\[[0-9;]*m)|[\u0080-\u009f]/;

const app = appFixture({
  metadata: { generation: 1, creationTimestamp: '2026-11-22T11:00:00Z' },
  spec: { rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }], analysis: { interval: '10s' } } },
  status: {
    observedGeneration: 1, stableImage: 'web:1',
    canary: { image: 'web:2', weight: 20, stepIndex: 0, stepStartedAt: '2026-11-22T11:59:00Z', analysis: { checks: 1, failures: 1, lastResult: 'Failed', metrics: [{ name: 'error-rate', result: 'Failed', message: hostile }] } },
    conditions: [{ type: 'Degraded', status: 'True', reason: 'AnalysisFailed', message: hostile, lastTransitionTime: '2026-11-22T11:59:00Z' }],
  },
}) as CliApp;
const view = { app, revisions: [], deployments: [], services: [], ingresses: [], routes: [] };
const revision = { number: 1, hash: 'aaaaaaaaaa', images: ['web:1'], changes: [hostile], outcome: 'Promoted', startedAt: '2026-11-22T11:00:00Z' };
const history = (style: typeof plainStyle) => formatHistory(app, [revision] as unknown as Parameters<typeof formatHistory>[1], { now, style });

describe('kubectl skiff: terminal escape sequences from the cluster', () => {
  it('oneLine: plain removes every sequence whole, fancy keeps colours only', () => {
    assert.equal(oneLine(hostile), shown);
    assert.equal(oneLine(hostile, plainStyle), shown);
    assert.equal(oneLine(`${RED}x${RESET}`), 'x');
    assert.equal(oneLine('a\u001b'), 'a', 'a lone ESC at the end');
    assert.equal(oneLine(hostile, fancyStyle), `${RED}bad${RESET} query failed: link`);
    assert.equal(oneLine(fancyStyle.status('Degraded'), fancyStyle), fancyStyle.status('Degraded'));
  });

  it('get, status and history in plain output: no escape sequence, the text kept', () => {
    const outputs = { get: formatGet(view, now, plainStyle).join('\n'), status: formatStatus(app, now), history: history(plainStyle).join('\n') };
    for (const [command, text] of Object.entries(outputs)) {
      assert.doesNotMatch(text, ANY_ESCAPE, `${command}: ${JSON.stringify(text)}`);
      assert.ok(text.includes(shown), `${command}: ${text}`);
    }
  });

  it('get and history in fancy output: the plugin\'s colours, no other sequence', () => {
    const get = formatGet(view, now, fancyStyle).join('\n');
    assert.ok(get.includes(fancyStyle.status('Degraded')), get);
    const historyText = history(fancyStyle).join('\n');
    assert.ok(historyText.includes(fancyStyle.role('Promoted', undefined)));
    for (const text of [get, historyText]) {
      assert.doesNotMatch(text, NOT_SGR, JSON.stringify(text));
      // Removed whole: no remnant of a sequence ("[2J", "]0;owned") shows.
      assert.ok(text.replace(/\u001b\[[0-9;]*m/g, '').includes(shown), JSON.stringify(text));
    }
  });

  it('status --wait: the message it ends on holds none', async () => {
    const { ctx, err } = followingContext(() => app, { command: 'status', wait: true });
    assert.equal(await statusWait(ctx), 1);
    assert.deepEqual(err, [`app shop/web: Degraded (AnalysisFailed): ${shown}\n`]);
  });
});
