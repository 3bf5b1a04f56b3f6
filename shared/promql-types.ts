// The types of a PromQL expression, checked as Prometheus's parser checks them after reading the
// syntax (its checkAST): the arguments of functions and aggregations, what a range or a subquery
// may follow, which operands a binary or unary operator takes. The grammar used here
// (@prometheus-io/lezer-promql) reads only the syntax, so `rate(x)` parses; Prometheus refuses it
// with "expected type range vector in call to function "rate", got instant vector", and every
// check of the App would be inconclusive. The same goes for the other rules its parser holds a
// query to beyond the grammar: a metric name given twice, a zero duration, a label both in `on`
// and in `group_left`/`group_right`. Only rules that hold in Prometheus 2 and 3 alike are
// checked, and a function not in the table below is taken as it comes: nothing Prometheus accepts
// is refused here. Pure: no I/O.
import type { parser } from '@prometheus-io/lezer-promql';
import { durationSeconds } from './promql-cost.js';
import { unquote } from './promql-unquote.js';

type Node = ReturnType<typeof parser.parse>['topNode'];

/** Prometheus's value types, named as its messages name them; `any` where this check cannot tell. */
export type PromType = 'scalar' | 'string' | 'instant vector' | 'range vector' | 'any';

export interface TypeProblem {
  message: string;
  from: number;
  to: number;
}

const S = 'scalar' as const;
const STR = 'string' as const;
const V = 'instant vector' as const;
const M = 'range vector' as const;

/** A function's argument types, how many more arguments of the last type it takes (-1: any number), and what it returns. */
interface Signature {
  args: PromType[];
  variadic: number;
  returns: PromType;
}

const sig = (args: PromType[], returns: PromType = V, variadic = 0): Signature => ({ args, variadic, returns });

const FUNCTIONS: Record<string, Signature> = {
  abs: sig([V]), absent: sig([V]), absent_over_time: sig([M]),
  acos: sig([V]), acosh: sig([V]), asin: sig([V]), asinh: sig([V]), atan: sig([V]), atanh: sig([V]),
  ceil: sig([V]), cos: sig([V]), cosh: sig([V]), deg: sig([V]), exp: sig([V]), floor: sig([V]),
  ln: sig([V]), log10: sig([V]), log2: sig([V]), rad: sig([V]), sgn: sig([V]), sin: sig([V]),
  sinh: sig([V]), sqrt: sig([V]), tan: sig([V]), tanh: sig([V]),
  round: sig([V, S], V, 1),
  avg_over_time: sig([M]), count_over_time: sig([M]), last_over_time: sig([M]), max_over_time: sig([M]),
  min_over_time: sig([M]), present_over_time: sig([M]), stddev_over_time: sig([M]), stdvar_over_time: sig([M]),
  sum_over_time: sig([M]), quantile_over_time: sig([S, M]),
  changes: sig([M]), delta: sig([M]), deriv: sig([M]), idelta: sig([M]), increase: sig([M]), irate: sig([M]),
  rate: sig([M]), resets: sig([M]), predict_linear: sig([M, S]),
  clamp: sig([V, S, S]), clamp_max: sig([V, S]), clamp_min: sig([V, S]),
  day_of_month: sig([V], V, 1), day_of_week: sig([V], V, 1), day_of_year: sig([V], V, 1), days_in_month: sig([V], V, 1),
  hour: sig([V], V, 1), minute: sig([V], V, 1), month: sig([V], V, 1), year: sig([V], V, 1),
  histogram_count: sig([V]), histogram_sum: sig([V]), histogram_fraction: sig([S, S, V]), histogram_quantile: sig([S, V]),
  label_join: sig([V, STR, STR, STR], V, -1), label_replace: sig([V, STR, STR, STR, STR]),
  pi: sig([], S), scalar: sig([V], S), time: sig([], S), timestamp: sig([V]), vector: sig([S]),
  sort: sig([V]), sort_desc: sig([V]),
};

/** Aggregations that take a parameter before the vector, and its type. */
const AGGREGATION_PARAMETERS: Record<string, PromType> = { topk: S, bottomk: S, quantile: S, limitk: S, limit_ratio: S, count_values: STR };

const COMPARISONS = new Set(['Eql', 'Neq', 'Gtr', 'Lss', 'Gte', 'Lte']);
const SET_OPERATORS = new Set(['And', 'Or', 'Unless']);

