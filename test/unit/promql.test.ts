// Custom analysis queries confined to the App's namespace: every vector selector of the parsed
// query gets namespace="<ns>", whatever expression it sits in; anything else on namespace, and
// anything that does not parse, is refused with where it is.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { parser } from '@prometheus-io/lezer-promql';
import { customQuery, customQueryProblem, placeholderValues } from '../../shared/custom-queries.js';
import { nestingDepth, operatorDepth } from '../../shared/promql-depth.js';
import { confineToNamespace, unquote } from '../../shared/promql.js';

const NS = 'namespace="shop"';
const confined = (query: string, namespace = 'shop') => {
  const c = confineToNamespace(query, namespace);
  assert.ok(c.ok, `${query}: ${c.ok ? '' : c.error}`);
  return c.query;
};
const refused = (query: string, namespace = 'shop') => {
  const c = confineToNamespace(query, namespace);
  assert.ok(!c.ok, `${query} was confined to ${c.ok ? c.query : ''}`);
  return c;
};

describe('confineToNamespace', () => {
  const cases: [string, string, string][] = [
    ['a bare metric name', 'up', `up{${NS}}`],
    ['a selector with matchers', 'http_requests_total{job="api",code!~"5.."}', `http_requests_total{${NS},job="api",code!~"5.."}`],
    ['empty braces', 'up{}', `up{${NS}}`],
    ['braces only', '{}', `{${NS}}`],
    ['a range vector', 'rate(http_requests_total{job="api"}[5m])', `rate(http_requests_total{${NS},job="api"}[5m])`],
    ['a subquery of a selector', 'max_over_time(rate(x[1m])[10m:30s])', `max_over_time(rate(x{${NS}}[1m])[10m:30s])`],
    ['a subquery of an expression', '(a + b)[5m:]', `(a{${NS}} + b{${NS}})[5m:]`],
    ['a binary operation with on() and group_left', 'a / on(job) group_left(instance) b', `a{${NS}} / on(job) group_left(instance) b{${NS}}`],
    ['set operators', 'a and on() b or c unless d', `a{${NS}} and on() b{${NS}} or c{${NS}} unless d{${NS}}`],
    ['an aggregation', 'sum by (job) (rate(x[5m]))', `sum by (job) (rate(x{${NS}}[5m]))`],
    ['an aggregation with a parameter', 'topk(3, x) + count_values("v", y)', `topk(3, x{${NS}}) + count_values("v", y{${NS}})`],
    ['a function of several vectors', 'histogram_quantile(0.9, sum by (le) (rate(h_bucket[5m]))) / clamp(a, 0, scalar(b))',
      `histogram_quantile(0.9, sum by (le) (rate(h_bucket{${NS}}[5m]))) / clamp(a{${NS}}, 0, scalar(b{${NS}}))`],
    ['label_replace, its strings untouched', 'label_replace(x, "dst", "$1", "src", "(.*)")', `label_replace(x{${NS}}, "dst", "$1", "src", "(.*)")`],
    ['offset', 'x offset 5m - x offset -1h', `x{${NS}} offset 5m - x{${NS}} offset -1h`],
    ['offset on a range', 'rate(x[5m] offset 1h)', `rate(x{${NS}}[5m] offset 1h)`],
    ['@ with a time and with start()', 'x @ 1700000000 + rate(y[5m] @ end())', `x{${NS}} @ 1700000000 + rate(y{${NS}}[5m] @ end())`],
    ['a __name__ selector', '{__name__="up"}', `{${NS},__name__="up"}`],
    ['a __name__ regex selector', 'count({__name__=~".+", job="a"})', `count({${NS},__name__=~".+", job="a"})`],
    ['a quoted metric name (Prometheus 3)', '{"my.metric"} + {"other.metric", a="b"}', `{"my.metric",${NS}} + {"other.metric",${NS}, a="b"}`],
    ['keywords and function names as metric names', 'sum + by + rate{a="b"}', `sum{${NS}} + by{${NS}} + rate{${NS},a="b"}`],
    ['a comment, even one holding a selector', 'x # {namespace="payments"}', `x{${NS}} # {namespace="payments"}`],
    ['a comment inside braces', 'x{a="b" # why\n}', `x{${NS},a="b" # why\n}`],
    ['a string holding a selector', 'label_replace(x, "a", "y{namespace=\\"payments\\"}", "b", "")', `label_replace(x{${NS}}, "a", "y{namespace=\\"payments\\"}", "b", "")`],
    ['spaces and new lines', 'sum(\n  rate( x [5m] )\n)', `sum(\n  rate( x{${NS}} [5m] )\n)`],
    ['no selector at all', '1 + time() * vector(2)', '1 + time() * vector(2)'],
    ['the same namespace already', 'x{job="a", namespace="shop"}', 'x{job="a", namespace="shop"}'],
    ['the same namespace, single-quoted, raw or quoted as a label name', "x{namespace='shop'} + y{namespace=`shop`} + z{\"namespace\"=\"shop\"}",
      "x{namespace='shop'} + y{namespace=`shop`} + z{\"namespace\"=\"shop\"}"],
    ['the same namespace written with escapes', 'x{namespace="sh\\x6fp"}', 'x{namespace="sh\\x6fp"}'],
    ['the same namespace on one side only', 'a{namespace="shop"} / b', `a{namespace="shop"} / b{${NS}}`],
  ];
  for (const [what, query, want] of cases) it(what, () => assert.equal(confined(query), want));

  it('escapes the namespace in its string literal', () => {
    assert.equal(confined('x', 'a"b\\c\nd'), 'x{namespace="a\\"b\\\\c\\nd"}');
    assert.equal(confined('x{namespace="a\\"b\\\\c\\nd"}', 'a"b\\c\nd'), 'x{namespace="a\\"b\\\\c\\nd"}');
  });

  describe('refuses any other matcher on namespace, naming it and where it is', () => {
    const others: [string, string][] = [
      ['x{namespace="payments"}', 'namespace="payments"'],
      ['x{namespace!="shop"}', 'namespace!="shop"'],
      ['x{namespace=~"shop"}', 'namespace=~"shop"'],
      ['x{namespace=~"pay.*"}', 'namespace=~"pay.*"'],
      ['x{namespace!~"shop"}', 'namespace!~"shop"'],
      ['x{namespace=""}', 'namespace=""'],
      ['a / b{job="x",namespace="payments"}', 'namespace="payments"'],
      ['x{"namespace"="payments"}', '"namespace"="payments"'],
      ['x{"name\\x73pace"="payments"}', '"name\\x73pace"="payments"'],
      ['x{namespace="shop",namespace="payments"}', 'namespace="payments"'],
    ];
    for (const [query, matcher] of others) {
      it(query, () => {
        const c = refused(query);
        assert.equal(c.ok || c.kind, 'namespace');
        const at = query.lastIndexOf(matcher) + 1;
        assert.equal(c.ok || c.error, `the matcher ${matcher} at character ${at} is not allowed: the query may read namespace "shop" only, and every selector gets ${NS}`);
      });
    }
  });

  describe('refuses a query that does not parse, saying where', () => {
    const broken: [string, string][] = [
      ['sum(rate(x[5m])', 'the query ends too soon at character 16, after "sum(rate(x[5m])"'],
      ['x +', 'the query ends too soon at character 4, after "x +"'],
      ['x{a="b"', 'the query ends too soon at character 8, after "x{a=\\"b\\""'],
      ['rate(x[5m]))', 'unexpected ")" at character 12'],
      ['RATE(x[5m])', 'unexpected "(" at character 5'],
      ['x{a="b",,}', 'unexpected "," at character 9'],
      ['on', 'unexpected "on" at character 1'],
      ['', 'it has no expression, only spaces or comments'],
      ['  # only a comment', 'it has no expression, only spaces or comments'],
      // Read differently by Prometheus's own lexer: refused, never guessed at.
      ['sum(up) # \r or sum(secret_total)', 'a carriage return at character 11 inside a comment (Prometheus ends the comment there; end comments with a line feed)'],
      ['vector(1) # x\r+ sum(secret_total)', 'a carriage return at character 14 inside a comment (Prometheus ends the comment there; end comments with a line feed)'],
      ['up{job="a\n}', 'the string "\\"a" at character 8 is not a complete string (its closing quote, a line feed inside it, or an escape)'],
      ['up{job="a\\q"}', 'the string "\\"a\\\\q\\"" at character 8 is not a complete string (its closing quote, a line feed inside it, or an escape)'],
      ['up\u00a0+ up', 'the space character U+00A0 at character 3 (Prometheus takes spaces, tabs and line breaks only)'],
      ['up +\u2028up', 'the space character U+2028 at character 5 (Prometheus takes spaces, tabs and line breaks only)'],
      ['up\u0085+ up', 'the space character U+0085 at character 3 (Prometheus takes spaces, tabs and line breaks only)'],
    ];
    for (const [query, message] of broken) {
      it(JSON.stringify(query), () => {
        const c = refused(query);
        assert.equal(c.ok || c.kind, 'syntax');
        assert.equal(c.ok || c.error, `does not parse as PromQL: ${message}`);
      });
    }
  });

  describe("refuses what Prometheus's parser refuses for its types, in its words (as promtool 2.42 says them)", () => {
    const wrong: [string, string][] = [
      ['rate(x)', 'expected type range vector in call to function "rate", got instant vector (at character 6)'],
      ['sum(x[5m])', 'expected type instant vector in aggregation expression, got range vector (at character 5)'],
      ['histogram_quantile(0.9, x[5m])', 'expected type instant vector in call to function "histogram_quantile", got range vector (at character 25)'],
      ['abs(1, 2)', 'expected 1 argument(s) in call to "abs", got 2 (at character 1)'],
      ['clamp(x, 0)', 'expected 3 argument(s) in call to "clamp", got 2 (at character 1)'],
      ['round(x, 1, 2)', 'expected at most 2 argument(s) in call to "round", got 3 (at character 1)'],
      ['label_join(x, "a")', 'expected at least 3 argument(s) in call to "label_join", got 2 (at character 1)'],
      ['topk(x, 3)', 'expected type instant vector in aggregation expression, got scalar (at character 9)'],
      ['topk(y, x)', 'expected type scalar in aggregation parameter, got instant vector (at character 6)'],
      ['count_values(1, x)', 'expected type string in aggregation parameter, got scalar (at character 14)'],
      ['x + "a"', 'binary expression must contain only scalar and instant vector types (at character 5)'],
      ['x[5m] + 1', 'binary expression must contain only scalar and instant vector types (at character 1)'],
      ['rate(x[5m])[1m]', 'ranges only allowed for vector selectors (at character 1)'],
      ['time()[5m:1m]', 'subquery is only allowed on instant vector, got scalar instead (at character 1)'],
      ['1 > 2', 'comparisons between scalars must use BOOL modifier (at character 1)'],
      ['x + bool x', 'bool modifier can only be used on comparison operators (at character 1)'],
      ['x and 1', 'set operator "and" not allowed in binary scalar expression (at character 1)'],
      ['x > on(a) 1', 'vector matching only allowed between instant vectors (at character 1)'],
      ['x and on(a) group_left y', 'no grouping allowed for "and" operation (at character 1)'],
      ['-"a"', 'unary expression only allowed on expressions of type scalar or instant vector, got "string" (at character 1)'],
      ['sum(x, y)', 'wrong number of arguments for aggregate expression provided, expected 1, got 2 (at character 1)'],
      // offset and @ belong to a selector or a subquery, once each (Prometheus's addOffset and setTimestamp).
      ['sum(x) offset 1h', 'offset modifier must be preceded by an instant vector selector or range vector selector or a subquery (at character 1)'],
      ['x + rate(y[5m]) offset 1h', 'offset modifier must be preceded by an instant vector selector or range vector selector or a subquery (at character 5)'],
      ['(x) offset 1m', 'offset modifier must be preceded by an instant vector selector or range vector selector or a subquery (at character 1)'],
      ['-sum(x) offset 1m', 'offset modifier must be preceded by an instant vector selector or range vector selector or a subquery (at character 2)'],
      ['1 offset 1m', 'offset modifier must be preceded by an instant vector selector or range vector selector or a subquery (at character 1)'],
      ['rate(x[5m]) @ 100', '@ modifier must be preceded by an instant vector selector or range vector selector or a subquery (at character 1)'],
      ['x offset 1m offset 2m', 'offset may not be set multiple times (at character 1)'],
      ['x offset 1m @ 5 offset 2m', 'offset may not be set multiple times (at character 1)'],
      ['x @ 1 @ 2', '@ <timestamp> may not be set multiple times (at character 1)'],
      // Prometheus takes the time in milliseconds as an int64 (setTimestamp).
      ['x @ NaN', 'timestamp out of bounds for @ modifier: NaN (at character 1)'],
      ['x @ -Inf', 'timestamp out of bounds for @ modifier: -Inf (at character 1)'],
      ['sum(x @ inf)', 'timestamp out of bounds for @ modifier: +Inf (at character 5)'],
      ['x @ 1e20', 'timestamp out of bounds for @ modifier: 100000000000000000000.000000 (at character 1)'],
      ['x @ 1e22', 'timestamp out of bounds for @ modifier: 10000000000000000000000.000000 (at character 1)'],
      // A metric name before the braces and a __name__ matcher in them, whatever its operator.
      ['sum(rate(http_errors_total{__name__="http_errors_total"}[1m]))', 'metric name must not be set twice: "http_errors_total" or "http_errors_total" (at character 10)'],
      ['x{__name__=~"y"}', 'metric name must not be set twice: "x" or "y" (at character 1)'],
      ['x{"__name__"!="y"}', 'metric name must not be set twice: "x" or "y" (at character 1)'],
      // Durations with units are more than zero, in ranges, subqueries and offsets.
      ['max_over_time(up{job="web"}[0s])', 'duration must be greater than 0 (at character 29)'],
      ['max_over_time(up[5m:0s])', 'duration must be greater than 0 (at character 21)'],
      ['max_over_time(up[0m:1s])', 'duration must be greater than 0 (at character 18)'],
      ['rate(x[1m] offset 0s)', 'duration must be greater than 0 (at character 19)'],
      ['x offset -0h0m', 'duration must be greater than 0 (at character 11)'],
      ['max_over_time(rate(x[0ms])[5m:1m])', 'duration must be greater than 0 (at character 22)'],
      // Without units (seconds, in Prometheus 3): zero neither.
      ['sum(rate(x[0]))', 'duration must be greater than 0 (at character 12)'],
      ['max_over_time(up[5m:0.0])', 'duration must be greater than 0 (at character 21)'],
      // Prometheus's lexer reads a number or a duration to the next character that is no letter, digit or underscore.
      ['sum(x) * 100or vector(0)', 'bad number or duration syntax: "100" at character 10 (a space missing before "o"?)'],
      ['sum(x) > 0.5and sum(y) > 1', 'bad number or duration syntax: "0.5" at character 10 (a space missing before "a"?)'],
      ['sum(x offset 5mor y)', 'bad number or duration syntax: "5m" at character 14 (a space missing before "o"?)'],
      // on(), not ignoring(): a label matched on cannot also be copied over.
      ['x + on(a) group_left(a) y', 'label "a" must not occur in ON and GROUP clause at once (at character 1)'],
      ['x / on(a, "b") group_right(c, b) y', 'label "b" must not occur in ON and GROUP clause at once (at character 1)'],
    ];
    for (const [query, message] of wrong) {
      it(query, () => assert.equal(refused(query).error, `does not parse as PromQL: ${message}`));
    }
    it('a regular expression RE2 cannot read: its parentheses or brackets unclosed, a backslash at its end', () => {
      assert.equal(refused('sum(rate(x{route=~"/api/(v1|v2"}[5m]))').error, 'does not parse as PromQL: error parsing regexp: missing closing ) in "/api/(v1|v2" (at character 12)');
      assert.equal(refused('x{a!~"b)"}').error, 'does not parse as PromQL: error parsing regexp: unexpected ) in "b)" (at character 3)');
      assert.equal(refused('x{a=~"[abc"}').error, 'does not parse as PromQL: error parsing regexp: missing closing ] in "[abc" (at character 3)');
      assert.equal(refused('x{a=~`b\\`}').error, 'does not parse as PromQL: error parsing regexp: trailing backslash at end of expression in "b\\\\" (at character 3)');
      // Perl's and JavaScript's habits RE2 refuses: lookarounds, backreferences, escapes it does not know.
      assert.equal(refused('sum(x{path=~"/api/(?!health).*"})').error, 'does not parse as PromQL: error parsing regexp: invalid or unsupported Perl syntax: `(?!` in "/api/(?!health).*" (at character 7)');
      assert.equal(refused('x{a=~"b(?=c)"}').error, 'does not parse as PromQL: error parsing regexp: invalid or unsupported Perl syntax: `(?=` in "b(?=c)" (at character 3)');
      assert.equal(refused('x{a=~"(?<=b)c"}').error, 'does not parse as PromQL: error parsing regexp: invalid or unsupported Perl syntax: `(?<=` in "(?<=b)c" (at character 3)');
      assert.equal(refused('x{a!~"(?<!b)c"}').error, 'does not parse as PromQL: error parsing regexp: invalid or unsupported Perl syntax: `(?<!` in "(?<!b)c" (at character 3)');
      assert.equal(refused('x{a=~`(b)\\1`}').error, 'does not parse as PromQL: error parsing regexp: invalid escape sequence: `\\1` in "(b)\\\\1" (at character 3)');
      assert.equal(refused('x{a=~`b\\Z`}').error, 'does not parse as PromQL: error parsing regexp: invalid escape sequence: `\\Z` in "b\\\\Z" (at character 3)');
      assert.equal(refused('x{a=~`\\u0041`}').error, 'does not parse as PromQL: error parsing regexp: invalid escape sequence: `\\u` in "\\\\u0041" (at character 3)');
      // Repetitions RE2 refuses: of nothing (a glob's *.example.com), of a repetition, counts over 1000 or reversed.
      const repetition = (re: string) => refused(`x{a=~"${re}"}`).error.replace(/^does not parse as PromQL: error parsing regexp: (.*) in .*$/, '$1');
      assert.equal(refused('sum(x{host=~"*.example.com"})').error, 'does not parse as PromQL: error parsing regexp: missing argument to repetition operator: `*` in "*.example.com" (at character 7)');
      assert.equal(repetition('b|+c'), 'missing argument to repetition operator: `+`');
      assert.equal(repetition('(?:*b)'), 'missing argument to repetition operator: `*`');
      assert.equal(repetition('(?P<n>?b)'), 'missing argument to repetition operator: `?`');
      assert.equal(repetition('{2}b'), 'missing argument to repetition operator: `{2}`');
      assert.equal(repetition('b**'), 'invalid nested repetition operator: `**`');
      assert.equal(repetition('b++'), 'invalid nested repetition operator: `++`');
      assert.equal(repetition('b*??'), 'invalid nested repetition operator: `*??`');
      assert.equal(repetition('b{2}*'), 'invalid nested repetition operator: `{2}*`');
      assert.equal(repetition('b{2,1}'), 'invalid repeat count: `{2,1}`');
      assert.equal(repetition('b{1001}'), 'invalid repeat count: `{1001}`');
      for (const re of ['b*?', 'b+?', 'b??', '(b*)*', '[*]+', '.*', 'b{2}', 'b{2,}?', 'b{0,1000}', 'b{,5}', 'b{01}', '{', 'b{x}', '(?i)b*', 'b*(?i)*', '(?P<n>b)+', 'b|c*']) confined(`x{a=~"${re}"}`);
      confined('x{a=~`\\Q*\\E*\\**`}');
      // RE2's own escapes, octal ones among them, named groups in both forms, and what a class or \Q...\E holds.
      for (const q of ['x{a=~`\\d\\D\\s\\S\\w\\W\\b\\B\\A\\z\\pL\\p{Greek}\\PN`}', 'x{a=~`\\0\\101\\x41\\x{263a}\\a\\f\\n\\r\\t\\v\\.\\-\\/`}', 'x{a=~"(?<n>b)(?P<m>c)"}', 'x{a=~`[(?=]`}', 'x{a=~`\\Q(?!\\1\\E`}', 'x{a=~`\\(?=`}']) confined(q);
      // RE2 reads these (flags, escapes, classes holding parentheses, \Q...\E, named groups, a lone ]).
      for (const q of ['x{a=~"(?i)get|post"}', 'x{a=~`\\(x`}', 'x{a=~"[()]"}', 'x{a=~"[]()]"}', 'x{a=~"[^]()]"}', 'x{a=~"[[:alpha:]()]+"}', 'x{a=~`\\Q(\\E`}', 'x{a=~"(?P<n>a)(?:b)"}', 'x{a=~"]"}', 'x{a=~`a\\\\`}', 'x{a="("}', 'x{a=~"[\\\\]()]"}']) confined(q);
    });

    it('takes what Prometheus takes: functions it may know that this check does not, optional arguments, bool comparisons', () => {
      for (const q of ['day_of_week()', 'round(x)', 'round(x, 5)', 'label_join(x, "a", ",", "b", "c", "d")', '1 > bool 2', 'x > on() 1', 'SUM(x)', 'topk(3, x)', 'count_values("v", x)',
        'histogram_quantile(0.9, sum by (le) (rate(x_bucket[5m])))', 'max_over_time(rate(x[5m])[30m:1m])', 'x offset 5m @ 100', 'scalar(x) + time()', 'double_exponential_smoothing(x[5m], 0.5, 0.5)',
        // A modifier binds tighter than any operator there: on y alone, on x under the minus.
        'x + y offset 1m', 'x / on() group_left y @ 100', '-x offset 5m', 'x ^ y offset 1m', 'x @ 1 offset 1m', 'x offset 1m @ start()',
        'rate(x[5m] offset 1m)', 'max_over_time(rate(x[5m])[30m:1m] offset 1h)', 'x offset 1m + y offset 2m', 'sum(x offset 1h)',
        // A name in braces only, durations that add up to more than zero, a bare number of seconds (Prometheus 3), ignoring() and group_left() of other labels.
        '{__name__="x"}', '{__name__=~"x|y", job="a"}', 'x[0m30s]', 'x[1h0m] offset 0m1s', 'x[5m:]', 'x[300]', 'x + ignoring(a) group_left(a) y', 'x + on(a) group_left(b) y']) confined(q);
    });
  });

  it('takes what both lexers read alike: a carriage return as a space or inside a string, any text in a comment ended by a line feed', () => {
    assert.equal(confined('up\r\n+ up'), `up{${NS}}\r\n+ up{${NS}}`);
    assert.equal(confined('up{job="a\rb"}'), `up{${NS},job="a\rb"}`);
    assert.equal(confined('up # a\u00a0comment\u2028 and more\n+ up'), `up{${NS}} # a\u00a0comment\u2028 and more\n+ up{${NS}}`);
    assert.equal(confined('up{job="\u00a0"}'), `up{${NS},job="\u00a0"}`);
  });

  it('a query nested deeper than the stack reaches is refused as such, never thrown (a webhook answers 200, not 500)', () => {
    // The grammar's parser builds its tree recursively: a small stack stands in for one a long
    // admission has already used up.
    const script = `import('${new URL('../../shared/custom-queries.js', import.meta.url).href}').then((m) => {
      const r = m.customQuery('up + '.repeat(800) + 'up', m.placeholderValues('shop', 'web', '1m'));
      process.stdout.write(JSON.stringify(r));
    })`;
    const run = spawnSync(process.execPath, ['--stack-size=60', '-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { ok: false, kind: 'syntax', error: 'is nested too deeply to be checked; write it with fewer levels of parentheses and operators' });
  });

  it('refuses info(), which selects info series of any namespace beside its argument', () => {
    const c = refused('sum(info(up, {k8s_cluster_name=~".+"}))');
    assert.equal(c.ok || c.kind, 'unconfinable');
    assert.match(c.ok ? '' : c.error, /^info\(\) at character 5 is not allowed: it reads info series/);
    assert.equal(confined('info + rate(info[5m])'), `info{${NS}} + rate(info{${NS}}[5m])`); // a metric named info is a selector
  });

  it('refuses an empty namespace (namespace="" would match series without the label)', () => {
    assert.equal(refused('x', '').kind, 'namespace');
  });
});

describe('custom queries: placeholders filled, then confined', () => {
  const values = placeholderValues('shop', 'web', '30s');

  it('keeps a {{namespace}} matcher and adds one where there is none', () => {
    assert.deepEqual(customQuery('sum(rate(x{namespace="{{namespace}}",app="{{app}}"}[{{interval}}])) / sum(rate(y{service="{{canaryService}}"}[{{interval}}]))', values), {
      ok: true,
      query: 'sum(rate(x{namespace="shop",app="web"}[30s])) / sum(rate(y{namespace="shop",service="web-canary"}[30s]))',
      type: 'instant vector',
    });
  });

  it('points into the query as written, placeholders and all', () => {
    const template = 'rate(x{namespace="{{namespace}}"}[{{interval}}]) / y{namespace="payments"}';
    const c = customQuery(template, values);
    assert.equal(c.ok || c.error.match(/at character (\d+)/)?.[1], String(template.indexOf('namespace="payments"') + 1));
    const broken = 'rate(x{app="{{app}}"}[{{interval}}])) ';
    const d = customQuery(broken, values);
    assert.equal(d.ok || d.error, `does not parse as PromQL: unexpected ")" at character ${broken.indexOf('))') + 2}`);
  });

  it('refuses a query that gives a string or a range vector: a check needs one number', () => {
    for (const [template, type] of [['x{app="{{app}}"}[{{interval}}]', 'range vector'], ['"{{app}}"', 'string']]) {
      const c = customQuery(template, values);
      assert.equal(c.ok || c.error, `gives a ${type}; an analysis query must give an instant vector or a scalar (one number to hold to its bounds)`);
    }
    assert.equal(customQuery('scalar(sum(x))', values).ok, true);
  });

  it('refuses a query nested more than 64 levels deep before parsing it; strings and comments do not count', () => {
    const nested = (n: number) => 'sum('.repeat(n) + 'x' + ')'.repeat(n);
    assert.equal(customQuery(nested(64), values).ok, true);
    const c = customQuery(nested(819), values);
    assert.deepEqual(c, { ok: false, kind: 'syntax', error: 'is nested 819 levels deep (parentheses, brackets and braces); at most 64 are allowed' });
    assert.equal(nestingDepth('sum(rate(x{a="((((", b=`[[[`, c=\'{{{\'}[5m])) # ((((((\n+ y'), 3);
    assert.equal(nestingDepth('x{a="\\"("}'), 1); // an escaped quote does not end the string
    assert.equal(nestingDepth(')))x((('), 3); // stray closers do not go below zero
    assert.match(customQueryProblem(nested(65), { namespace: 'shop', name: 'web', interval: '30s' }) ?? '', /^is nested 65 levels deep/);
  });

  it('refuses more than 100 binary operations chained one into the next, with or without brackets, before the grammar gives up on them', () => {
    const chain = (n: number, op: string) => Array.from({ length: n + 1 }, () => 'x').join(op);
    assert.equal(customQuery(chain(100, ' ^ '), values).ok, true);
    assert.equal(customQuery(`(${chain(50, ' + ')}) / (${chain(49, ' + ')})`, values).ok, true); // side by side: 51 deep
    for (const [query, chained] of [[chain(101, ' ^ '), 101], [chain(800, '+'), 800], [`x * (x - (${chain(99, ' or ')}))`, 101]] as const) {
      assert.deepEqual(customQuery(query, values), { ok: false, kind: 'syntax', error: `chains ${chained} binary operations, each an operand of the next (a + b + c is two); at most 100 are allowed` });
    }
    assert.equal(operatorDepth(parser.parse('sum(a + b) * on(x) group_left c').topNode), 2);
  });

  it('answers a repeated question from memory, with the same answer, for each set of values', () => {
    const template = 'sum(rate(x{service="{{canaryService}}"}[{{interval}}]))';
    const first = customQuery(template, values);
    assert.equal(customQuery(template, values), first);
    const preview = customQuery(template, { ...values, canaryService: 'web-preview' });
    assert.equal(preview.ok && preview.query, 'sum(rate(x{namespace="shop",service="web-preview"}[30s]))');
    assert.equal(customQuery(template, placeholderValues('other', 'web', '30s')).ok && 'ok', 'ok');
    assert.notEqual(customQuery(template, placeholderValues('other', 'web', '30s')), first);
  });

  it('a value filled into a namespace matcher other than = is still refused', () => {
    assert.equal(customQuery('x{namespace=~"{{namespace}}|payments"}', values).ok, false);
  });
});

describe('unquote (PromQL string literals as Prometheus reads them)', () => {
  const cases: [string, string | undefined][] = [
    ['"shop"', 'shop'], ["'shop'", 'shop'], ['`sh\\op`', 'sh\\op'],
    ['"a\\"b\\\\c\\n"', 'a"b\\c\n'], ["'it\\'s'", "it's"], ['"\\x73\\163\\u0073\\U00000073"', 'ssss'], ['"\\xc3\\xa9"', 'é'],
    ['"é😀ࠀ"', 'é😀ࠀ'], ['"\\u00e9\\U0001F600"', 'é😀'], ['"\\xc3é"', undefined],
    ['"a\\\'"', undefined], ['"\\q"', undefined], ['"\\x7"', undefined], ['"\\xff"', undefined], ['"\\ud800"', undefined], ['"a', undefined], ['"a"b"', undefined],
  ];
  for (const [literal, want] of cases) it(`${literal} → ${JSON.stringify(want)}`, () => assert.equal(unquote(literal), want));

  it('reads back any well-formed text written as a JSON string (whose escapes are all Go escapes too)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
      assert.equal(unquote(JSON.stringify(text)), text);
    }), { seed: 25, numRuns: 2000 });
  });
});

