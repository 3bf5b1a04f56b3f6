// A PromQL query confined to one namespace, as prom-label-proxy does it: every vector selector
// gets a `namespace="<ns>"` matcher. The query is parsed with the Prometheus project's own
// grammar (the one its UI uses) and edited in place at the positions of the syntax tree, so the
// rest of the text (comments, strings, spacing) stays exactly as written. Pure: no I/O.
import { parser } from '@prometheus-io/lezer-promql';
import { escapeLabelValue } from './placeholders.js';
import { costProblem } from './promql-cost.js';
import { MAX_OPERATOR_DEPTH, operatorDepth } from './promql-depth.js';
import { expressionType, type PromType } from './promql-types.js';
import { unquote } from './promql-unquote.js';

export { unquote };

export type Confinement =
  /** `type`: what the query gives (Prometheus's value types; `any` where it cannot be told). */
  | { ok: true; query: string; type: PromType }
  /**
   * `syntax`: the query does not parse (or Prometheus's parser would refuse its types); `namespace`: a selector matches on namespace other than
   * by `namespace="<ns>"`; `unconfinable`: it reads series no selector names (`info()`), or the
   * edit went wrong. `error` is one sentence that quotes the text and says where it is.
   */
  | { ok: false; kind: 'syntax' | 'namespace' | 'unconfinable'; error: string };

export interface ConfineOptions {
  /**
   * The text as the user wrote it, when the query is a filled template, and where a span of the
   * query was written there: messages quote and point into that text. The query itself if not given.
   */
  written?: { text: string; span: (from: number, to: number) => [number, number] };
}

/** The text messages quote, and how spans of the parsed query map into it. */
type Source = Required<ConfineOptions>['written'];

const LABEL = 'namespace';

type Node = ReturnType<typeof parser.parse>['topNode'];

interface Selector {
  /** Where the matcher goes: just after `{` or after a quoted metric name, or after the bare metric name. */
  insertAt: number;
  /** How it goes there: before other matchers, after a quoted metric name, into empty braces, or in braces of its own. */
  placement: 'before' | 'after' | 'alone' | 'braces';
  /** The selector's matchers on `namespace`, with their operators and decoded values. */
  namespaceMatchers: { from: number; to: number; op: string; value: string | undefined }[];
}

/**
 * `query` with `namespace="<namespace>"` in every vector selector (instant and range selectors,
 * those inside subqueries, functions, aggregations and binary operations, `{__name__=...}` ones),
 * or why it cannot be: it does not parse, or a selector already matches on namespace otherwise
 * than with `namespace="<namespace>"` (such a matcher is kept as it is, not repeated).
 */
