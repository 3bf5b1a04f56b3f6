// Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource), enough to check that
// a value parses and to compare a request with its limit.

const QUANTITY = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/;

const SUFFIX: Record<string, number> = {
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
};

/** The value of a quantity as a number, or undefined when it does not parse. */
export function parseQuantity(q: string | number): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  const m = QUANTITY.exec(q.trim() === q ? q : '');
  if (!m) return undefined;
  const mantissa = Number(m[1]);
  const suffix = m[2] ?? '';
  // An exponent (1e3, 1E-2), not the exbi suffix Ei.
  const factor = /^[eE][+-]?[0-9]/.test(suffix) ? 10 ** Number(suffix.slice(1)) : SUFFIX[suffix];
  const v = mantissa * (factor ?? NaN);
  return Number.isFinite(v) ? v : undefined;
}