const children = (node: Node): Node[] => {
  const out: Node[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) if (c.name !== 'LineComment') out.push(c);
  return out;
};
const exprChildren = (node: Node) => children(node).filter((c) => c.type.is('Expr'));

class Problem extends Error {
  constructor(readonly problem: TypeProblem) {
    super(problem.message);
  }
}

/**
 * The type of the expression the syntax tree `top` holds (the tree of a query that parsed), or
 * its first type error. `query` is the text the tree was parsed from.
 */
export function expressionType(top: Node, query: string): { type: PromType } | { problem: TypeProblem } {
  const expr = exprChildren(top)[0];
  if (!expr) return { type: 'any' };
  try {
    return { type: typeOf(expr, query) };
  } catch (err) {
    if (err instanceof Problem) return { problem: err.problem };
    throw err;
  }
}

function fail(node: Node, message: string): never {
  throw new Problem({ message, from: node.from, to: node.to });
}

function expect(node: Node, query: string, want: PromType, context: string): void {
  const got = typeOf(node, query);
  if (got !== 'any' && got !== want) fail(node, `expected type ${want} in ${context}, got ${got}`);
}

function typeOf(node: Node, query: string): PromType {
  switch (node.name) {
    case 'NumberDurationLiteral':
      return S;
    case 'StringLiteral':
      return STR;
    case 'VectorSelector':
      checkNameOnce(node, query);
      return V;
    case 'ParenExpr':
      return typeOf(exprChildren(node)[0], query);
    case 'MatrixSelector': {
      const inner = exprChildren(node)[0];
      if (inner.name !== 'VectorSelector') fail(node, 'ranges only allowed for vector selectors');
      typeOf(inner, query);
      checkDurations(node, query);
      return M;
    }
    case 'SubqueryExpr': {
      const inner = exprChildren(node)[0];
      checkDurations(node, query);
      const type = typeOf(inner, query);
      if (type !== 'any' && type !== V) fail(node, `subquery is only allowed on instant vector, got ${type} instead`);
      return M;
    }
    case 'OffsetExpr':
    case 'StepInvariantExpr':
      checkModifier(node);
      checkDurations(node, query);
      if (node.name === 'StepInvariantExpr') checkTimestamp(node, query);
      return typeOf(exprChildren(node)[0], query);
    case 'AnchoredExpr':
    case 'SmoothedExpr':
      return typeOf(exprChildren(node)[0], query);
    case 'UnaryExpr': {
      const type = typeOf(exprChildren(node)[0], query);
      if (type === STR || type === M) fail(node, `unary expression only allowed on expressions of type scalar or instant vector, got "${type}"`);
      return type;
    }
    case 'BinaryExpr':
      return binaryType(node, query);
    case 'FunctionCall':
      return callType(node, query);
    case 'AggregateExpr':
      return aggregateType(node, query);
    default:
      return 'any';
  }
}

/** What Prometheus lets `offset` and `@` follow (its addOffset and setTimestamp). */
const MODIFIABLE = new Set(['VectorSelector', 'MatrixSelector', 'SubqueryExpr']);

/**
 * An `offset` or `@` modifier applies to a selector or a subquery, each at most once. The grammar
 * here hangs a modifier on a whole operation (`x + y offset 1m`, `-x offset 5m`) where Prometheus
 * binds it tighter than any operator (`x + (y offset 1m)`, `-(x offset 5m)`): what it applies to
 * is the rightmost operand below it, through the other modifier of the same selector.
 */
function checkModifier(node: Node): void {
  const offset = node.name === 'OffsetExpr';
  let target: Node | undefined = exprChildren(node)[0];
  while (target) {
    if (target.name === 'BinaryExpr') target = exprChildren(target)[1];
    else if (target.name === 'UnaryExpr') target = exprChildren(target)[0];
    else if (target.name === 'OffsetExpr' || target.name === 'StepInvariantExpr') {
      if (target.name === node.name) fail(node, offset ? 'offset may not be set multiple times' : '@ <timestamp> may not be set multiple times');
      target = exprChildren(target)[0];
    } else break;
  }
  // Prometheus 3's experimental anchored and smoothed ranges are taken as they come.
  if (!target || MODIFIABLE.has(target.name) || target.name === 'AnchoredExpr' || target.name === 'SmoothedExpr') return;
  fail(target, `${offset ? 'offset' : '@'} modifier must be preceded by an instant vector selector or range vector selector or a subquery`);
}

