// Reading an AdmissionReview body: JSON only, at most `limitBytes`, parsed once. Written out
// instead of express.json() because it sits on the API server's request path: the generic
// parser (charset decoding, type matching, stream wrappers) cost more than the admission itself.
import type { IncomingMessage } from 'node:http';

export type BodyResult = { ok: true; value: unknown } | { ok: false; status: 400 | 413 | 415; message: string };

const isJson = (contentType: string | undefined) => /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(contentType ?? '');

export function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const fail = (status: 400 | 413 | 415, message: string) => {
      // Stop reading, but let the response go out on this connection.
      req.removeAllListeners('data');
      req.resume();
      resolve({ ok: false, status, message });
    };
    if (!isJson(req.headers['content-type'])) return fail(415, `expected Content-Type: application/json, got ${JSON.stringify(req.headers['content-type'] ?? null)}`);
    const declared = Number(req.headers['content-length']);
    if (declared > limitBytes) return fail(413, `the body (${declared} bytes) exceeds the limit of ${limitBytes} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limitBytes) {
        done = true;
        fail(413, `the body exceeds the limit of ${limitBytes} bytes`);
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', (err) => {
      if (!done) {
        done = true;
        resolve({ ok: false, status: 400, message: `reading the body failed: ${err.message}` });
      }
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      try {
        resolve({ ok: true, value: JSON.parse(Buffer.concat(chunks, size).toString('utf8')) });
      } catch (err) {
        resolve({ ok: false, status: 400, message: `the body is not valid JSON: ${(err as Error).message}` });
      }
    });
  });
}
