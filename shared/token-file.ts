// A bearer token kept in a file and read again when stale, as client-go does: a projected
// ServiceAccount token is rotated by the kubelet, and a process that runs for long must pick up
// the new one. Used by the API server transport (kube-transport.ts) and the Prometheus client.
import { readFile } from 'node:fs/promises';

/** How often a token file is read again. */
export const TOKEN_FILE_REFRESH_MS = 60_000;

export interface TokenFileOptions {
  /** The token already read from the file (at start): the next read is then a minute away. Without it, the first call reads the file. */
  token?: string;
  /** Whether a token read (trimmed) may replace the one in use; one that may not is treated as an unreadable file. Default: any. */
  usable?: (token: string) => boolean;
}

/**
 * The token of `path`, read again when the last read is a minute old or more by `nowMs` (a
 * monotonic clock: a wall clock set back would keep a rotated token out). A read that fails, or
 * finds a token that is not `usable`, keeps the last token in use until the file can be read
 * again; undefined only while no read has succeeded. Never rejects; calls at the same time
 * share one read.
 */
export function tokenFromFile(path: string, nowMs: () => number, opts: TokenFileOptions = {}): () => Promise<string | undefined> {
  const usable = opts.usable ?? (() => true);
  let token = opts.token;
  let readAtMs = token === undefined ? Number.NEGATIVE_INFINITY : nowMs();
  let reading: Promise<void> | undefined;
  return async () => {
    if (nowMs() - readAtMs >= TOKEN_FILE_REFRESH_MS) {
      reading ??= readFile(path, 'utf8').then(
        (text) => {
          const read = text.trim();
          if (usable(read)) token = read;
        },
        () => { /* kept: the last token read stays in use until the file can be read again */ },
      ).finally(() => { readAtMs = nowMs(); reading = undefined; });
      await reading;
    }
    return token;
  };
}
