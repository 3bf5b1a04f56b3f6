// Kubernetes timestamps: metav1.Time serializes as RFC 3339 with second precision.

export const metaTime = (d: Date): string => d.toISOString().replace(/\.\d+Z$/, 'Z');

/**
 * The milliseconds of a time read from an App's status, or `fallback` (the pass's now) when it is
 * missing or not one JavaScript reads. The API server's date-time format takes some that
 * Date.parse does not (`2026-01-01T00:00:00,5Z`); status written by someone else must not make
 * every pass of the App throw.
 */
export function statusTimeMs(value: string | undefined, fallback: number): number {
  const ms = value === undefined ? NaN : Date.parse(value);
  return Number.isFinite(ms) ? ms : fallback;
}
