// Text of unbounded length (a field path with a user's key in it, a message quoting a user's value)
// cut to a bounded one before it goes into an answer or a log line.

/** `text` if it has at most `max` characters, else its first ones and "… (N characters)". */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let head = text.slice(0, max);
  // Never half a UTF-16 surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  return `${head}… (${text.length} characters)`;
}
