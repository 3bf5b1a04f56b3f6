import { strict as assert } from 'node:assert';
import { isWholeQuantity, parseQuantity, quantityNanos } from '../../shared/quantity.js';

describe('quantities', () => {
  it('parses every suffix Kubernetes has, the exbi one (Ei) and exponents (E3, e-2) apart', () => {
    const cases: [string | number, number][] = [
      ['1', 1], ['100m', 0.1], ['1k', 1e3], ['1M', 1e6], ['1G', 1e9], ['1T', 1e12], ['1P', 1e15], ['1E', 1e18],
      ['1Ki', 2 ** 10], ['1Mi', 2 ** 20], ['1Gi', 2 ** 30], ['1Ti', 2 ** 40], ['1Pi', 2 ** 50], ['1Ei', 2 ** 60],
      ['1e3', 1e3], ['1E3', 1e3], ['5e-1', 0.5], ['1n', 1e-9], ['1u', 1e-6], ['0.5', 0.5], [2, 2],
    ];
    for (const [q, v] of cases) assert.equal(parseQuantity(q), v, String(q));
  });

  it('refuses what is no quantity', () => {
    for (const q of ['', 'Ei', '1Eib', '1 Mi', ' 1', '1e', '1ee3', 'one']) assert.equal(parseQuantity(q), undefined, q);
  });

  it('holds a quantity exactly in billionths, rounded up to the nano unit, a binary one capped at the largest int64, as the API server does', () => {
    const cases: [string | number, bigint][] = [
      ['1', 1_000_000_000n], ['100m', 100_000_000n], ['1.5', 1_500_000_000n], ['.5', 500_000_000n], ['1n', 1n], ['1u', 1000n],
      ['1Ki', 1024n * 1_000_000_000n], ['1Ei', 2n ** 60n * 1_000_000_000n], ['5e-1', 500_000_000n], ['1E3', 1_000_000_000_000n],
      // Rounded up to a whole nano: a request "just above" 1 is above 1 there, and never 0 when asked for something.
      ['1.0000000000000001', 1_000_000_001n], ['0.1n', 1n], ['1e-40', 1n], ['1e-400', 1n], ['0', 0n], ['0e-50', 0n],
      // Integers beyond a double's precision stay exact.
      ['9007199254740993', 9_007_199_254_740_993_000_000_000n],
      // A binary quantity is capped at 2^63-1 units (ParseQuantity's maxAllowed); a decimal one never is,
      // so that 20E is above 10E there (a request of 20E over a limit of 10E is refused).
      ['8Ei', (2n ** 63n - 1n) * 1_000_000_000n], ['16Ei', (2n ** 63n - 1n) * 1_000_000_000n], ['-16Ei', -(2n ** 63n - 1n) * 1_000_000_000n],
      ['9223372036854775808', 9_223_372_036_854_775_808n * 1_000_000_000n], ['20E', 20n * 10n ** 27n], ['1e400', 10n ** 409n],
      // The exponent is kept as an int32 there: 1e4294967296 is 1, and 1e4294967297 is 10.
      ['1e4294967296', 1_000_000_000n], ['1e4294967297', 10_000_000_000n], ['5e-4294967296', 5_000_000_000n],
      ['-1.5', -1_500_000_000n], [2, 2_000_000_000n], [0.25, 250_000_000n],
    ];
    for (const [q, v] of cases) assert.equal(quantityNanos(q), v, String(q));
    for (const q of ['', 'Ei', '1 Mi', 'one', Number.NaN]) assert.equal(quantityNanos(q), undefined, String(q));
    // An exponent the API server cannot read as an int64 is no quantity there (ErrSuffix): nor here.
    for (const q of ['1e9223372036854775808', '1e-9223372036854775809', '1E99999999999999999999']) {
      assert.equal(quantityNanos(q), undefined, q);
      assert.equal(parseQuantity(q), undefined, q);
    }
    // Read as an int64, kept as an int32: 2^63-1 is -1 there, and -2^63 is 0.
    assert.equal(quantityNanos('1e9223372036854775807'), 100_000_000n);
    assert.equal(quantityNanos('1e-9223372036854775808'), 1_000_000_000n);
    // An exponent too large to be any size is refused here, though the API server takes it.
    for (const q of ['1e10001', '1e-10001', '1e2147483647']) assert.equal(quantityNanos(q), undefined, q);
    assert.equal(isWholeQuantity(quantityNanos('2')!), true);
    assert.equal(isWholeQuantity(quantityNanos('1.0000000001')!), false);
    assert.equal(isWholeQuantity(quantityNanos('1k')!), true);
  });

  it('holds the exa suffix E as 10^18 in billionths, not as an exponent without digits (1)', () => {
    assert.equal(quantityNanos('1E'), 10n ** 18n * 1_000_000_000n);
    assert.equal(quantityNanos('2E'), 2n * 10n ** 18n * 1_000_000_000n);
    assert.equal(quantityNanos('1E0'), 1_000_000_000n);
  });
});
