// Pause durations of canary steps: a whole number of seconds, minutes or hours.
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;

export function durationMs(duration: string): number | undefined {
  const m = /^([0-9]+)(s|m|h)$/.exec(duration);
  return m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : undefined;
}
