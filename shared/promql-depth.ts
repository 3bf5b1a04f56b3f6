// How deeply a PromQL text nests its parentheses, brackets and braces, found by one pass over the
// characters (strings and comments skipped) before anything parses it. The parser's cost grows
// much faster than the text with nesting (a 4 KiB query of 800 nested `sum(` took 40 ms to parse
// and check, against about 1 ms for a flat one), and each App's queries are judged by the webhook
// and checked by the controller: a bound on the depth bounds what one App can cost both.
// Operators chain without brackets (`a ^ b ^ c ...`), and each one is a level of the syntax
// tree all the same: 800 of them in 2.4 KiB took 30 ms to check, so they are bounded too, once
// parsed (the parse itself grows with the text only).
import type { parser } from '@prometheus-io/lezer-promql';

export const MAX_QUERY_DEPTH = 64;
/** Binary operations, each an operand of the next (`a + b + c` is two), on any path of the tree. */
export const MAX_OPERATOR_DEPTH = 100;

type Node = ReturnType<typeof parser.parse>['topNode'];

/** The longest chain of binary operations in the parsed query `top`, each an operand of the next. */
export function operatorDepth(top: Node): number {
  let depth = 0;
  let deepest = 0;
  top.cursor().iterate(
    (n) => {
      if (n.name === 'BinaryExpr' && ++depth > deepest) deepest = depth;
    },
    (n) => {
      if (n.name === 'BinaryExpr') depth--;
    },
  );
  return deepest;
}

/** The deepest nesting of `(`, `[` and `{` in `query`, outside strings and comments. */
export function nestingDepth(query: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < query.length; i++) {
    const c = query[i];
    if (c === '"' || c === "'" || c === '`') i = stringEnd(query, i);
    else if (c === '#') {
      const end = query.indexOf('\n', i);
      i = end < 0 ? query.length : end;
    } else if (c === '(' || c === '[' || c === '{') {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
  }
  return deepest;
}

/** The index of the quote that closes the string opened at `start` (raw strings in backquotes have no escapes). */
function stringEnd(query: string, start: number): number {
  const quote = query[start];
  for (let i = start + 1; i < query.length; i++) {
    if (query[i] === '\\' && quote !== '`') i++;
    else if (query[i] === quote) return i;
  }
  return query.length;
}
