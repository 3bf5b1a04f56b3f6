// The soak benchmark's verdict: a least-squares slope and whether it stands out of the noise.
import { strict as assert } from 'node:assert';
import { fitLine, withinNoise } from '../../bench/soak.js';

describe('the soak benchmark\'s line fit', () => {
  it('finds the slope of an exact line, with no error', () => {
    assert.deepEqual(fitLine([0, 1, 2, 3, 4], [1, 3, 5, 7, 9]), { slope: 2, se: 0, n: 5 });
  });

  it('gives the textbook standard error of the slope', () => {
    // y = x plus residuals +1, -1, -1, +1 about it: slope 1, s² = 4 / 2, Sxx = 5.
    const f = fitLine([0, 1, 2, 3], [1, 0, 1, 4]);
    assert.ok(Math.abs(f.slope - 1) < 1e-12);
    assert.ok(Math.abs(f.se - Math.sqrt(2 / 5)) < 1e-12, String(f.se));
  });

  it('calls a flat sawtooth within noise, and a steady climb under the same sawtooth growth', () => {
    const xs = Array.from({ length: 60 }, (_, i) => i / 6);
    const saw = (i: number) => 40 + (i % 4) * 2;
    assert.ok(withinNoise(fitLine(xs, xs.map((_, i) => saw(i)))));
    assert.ok(!withinNoise(fitLine(xs, xs.map((x, i) => saw(i) + 0.5 * x))));
  });

  it('has no verdict from fewer than three samples or from one instant', () => {
    assert.ok(!withinNoise(fitLine([1, 2], [3, 4])));
    assert.ok(!withinNoise(fitLine([1, 1, 1], [3, 4, 5])));
  });

  it('calls a series that never moves within noise', () => {
    assert.ok(withinNoise(fitLine([0, 1, 2, 3], [7, 7, 7, 7])));
  });
});