export function confineToNamespace(query: string, namespace: string, options: ConfineOptions = {}): Confinement {
  // namespace="" matches the series that have no namespace label: it would confine nothing.
  if (namespace === '') return { ok: false, kind: 'namespace', error: 'cannot be confined to an empty namespace' };
  const source: Source = options.written ?? { text: query, span: (from, to) => [from, to] };
  const tree = parser.parse(query);
  // Before the syntax: the grammar gives up on a chain of some hundreds of operations with a
  // misleading "something is missing".
  const chained = operatorDepth(tree.topNode);
  if (chained > MAX_OPERATOR_DEPTH) {
    return { ok: false, kind: 'syntax', error: `chains ${chained} binary operations, each an operand of the next (a + b + c is two); at most ${MAX_OPERATOR_DEPTH} are allowed` };
  }
  const syntax = syntaxError(tree.topNode, source) ?? lexicalError(query, tree.topNode, source);
  if (syntax) return { ok: false, kind: 'syntax', error: syntax };
  const typed = expressionType(tree.topNode, query);
  if ('problem' in typed) {
    const [from] = source.span(typed.problem.from, typed.problem.to);
    return { ok: false, kind: 'syntax', error: `does not parse as PromQL: ${typed.problem.message} (at character ${from + 1})` };
  }

  const costly = costProblem(query, tree.topNode);
  if (costly) {
    const [from] = source.span(costly.from, costly.to);
    return { ok: false, kind: 'syntax', error: `asks too much of Prometheus: ${costly.message} (at character ${from + 1})` };
  }

  const badRegex = regexError(query, tree.topNode);
  if (badRegex) {
    const [from] = source.span(badRegex.from, badRegex.to);
    return { ok: false, kind: 'syntax', error: `does not parse as PromQL: error parsing regexp: ${badRegex.message} (at character ${from + 1})` };
  }

  const matcher = `${LABEL}="${escapeLabelValue(namespace)}"`;
  const hidden = hiddenSelect(tree.topNode);
  if (hidden) {
    const [from] = source.span(hidden.from, hidden.to);
    return { ok: false, kind: 'unconfinable', error: `info() at character ${from + 1} is not allowed: it reads info series (target_info unless told otherwise) that no selector of the query names, so ${matcher} cannot be added to them` };
  }

  const edits: { at: number; text: string }[] = [];
  for (const s of selectors(query, tree.topNode)) {
    const other = s.namespaceMatchers.find((m) => m.op !== '=' || m.value !== namespace);
    if (other) {
      const [from, to] = source.span(other.from, other.to);
      return { ok: false, kind: 'namespace', error: `the matcher ${source.text.slice(from, to)} at character ${from + 1} is not allowed: the query may read namespace "${namespace}" only, and every selector gets ${matcher}` };
    }
    if (s.namespaceMatchers.length > 0) continue;
    const text = { before: `${matcher},`, after: `,${matcher}`, alone: matcher, braces: `{${matcher}}` }[s.placement];
    edits.push({ at: s.insertAt, text });
  }
  let confined = query;
  for (const e of edits.sort((a, b) => b.at - a.at)) confined = confined.slice(0, e.at) + e.text + confined.slice(e.at);

  // The edit is checked as a whole: whatever the grammar can express, what goes to Prometheus
  // parses and has nothing but the given namespace in every selector.
  const after = parser.parse(confined).topNode;
  const asSent = { text: confined, span: (from: number, to: number): [number, number] => [from, to] };
  const unconfined = (syntaxError(after, asSent) ?? lexicalError(confined, after, asSent)) !== undefined
    || selectors(confined, after).some((s) => s.namespaceMatchers.length === 0 || s.namespaceMatchers.some((m) => m.op !== '=' || m.value !== namespace));
  if (unconfined) return { ok: false, kind: 'unconfinable', error: `could not be confined to namespace "${namespace}" (adding ${matcher} to its selectors gave ${JSON.stringify(clip(confined, 200))})` };
  return { ok: true, query: confined, type: typed.type };
}

/** The first place the parser could not read, as a sentence quoting `source`; undefined when the query parses. */
function syntaxError(top: Node, source: Source): string | undefined {
  let error: Node | undefined;
  top.cursor().iterate((n) => {
    if (error) return false;
    if (n.type.isError) error = n.node;
    return undefined;
  });
  if (!error) return undefined;
  const prefix = 'does not parse as PromQL: ';
  const [from, to] = source.span(error.from, error.to);
  const text = source.text;
  if (error.to > error.from) return `${prefix}unexpected ${JSON.stringify(clip(text.slice(from, to), 40))} at character ${from + 1}`;
  if (!children(top).some((c) => !c.type.isError && c.name !== 'LineComment')) return `${prefix}it has no expression, only spaces or comments`;
  // A zero-width error node: the parser expected more (a missing operand, a closing bracket).
  const before = text.slice(0, from).trimEnd();
  const rest = text.slice(from).trimStart();
  const after = before === '' ? '' : `, after ${JSON.stringify(clipStart(before, 40))}`;
  if (rest === '') return `${prefix}the query ends too soon at character ${from + 1}${after}`;
  return `${prefix}something is missing at character ${from + 1}${after}, before ${JSON.stringify(clip(rest, 40))}`;
}

/** The whitespace Prometheus's own lexer skips; any other (U+00A0, U+2028, ...) it refuses. */
const GO_SPACE = new Set([' ', '\t', '\n', '\r']);
/** What the grammar skips as whitespace: Unicode's spaces, and U+0085 (NEL), which JavaScript's \s leaves out. */
const GRAMMAR_SPACE = /[\s\u0085]/u;

