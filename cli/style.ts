// Colours, symbols and tree lines of the plugin's output: on a terminal (no NO_COLOR, no
// --no-color) with ANSI colours and Unicode symbols, otherwise plain ASCII so that pipes, logs
// and scripts see stable text.
import type { Role, StatusWord } from './model.js';

export interface Style {
  readonly fancy: boolean;
  status(word: StatusWord): string;
  role(text: string, role: Role | undefined): string;
  dim(text: string): string;
  /** Analysis counts: "✔ 3 ✖ 1 ? 0", or "passed 3, failed 1, inconclusive 0". */
  checks(passed: number, failed: number, inconclusive?: number): string;
  tree: { branch: string; last: string; pipe: string; space: string };
  /** What ends a line cut to the screen's width: "…", or "..." where symbols are off. */
  ellipsis: string;
}

const ESC = '\u001b[';
/** The SGR codes a Style writes (the reset among them): the only ones kept in text it prints. */
const PAINTED = new Set(['0']);
const paint = (code: string) => {
  PAINTED.add(code);
  return (text: string) => `${ESC}${code}m${text}${ESC}0m`;
};
const green = paint('32');
const yellow = paint('33');
const red = paint('31');
const dim = paint('2');

const SYMBOLS: Record<StatusWord, string> = { Healthy: '✔', Progressing: '◌', Paused: '‖', Degraded: '✖' };
const STATUS_COLOUR: Record<StatusWord, (s: string) => string> = { Healthy: green, Progressing: yellow, Paused: yellow, Degraded: red };
const ROLE_COLOUR: Record<Role, (s: string) => string> = { stable: green, active: green, canary: yellow, preview: yellow, new: yellow, held: yellow };

export const fancyStyle: Style = {
  fancy: true,
  status: (word) => STATUS_COLOUR[word](`${SYMBOLS[word]} ${word}`),
  role: (text, role) => (role ? ROLE_COLOUR[role](text) : text),
  dim,
  checks: (p, f, i) => `${green(`✔ ${p}`)} ${red(`✖ ${f}`)}${i === undefined ? '' : ` ${yellow(`? ${i}`)}`}`,
  tree: { branch: '├── ', last: '└── ', pipe: '│   ', space: '    ' },
  ellipsis: '…',
};

export const plainStyle: Style = {
  fancy: false,
  status: (word) => word,
  role: (text) => text,
  dim: (text) => text,
  checks: (p, f, i) => `passed ${p}, failed ${f}${i === undefined ? '' : `, inconclusive ${i}`}`,
  tree: { branch: '|-- ', last: '`-- ', pipe: '|   ', space: '    ' },
  ellipsis: '...',
};

/** Fancy only on a terminal, without NO_COLOR (any value) and without --no-color. */
export function chooseStyle(opts: { color: boolean; isTTY: boolean; env: NodeJS.ProcessEnv }): Style {
  return opts.color && opts.isTTY && !opts.env.NO_COLOR ? fancyStyle : plainStyle;
}

/** The length of text as shown: without ANSI sequences. */
export const visibleLength = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '').length;

/**
 * A colour (SGR) sequence of those a Style writes (PAINTED). It takes no column. Other SGR
 * attributes are not kept from text the cluster gave: conceal (8) or a colour on its own
 * background would hide what follows.
 */
const isColour = (sequence: string) => {
  const code = /^\u001b\[([0-9]*)m$/.exec(sequence)?.[1];
  return code !== undefined && PAINTED.has(code === '' ? '0' : code);
};

/**
 * Every terminal escape sequence, each matched whole (ECMA-48), in its 7-bit (ESC ...) and 8-bit
 * (C1) forms: a control sequence (CSI: colours, cursor moves, erasing), a control string (OSC:
 * window titles and hyperlinks; DCS, SOS, PM, APC) up to its end (BEL or ST) or up to the next
 * control character, and ESC with what completes it (ESC c resets the terminal). Removing only
 * the ESC would leave the rest ("[2J", "]0;title") to show as text.
 */
const ESCAPE = /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d-\u009f])[^\u0000-\u001f\u007f-\u009f]*(?:\u0007|\u001b\\|\u009c)?|\u001b[\u0020-\u002f]*[\u0030-\u007e]?/g;

/** What separates the lines of a multi-line text once it is printed on one line. */
export const LINE_BREAK = ' | ';

/**
 * Text on one line, as every line the plugin prints must be: a condition's message (a Prometheus
 * error, an InvalidSpec list) may hold line breaks, and `get --watch` redraws the screen by
 * counting lines, so one line spanning several shifted everything below it. Line breaks inside the
 * text (with the spaces around them) become LINE_BREAK; those at its start or end separate nothing
 * and go. Tabs and other control characters, which move the cursor or change the terminal's
 * state, become a space.
 *
 * Escape sequences are removed whole, whoever wrote them: text from the cluster may carry any.
 * Fancy output keeps the colours, which its Style writes; plain output (also the default, for
 * text the plugin colours nothing in) keeps none, as pipes, logs and scripts need.
 */
export function oneLine(text: string, style: Style = plainStyle): string {
  return text
    .replace(ESCAPE, (sequence) => (style.fancy && isColour(sequence) ? sequence : ''))
    // A run at an end is told by its offset: an anchored alternative (`...$`) would backtrack
    // through every way to split a run of "\r\n" before failing.
    .replace(/(?:[ \t]*(?:\r\n|[\n\r\v\f\u0085\u2028\u2029]))+[ \t]*/g, (run, at: number, all: string) => (at === 0 || at + run.length === all.length ? '' : LINE_BREAK))
    .replace(/\u001b\[[0-9;]*m|[\u0000-\u001f\u007f-\u009f]/g, (c) => (c.length > 1 ? c : ' '));
}
