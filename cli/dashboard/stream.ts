// Server-sent events for the page: each tab subscribes to the list or to one App, gets a full
// snapshot at once (so a reconnect after any restart starts from the truth), then only what
// changed, gathered for FLUSH_MS. Every tab shares the store's watches: a tab costs one
// connection and one entry here, removed when it closes; a tab that does not read its stream
// is dropped once MAX_BUFFERED bytes wait for it (it reconnects and gets a snapshot).
import type { ServerResponse } from 'node:http';
import { statusWord } from '../model.js';
import type { Change, DashboardStore } from './store.js';
import { counts, detail, row, type Row } from './views.js';

export const FLUSH_MS = 150;
export const HEARTBEAT_MS = 15_000;
/**
 * The most a page's stream may hold in memory, written but not yet taken by the page, before the
 * page is disconnected (it reconnects and starts from a snapshot). A snapshot of many Apps is up
 * to about 1 MiB: the bound leaves room for one on a slow link and the changes of a few seconds
 * after it, so that a page that reads at all is never dropped for its own snapshot (it would get
 * the same snapshot again, and be dropped again), while one that does not read costs at most this
 * (and one more event) rather than every change for as long as it stays.
 */
export const MAX_BUFFERED = 4 << 20;
/** EventSource waits this long before it reconnects. */
export const RETRY_MS = 1_000;

/** The headers of a stream's answer. */
export const STREAM_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive', 'x-accel-buffering': 'no' };

export type View = { kind: 'list' } | { kind: 'app'; key: string };

interface Client { res: ServerResponse; view: View }

export class StreamHub {
  private readonly clients = new Set<Client>();
  private dirty: Change | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: DashboardStore,
    /** Where a line about a page dropped goes; stderr, as the dashboard's other messages. */
    private readonly log: (line: string) => void = (line) => void process.stderr.write(line),
  ) {
    this.unsubscribe = store.onChange((c) => this.changed(c));
    this.heartbeat = setInterval(() => { for (const c of this.clients) this.write(c, ': ping\n\n'); }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  /** The list's rows, counts and watch failures. */
  list(): { rows: Row[]; counts: ReturnType<typeof counts>; errors: Record<string, string> } {
    const rows = [...this.store.apps].map(([key, app]) => row(key, app, this.store.ownedBy(key))).sort((a, b) => a.key.localeCompare(b.key));
    return { rows, counts: counts(rows), errors: Object.fromEntries(this.store.errors) };
  }

  detail(key: string) {
    const app = this.store.apps.get(key);
    return app && { ...detail(key, app, this.store.ownedBy(key), this.store.eventsOf(key)), errors: Object.fromEntries(this.store.errors) };
  }

  add(res: ServerResponse, view: View): void {
    const client: Client = { res, view };
    this.clients.add(client);
    res.on('close', () => this.clients.delete(client));
    res.writeHead(200, STREAM_HEADERS);
    this.write(client, `retry: ${RETRY_MS}\n\n`);
    this.snapshot(client);
  }

  private snapshot(c: Client): void {
    if (c.view.kind === 'list') this.send(c, 'list', this.list());
    else this.sendApp(c, c.view.key);
  }

  private sendApp(c: Client, key: string): void {
    const d = this.detail(key);
    if (d) this.send(c, 'app', d);
    else this.send(c, 'gone', { key, errors: Object.fromEntries(this.store.errors) });
  }

  private changed(c: Change): void {
    if (c.all || this.dirty?.all) this.dirty = { all: true };
    else this.dirty = { all: false, apps: new Set([...(this.dirty?.apps ?? []), ...c.apps]) };
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  private flush(): void {
    this.timer = undefined;
    const dirty = this.dirty;
    this.dirty = undefined;
    if (!dirty || this.clients.size === 0) return;
    let delta: { upsert: Row[]; remove: string[]; counts: ReturnType<typeof counts>; errors: Record<string, string> } | undefined;
    for (const c of this.clients) {
      // A view that cannot be built (an App's status holding what no controller writes) costs
      // that page its connection, which it opens again; thrown from this timer, it would end the
      // dashboard for every page.
      try {
        if (c.view.kind === 'app') {
          if (dirty.all || dirty.apps.has(c.view.key)) this.sendApp(c, c.view.key);
        } else if (dirty.all) this.send(c, 'list', this.list());
        else this.send(c, 'rows', (delta ??= this.rows(dirty.apps)));
      } catch (err) {
        this.log(`dashboard: could not update a page (${(err as Error).message}); it reconnects\n`);
        this.clients.delete(c);
        c.res.destroy();
      }
    }
  }

  private rows(keys: Set<string>) {
    const upsert: Row[] = [];
    const remove: string[] = [];
    for (const key of keys) {
      const app = this.store.apps.get(key);
      if (app) upsert.push(row(key, app, this.store.ownedBy(key)));
      else remove.push(key);
    }
    const all = [...this.store.apps.values()].map((app) => ({ status: statusWord(app) }));
    return { upsert, remove, counts: counts(all), errors: Object.fromEntries(this.store.errors) };
  }

  private send(c: Client, event: string, data: unknown): void {
    this.write(c, `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  private write(c: Client, text: string): void {
    const waiting = c.res.writableLength;
    if (waiting > MAX_BUFFERED) {
      // Destroyed, not ended: end() would keep what waits until the page read it, which it does not.
      this.log(`dashboard: a page does not read its stream (${waiting} bytes wait for it); it is disconnected, and gets a fresh snapshot when it reconnects\n`);
      this.clients.delete(c);
      c.res.destroy();
      return;
    }
    c.res.write(text);
  }

  close(): void {
    this.unsubscribe();
    clearInterval(this.heartbeat);
    if (this.timer) clearTimeout(this.timer);
    for (const c of this.clients) c.res.end();
    this.clients.clear();
  }
}
