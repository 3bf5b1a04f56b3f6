// A small JSON client of the Kubernetes API for the plugin, over node:https: GET, JSON merge
// patch and watch streams. It loads in a few milliseconds where client-node takes half a second
// and 100 MB, which a command line that runs for a moment pays at every start.
import type { IncomingMessage } from 'node:http';
import { makeTransport, readText, type SendOptions } from '../shared/kube-transport.js';
import { ApiError, CliError, UnreachableError } from './errors.js';
import { KubeConfigError, type Connection } from '../shared/kube-connection.js';

export { ApiError, CliError };


export interface WatchEvent<T> { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'; object: T }

export interface ReadOptions {
  /** The Accept header, for a representation other than the full object (default `application/json`). */
  accept?: string;
}

export interface Api {
  readonly connection: Connection;
  get<T>(path: string, opts?: ReadOptions): Promise<T>;
  mergePatch<T>(path: string, patch: unknown): Promise<T>;
  /** One watch request from `resourceVersion`; resolves when the server closes it. ERROR events reject with their code. */
  watchOnce<T>(path: string, resourceVersion: string, onEvent: (e: WatchEvent<T>) => void, signal: AbortSignal, opts?: ReadOptions): Promise<void>;
}

/** What the server said in a Status body, or the body's start. */
function statusMessage(text: string): { message: string; reason?: string } {
  try {
    const s = JSON.parse(text) as { message?: string; reason?: string };
    if (s.message) return { message: s.message, reason: s.reason };
  } catch {
    // Not JSON: an HTML error page of a proxy, say.
  }
  return { message: text.slice(0, 200).trim() || '(no message)' };
}

function explain(code: number, text: string, method: string, path: string): ApiError {
  const { message, reason } = statusMessage(text);
  if (code === 401) return new ApiError(code, `unauthorized (401): the API server did not accept the kubeconfig's credentials (${message})`, reason);
  if (code === 403) return new ApiError(code, `forbidden (403): ${message}`, reason, message);
  if (code === 404) return new ApiError(code, message, reason, message);
  // A request refused for what it asks (400 BadRequest, 409 Conflict, 422 Invalid: an admission
  // webhook's denial, say): the server's words are what the user needs, not the method and path.
  if (code >= 400 && code < 500) return new ApiError(code, `refused (${code}${reason ? ` ${reason}` : ''}): ${message}`, reason, message);
  return new ApiError(code, `${method} ${path}: ${code} ${message}`, reason, message);
}

/** Network failures in words: the server address and what to check. */
export function networkError(err: NodeJS.ErrnoException, server: string): UnreachableError {
  const why: Record<string, string> = {
    ECONNREFUSED: 'connection refused (is the cluster running? is this the right context?)',
    ENOTFOUND: 'host not found',
    ETIMEDOUT: 'timed out',
    ECONNRESET: 'connection reset',
    EHOSTUNREACH: 'host unreachable',
    DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is self-signed and the kubeconfig gives no certificate-authority for it",
    UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate is not signed by the kubeconfig's certificate-authority",
    SELF_SIGNED_CERT_IN_CHAIN: "the server's certificate is not signed by the kubeconfig's certificate-authority",
  };
  return new UnreachableError(`cannot reach the API server at ${server}: ${why[err.code ?? ''] ?? err.message}`);
}

async function readJson<T>(res: IncomingMessage, method: string, path: string, server: string): Promise<T> {
  const text = await readText(res);
  const code = res.statusCode ?? 0;
  if (code < 200 || code >= 300) throw explain(code, text, method, path);
  try {
    return (text ? JSON.parse(text) : {}) as T;
  } catch {
    // A server that is not the API server (a proxy's or a web server's page): said in words, not
    // as the JSON parser's SyntaxError with a stack.
    throw new CliError(`the API server at ${server} answered ${method} ${path} with something that is not JSON (is the kubeconfig's server the API server?): ${text.slice(0, 100).replace(/\s+/g, ' ').trim()}`);
  }
}

/** Newline-delimited watch events of a response, each handed to `onEvent`. */
async function readEvents<T>(res: IncomingMessage, onEvent: (e: WatchEvent<T>) => void): Promise<void> {
  let buffered = '';
  res.setEncoding('utf8');
  for await (const chunk of res) {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (!line) continue;
      const event = JSON.parse(line) as WatchEvent<T>;
      if (event.type === 'ERROR') {
        const status = event.object as { code?: number; message?: string; reason?: string };
        throw new ApiError(status.code ?? 500, status.message ?? 'watch error', status.reason);
      }
      onEvent(event);
    }
  }
}

/**
 * The texts of the API server's `Warning` headers (RFC 7234 `299 AGENT "TEXT"`, several per
 * header allowed), as client-go reads them: only code 299, the quoted text unescaped. They carry
 * what an admission webhook warns about (an image with the latest tag) and deprecations.
 */
export function warningTexts(values: string[] | undefined): string[] {
  const out: string[] = [];
  for (const value of values ?? []) {
    for (const [, code, text] of value.matchAll(/(\d{3}) \S+ "((?:[^"\\]|\\.)*)"/g)) {
      if (code === '299') out.push(text.replace(/\\(.)/g, '$1'));
    }
  }
  return out;
}

/** `onWarning` hears each warning the API server sends with an answer (kubectl prints them on stderr). */
export function makeApi(conn: Connection, onWarning: (text: string) => void = () => {}): Api {
  const transport = makeTransport(conn, 'kubectl-skiff');
  const send = (method: string, path: string, opts: SendOptions = {}) =>
    transport.send(method, path, opts).then((res) => {
      for (const text of warningTexts(res.headersDistinct.warning)) onWarning(text);
      return res;
    }, (err: NodeJS.ErrnoException) => Promise.reject(err.name === 'AbortError' || err instanceof KubeConfigError ? err : networkError(err, conn.server)));
  return {
    connection: conn,
    async get<T>(path: string, opts: ReadOptions = {}) {
      return readJson<T>(await send('GET', path, { accept: opts.accept }), 'GET', path, conn.server);
    },
    async mergePatch<T>(path: string, patch: unknown) {
      return readJson<T>(await send('PATCH', path, { body: JSON.stringify(patch), contentType: 'application/merge-patch+json' }), 'PATCH', path, conn.server);
    },
    async watchOnce<T>(path: string, resourceVersion: string, onEvent: (e: WatchEvent<T>) => void, signal: AbortSignal, opts: ReadOptions = {}) {
      const sep = path.includes('?') ? '&' : '?';
      const full = `${path}${sep}watch=1&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(resourceVersion)}`;
      // A watch waits for changes as long as the user does: no request timeout for it.
      const res = await send('GET', full, { signal, timeoutMs: 0, accept: opts.accept });
      if ((res.statusCode ?? 0) >= 300) return void (await readJson(res, 'GET', full, conn.server));
      await readEvents(res, onEvent);
    },
  };
}
