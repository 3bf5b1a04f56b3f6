// Reading errors of the API client (api-client.ts: ApiStatusError) and of @kubernetes/client-node
// (which the tests and the tools use) alike: both carry the HTTP code and the raw Status body as a
// string; a refused watch (watch.ts) sets statusCode; network failures are Node's errors with a
// string code (ECONNREFUSED), or fetch's TypeError('fetch failed') with it in cause.code.
import { boundedText, MESSAGE_BYTES } from '../../shared/text.js';

export function statusCode(err: unknown): number | undefined {
  const e = err as { code?: unknown; statusCode?: unknown };
  if (typeof e?.code === 'number') return e.code;
  if (typeof e?.statusCode === 'number') return e.statusCode;
  return undefined;
}

export const isNotFound = (err: unknown) => statusCode(err) === 404;

/**
 * A write refused because its namespace is being deleted (the Status cause NamespaceTerminating,
 * whose message the API server words so since 1.10): described by describeError or not. Nothing
 * can be made there any more, and the App goes with the namespace: no failure to report or retry.
 */
export const namespaceTerminating = (err: unknown): boolean =>
  (typeof err === 'string' ? err : describeError(err)).includes('because it is being terminated');
export const isConflict = (err: unknown) => statusCode(err) === 409;

/**
 * Why a write to a kind's collection failed because the API server does not serve that kind now,
 * or undefined: a 404 for the path itself (a CRD deleted, before discovery says so), which the
 * API server answers as text (`404 page not found`) or, from 1.38, as a Status NotFound with its
 * generic message and no object named; or a create refused while the kind's CRD is being deleted.
 * A NotFound of an object or a namespace names it (details), and a 404 some admission webhook or
 * proxy answers with a message of its own is neither: said as they are.
 */
export function resourceNotServed(err: unknown): string | undefined {
  const code = statusCode(err);
  const body = (err as { body?: unknown })?.body;
  let status: { kind?: unknown; reason?: unknown; message?: unknown; details?: { name?: unknown; kind?: unknown } } | undefined;
  try {
    status = typeof body === 'string' ? JSON.parse(body) : (body as typeof status);
  } catch {
    status = undefined;
  }
  const isObject = status !== null && typeof status === 'object';
  if (code === 404 && !isObject && typeof body === 'string' && /^404 page not found\s*$/.test(body)) return 'its path answers 404 page not found';
  if (code === 404 && isObject && status!.reason === 'NotFound' && status!.message === 'the server could not find the requested resource' && status!.details?.name === undefined) {
    return 'its path answers 404: the server could not find the requested resource';
  }
  if (isObject && typeof status!.message === 'string' && /custom resource definition is terminating/.test(status!.message)) return `its CRD is being deleted (${status!.message})`;
  return undefined;
}

/**
 * A one-line description of an error from the API or the network, at most MESSAGE_BYTES: the
 * API server's message can quote what it was sent, and the description goes into status
 * conditions, Events and the log.
 */
export function describeError(err: unknown): string {
  return boundedText(describeWhole(err), MESSAGE_BYTES);
}

function describeWhole(err: unknown): string {
  const body = (err as { body?: unknown })?.body;
  if (body !== undefined) {
    try {
      const status = typeof body === 'string' ? JSON.parse(body) : body;
      if (typeof status?.message === 'string') return `${statusCode(err) ?? ''} ${status.message}`.trim();
    } catch {
      // not JSON: fall through
    }
  }
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const message = err instanceof Error ? err.message : String(err);
  return cause?.code ? `${message} (${cause.code})` : message;
}
