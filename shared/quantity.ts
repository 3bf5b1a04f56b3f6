// Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource), enough to check that
// a value parses and to compare a request with its limit.

const QUANTITY = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/;

/** A decimal exponent suffix (e3, E-2), not the exa suffix E. */
const EXPONENT = /^[eE][+-]?[0-9]/;

const SUFFIX: Record<string, number> = {
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
};

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Exponents beyond this are refused here, though the API server takes them (1e20000 is no size of anything). */
const MAX_EXPONENT = 10_000;

/**
 * The power of ten of an exponent suffix as the API server keeps it: read as an int64 (beyond one
 * it refuses the quantity, ErrSuffix), then kept as an int32, so that 1e4294967296 is 1 there.
 */
const exponentOf = (suffix: string) => Number(BigInt.asIntN(32, BigInt(suffix.slice(1))));

/** A quantity's parts, when it parses as the API server parses it (and its exponent is no larger than MAX_EXPONENT). */
function quantityParts(text: string): RegExpExecArray | undefined {
  const m = QUANTITY.exec(text.trim() === text ? text : '');
  if (!m) return undefined;
  const suffix = m[2] ?? '';
  if (EXPONENT.test(suffix)) {
    const e = BigInt(suffix.slice(1));
    if (e < INT64_MIN || e > INT64_MAX || Math.abs(exponentOf(suffix)) > MAX_EXPONENT) return undefined;
  }
  return m;
}

/** The value of a quantity as a number, or undefined when it does not parse. */
export function parseQuantity(q: string | number): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  const m = quantityParts(q);
  if (!m) return undefined;
  const mantissa = Number(m[1]);
  const suffix = m[2] ?? '';
  // An exponent (1e3, 1E-2), not the exbi suffix Ei.
  const factor = EXPONENT.test(suffix) ? 10 ** exponentOf(suffix) : SUFFIX[suffix];
  const v = mantissa * (factor ?? NaN);
  return Number.isFinite(v) ? v : undefined;
}

const NANO = 10n ** 9n;
/** Kubernetes caps a binary quantity at the largest int64 (resource.maxAllowed). */
const MAX_NANOS = (2n ** 63n - 1n) * NANO;
const BINARY_POWER: Record<string, bigint> = { Ki: 10n, Mi: 20n, Gi: 30n, Ti: 40n, Pi: 50n, Ei: 60n };
const DECIMAL_POWER: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/**
 * A quantity exactly, in billionths, as the API server holds it (ParseQuantity): rounded up to the
 * nano unit ("1.0000000000000001" is 1.000000001, above "1"), and a binary one (Ki .. Ei) capped at
 * the largest int64, the only cap there is: 20E stays 2×10^19, above 10E, and 1e30 stays 10^30.
 * Requests and limits compare (and extended resources count whole units) on this, as they do
 * there; floats would call such a request equal to its limit. Undefined when it does not parse.
 */
export function quantityNanos(q: string | number): bigint | undefined {
  return exactNanos(q)?.capped;
}

/**
 * Whether the API server would store a binary quantity as something else: above the largest int64
 * it keeps that largest int64 ("99999Ei" is stored as 9223372036854775807).
 */
export const cappedByApiServer = (q: string | number): boolean => {
  const n = exactNanos(q);
  return n !== undefined && n.capped !== n.exact;
};

function exactNanos(q: string | number): { exact: bigint; capped: bigint } | undefined {
  const text = typeof q === 'number' ? (Number.isFinite(q) ? String(q) : '') : q;
  const m = quantityParts(text);
  if (!m) return undefined;
  const [whole, fraction = ''] = m[1].replace(/^[+-]/, '').split('.');
  const negative = m[1].startsWith('-');
  let numerator = BigInt(`${whole || '0'}${fraction}`) * NANO;
  let denominator = 10n ** BigInt(fraction.length);
  const suffix = m[2] ?? '';
  const binary = suffix in BINARY_POWER;
  // An exponent has digits (1E3, 1e-2); a bare E is the exa suffix (10^18), as in parseQuantity.
  const power = binary ? 0 : EXPONENT.test(suffix) ? exponentOf(suffix) : DECIMAL_POWER[suffix]!;
  if (binary) numerator <<= BINARY_POWER[suffix]!;
  else if (power >= 0) numerator *= 10n ** BigInt(power);
  else denominator *= 10n ** BigInt(-power);
  const nanos = (numerator + denominator - 1n) / denominator;
  const capped = binary && nanos > MAX_NANOS ? MAX_NANOS : nanos;
  return negative ? { exact: -nanos, capped: -capped } : { exact: nanos, capped };
}

