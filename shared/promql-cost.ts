// What one evaluation of an analysis query may ask of Prometheus. Every App's checks share the
// installation's Prometheus, which evaluates at most a few queries at once (20 by default): a
// query that takes minutes there (a subquery evaluated every millisecond over years) keeps the
// other tenants' checks waiting until they time out, inconclusive. Prometheus goes on evaluating
// after the controller has given up on the answer. So the webhook refuses, before anything is
// stored, ranges longer than a week, subqueries that evaluate their expressions more often than
// Prometheus lets a range query return points per series (11,000), or four times that all together, ranges that read more than
// 11,000 hours of samples in all (each once per evaluation of the subqueries around it), and any range or
// resolution whose length it cannot work out (a duration expression): what it cannot measure it
// cannot bound. Pure.
import type { parser } from '@prometheus-io/lezer-promql';

type SyntaxNode = ReturnType<typeof parser.parse>['topNode'];

/** The longest range a selector or subquery may read: a week of samples. */
export const MAX_RANGE_SECONDS = 7 * 24 * 3600;
/** The most evaluations of an expression its subqueries may make, nested ones multiplied: Prometheus's points-per-series limit of a range query. */
export const MAX_SUBQUERY_STEPS = 11_000;
/**
 * The most evaluations all of a query's subqueries may make together: four at the bound of one.
 * Queries compare a window with the day before it (two or three subqueries over `[1d:]`), but no
 * query needs sixty subqueries side by side, each at the bound.
 */
export const MAX_QUERY_STEPS = 4 * MAX_SUBQUERY_STEPS;
/** A subquery without a resolution takes Prometheus's evaluation interval (1m by default): counted at 15s, a common setting, so that a faster one is covered too. */
export const ASSUMED_STEP_SECONDS = 15;

/** What a query's ranges may read in all, each its length times the evaluations of the subqueries around it: 11,000 hours. */
export const MAX_READ_SECONDS = MAX_SUBQUERY_STEPS * 3600;

/** A duration with units (`5m`, `1h30m`); a bare number (seconds, in Prometheus 3) is not one. */
const DURATION_WITH_UNITS = /^(?:\d+(?:ms|[smhdwy]))+$/;

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400, w: 604_800, y: 31_536_000 };

/**
 * A PromQL number as Prometheus 3 reads one where a duration goes, in seconds: decimal with an
 * exponent (`1e7`, `.5e8`), hexadecimal (`0x989680`), `_` between digits (`10_000_000`), `Inf`.
 */
const NUMBER = /^(?:0[xX][0-9a-fA-F]+(?:_[0-9a-fA-F]+)*|(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][-+]?\d+(?:_\d+)*)?|[iI][nN][fF])$/;

/** A PromQL duration in seconds (`1h30m`, `500ms`; a number is seconds), or undefined for anything else (a duration expression such as `1w*52`). */
export function durationSeconds(text: string): number | undefined {
  if (NUMBER.test(text)) {
    const plain = text.replace(/_/g, '');
    return /^inf$/i.test(plain) ? Infinity : Number(plain);
  }
  if (!DURATION_WITH_UNITS.test(text)) return undefined;
  let total = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)(ms|[smhdwy])/g)) total += Number(n) * UNIT_SECONDS[unit];
  return total;
}

/** A finite length of at least a millisecond (a zero one is refused as a syntax error elsewhere). */
const measurable = (seconds: number | undefined) => seconds !== undefined && Number.isFinite(seconds) && (seconds === 0 || seconds >= 0.001);

export interface CostProblem {
  message: string;
  from: number;
  to: number;
}

const durationsOf = (node: SyntaxNode): SyntaxNode[] => {
  const out: SyntaxNode[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) if (c.name === 'DurationExpr') out.push(c);
  return out;
};