/**
 * A metric name before the braces and a `__name__` matcher inside them: Prometheus refuses the
 * selector ("metric name must not be set twice"), whatever the matcher's operator.
 */
function checkNameOnce(node: Node, query: string): void {
  const name = node.getChild('Identifier');
  const braces = node.getChild('LabelMatchers');
  if (!name || !braces) return;
  for (const m of children(braces)) {
    if (m.name !== 'UnquotedLabelMatcher' && m.name !== 'QuotedLabelMatcher') continue;
    const label = m.name === 'UnquotedLabelMatcher' ? m.getChild('LabelName') : m.getChild('QuotedLabelName')?.getChild('StringLiteral');
    const labelText = label ? query.slice(label.from, label.to) : '';
    if ((m.name === 'UnquotedLabelMatcher' ? labelText : unquote(labelText)) !== '__name__') continue;
    const value = m.getChild('StringLiteral');
    const valueText = value ? (unquote(query.slice(value.from, value.to)) ?? query.slice(value.from, value.to)) : '';
    fail(node, `metric name must not be set twice: ${JSON.stringify(query.slice(name.from, name.to))} or ${JSON.stringify(valueText)}`);
  }
}

/**
 * Every duration in the brackets of a range or subquery, or after `offset`, with units or
 * without, is more than zero: Prometheus refuses `[0s]`, `[0]`, `[5m:0s]` and `offset 0s`
 * ("duration must be greater than 0"). Those of the operand (a nested subquery) are its own
 * node's to check.
 */
function checkDurations(node: Node, query: string): void {
  for (const part of children(node)) {
    if (part.name !== 'DurationExpr' && part.name !== 'OffsetDurationExpr') continue;
    part.cursor().iterate((n) => {
      if (n.name !== 'NumberDurationLiteralInDurationContext') return undefined;
      const text = query.slice(n.from, n.to);
      // A number of seconds without units: Prometheus 3 takes one above zero (2 wants units), neither takes zero.
      if (durationSeconds(text) === 0) fail(n.node, 'duration must be greater than 0');
      return false;
    });
  }
}

/** `on(a) group_left(a)`: Prometheus refuses a label both matched on and copied (not so with `ignoring`). */
function checkOnAndGroup(node: Node, matching: Node, query: string): void {
  const parts = children(matching);
  if (!parts.some((c) => c.name === 'On')) return;
  const labelsAfter = (i: number) => {
    const list = parts[i + 1]?.name === 'GroupingLabels' ? children(parts[i + 1]!) : [];
    return list.flatMap((l) => {
      if (l.name === 'LabelName') return [query.slice(l.from, l.to)];
      const literal = l.name === 'QuotedLabelName' ? l.getChild('StringLiteral') : null;
      const name = literal ? unquote(query.slice(literal.from, literal.to)) : undefined;
      return name === undefined ? [] : [name];
    });
  };
  const on = new Set(labelsAfter(parts.findIndex((c) => c.name === 'On')));
  const group = parts.findIndex((c) => c.name === 'GroupLeft' || c.name === 'GroupRight');
  if (group < 0) return;
  const both = labelsAfter(group).find((l) => on.has(l));
  if (both !== undefined) fail(node, `label ${JSON.stringify(both)} must not occur in ON and GROUP clause at once`);
}

/** Go's %f: six decimals, and every digit of a large number (JavaScript's toFixed goes to 1e+21). */
const goFixed = (v: number) => (Number.isNaN(v) ? 'NaN' : !Number.isFinite(v) ? (v > 0 ? '+Inf' : '-Inf') : Math.abs(v) >= 1e21 ? `${BigInt(v)}.000000` : v.toFixed(6));

/**
 * The number after `@` is a time in seconds that Prometheus takes in milliseconds as an int64:
 * ±Inf, NaN and anything at or beyond 2^63 is refused (its setTimestamp). A literal this cannot
 * read as a number (a duration) is left to Prometheus.
 */
