// Least-squares line through samples, with the standard error of its slope: whether memory
// grows over a soak is a slope told apart from noise, not a first and a last value.

export interface LineFit {
  slope: number;
  intercept: number;
  /** Standard error of the slope; a slope within about two of them is noise. */
  slopeError: number;
}

export function fitLine(points: [number, number][]): LineFit {
  const n = points.length;
  if (n < 3) return { slope: 0, intercept: points[0]?.[1] ?? 0, slopeError: Infinity };
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const intercept = my - slope * mx;
  const residual = points.reduce((s, [x, y]) => s + (y - (intercept + slope * x)) ** 2, 0);
  const slopeError = sxx === 0 ? Infinity : Math.sqrt(residual / (n - 2) / sxx);
  return { slope, intercept, slopeError };
}
