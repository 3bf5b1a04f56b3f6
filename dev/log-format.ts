// Turns pino's JSON log lines into one readable line each, for `npm run dev`'s terminal.
const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const SKIP = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name', 'component']);

export function formatLogLine(line: string, source: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
    if (typeof rec !== 'object' || rec === null) throw new Error('not a record');
  } catch {
    return `${source.padEnd(10)} ${line}`;
  }
  const time = typeof rec.time === 'string' ? rec.time.slice(11, 19) : new Date().toISOString().slice(11, 19);
  const level = LEVELS[Number(rec.level)] ?? String(rec.level ?? '');
  const fields = Object.entries(rec)
    .filter(([k]) => !SKIP.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${time} ${level.padEnd(5)} ${source.padEnd(10)} ${String(rec.msg ?? '')}${fields ? `  ${fields}` : ''}`;
}