/**
 * Where the grammar used here and Prometheus's own lexer would read the text differently, as a
 * sentence; undefined when they agree. The grammar ends a comment at a line feed only, Prometheus
 * at a carriage return too: text after `# ...\r` would be a comment here and a live, unconfined
 * expression there. The grammar also takes a string without its closing quote, a number run into
 * the word after it, and whitespace Prometheus refuses. Such a query is refused rather than
 * guessed at.
 */
function lexicalError(query: string, top: Node, source: Source): string | undefined {
  const prefix = 'does not parse as PromQL: ';
  const at = (from: number, to: number) => source.span(from, to)[0] + 1;
  const literals: [number, number][] = [];
  let problem: string | undefined;
  top.cursor().iterate((n) => {
    if (problem) return false;
    if (n.name === 'LineComment') {
      const cr = query.slice(n.from, n.to).indexOf('\r');
      if (cr >= 0) problem = `${prefix}a carriage return at character ${at(n.from + cr, n.from + cr + 1)} inside a comment (Prometheus ends the comment there; end comments with a line feed)`;
      literals.push([n.from, n.to]);
      return false;
    }
    // Prometheus's lexer reads a number or a duration up to the next character that is no letter,
    // digit or underscore, and refuses it when that is not where it ends (`100or`, `5mor`): the
    // grammar here ends it earlier and reads an operator after it.
    if (n.name === 'NumberDurationLiteral' || n.name === 'NumberDurationLiteralInDurationContext') {
      const after = query[n.to] ?? '';
      if (/^[A-Za-z0-9_]$/.test(after)) problem = `${prefix}bad number or duration syntax: ${JSON.stringify(clip(query.slice(n.from, n.to), 40))} at character ${at(n.from, n.to)} (a space missing before ${JSON.stringify(after)}?)`;
      return false;
    }
    if (n.name === 'StringLiteral') {
      if (unquote(query.slice(n.from, n.to)) === undefined) problem = `${prefix}the string ${JSON.stringify(clip(query.slice(n.from, n.to), 40))} at character ${at(n.from, n.to)} is not a complete string (its closing quote, a line feed inside it, or an escape)`;
      literals.push([n.from, n.to]);
      return false;
    }
    return undefined;
  });
  if (problem) return problem;
  let next = 0;
  for (let i = 0; i < query.length; i++) {
    while (next < literals.length && literals[next][1] <= i) next++;
    if (next < literals.length && literals[next][0] <= i) {
      i = literals[next][1] - 1;
      continue;
    }
    const c = query[i];
    if (GRAMMAR_SPACE.test(c) && !GO_SPACE.has(c)) return `${prefix}the space character U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} at character ${at(i, i + 1)} (Prometheus takes spaces, tabs and line breaks only)`;
  }
  return undefined;
}

/**
 * The first `=~` or `!~` matcher whose value RE2 (Prometheus's regular expressions) cannot read
 * for a reason found without RE2 itself: parentheses or a character class left open, a `)` with
 * nothing to close, a backslash at the end, a lookaround or an escape RE2 does not have (a
 * backreference, `\Z`, `\u0041`: Perl's and JavaScript's, written by habit), a repetition of
 * nothing (a glob's `*.example.com`) or of a repetition, a count RE2 refuses. Prometheus refuses
 * such a query ("error parsing regexp"), so every check of its metric would be inconclusive.
 * Anything else is left to Prometheus.
 */
function regexError(query: string, top: Node): { message: string; from: number; to: number } | undefined {
  let found: { message: string; from: number; to: number } | undefined;
  top.cursor().iterate((n) => {
    if (found) return false;
    if (n.name !== 'UnquotedLabelMatcher' && n.name !== 'QuotedLabelMatcher') return undefined;
    const op = n.node.getChild('MatchOp');
    const literal = n.node.getChild('StringLiteral');
    const opText = op ? query.slice(op.from, op.to) : '';
    if ((opText === '=~' || opText === '!~') && literal) {
      const value = unquote(query.slice(literal.from, literal.to));
      const problem = value === undefined ? undefined : re2Problem(value);
      if (problem) found = { message: `${problem} in ${JSON.stringify(clip(value!, 60))}`, from: n.from, to: n.to };
    }
    return false;
  });
  return found;
}

