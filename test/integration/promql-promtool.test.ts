// Admission's reading of PromQL against Prometheus's own: a corpus of queries built from every
// function the type check knows, aggregations, operators and modifiers over operands of every
// type, judged by promtool (Prometheus 2.42's parser, installed for the analysis tests) and by
// confineToNamespace. Nothing promtool takes may be refused, and a query refused for its types
// must be one promtool refuses too.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensurePrometheus } from '../../dev/prometheus.js';
import { confineToNamespace } from '../../shared/promql.js';

const OPERANDS = ['x', 'x[5m]', '1', '"s"', 'rate(x[5m])', 'sum(x)', 'x offset 1m', '(x)', 'time()', 'vector(1)', 'x[5m:1m]', 'scalar(x)', '-x', '(1)'];
const FUNCTIONS = ['abs', 'rate', 'round', 'clamp', 'clamp_max', 'histogram_quantile', 'quantile_over_time', 'label_replace', 'label_join', 'vector', 'scalar', 'time',
  'day_of_week', 'predict_linear', 'absent', 'absent_over_time', 'sort', 'timestamp', 'histogram_fraction', 'deriv', 'changes', 'sgn', 'pi', 'sort_desc', 'increase'];
const AGGREGATIONS = ['sum', 'topk', 'count_values', 'quantile', 'avg', 'bottomk'];
const OPERATORS = ['+', '>', '> bool', 'and', 'or', '/', '== bool', 'unless', '+ on(a)', '* ignoring(b) group_left', '^', '!= on() group_right'];

function corpus(): string[] {
  const out = new Set<string>();
  for (const f of FUNCTIONS) {
    out.add(`${f}()`);
    for (const a of OPERANDS) {
      out.add(`${f}(${a})`);
      for (const b of OPERANDS.slice(0, 6)) out.add(`${f}(${a}, ${b})`);
    }
    out.add(`${f}(x, "a", "b", "c", "d")`).add(`${f}(x[5m], 1, 2)`).add(`${f}(1, 2, x)`);
  }
  for (const g of AGGREGATIONS) for (const a of OPERANDS) out.add(`${g}(${a})`).add(`${g}(${a}, x)`).add(`${g} by (a) (1, ${a})`);
  for (const o of OPERATORS) for (const a of OPERANDS) for (const b of OPERANDS.slice(0, 8)) out.add(`${a} ${o} ${b}`);
  for (const a of OPERANDS) out.add(`-${a}`).add(`(${a})[5m]`).add(`${a}[5m:1m]`).add(`${a} offset 5m`).add(`${a} @ 100`);
  // The time after @, in seconds: Prometheus refuses ±Inf, NaN and what is beyond an int64.
  for (const t of ['NaN', '-Inf', '+Inf', 'inf', '1e20', '9e18', '9.3e18', '-9.3e18', '1.5', '-100', '0x10', 'start()', 'end()']) out.add(`x @ ${t}`).add(`rate(x[5m] @ ${t})`);
  // A number or duration and the word after it, spaced as Prometheus's lexer needs them.
  for (const [a, b] of RUN_TOGETHER) out.add(`${a} ${b}`);
  return [...out];
}

/** Queries whose number or duration runs into the word after it: taken apart by a space in the corpus, refused as written. */
const RUN_TOGETHER = ['sum(x) * 100', 'sum(x) > 0.5', 'x * 1e3', 'x * 0x1f', 'sum(x offset 5m', 'rate(x[5m] offset 1h30m', 'sum(x) > .5']
  .flatMap((a) => ['or', 'and', 'unless'].map((w) => [a, `${w} vector(0)${a.includes('(x offset') || a.includes('offset 1h') ? ')' : ''}`] as const));

/** The indexes of the rules promtool refuses in a file of one rule per query, with its words. */
async function promtoolRefusals(promtool: string, queries: string[]): Promise<Map<number, string>> {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-promql-'));
  try {
    const file = join(dir, 'rules.yaml');
    writeFileSync(file, `groups:\n- name: g\n  rules:\n${queries.map((q, i) => `  - record: r${i}\n    expr: ${JSON.stringify(q)}\n`).join('')}`);
    const output = await new Promise<string>((done) => execFile(promtool, ['check', 'rules', file], { maxBuffer: 64 << 20 }, (_err, stdout, stderr) => done(`${stdout}${stderr}`)));
    const refused = new Map<number, string>();
    for (const m of output.matchAll(/rule (\d+), "r\d+": (.*)/g)) refused.set(Number(m[1]) - 1, m[2]);
    assert.ok(refused.size > 0 || /SUCCESS/.test(output), output.slice(0, 2000));
    return refused;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('PromQL types: admission against promtool', function () {
  this.timeout(180_000);

  it('refuses no query promtool takes, and only queries it refuses for their types', async () => {
    const promtool = join(dirname(await ensurePrometheus()), 'promtool');
    const queries = corpus();
    const refused = await promtoolRefusals(promtool, queries);
    const wrong: string[] = [];
    let typeRefusals = 0;
    queries.forEach((q, i) => {
      const ours = confineToNamespace(q, 'shop');
      const theirs = refused.get(i);
      if (theirs === undefined && !ours.ok) wrong.push(`refused what promtool takes: ${q}: ${ours.error}`);
      if (!ours.ok && ours.kind === 'syntax' && !/unexpected|missing|ends too soon/.test(ours.error)) {
        typeRefusals++;
        if (theirs === undefined) wrong.push(`refused for its types, taken by promtool: ${q}`);
      }
    });
    assert.deepEqual(wrong, []);
    assert.ok(queries.length > 3000 && typeRefusals > 1000, `${queries.length} queries, ${typeRefusals} refused for their types`);
  });

  it('refuses a number or duration run into the word after it, as promtool does (else every check of the metric would be a query error)', async () => {
    const promtool = join(dirname(await ensurePrometheus()), 'promtool');
    const queries = RUN_TOGETHER.map(([a, b]) => `${a}${b}`);
    const refused = await promtoolRefusals(promtool, queries);
    const disagree = queries.flatMap((q, i) => {
      const ours = confineToNamespace(q, 'shop');
      return refused.has(i) && !ours.ok ? [] : [`${q}: promtool ${refused.get(i) ?? 'takes it'}; admission ${ours.ok ? 'takes it' : ours.error}`];
    });
    assert.deepEqual(disagree, []);
  });
});
