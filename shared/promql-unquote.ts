// PromQL string literals as Prometheus's lexer reads them (Go's quoting rules). Pure.

/**
 * The value of a PromQL string literal ("...", '...' or `...`) with Go's escapes, as Prometheus
 * reads it; undefined when it is not one Prometheus would accept (a bad escape, a lone surrogate,
 * bytes that are not UTF-8).
 */
export function unquote(literal: string): string | undefined {
  const quote = literal[0];
  if (literal.length < 2 || !'"\'`'.includes(quote) || literal[literal.length - 1] !== quote) return undefined;
  const body = literal.slice(1, -1);
  if (quote === '`') return body.includes('`') ? undefined : body;
  const bytes: number[] = [];
  // Encoded by hand: a TextEncoder per character made a 4 KiB literal cost 10 ms of the webhook's thread.
  const utf8 = (cp: number) => {
    if (cp < 0x80) bytes.push(cp);
    else if (cp < 0x800) bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    else if (cp < 0x10000) bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    else bytes.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  };
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\n' || c === quote) return undefined;
    if (c !== '\\') {
      const cp = body.codePointAt(i)!;
      if (cp >= 0xd800 && cp <= 0xdfff) return undefined;
      utf8(cp);
      if (cp > 0xffff) i++;
      continue;
    }
    const e = body[++i];
    const simple = SIMPLE_ESCAPES[e as keyof typeof SIMPLE_ESCAPES];
    if (simple !== undefined) {
      bytes.push(simple);
      continue;
    }
    if (e === '"' || e === "'") {
      if (e !== quote) return undefined;
      bytes.push(e.charCodeAt(0));
      continue;
    }
    const digits = { x: [2, 16], u: [4, 16], U: [8, 16] }[e as 'x' | 'u' | 'U'] ?? (/[0-7]/.test(e ?? '') ? [3, 8] : undefined);
    if (!digits) return undefined;
    const start = e === undefined || /[0-7]/.test(e) ? i : i + 1;
    const raw = body.slice(start, start + digits[0]);
    if (raw.length !== digits[0] || !(digits[1] === 16 ? /^[0-9a-fA-F]+$/ : /^[0-7]+$/).test(raw)) return undefined;
    const n = parseInt(raw, digits[1]);
    if (e === 'x' || digits[1] === 8) {
      if (n > 255) return undefined;
      bytes.push(n); // a byte, as in Go: "\xc3\xa9" is é
    } else {
      if (n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return undefined;
      utf8(n);
    }
    i = start + digits[0] - 1;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    return undefined;
  }
}

const SIMPLE_ESCAPES = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92 } as const;
