// The Prometheus client of canary analysis: one instant query, answered with one number or a
// reason why not. It never throws and never takes longer than its timeout, whatever is (or is
// not) at the other end: what Prometheus answers ends up in an App's status, never in a crash.
// Whatever text of its answer goes into a message is cut to a few hundred bytes (shared/text.ts):
// the message goes on into the App's status, an Event and the log.
import { readFileSync } from 'node:fs';
import { boundedText, MESSAGE_BYTES, printable } from '../../shared/text.js';
import { tokenFromFile } from '../../shared/token-file.js';
import type { QueryOutcome } from './types.js';

export type { QueryOutcome } from './types.js';

export interface QueryOptions {
  /** The whole exchange, reading the body included. Default 10 s (a reconcile never waits longer). */
  timeoutMs?: number;
  /** Cancels the query (its check no longer counts: the App was deleted). */
  signal?: AbortSignal;
  /** For tests; the global fetch otherwise. */
  fetch?: typeof fetch;
  /**
   * The instant the query is evaluated at (Prometheus's `time`): the queries of one check share it,
   * so they measure the same window however long each waits for its turn. Prometheus's now without it.
   */
  time?: Date;
  /**
   * The bearer token to send (`Authorization: Bearer …`), asked for before every query
   * (bearerTokenFile); undefined when it has none to give, which fails the query rather than send
   * it without. Not with credentials in the URL.
   */
  bearerToken?: () => Promise<string | undefined>;
}

/** Answers larger than this are refused: one number never needs more. */
export const MAX_BODY_BYTES = 1 << 20;

// Outside text is cut where it enters (`outside`); the whole message is held to MESSAGE_BYTES too.
const error = (message: string): QueryOutcome => ({ ok: false, reason: 'error', message: boundedText(message, MESSAGE_BYTES) });
const noData = (message: string): QueryOutcome => ({ ok: false, reason: 'no-data', message: boundedText(message, MESSAGE_BYTES) });
const invalid = (message: string): QueryOutcome => ({ ok: false, reason: 'invalid', message: boundedText(message, MESSAGE_BYTES) });

/** Prometheus's answers to a query it refused as such (a parse error, a many-to-many match, too many samples). */
const REFUSED_QUERY = new Set(['400 bad_data', '422 execution']);
/** A piece of the answer (or of an error about it) inside a message: a few hundred bytes at most. */
const outside = (text: string) => boundedText(printable(text));
/** A value of the answer shown as JSON, cut the same way. */
const shown = (value: unknown) => outside(JSON.stringify(value ?? null) ?? String(value));

/**
 * `GET {baseUrl}/api/v1/query?query=…[&time=…]` (a POST of the same form when the URL would be
 * long; baseUrl may carry a path prefix such as
 * `http://monitoring/prometheus/`, and query parameters, sent with every query). One series or a scalar: its value; an empty vector or NaN
 * (0/0: no traffic): `no-data`; anything else, including ±Inf, several series, HTTP and network
 * errors and timeouts: `error` with a message that names the address (credentials left out).
 * With `bearerToken`, every request carries `Authorization: Bearer <token>`; the token is in no
 * message.
 */
