import { strict as assert } from 'node:assert';
import { parseQuantity } from '../../shared/quantity.js';

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
});