// --- Property: for random queries built from the grammar's constructs and random namespace
// strings, the confined query parses and every selector in it has a namespace matcher, all of
// them = the namespace; confining again changes nothing.

const metric = fc.constantFrom('up', 'http_requests_total', 'a:b:rate5m', 'sum', 'rate');
const label = fc.constantFrom('job', 'le', 'code', '__name__');
const op = fc.constantFrom('=', '!=', '=~', '!~');
const value = fc.string({ maxLength: 6 }).map((s) => JSON.stringify(s));
// A regular expression Prometheus takes: no random parentheses, brackets, backslashes or
// repetition operators in one (RE2 refuses "?" or "a**" as it refuses "(").
const matchers = fc.array(fc.tuple(label, op, value).filter(([, o, v]) => !o.includes('~') || !/[()[\]\\*+?{]/.test(v)).map(([l, o, v]) => `${l}${o}${v}`), { maxLength: 3 });
const sameNamespace = (ns: string) => `namespace="${ns.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}"`;

const selectorOf = (ns: string) => fc.tuple(fc.option(metric, { nil: undefined }), matchers, fc.boolean(), fc.boolean()).map(([name, ms, braces, withNs]) => {
  const all = withNs ? [...ms, sameNamespace(ns)] : ms;
  if (name === undefined) return `{${all.length ? all.join(',') : 'job="x"'}}`;
  // A name before the braces and a __name__ matcher in them: Prometheus refuses that selector.
  const named = all.filter((m) => !m.startsWith('__name__'));
  return named.length || braces ? `${name}{${named.join(', ')}}` : name;
});

// Queries Prometheus's parser takes: instant vectors built of selectors, rates, operators,
// aggregations and functions, subqueries (range vectors) only where a range vector goes.
const queryOf = (ns: string) => fc.letrec<{ expr: string; range: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    selectorOf(ns),
    fc.tuple(selectorOf(ns), fc.constantFrom('1m', '5m')).map(([s, d]) => `rate(${s}[${d}])`),
    fc.tuple(tie('expr'), fc.constantFrom('+', '/'), fc.constantFrom('', ' on(job) ', ' ignoring(le) group_left() '), tie('expr'))
      .map(([a, o, m, b]) => `${a}${o}${m}${b}`),
    fc.tuple(tie('expr'), fc.constantFrom(' and ', ' or ', ' unless '), fc.constantFrom('', 'on(job) ', 'ignoring(le) '), tie('expr'))
      .map(([a, o, m, b]) => `${a}${o}${m}${b}`),
    fc.tuple(fc.constantFrom('sum', 'max', 'count'), fc.constantFrom('', ' by (job)', ' without (le)'), tie('expr')).map(([agg, by, e]) => `${agg}${by} (${e})`),
    tie('range').map((r) => `max_over_time(${r})`),
    // offset and @ on a subquery (Prometheus refuses them on a parenthesis or an operation).
    // One evaluation each ([5m:5m]): subqueries nest to any depth here, and the evaluations of
    // nested ones multiply, which the webhook bounds (promql-cost.ts) apart from confinement.
    fc.tuple(tie('expr'), fc.constantFrom(' offset 5m', ' @ 1700000000', ' @ start()', ' @ end() offset 1m')).map(([e, m]) => `max_over_time((${e})[5m:5m]${m})`),
    fc.tuple(selectorOf(ns), fc.constantFrom(' offset 5m', ' @ 1700000000', ' offset -1m @ start()')).map(([sel, m]) => `${sel}${m}`),
    tie('expr').map((e) => `(${e}) # note\n`),
    fc.tuple(tie('expr'), tie('expr')).map(([a, b]) => `clamp_min(${a}, scalar(${b}))`),
  ),
  range: tie('expr').map((e) => `(${e})[5m:5m]`),
})).expr;