export async function queryInstant(baseUrl: string, query: string, opts: QueryOptions = {}): Promise<QueryOutcome> {
  const wanted = opts.timeoutMs ?? 10_000;
  const timeoutMs = Number.isFinite(wanted) ? Math.min(Math.max(Math.round(wanted), 1), 2 ** 31 - 1) : 10_000;
  const parsed = baseOf(baseUrl);
  if ('problem' in parsed) return error(parsed.problem);
  const { base, where, user } = parsed;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (user !== undefined) headers.authorization = `Basic ${Buffer.from(user).toString('base64')}`;
  if (opts.bearerToken) {
    // The token is never quoted: not in this message, nor in fetch's (which names a header value
    // it refuses), so one it would refuse is never handed to it.
    if (user !== undefined) return error(`${where}: the URL has user:password credentials and a bearer token is given as well: use one of them`);
    const token = await opts.bearerToken().catch(() => undefined);
    if (token === undefined) return error(`${where}: no bearer token to send (its file could not be read)`);
    const problem = bearerTokenProblem(token);
    if (problem) return error(`${where}: the bearer token ${problem}`);
    headers.authorization = `Bearer ${token}`;
  }
  const url = new URL('api/v1/query', base);
  // Parameters of the address itself (a tenant, a proxy's option) go with every query.
  url.search = base.search;
  url.searchParams.set('query', query);
  // Prometheus stops evaluating at its own timeout: without one it goes on (up to its
  // --query.timeout, 2 minutes by default) after this client has given up, holding one of its few
  // query slots from every other App's check. The address's own setting, if it has one, stands.
  if (!url.searchParams.has('timeout')) url.searchParams.set('timeout', (timeoutMs / 1000).toFixed(3));
  const at = opts.time?.getTime();
  if (at !== undefined && Number.isFinite(at)) url.searchParams.set('time', (at / 1000).toFixed(3));

  // Cancelled already (while the token was read): an abort event would never come.
  if (opts.signal?.aborted) return error(`${where}: the query was cancelled`);
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
  // The signal stops fetch and the body stream; the race also covers a fetch that ignores it.
  let onAbort: () => void = () => {};
  const timedOut = new Promise<QueryOutcome>((resolve) => {
    onAbort = () => resolve(error(opts.signal?.aborted ? `${where}: the query was cancelled` : `${where} did not answer within ${timeoutMs} ms`));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return withSentQuery(await Promise.race([exchange(url, headers, where, signal, opts.fetch ?? fetch), timedOut]), query);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * A parse error's position (`1:78: parse error: ...`) counts in the query as sent, its
 * placeholders filled and the namespace matchers added, which nothing else shows: it is quoted.
 */
function withSentQuery(outcome: QueryOutcome, query: string): QueryOutcome {
  if (outcome.ok || outcome.reason !== 'invalid' || !/\d+:\d+: parse error\b/.test(outcome.message)) return outcome;
  return { ...outcome, message: boundedText(`${outcome.message} (positions count in the query as sent: ${query})`, MESSAGE_BYTES) };
}

/**
 * Why `baseUrl` cannot be a Prometheus address (it does not parse, or is not http(s)), or
 * undefined: the controller refuses such a --prometheus-url at start rather than have every check
 * of every App fail on it (and pass, under `noData: Pass`).
 */
export function prometheusUrlProblem(baseUrl: string, opts: { bearerToken?: boolean } = {}): string | undefined {
  const parsed = baseOf(baseUrl);
  if ('problem' in parsed) return parsed.problem;
  // Two credentials for one request: whichever won, the other would be ignored without a word.
  if (opts.bearerToken && parsed.user !== undefined) {
    return `Prometheus URL ${JSON.stringify(redact(baseUrl))} has user:password credentials, and --prometheus-bearer-token-file is set as well: use one of them`;
  }
  return undefined;
}

/**
 * Why `token` (as read from its file, trimmed) cannot be sent as a bearer token, or undefined. It
 * must be one line of visible ASCII, as tokens are (a JWT, an opaque token): anything else is a
 * file that holds something else, and fetch would refuse the header with the token in its error.
 * The reason never quotes the token.
 */
export function bearerTokenProblem(token: string): string | undefined {
  if (token === '') return 'is empty';
  if (!/^[\x21-\x7e]+$/.test(token)) return 'holds characters other than visible ASCII (a token is one line without spaces)';
  return undefined;
}

/**
 * The token of the file `path` as the controller sends it: read at start (`first`, checked by
 * readBearerTokenFile) and again when a minute old, so that a rotated ServiceAccount token is
 * picked up; a file that cannot be read, or holds no usable token, keeps the last token in use.
 * `nowMs`: a monotonic clock (injected by tests).
 */
export function bearerTokenFile(path: string, first?: string, nowMs: () => number = () => performance.now()): () => Promise<string | undefined> {
  return tokenFromFile(path, nowMs, { token: first, usable: (t) => bearerTokenProblem(t) === undefined });
}

/**
 * The token of the file `path` at start, or why the controller cannot use it (a missing or
 * unreadable file, no usable token in it). The reason names the file, never the token.
 */
export function readBearerTokenFile(path: string, read: (path: string) => string = (p) => readFileSync(p, 'utf8')): { token: string } | { problem: string } {
  let text: string;
  try {
    text = read(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'a directory, not a file' : (err as Error).message;
    return { problem: `cannot read the bearer token file ${path}: ${why}` };
  }
  const token = text.trim();
  const problem = bearerTokenProblem(token);
  return problem ? { problem: `the bearer token file ${path} ${problem}` } : { token };
}

/**
 * The base URL (ending in "/", without credentials) queries are resolved against, how messages
 * name it, and its credentials as `user:password` for basic authentication.
 */
function baseOf(baseUrl: string): { base: URL; where: string; user?: string } | { problem: string } {
  try {
    const base = new URL(baseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') return { problem: `Prometheus URL ${JSON.stringify(redact(baseUrl))} is not http(s)` };
    // The slash goes on the path, not on the text: after a query or a fragment it would leave the
    // path without one, and `api/v1/query` would replace its last segment (the path prefix).
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    base.hash = '';
    const where = `Prometheus at ${base.origin}${base.pathname.replace(/\/$/, '')}`;
    if (!base.username && !base.password) return { base, where };
    // fetch refuses URLs with credentials (and would put them in its message): basic auth instead.
    const user = `${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`;
    base.username = '';
    base.password = '';
    return { base, where, user };
  } catch {
    return { problem: `Prometheus URL ${JSON.stringify(redact(baseUrl))} is not a valid URL` };
  }
}

/**
 * Longest URL sent as a GET. A longer one goes as a POST of the same parameters in a form body, as
 * Prometheus's API allows: proxies in front of Prometheus refuse long request lines (nginx's
 * default 8 KiB; 414), and an admitted custom query, filled and confined, can need more. Short
 * queries stay GETs, which proxies that authorize by HTTP verb (kube-rbac-proxy) allow as reads.
 */
export const MAX_GET_URL = 4096;

async function exchange(url: URL, headers: Record<string, string>, where: string, signal: AbortSignal, fetchImpl: typeof fetch): Promise<QueryOutcome> {
  let res: Response;
  try {
    if (url.href.length <= MAX_GET_URL) res = await fetchImpl(url, { signal, headers });
    else {
      const posted = await postForm(url, headers, where, signal, fetchImpl);
      if ('refused' in posted) return posted.refused;
      res = posted.res;
    }
  } catch (err) {
    return error(`${where} unreachable: ${outside(describe(err))}`);
  }
  let text: string;
  try {
    text = await readCapped(res);
  } catch (err) {
    // A JSON success that large is the query's doing (thousands of series: one App's query,
    // aggregated by nothing or exploded on purpose), not Prometheus failing: counted `invalid`, it
    // never fires the alert on failing queries. Anything else that large (a page of whatever the
    // address wrongly points at, a proxy's junk sent as JSON) is no Prometheus answer.
    if (err instanceof TooLarge && res.ok && /^application\/json\b/i.test(res.headers.get('content-type') ?? '') && PROMETHEUS_SUCCESS.test(err.head)) {
      return invalid(`${where}: ${err.message}; the query returns far more than one number (aggregate it with sum() or similar)`);
    }
    return error(`${where}: ${err instanceof TooLarge ? err.message : `reading the answer failed: ${outside(describe(err))}`}`);
  }
  return interpret(res.status, text, where);
}

/** Redirects a long query follows (307 and 308 keep the POST and its body). */
const MAX_POST_REDIRECTS = 5;

/**
 * The query as a POST of its form. fetch would follow a 301, 302 or 303 as a GET without the body
 * (the query gone, and Prometheus's answer a misleading parse error): those are refused with
 * what to change, and 307 and 308 are followed with the same POST.
 */
async function postForm(url: URL, headers: Record<string, string>, where: string, signal: AbortSignal, fetchImpl: typeof fetch): Promise<{ res: Response } | { refused: QueryOutcome }> {
  const form = url.searchParams.toString();
  const sent: Record<string, string> = { ...headers, 'content-type': 'application/x-www-form-urlencoded' };
  let target = new URL(url);
  target.search = '';
  for (let redirects = 0; ; redirects++) {
    const res = await fetchImpl(target, { method: 'POST', signal, redirect: 'manual', headers: sent, body: form });
    if (res.status < 300 || res.status > 399) return { res };
    await res.body?.cancel();
    const location = res.headers.get('location');
    if ((res.status !== 307 && res.status !== 308) || !location) {
      return { refused: error(`${where} redirected a long query (HTTP ${res.status}), which turns its POST into a GET without the query: set --prometheus-url to the address it redirects to`) };
    }
    if (redirects >= MAX_POST_REDIRECTS) return { refused: error(`${where} redirected a long query more than ${MAX_POST_REDIRECTS} times`) };
    // The credentials of the address stay with its origin, as fetch's own redirects do.
    const next = new URL(location, target);
    if (next.origin !== target.origin) delete sent.authorization;
    target = next;
  }
}

/** The answer's outcome from its HTTP status and body. Exported for tests of odd bodies. */
export function interpret(status: number, text: string, where = 'Prometheus'): QueryOutcome {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return error(`${where} answered HTTP ${status} with a body that is not JSON${excerpt(text)}`);
  }
  if (!isObject(body)) return error(`${where} answered HTTP ${status} with JSON that is not an object`);
  if (body.status === 'error' || status < 200 || status > 299) {
    const kind = typeof body.errorType === 'string' ? `${outside(body.errorType)}: ` : '';
    const why = typeof body.error === 'string' ? outside(body.error) : `status ${shown(body.status)}`;
    return (REFUSED_QUERY.has(`${status} ${String(body.errorType)}`) ? invalid : error)(`${where} answered HTTP ${status}: ${kind}${why}`);
  }
  if (body.status !== 'success') return error(`${where}: answer has status ${shown(body.status)}, expected "success"`);
  const data = body.data;
  if (!isObject(data)) return error(`${where}: answer has no data`);
  switch (data.resultType) {
    case 'scalar':
      return sampleValue(data.result, where);
    case 'vector': {
      if (!Array.isArray(data.result)) return error(`${where}: vector result is not a list`);
      if (data.result.length === 0) return noData('no series');
      if (data.result.length > 1) return invalid(`${data.result.length} series, expected one (aggregate with sum() or similar)`);
      const sample: unknown = data.result[0];
      if (!isObject(sample)) return error(`${where}: vector sample is not an object`);
      if (sample.value === undefined && sample.histogram !== undefined) return invalid('a native histogram sample, expected one number');
      return sampleValue(sample.value, where);
    }
    case 'matrix':
    case 'string':
      return invalid(`result type ${data.resultType}, expected one number (a vector of one series or a scalar)`);
    default:
      return error(`${where}: unknown result type ${shown(data.resultType)}`);
  }
}

/** `[<unix time>, "<value>"]` → the number. */
function sampleValue(pair: unknown, where: string): QueryOutcome {
  if (!Array.isArray(pair) || pair.length !== 2) return error(`${where}: sample is not [time, value]`);
  const raw: unknown = pair[1];
  if (typeof raw === 'number' && Number.isFinite(raw)) return { ok: true, value: raw };
  if (typeof raw !== 'string') return error(`${where}: sample value ${shown(raw)} is not a number`);
  const s = raw.trim();
  if (s === 'NaN') return noData('NaN (a 0/0, as a ratio of rates over a window without traffic gives)');
  if (/^[+-]?Inf$/.test(s)) return invalid(`value ${s} is not a usable number (a division by zero?)`);
  // Prometheus writes a float in at most 24 characters; the bound, and a pattern with one way to
  // match, keep a crafted answer from costing more than linear time on the event loop.
  if (s.length > MAX_SAMPLE_CHARS) return error(`${where}: sample value ${outside(s)} is not a number Prometheus writes`);
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s)) return error(`${where}: sample value ${JSON.stringify(raw.slice(0, 40))} is not a number`);
  const value = Number(s);
  return Number.isFinite(value) ? { ok: true, value } : invalid(`value ${outside(s)} is not a usable number`);
}

const MAX_SAMPLE_CHARS = 64;

/** How Prometheus's JSON of a successful query begins (its encoder writes status first). */
const PROMETHEUS_SUCCESS = /^\s*\{\s*"status"\s*:\s*"success"/;

/** An answer over MAX_BODY_BYTES, with its first bytes: they tell a Prometheus success from anything else. */
class TooLarge extends Error {
  constructor(readonly head: string) {
    super(`answer larger than ${MAX_BODY_BYTES / (1 << 20)} MiB`);
  }
}

const HEAD_BYTES = 64;

/** The body as text, refusing more than MAX_BODY_BYTES (one declared larger once its first bytes are in). */
async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const declaredTooLarge = Number(res.headers.get('content-length')) > MAX_BODY_BYTES;
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size <= MAX_BODY_BYTES) chunks.push(value);
    else chunks.push(value.subarray(0, HEAD_BYTES));
    // Declared too large: read on until its first bytes are in, which tell what it is.
    if (size > MAX_BODY_BYTES || (declaredTooLarge && size >= HEAD_BYTES)) {
      await reader.cancel().catch(() => {});
      throw new TooLarge(Buffer.concat(chunks).subarray(0, HEAD_BYTES).toString('utf8'));
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** An error's message with its cause (fetch's `TypeError('fetch failed')` hides the code there). */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: string }).code;
    // An AggregateError (every address of a name refused) has no message of its own.
    const inner = cause.message || (cause instanceof AggregateError ? cause.errors.map((e: Error) => e.message).join(', ') : '');
    return inner || code || err.message;
  }
  return err.message;
}

/** A short, single-line piece of a body for messages (an HTML error page, say). */
function excerpt(text: string): string {
  // Only the beginning is looked at: tags are stripped by a scan that a body full of "<" without
  // ">" would make take time in the square of its length.
  const flat = printable(text.slice(0, 4096).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim());
  if (!flat) return '';
  return `: ${flat.length > 120 ? `${flat.slice(0, 120)}…` : flat}`;
}

/** `user:password@` out of a URL that may not even parse. */
const redact = (url: string) => url.replace(/\/\/[^/@]*@/, '//');

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
