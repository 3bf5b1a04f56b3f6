// Text from outside (a Prometheus error, an API server's message, a body) has no size of its own:
// one 900 KB error put whole into an App's status made the status write fail, and the reconcile
// that retried it asked Prometheus again each time. Such text is cut where it enters, to a few
// hundred bytes, and every message Skiff writes is held to the size of where it goes.

/** A piece of outside text inside one of Skiff's messages (an error's text, a body's excerpt). */
export const OUTSIDE_TEXT_BYTES = 512;
/** One message as a whole: a log field, an analysis message, an API error described. */
export const MESSAGE_BYTES = 1024;
/** The message of a status condition: room for a validation message naming many fields. */
export const CONDITION_MESSAGE_BYTES = 4096;

const encoder = new TextEncoder();

/**
 * `text` with its control characters (escape sequences, carriage returns, NULs) written as
 * \uXXXX: outside text ends up in status, Events and log lines that people read in terminals,
 * where an escape sequence from a server's error would move the cursor or recolour the screen.
 */
export const printable = (text: string): string =>
  text.replace(/\p{Cc}/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * `text` when its UTF-8 encoding fits in `maxBytes`; else its beginning, an ellipsis and the
 * original size, `…` and all within `maxBytes` (a character is never split).
 */
export function boundedText(text: string, maxBytes = OUTSIDE_TEXT_BYTES): string {
  // Most text is short: no encoding at all when even 3 bytes a UTF-16 unit would fit.
  if (text.length * 3 <= maxBytes) return text;
  const size = Buffer.byteLength(text, 'utf8');
  if (size <= maxBytes) return text;
  const tail = `… (${size} bytes in all)`;
  const room = Math.max(0, maxBytes - Buffer.byteLength(tail, 'utf8'));
  // encodeInto writes whole characters only: `read` UTF-16 units fit in `room` bytes.
  const { read } = encoder.encodeInto(text, new Uint8Array(room));
  return `${text.slice(0, read)}${tail}`;
}
