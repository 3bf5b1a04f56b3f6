// Tables as kubectl prints them: upper-case headers, columns three spaces apart. Cells may hold
// ANSI colours: widths count only what shows. Pure.
import { oneLine, visibleLength, type Style } from './style.js';

/** `style` is the one the cells were coloured with: plain output keeps no escape sequence. */
export function table(headers: string[], rows: string[][], style: Style): string[] {
  // A cell on one line: a row spanning several would break the columns (history's CHANGES come
  // from annotations anyone can write).
  const cells = [headers, ...rows].map((r) => r.map((c) => oneLine(c, style)));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => visibleLength(r[i] ?? ''))));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i] - visibleLength(c)))).join('   ').trimEnd());
}
