// A watch request of the Kubernetes API: newline-delimited JSON events handed to a callback, and
// `done` called once when the stream ends (null), fails, or the server refuses it (an error with
// its statusCode, 410 Gone among them), as client-node's Watch does.
//
// Each watch asks the server to end it after 5 to 10 minutes (client-go's spread, so that
// watches do not all reconnect at once) and with bookmarks, which keep the resourceVersion
// current on quiet resources. A stream silent for SILENCE_LIMIT_MS may be a dead connection (a
// peer gone without closing it), or only quiet: an API server sends bookmarks on a quiet watch
// only once its watch cache has seen progress of that resource (1.20 never does for a resource
// without changes; newer servers learn it from etcd). Either way it is ended as the server's own
// end of a watch is: the watch resumes from its version at once, with no list and no backoff, and
// a dead peer shows as a failure of that next request.
import { StringDecoder } from 'node:string_decoder';
import { readText, type Transport } from '../../shared/kube-transport.js';

export type WatchCallback = (phase: string, obj: unknown, raw: unknown) => void;
export type WatchQuery = Record<string, string | number | boolean | undefined>;

/** A failed watch request: the HTTP code and what the server said. */
export class WatchError extends Error {
  constructor(readonly statusCode: number, message: string) {
    super(message);
  }
}

export interface Watch {
  watch(path: string, query: WatchQuery, callback: WatchCallback, done: (err: unknown) => void): Promise<{ abort(): void }>;
}

const MIN_TIMEOUT_S = 300;
/** Two and a half periods of the bookmarks a server sends on a watch whose resource has changed. */
export const SILENCE_LIMIT_MS = 150_000;

export function makeWatch(transport: Transport, random: () => number = Math.random, silenceMs = SILENCE_LIMIT_MS): Watch {
  return {
    async watch(path, query, callback, done) {
      const timeoutSeconds = MIN_TIMEOUT_S + Math.floor(random() * MIN_TIMEOUT_S);
      const params = new URLSearchParams({ watch: 'true', allowWatchBookmarks: 'true', timeoutSeconds: String(timeoutSeconds) });
      for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
      const aborting = new AbortController();
      let finished = false;
      let silence: NodeJS.Timeout | undefined;
      const finish = (err: unknown) => {
        if (finished) return;
        finished = true;
        clearTimeout(silence);
        aborting.abort();
        done(err);
      };
      const handle = { abort: () => { finished = true; clearTimeout(silence); aborting.abort(); } };
      const listen = () => {
        clearTimeout(silence);
        silence = setTimeout(() => finish(null), silenceMs);
        silence.unref();
      };
      try {
        listen();
        const res = await transport.send('GET', `${path}?${params}`, { signal: aborting.signal, timeoutMs: 0 });
        if (res.statusCode !== 200) {
          const text = await readText(res);
          let message = text.slice(0, 200);
          try {
            message = (JSON.parse(text) as { message?: string }).message ?? message;
          } catch {
            // not a Status
          }
          finish(new WatchError(res.statusCode ?? 0, `watch ${path}: HTTP ${res.statusCode}: ${message}`));
          return handle;
        }
        const decoder = new StringDecoder('utf8');
        let buffered = '';
        res.on('data', (chunk: Buffer) => {
          listen();
          buffered += decoder.write(chunk);
          let nl: number;
          while (!finished && (nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl);
            buffered = buffered.slice(nl + 1);
            if (!line.trim()) continue;
            let event: { type: string; object: unknown };
            try {
              event = JSON.parse(line) as typeof event;
            } catch {
              continue; // a torn line of a broken stream; the stream's end says what happened
            }
            callback(event.type, event.object, event);
          }
        });
        res.on('end', () => finish(null));
        res.on('close', () => finish(null));
        res.on('error', (err) => finish(err));
      } catch (err) {
        if (!finished) finish(err);
      }
      return handle;
    },
  };
}