/** A quantity in billionths as whole units, rounded up: Kubernetes' Quantity.Value(). */
export const unitsRoundedUp = (nanos: bigint) => (nanos + NANO - 1n) / NANO;

/** Whether a quantity in billionths is a whole number of units. */
export const isWholeQuantity = (nanos: bigint) => nanos % NANO === 0n;

const DIVISOR_DECIMAL: [string, bigint][] = [['1m', 10n ** 6n], ['1', NANO], ['1k', 10n ** 12n], ['1M', 10n ** 15n], ['1G', 10n ** 18n], ['1T', 10n ** 21n], ['1P', 10n ** 24n], ['1E', 10n ** 27n]];
const DIVISOR_BINARY = ['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/**
 * How the API server prints a quantity that is a unit and a power of its suffixes (1m, 1, 1k, 1Ki,
 * ...): the form in which it checks an env var's resourceFieldRef.divisor (`1000m` is printed `1`,
 * `1024Ki` is `1Mi`, `0.0009765625Ki` is `1`; `1e0` stays `1e0`, an exponent keeps its form). "0" for zero, undefined for
 * any other value (no divisor takes it) or what does not parse.
 */
export function unitQuantityText(q: string | number): string | undefined {
  const nanos = quantityNanos(q);
  if (nanos === undefined) return undefined;
  if (nanos === 0n) return '0';
  // Kept as written: printed so (`+1`, `1.`, `01m` stay what they are, and match no divisor).
  if (typeof q === 'string' && keptAsWritten(q)) return q;
  const suffix = typeof q === 'string' ? (QUANTITY.exec(q)?.[2] ?? '') : '';
  // An exponent the API server keeps is printed as written (1e0, 1e3: no divisor); one it does
  // not is printed anew, where only a value of exactly 1 (1000e-3, 1.0e0) prints as a divisor.
  if (EXPONENT.test(suffix)) return nanos === NANO ? '1' : undefined;
  // A binary quantity under 1024 is printed as a decimal one.
  if (suffix in BINARY_POWER && nanos >= 1024n * NANO) {
    const power = DIVISOR_BINARY.findIndex((_, i) => nanos === (1n << (10n * BigInt(i + 1))) * NANO);
    return power < 0 ? undefined : `1${DIVISOR_BINARY[power]}`;
  }
  return DIVISOR_DECIMAL.find(([, v]) => v === nanos)?.[0];
}

/**
 * Whether the API server keeps a quantity's text as written and prints it so (ParseQuantity's
 * fast path: a small integer mantissa it calls canonical), rather than printing its own form.
 * `1`, `1m`, `+1`, `1.`, `01m` and `1e0` are kept; `1000m`, `1.0`, `0.5` and `1024Ki` are printed
 * anew (1, 1, 500m, 1Mi). For a text that parses (quantityParts).
 */
function keptAsWritten(text: string): boolean {
  const m = quantityParts(text);
  if (!m) return false;
  const [whole, denom = ''] = m[1].replace(/^[+-]/, '').split('.');
  const num = whole.replace(/^0+/, '') || '0';
  const suffix = m[2] ?? '';
  const shifted = num + denom;
  if (suffix in BINARY_POWER) {
    const exponent = Number(BINARY_POWER[suffix]);
    // int32(float32(exponent*3/10)) truncates, as Go's conversion does.
    const precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    if (denom.length > 0 || precision < 0) return false;
    const value = BigInt(shifted);
    return value << BigInt(exponent) <= INT64_MAX && (value & 7n) !== 0n;
  }
  const exponent = EXPONENT.test(suffix) ? exponentOf(suffix) : DECIMAL_POWER[suffix]!;
  const scale = exponent - denom.length;
  if (18 - shifted.length < 0 || scale < -9) return false;
  return scale % 3 === 0 && !shifted.endsWith('000') && !shifted.startsWith('0');
}
