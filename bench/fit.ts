// Least-squares line through samples, with the standard error of its slope: whether memory
// grows over a soak is a slope told apart from noise, not a first and a last value.

export interface Fit { slope: number; se: number; n: number }

/** Least squares y = a + b x: the slope b and its standard error. */
export function fitLine(xs: number[], ys: number[]): Fit {
  const n = xs.length;
  const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / n;
  const [mx, my] = [mean(xs), mean(ys)];
  const sxx = xs.reduce((s, x) => s + (x - mx) ** 2, 0);
  if (n < 3 || sxx === 0) return { slope: NaN, se: NaN, n };
  const slope = xs.reduce((s, x, i) => s + (x - mx) * (ys[i] - my), 0) / sxx;
  const residuals = xs.map((x, i) => ys[i] - (my + slope * (x - mx)));
  const se = Math.sqrt(residuals.reduce((s, r) => s + r * r, 0) / (n - 2) / sxx);
  return { slope, se, n };
}

/** Growth within noise: the slope is no more than twice its standard error above zero. */
export const withinNoise = (f: Fit): boolean => Number.isFinite(f.slope) && f.slope <= 2 * f.se;

