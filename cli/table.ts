// Tables as kubectl prints them: upper-case headers, columns three spaces apart. Cells may hold
// ANSI colours: widths count only what shows. Pure.
import { oneLine, visibleLength } from './style.js';

export function table(headers: string[], rows: string[][]): string[] {
  // A cell on one line: a row spanning several would break the columns (history's CHANGES come
  // from annotations anyone can write).
  const cells = [headers, ...rows].map((r) => r.map(oneLine));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => visibleLength(r[i] ?? ''))));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i] - visibleLength(c)))).join('   ').trimEnd());
}
