// An App with a great many problems, for the tests of bounded denials.

/** An App of `problems` invalid env names (each starts with a digit), each with a value of `padding` characters. */
export function hugeApp(problems: number, padding = 0) {
  const value = 'x'.repeat(padding);
  const env = Array.from({ length: problems }, (_, i) => (padding ? { name: `${i}a`, value } : { name: `${i}a` }));
  return { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: 'shop' }, spec: { image: 'nginx:1.27', env } };
}

/** The longest a denial can be: `listed` problems of `each` characters at most, the separators, and the count. */
export const maxDenialLength = (listed: number, each: number) => listed * (each + 30) + 40;
