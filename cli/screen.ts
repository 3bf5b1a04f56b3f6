// Redrawing a terminal in place for `get --watch`, without flicker: the cursor goes home, each
// line is overwritten and cleared to its end, and whatever is left below is cleared; nothing is
// ever erased first. Pure: lines in, the bytes to write out.
import { visibleLength } from './style.js';

const ESC = '\u001b[';
export const HIDE_CURSOR = `${ESC}?25l`;
export const SHOW_CURSOR = `${ESC}?25h`;
export const CLEAR_SCREEN = `${ESC}2J`;

/**
 * The size to draw at: the terminal's, or 80×24 where it reports none or 0×0 (a pseudo-terminal
 * never sized, as under `script`), which would cut every line to nothing.
 */
export function drawingSize(terminal: { columns?: number; rows?: number }): { columns: number; rows: number } {
  return { columns: terminal.columns || 80, rows: terminal.rows || 24 };
}

/**
 * A line cut to `columns` shown characters (colours dropped from a line that is cut), ending in
 * `ellipsis`: the Style's, so that with symbols off (--no-color, NO_COLOR) it is plain "...".
 */
export function fit(line: string, columns: number, ellipsis = '…'): string {
  if (visibleLength(line) <= columns) return line;
  const kept = Math.max(0, columns - ellipsis.length);
  return (line.replace(/\u001b\[[0-9;]*m/g, '').slice(0, kept) + ellipsis).slice(0, Math.max(columns, 1));
}

/** One frame: home, every line (at most `rows`) overwritten and cleared to its end, the rest below cleared. */
export function frame(lines: string[], columns: number, rows: number, ellipsis = '…'): string {
  const shown = lines.slice(0, Math.max(1, rows));
  return `${ESC}H${shown.map((l) => `${fit(l, columns, ellipsis)}${ESC}K`).join('\r\n')}${ESC}J`;
}