/**
 * The letters and digits RE2 takes after a backslash outside a class: assertions, Perl classes,
 * Unicode classes, \Q, hex, C escapes and an octal \0 (\1 to \7 only before another octal digit:
 * alone they are backreferences). Any other letter or digit is "invalid escape sequence"; any
 * other ASCII character escapes itself. \E is left alone (outside \Q...\E RE2's handling of it
 * varies), as are the contents of classes.
 */
const RE2_ESCAPES = new Set('AbBzQEdDsSwWpPxafnrtv0');

/** RE2's message for an escape it does not have at `re[i]` (a backslash), or undefined. */
function escapeProblem(re: string, i: number): string | undefined {
  const c = re[i + 1]!;
  if (!/[A-Za-z0-9]/.test(c) || RE2_ESCAPES.has(c)) return undefined;
  if (c >= '1' && c <= '7' && /[0-7]/.test(re[i + 2] ?? '')) return undefined;
  return `invalid escape sequence: \`\\${c}\``;
}

/**
 * RE2's message for a regular expression with unbalanced `(` `)` or `[` `]`, a backslash at its
 * end, a lookahead or lookbehind, an escape it does not have, or a repetition it refuses;
 * undefined otherwise.
 */
function re2Problem(re: string): string | undefined {
  let open = 0;
  // As RE2 parses: whether the last thing read can be repeated (not the start, a "(" or a "|"),
  // and where the repetition operator just read began, if the last thing read was one.
  let repeatable = false;
  let lastRepeat: number | undefined;
  for (let i = 0; i < re.length; i++) {
    const c = re[i];
    let repeat: number | undefined;
    const count = c === '{' ? repetitionCount(re, i) : undefined;
    if (c === '\\') {
      if (i + 1 >= re.length) return 'trailing backslash at end of expression';
      // \Q...\E: literal text, parentheses and all.
      if (re[i + 1] === 'Q') {
        const end = re.indexOf('\\E', i + 2);
        if ((end < 0 ? re.length : end) > i + 2) repeatable = true;
        i = end < 0 ? re.length : end + 1;
      } else {
        const problem = escapeProblem(re, i);
        if (problem) return problem;
        repeatable = true;
        i++;
      }
    } else if (c === '[') {
      // A class: a ] first (after an optional ^) is a member; escapes inside; [:alpha:] inside.
      let j = i + 1;
      if (re[j] === '^') j++;
      if (re[j] === ']') j++;
      for (; j < re.length && re[j] !== ']'; j++) {
        if (re[j] === '\\') j++;
        else if (re[j] === '[' && re[j + 1] === ':') {
          const close = re.indexOf(':]', j + 2);
          if (close >= 0) j = close + 1;
        }
      }
      if (j >= re.length) return 'missing closing ]';
      repeatable = true;
      i = j;
    } else if (c === '(') {
      // RE2 has no lookarounds; (?<name>...) is a named group.
      const lookaround = /^\(\?(?:[=!]|<[=!])/.exec(re.slice(i, i + 4));
      if (lookaround) return `invalid or unsupported Perl syntax: \`${lookaround[0]}\``;
      // Flags alone, such as (?i), change what follows and leave the rest as it was; a group
      // opens after its (?:, (?i: or (?P<name>, whose "?" repeats nothing.
      const flags = /^\(\?[imsU-]*\)/.exec(re.slice(i, i + 16));
      if (flags) i += flags[0].length - 1;
      else {
        const opener = /^\(\?(?:P?<[^>]*>|[imsU-]*:)?/.exec(re.slice(i, i + 256));
        if (opener && opener[0].length > 1) i += opener[0].length - 1;
        open++;
        repeatable = false;
      }
    } else if (c === ')') {
      if (open === 0) return 'unexpected )';
      open--;
      repeatable = true;
    } else if (c === '|') {
      repeatable = false;
    } else if (c === '*' || c === '+' || c === '?' || count) {
      let end = count ? i + count.length : i + 1;
      if (count && !count.valid) return `invalid repeat count: \`${count.text}\``;
      if (re[end] === '?') end++; // non-greedy
      // a** or a++ (Perl's possessive): RE2 repeats a repetition only in parentheses.
      if (lastRepeat !== undefined) return `invalid nested repetition operator: \`${re.slice(lastRepeat, end)}\``;
      // A glob's *.example.com: a repetition of nothing.
      if (!repeatable) return `missing argument to repetition operator: \`${re.slice(i, end)}\``;
      repeat = i;
      i = end - 1;
    } else {
      repeatable = true;
    }
    lastRepeat = repeat;
  }
  return open > 0 ? 'missing closing )' : undefined;
}

/**
 * The counted repetition at `re[i]` ("{"), as RE2 reads one ({n}, {n,} or {n,m}, without leading
 * zeros), and whether RE2 takes its counts (at most 1000, n <= m); undefined when the "{" is a
 * literal character.
 */
function repetitionCount(re: string, i: number): { text: string; length: number; valid: boolean } | undefined {
  const m = /^\{(0|[1-9][0-9]*)(?:(,)(0|[1-9][0-9]*)?)?\}/.exec(re.slice(i, i + 32));
  if (!m) return undefined;
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : m[3] === undefined ? -1 : Number(m[3]);
  return { text: m[0], length: m[0].length, valid: min <= 1000 && max <= 1000 && (max < 0 || min <= max) };
}

/**
 * A call of `info()` (Prometheus 3, experimental): besides its argument it selects info series
 * by its own matchers, default target_info of any namespace, joined to the argument's series.
 */
function hiddenSelect(top: Node): Node | undefined {
  let found: Node | undefined;
  top.cursor().iterate((n) => {
    if (found) return false;
    if (n.name === 'FunctionCall' && n.node.getChild('FunctionIdentifier')?.getChild('Info')) found = n.node.getChild('FunctionIdentifier')!;
    return undefined;
  });
  return found;
}

/** Every vector selector of the tree, in order. */
function selectors(query: string, top: Node): Selector[] {
  const out: Selector[] = [];
  top.cursor().iterate((n) => {
    if (n.name !== 'VectorSelector') return undefined;
    const braces = n.node.getChild('LabelMatchers');
    const name = n.node.getChild('Identifier');
    const matchers = braces ? children(braces).filter((c) => MATCHER_NODES.has(c.name)) : [];
    // A quoted metric name stays first (`{"my.metric",namespace="ns"}`), as Prometheus writes it.
    const quotedName = matchers[0]?.name === 'QuotedLabelName' ? matchers[0] : undefined;
    out.push({
      insertAt: quotedName ? quotedName.to : braces ? braces.from + 1 : name!.to,
      placement: quotedName ? 'after' : braces ? (matchers.length > 0 ? 'before' : 'alone') : 'braces',
      namespaceMatchers: matchers.flatMap((m) => {
        const read = readMatcher(query, m);
        return read && read.label === LABEL ? [{ from: m.from, to: m.to, op: read.op, value: read.value }] : [];
      }),
    });
    return false;
  });
  return out;
}

// Inside braces: `name="v"`, `"quoted name"="v"`, or a quoted metric name alone (`{"my.metric"}`).
const MATCHER_NODES = new Set(['UnquotedLabelMatcher', 'QuotedLabelMatcher', 'QuotedLabelName']);

function children(node: Node): Node[] {
  const out: Node[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) out.push(c);
  return out;
}

/**
 * A matcher's label name (decoded when quoted), operator and value. A label name that cannot be
 * decoded reads as `namespace`, so that a selector the code cannot judge is refused, never passed.
 */
function readMatcher(query: string, m: Node): { label: string; op: string; value: string | undefined } | undefined {
  const text = (n: Node | null) => (n ? query.slice(n.from, n.to) : '');
  if (m.name === 'QuotedLabelName') return undefined; // a metric name, not a label matcher
  const label = m.name === 'UnquotedLabelMatcher'
    ? text(m.getChild('LabelName'))
    : unquote(text(m.getChild('QuotedLabelName')?.getChild('StringLiteral') ?? null)) ?? LABEL;
  const value = m.getChild('StringLiteral');
  return { label, op: text(m.getChild('MatchOp')), value: value ? unquote(text(value)) : undefined };
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);
const clipStart = (s: string, n: number) => (s.length > n ? `…${s.slice(-n)}` : s);
