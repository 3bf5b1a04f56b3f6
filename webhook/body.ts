// Reading an AdmissionReview body: JSON only, at most `limitBytes`, parsed once. Written out
// instead of express.json() because it sits on the API server's request path: the generic
// parser (charset decoding, type matching, stream wrappers) cost more than the admission itself.
import type { IncomingMessage } from 'node:http';

export type BodyResult = { ok: true; value: unknown; bytes: number } | { ok: false; status: 400 | 408 | 413 | 415 | 429; message: string };

/**
 * A body larger than this counts against the bytes of large bodies a webhook holds at once (a
 * review of an ordinary App is a few KiB; one just under this holds about what its TLS
 * connection does).
 */
export const LARGE_BODY_BYTES = 64 * 1024;
/** The most a body without a Content-Length may be (the API server always sends one). */
export const UNKNOWN_LENGTH_LIMIT_BYTES = 1024 * 1024;

/**
 * The bytes of large bodies held at once, each byte from its arrival until the answer is sent: a
 * body of 7 MiB parses to several times that, and any pod can call the webhook's Service, so
 * without a bound a few at once, or many of 1 MiB, would take the pod past its memory limit, and
 * every App write with it. Bytes that have arrived, not bytes declared: connections that declare
 * large bodies and send nothing hold nothing, and lock no review out.
 */
export function largeBodyBudget(limitBytes: number) {
  let held = 0;
  return {
    /** Holds `bytes` when they fit beside those held; false when they do not. */
    take(bytes: number): boolean {
      if (held + bytes > limitBytes) return false;
      held += bytes;
      return true;
    },
    give(bytes: number): void {
      held -= bytes;
    },
    get held() {
      return held;
    },
  };
}

/** Holds a chunk's bytes as they arrive; a message when they do not fit (the body is refused, 429). */
export type BodyHold = (bytes: number) => string | undefined;

// The API server sends exactly "application/json": checked before the general pattern.
const isJson = (contentType: string | undefined) => contentType === 'application/json' || /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(contentType ?? '');

/**
 * Reads the body and calls `done` once with the parsed value or the error to answer. A callback
 * rather than a promise: one fewer allocation and microtask on every admission.
 */
export function readJsonBody(req: IncomingMessage, limitBytes: number, done: (result: BodyResult) => void, hold?: BodyHold, requestTimeoutMs?: number): void {
  const fail = (status: 400 | 413 | 415 | 429, message: string) => {
    // Stop reading, but let the response go out on this connection.
    req.removeAllListeners('data');
    req.resume();
    done({ ok: false, status, message });
  };
  if (!isJson(req.headers['content-type'])) return fail(415, `expected Content-Type: application/json, got ${JSON.stringify(req.headers['content-type'] ?? null)}`);
  const declared = Number(req.headers['content-length']);
  if (declared > limitBytes) return fail(413, `the body (${declared} bytes) exceeds the limit of ${limitBytes} bytes`);
  // A review usually arrives in one chunk: kept as is, without an array to concatenate.
  let first: Buffer | undefined;
  let chunks: Buffer[] | undefined;
  let size = 0;
  let finished = false;
  req.on('data', (chunk: Buffer) => {
    if (finished) return;
    size += chunk.length;
    if (size > limitBytes) {
      finished = true;
      fail(413, `the body exceeds the limit of ${limitBytes} bytes`);
      return;
    }
    const refused = hold?.(chunk.length);
    if (refused) {
      finished = true;
      fail(429, refused);
      return;
    }
    if (first === undefined) first = chunk;
    else (chunks ??= [first]).push(chunk);
  });
  req.on('error', (err) => {
    if (finished) return;
    finished = true;
    // Node's request timeout answers 408 itself and destroys the socket with its own error; the
    // request reads only "aborted". Counted as what the client got, not as a malformed request.
    if ((req.socket as { errored?: { code?: string } } | null)?.errored?.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      const within = requestTimeoutMs === undefined ? '' : ` (${requestTimeoutMs / 1000} s)`;
      done({ ok: false, status: 408, message: `the body did not arrive within the request timeout${within}` });
    } else done({ ok: false, status: 400, message: `reading the body failed: ${err.message}` });
  });
  req.on('end', () => {
    if (finished) return;
    finished = true;
    let value: unknown;
    try {
      value = JSON.parse((chunks ? Buffer.concat(chunks, size) : (first ?? Buffer.alloc(0))).toString('utf8'));
    } catch (err) {
      done({ ok: false, status: 400, message: `the body is not valid JSON: ${(err as Error).message}` });
      return;
    }
    done({ ok: true, value, bytes: size });
  });
}