const human = (seconds: number) => {
  if (!Number.isFinite(seconds)) return 'without end';
  for (const [unit, size] of [['y', 31_536_000], ['d', 86_400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    if (seconds >= size && seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
};

/** The first range or subquery of the query (its syntax tree) that costs more than allowed, or undefined. */
export function costProblem(query: string, top: SyntaxNode): CostProblem | undefined {
  // What every range of the query reads together, in seconds of samples; and how many times its
  // subqueries evaluate their expressions together: sixty subqueries side by side, each within
  // the bound, made one query of 650,000 evaluations that held a check's slot until its timeout.
  let read = 0;
  let evaluations = 0;
  const visit = (node: SyntaxNode, outerSteps: number): CostProblem | undefined => {
    let steps = outerSteps;
    if (node.name === 'MatrixSelector' || node.name === 'SubqueryExpr') {
      const [rangeNode, stepNode] = durationsOf(node);
      // Inf (or a resolution below Prometheus's millisecond) cannot be counted: a resolution of Inf
      // would count the subquery around nested ones as no evaluation at all.
      const unmeasured = [rangeNode, stepNode].find((d) => d && !measurable(durationSeconds(query.slice(d.from, d.to))));
      if (unmeasured) {
        return { message: `the duration ${query.slice(unmeasured.from, unmeasured.to)} is no length the webhook can measure: write it as a duration such as 5m or 1h30m, or a number of seconds, of at least 1ms`, from: unmeasured.from, to: unmeasured.to };
      }
      const range = rangeNode ? durationSeconds(query.slice(rangeNode.from, rangeNode.to)) : undefined;
      if (range !== undefined && range > MAX_RANGE_SECONDS) {
        return { message: `the range [${query.slice(rangeNode!.from, rangeNode!.to)}] reads ${human(range)} of samples; at most ${human(MAX_RANGE_SECONDS)} are allowed`, from: rangeNode!.from, to: rangeNode!.to };
      }
      if (node.name === 'MatrixSelector' && range !== undefined) {
        const text = query.slice(rangeNode!.from, rangeNode!.to);
        read += outerSteps * range;
        if (outerSteps * range > MAX_READ_SECONDS) {
          return { message: `the range [${text}] is read ${outerSteps} times, once for each evaluation of the subqueries around it: ${human(outerSteps * range)} of samples in all; at most ${MAX_SUBQUERY_STEPS} hours are allowed: give the range or the subqueries less`, from: rangeNode!.from, to: rangeNode!.to };
        }
        if (read > MAX_READ_SECONDS) {
          return { message: `with the range [${text}] the query's ranges read ${human(read)} of samples in all (each once for every evaluation of the subqueries around it); at most ${MAX_SUBQUERY_STEPS} hours are allowed: read fewer or shorter ranges`, from: rangeNode!.from, to: rangeNode!.to };
        }
      }
      if (node.name === 'SubqueryExpr' && range !== undefined) {
        const given = stepNode ? durationSeconds(query.slice(stepNode.from, stepNode.to)) : ASSUMED_STEP_SECONDS;
        if (given !== undefined && given > 0) {
          steps = outerSteps * Math.max(1, Math.ceil(range / given));
          if (steps > MAX_SUBQUERY_STEPS) {
            const every = stepNode ? `every ${query.slice(stepNode.from, stepNode.to)}` : `every ${ASSUMED_STEP_SECONDS}s, counted for a subquery without a resolution`;
            const nested = outerSteps > 1 ? `, times ${outerSteps} for the subqueries around it` : '';
            return { message: `a subquery evaluates its expression ${steps} times (${every} over ${query.slice(rangeNode!.from, rangeNode!.to)}${nested}); at most ${MAX_SUBQUERY_STEPS} are allowed: give it a coarser resolution or a shorter range`, from: node.from, to: node.to };
          }
          evaluations += steps;
          if (evaluations > MAX_QUERY_STEPS) {
            return { message: `with this subquery the query's subqueries evaluate their expressions ${evaluations} times in all; at most ${MAX_QUERY_STEPS} are allowed: use fewer subqueries, coarser resolutions or shorter ranges`, from: node.from, to: node.to };
          }
        }
      }
    }
    for (let c = node.firstChild; c; c = c.nextSibling) {
      const found = visit(c, steps);
      if (found) return found;
    }
    return undefined;
  };
  return visit(top, 1);
}
