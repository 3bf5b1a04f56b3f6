// Ages as kubectl prints them (apimachinery's HumanDuration): 45s, 3m20s, 2h5m, 4d. Pure.

export function humanDuration(ms: number): string {
  // Truncated toward zero, as Go's int(d.Seconds()): up to 2 s of clock skew (excluded) shows as 0s.
  const s = Math.trunc(ms / 1000);
  if (s < -1) return '<invalid>';
  if (s < 0) return '0s';
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (h < 24 * 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  const y = Math.floor(d / 365);
  if (y < 8) return d % 365 === 0 ? `${y}y` : `${y}y${d % 365}d`;
  return `${y}y`;
}

/** The age of something created at `since` (RFC 3339), or "<unknown>". */
export function age(since: string | undefined, now: Date): string {
  const t = since ? Date.parse(since) : NaN;
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now.getTime() - t);
}