/** Every vector selector's namespace matchers as [operator, decoded value], by an independent walk. */
function namespaceMatchersPerSelector(query: string): [string, string | undefined][][] {
  const tree = parser.parse(query);
  const out: [string, string | undefined][][] = [];
  let broken = false;
  tree.iterate({
    enter: (n) => {
      if (n.type.isError) broken = true;
      if (n.name !== 'VectorSelector') return;
      const found: [string, string | undefined][] = [];
      const braces = n.node.getChild('LabelMatchers');
      for (let m = braces?.firstChild; m; m = m.nextSibling) {
        const name = m.getChild('LabelName') ?? m.getChild('QuotedLabelName');
        const text = (x: { from: number; to: number } | null) => (x ? query.slice(x.from, x.to) : '');
        const labelName = name?.name === 'QuotedLabelName' ? unquote(text(name.getChild('StringLiteral'))) : text(name);
        if (labelName === 'namespace') found.push([text(m.getChild('MatchOp')), unquote(text(m.getChild('StringLiteral')))]);
      }
      out.push(found);
    },
  });
  assert.ok(!broken, `does not parse: ${query}`);
  return out;
}

describe('confineToNamespace (fast-check)', () => {
  it('puts namespace="<ns>" in every selector, and only that, for any query and any namespace', () => {
    const namespace = fc.oneof(fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/), fc.string({ minLength: 1, maxLength: 8, unit: 'binary' }));
    fc.assert(fc.property(namespace.chain((ns) => fc.tuple(fc.constant(ns), queryOf(ns))), ([ns, query]) => {
      const c = confineToNamespace(query, ns);
      assert.ok(c.ok, `${query}: ${c.ok ? '' : c.error}`);
      const before = namespaceMatchersPerSelector(query);
      const after = namespaceMatchersPerSelector(c.query);
      assert.equal(after.length, before.length, 'as many selectors as before');
      after.forEach((found, i) => {
        assert.ok(found.length >= 1, `selector ${i} of ${c.query} has a namespace matcher`);
        // A matcher the query had already is kept; none is added next to it.
        assert.equal(found.length, Math.max(1, before[i].length), `selector ${i} of ${c.query}`);
        for (const m of found) assert.deepEqual(m, ['=', ns]);
      });
      assert.deepEqual(confineToNamespace(c.query, ns), c, 'confining again changes nothing');
    }), { seed: 19, numRuns: 1500 });
  });
});
