// JSON text as Go's encoding/json writes a decoded value: the keys of every object sorted by their
// UTF-8 bytes, and `<`, `>`, `&`, U+2028 and U+2029 escaped inside strings (`\u003c`). A field the
// API server keeps as the bytes it was sent (a ControllerRevision's `data`, a RawExtension) and
// holds immutable byte for byte is written again by every patch of its object in Go's form
// (kubectl annotate, the garbage collector orphaning it, a merge patch of an annotation): sent in
// any other form, each such patch is refused as a change of `data`. Pure.
//
// Numbers are written as JavaScript writes them: the same as Go for integers, which is all a pod
// template's fields hold (quantities are strings). A backspace or form feed in a string is written
// `\b`, `\f`, as Go writes them from 1.22 (Kubernetes 1.30 on); servers built with an older Go
// write `\u0008`, `\u000c`, so an entry holding one of them takes no patch there.

const GO_ESCAPED = /[<>&\u2028\u2029]/g;
const goEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Go sorts map keys as byte strings: UTF-8 order, which is code point order, not UTF-16's. */
const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

export function goJson(v: unknown): string | undefined {
  if (typeof v === 'string') return JSON.stringify(v).replace(GO_ESCAPED, goEscape);
  if (typeof v !== 'object' || v === null) return JSON.stringify(v);
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return goJson(JSON.parse(JSON.stringify(v)));
  if (Array.isArray(v)) return `[${v.map((e) => goJson(e) ?? 'null').join(',')}]`;
  const o = v as Record<string, unknown>;
  const fields: string[] = [];
  for (const k of Object.keys(o).sort(byUtf8)) {
    const text = goJson(o[k]);
    if (text !== undefined) fields.push(`${goJson(k)}:${text}`);
  }
  return `{${fields.join(',')}}`;
}
