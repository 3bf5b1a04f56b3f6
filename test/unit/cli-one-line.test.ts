// Every line the plugin prints is one line: a condition's message may hold line breaks (an
// analysis error from Prometheus, an InvalidSpec listing several fields), and `get --watch`
// redraws the screen by counting lines, so one message spanning several moved everything below it
// and left stale text on the screen.
import { strict as assert } from 'node:assert';
import { formatGet } from '../../cli/format-get.js';
import { formatHistory, formatList } from '../../cli/format-list.js';
import { formatStatus } from '../../cli/format-status.js';
import type { CliApp } from '../../cli/model.js';
import { frame } from '../../cli/screen.js';
import { fancyStyle, oneLine, plainStyle } from '../../cli/style.js';
import { statusWait } from '../../cli/wait.js';
import { appFixture } from '../support/app-fixture.js';
import { followingContext } from '../support/cli-context.js';

const now = new Date('2026-11-22T12:00:00Z');
const prometheus = 'query failed: Prometheus answered HTTP 422:\n  parse error at char 7:\r\n\tunexpected "}"\n\n';
const app = appFixture({
  metadata: { generation: 1, creationTimestamp: '2026-11-22T11:00:00Z' },
  spec: { rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }], analysis: { interval: '10s' } } },
  status: {
    observedGeneration: 1, stableImage: 'web:1',
    canary: { image: 'web:2', weight: 20, stepIndex: 0, stepStartedAt: '2026-11-22T11:59:00Z', analysis: { checks: 1, failures: 1, lastResult: 'Inconclusive', metrics: [{ name: 'error-rate', result: 'Inconclusive', message: prometheus }] } },
    conditions: [{ type: 'Degraded', status: 'True', reason: 'InvalidSpec', message: 'spec.port: must be 1..65535\nspec.replicas: must be >= 0', lastTransitionTime: '2026-11-22T11:59:00Z' }],
  },
}) as CliApp;
const view = { app, revisions: [], deployments: [], services: [], ingresses: [], routes: [] };

describe('kubectl skiff: every printed message on one line', () => {
  it('line breaks become " | ", tabs and other control characters a space; a Style\'s colours stay in fancy output', () => {
    assert.equal(oneLine('a\nb\r\nc \n\n  d'), 'a | b | c | d');
    assert.equal(oneLine('a\tb\u0007c\u001b]0;title\u0007'), 'a b c');
    assert.equal(oneLine('\u001b[32m✔ 3\u001b[0m', fancyStyle), '\u001b[32m✔ 3\u001b[0m');
  });

  it('get: a multi-line Degraded message is one line, and a --watch frame has one screen line per line', () => {
    for (const style of [plainStyle, fancyStyle]) {
      const lines = formatGet(view, now, style);
      assert.ok(lines.every((l) => !/[\n\r\t]/.test(l)), lines.join('\n'));
      assert.ok(lines.includes('Message:  InvalidSpec: spec.port: must be 1..65535 | spec.replicas: must be >= 0'), lines.join('\n'));
      assert.equal(frame(lines, 200, 50).split('\r\n').length, lines.length);
    }
  });

  it('status: conditions and the metrics of the last check each on one line', () => {
    const text = formatStatus(app, now);
    assert.match(text, /^ {2}Degraded +True +InvalidSpec +spec\.port: must be 1\.\.65535 \| spec\.replicas: must be >= 0$/m);
    assert.match(text, /^ {2}error-rate .*Inconclusive +query failed: Prometheus answered HTTP 422: \| parse error at char 7: \| unexpected "}"$/m);
    assert.equal(text.split('\n').filter((l) => l.startsWith('  ')).length, 2, text);
  });

  it('list and history: one row per App and per revision', () => {
    assert.equal(formatList([app], { allNamespaces: false, now, style: plainStyle }).length, 2);
    const revision = { number: 1, hash: 'aaaaaaaaaa', images: ['web:1'], changes: ['env MODE\nimage'], outcome: 'Promoted', startedAt: '2026-11-22T11:00:00Z' };
    const rows = formatHistory(app, [revision] as unknown as Parameters<typeof formatHistory>[1], { now, style: plainStyle });
    assert.deepEqual(rows.length, 2);
    assert.match(rows[1]!, /env MODE \| image/);
  });
});

describe('kubectl skiff status --wait: its messages on one line', () => {
  it('a Degraded message with line breaks ends the wait on one stderr line', async () => {
    const { ctx, err } = followingContext(() => app, { command: 'status', wait: true });
    assert.equal(await statusWait(ctx), 1);
    assert.deepEqual(err, ['app shop/web: Degraded (InvalidSpec): spec.port: must be 1..65535 | spec.replicas: must be >= 0\n']);
  });
});

describe('kubectl skiff: line breaks at the ends of a message', () => {
  it('go, with the spaces around them; only inner ones become " | "', () => {
    assert.equal(oneLine('Prometheus error: bad\n'), 'Prometheus error: bad');
    assert.equal(oneLine('\r\n  Prometheus error: \n bad \n\n'), 'Prometheus error: | bad');
    assert.equal(oneLine(' \n '), '');
  });

  const broken = appFixture({
    metadata: { generation: 1 },
    status: {
      observedGeneration: 1, stableImage: 'web:1',
      conditions: [{ type: 'Degraded', status: 'True', reason: 'AnalysisFailed', message: '\nPrometheus error: bad\n', lastTransitionTime: '2026-11-22T11:59:00Z' }],
    },
  }) as CliApp;

  it('get, status and status --wait: a condition message that begins and ends with one', async () => {
    assert.ok(formatGet({ ...view, app: broken }, now, plainStyle).includes('Message:  AnalysisFailed: Prometheus error: bad'));
    assert.match(formatStatus(broken, now), /^ {2}Degraded +True +AnalysisFailed +Prometheus error: bad$/m);
    const { ctx, err } = followingContext(() => broken, { command: 'status', wait: true });
    assert.equal(await statusWait(ctx), 1);
    assert.deepEqual(err, ['app shop/web: Degraded (AnalysisFailed): Prometheus error: bad\n']);
  });

  it('history: a CHANGES cell', () => {
    const revision = { number: 1, hash: 'aaaaaaaaaa', images: ['web:1'], changes: ['\nimage\n'], outcome: 'Promoted', startedAt: '2026-11-22T11:00:00Z' };
    const rows = formatHistory(app, [revision] as unknown as Parameters<typeof formatHistory>[1], { now, style: plainStyle });
    assert.match(rows[1]!, /aaaaaaaaaa +web:1 +image +Promoted/);
  });
});
