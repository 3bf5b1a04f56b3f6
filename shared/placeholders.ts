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