function checkTimestamp(node: Node, query: string): void {
  const literal = children(node).find((c) => c.name === 'NumberDurationLiteral');
  if (!literal) return;
  const text = query.slice(literal.from, literal.to);
  const special = /^([+-]?)(inf|nan)$/i.exec(text);
  const value = special ? (special[2]!.toLowerCase() === 'nan' ? Number.NaN : special[1] === '-' ? -Infinity : Infinity) : Number(text);
  if (!special && Number.isNaN(value)) return;
  if (!Number.isFinite(value) || Math.abs(value) >= 2 ** 63) fail(node, `timestamp out of bounds for @ modifier: ${goFixed(value)}`);
}

function binaryType(node: Node, query: string): PromType {
  const [lhs, rhs] = exprChildren(node);
  const parts = children(node);
  const op = parts.find((c) => !c.type.is('Expr') && !['BoolModifier', 'MatchingModifierClause', 'FillModifier'].includes(c.name));
  const opName = op?.name ?? '';
  const opText = op ? query.slice(op.from, op.to) : '';
  const bool = parts.some((c) => c.name === 'BoolModifier');
  const matching = parts.find((c) => c.name === 'MatchingModifierClause');
  const lt = typeOf(lhs, query);
  const rt = typeOf(rhs, query);
  if (bool && !COMPARISONS.has(opName)) fail(node, 'bool modifier can only be used on comparison operators');
  for (const [side, type] of [[lhs, lt], [rhs, rt]] as const) {
    if (type === STR || type === M) fail(side, 'binary expression must contain only scalar and instant vector types');
  }
  if (COMPARISONS.has(opName) && !bool && lt === S && rt === S) fail(node, 'comparisons between scalars must use BOOL modifier');
  const scalarSide = lt === S || rt === S;
  if (SET_OPERATORS.has(opName) && scalarSide) fail(node, `set operator "${opText}" not allowed in binary scalar expression`);
  if (matching && scalarSide && children(matching).some((c) => c.name === 'GroupingLabels' && children(c).some((l) => l.name === 'LabelName' || l.name === 'QuotedLabelName'))) {
    fail(node, 'vector matching only allowed between instant vectors');
  }
  if (matching && SET_OPERATORS.has(opName) && children(matching).some((c) => c.name === 'GroupLeft' || c.name === 'GroupRight')) {
    fail(node, `no grouping allowed for "${opText}" operation`);
  }
  if (matching) checkOnAndGroup(node, matching, query);
  if (lt === 'any' || rt === 'any') return 'any';
  return lt === V || rt === V ? V : S;
}

function callType(node: Node, query: string): PromType {
  const identifier = node.getChild('FunctionIdentifier');
  const name = identifier ? query.slice(identifier.from, identifier.to) : '';
  const body = node.getChild('FunctionCallBody');
  const args = body ? exprChildren(body) : [];
  const f = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
  if (!f) {
    for (const a of args) typeOf(a, query);
    return 'any';
  }
  const n = f.args.length;
  if (f.variadic === 0 && args.length !== n) fail(node, `expected ${n} argument(s) in call to "${name}", got ${args.length}`);
  if (f.variadic !== 0 && args.length < n - 1) fail(node, `expected at least ${n - 1} argument(s) in call to "${name}", got ${args.length}`);
  if (f.variadic > 0 && args.length > n - 1 + f.variadic) fail(node, `expected at most ${n - 1 + f.variadic} argument(s) in call to "${name}", got ${args.length}`);
  args.forEach((a, i) => expect(a, query, f.args[Math.min(i, n - 1)], `call to function "${name}"`));
  return f.returns;
}

function aggregateType(node: Node, query: string): PromType {
  const op = node.getChild('AggregateOp');
  // Aggregation keywords are read in any case (SUM, Sum, sum); function names are not.
  const name = op ? query.slice(op.from, op.to).toLowerCase() : '';
  const body = node.getChild('FunctionCallBody');
  const args = body ? exprChildren(body) : [];
  const parameter = Object.hasOwn(AGGREGATION_PARAMETERS, name) ? AGGREGATION_PARAMETERS[name] : undefined;
  const wanted = parameter ? 2 : 1;
  if (args.length !== wanted) fail(node, `wrong number of arguments for aggregate expression provided, expected ${wanted}, got ${args.length}`);
  expect(args[args.length - 1], query, V, 'aggregation expression');
  if (parameter) expect(args[0], query, parameter, 'aggregation parameter');
  return V;
}
