// Placeholders of custom analysis queries (`{{namespace}}`, `{{app}}`, ...) and PromQL string
// escaping: the webhook rejects unknown placeholders, the controller fills the known ones.

/** `value` as the inside of a PromQL double-quoted string literal. */
export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

// Custom queries: `{{name}}`, exactly these names, no spaces inside the braces.
export const knownPlaceholders = ['namespace', 'app', 'canaryService', 'stableService', 'ingress', 'interval'] as const;
export type Placeholder = (typeof knownPlaceholders)[number];
export type PlaceholderValues = Record<Placeholder, string>;

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const isKnown = (name: string): name is Placeholder => (knownPlaceholders as readonly string[]).includes(name);

/**
 * `template` with every known placeholder replaced by its value, escaped for a PromQL string
 * literal (names and durations have nothing to escape; this keeps any odd value inside its quotes).
 * Unknown placeholders are left as they are: reject them first with `unknownPlaceholders`.
 */
export function fillPlaceholders(template: string, values: PlaceholderValues): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => (isKnown(name) ? escapeLabelValue(values[name]) : whole));
}

/** The placeholders in `template` that are not known, as written (`{{ app }}`, `{{pod}}`), each once. */
export function unknownPlaceholders(template: string): string[] {
  const unknown = new Set<string>();
  for (const m of template.matchAll(PLACEHOLDER)) if (!isKnown(m[1]!)) unknown.add(m[0]);
  return [...unknown];
}

/**
 * Where the text from `from` to `to` of `fillPlaceholders(template, values)` was written in
 * `template`: a span that touches a filled value covers its whole placeholder. For messages
 * about the filled query that quote and point into what the user wrote.
 */
export function templateSpan(template: string, values: PlaceholderValues, from: number, to: number): [number, number] {
  const fills: { start: number; end: number; written: [number, number] }[] = [];
  let shift = 0; // how much longer the filled text is than the template so far
  for (const m of template.matchAll(PLACEHOLDER)) {
    if (!isKnown(m[1]!)) continue;
    const length = escapeLabelValue(values[m[1]]).length;
    fills.push({ start: m.index + shift, end: m.index + shift + length, written: [m.index, m.index + m[0].length] });
    shift += length - m[0].length;
  }
  const map = (offset: number, end: boolean) => {
    let delta = 0;
    for (const f of fills) {
      if (end ? offset <= f.start : offset < f.start) break;
      if (end ? offset <= f.end : offset < f.end) return f.written[end ? 1 : 0];
      delta = f.written[1] - f.end;
    }
    return offset + delta;
  };
  return [map(from, false), map(to, true)];
}
