// The dashboard's event stream and a page that stops reading it (a closed laptop lid, a stalled
// proxy): what waits for that page is bounded, the page is disconnected past the bound (it
// reconnects and gets a snapshot), and the other pages go on receiving. Real sockets: the bound is
// on what Node buffers once the kernel's buffers are full, which only a peer that does not read
// shows. Every wait is for an event, never for a time.
import { strict as assert } from 'node:assert';
import { EventEmitter, once } from 'node:events';
import { createServer, get, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { ClientRequest } from 'node:http';
import { DashboardStore } from '../../cli/dashboard/store.js';
import { StreamHub } from '../../cli/dashboard/stream.js';
import type { CliApp } from '../../cli/model.js';

/** `count` Apps of about 1 KiB each in the list, labelled with `gen` so a page can tell which list it got. */
function apps(gen: number, count = 1000): CliApp[] {
  return Array.from({ length: count }, (_, i) => ({
    apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
    metadata: { name: `app-${i}`, namespace: 'shop', uid: `u${i}`, labels: { gen: String(gen), filler: 'x'.repeat(1000) } },
    spec: { image: 'r/web:1' },
  }));
}

/** A page that reads its stream: resolves `seen(gen)` once a list labelled `gen` has come. */
class Reader {
  private rest = '';
  private last = -1;
  private readonly seenGen = new EventEmitter();
  readonly request: ClientRequest;

  constructor(port: number) {
    this.request = get({ port, host: '127.0.0.1', path: '/reader' }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => this.take(chunk));
    });
    this.request.on('error', () => {});
  }

  private take(chunk: string): void {
    const events = (this.rest + chunk).split('\n\n');
    this.rest = events.pop() ?? '';
    for (const e of events) {
      const m = /^event: list\ndata: .*?"gen":"(\d+)"/.exec(e);
      if (m) {
        this.last = Number(m[1]);
        this.seenGen.emit('gen');
      }
    }
  }

  async seen(gen: number): Promise<void> {
    while (this.last < gen) await once(this.seenGen, 'gen');
  }
}

describe('dashboard stream: a page that does not read', () => {
  let server: ReturnType<typeof createServer>;
  let hub: StreamHub;
  let paused: Socket | undefined;
  let reader: Reader | undefined;

  afterEach(async () => {
    paused?.destroy();
    reader?.request.destroy();
    hub?.close();
    server?.closeAllConnections();
    if (server?.listening) await new Promise<void>((done) => server.close(() => done()));
  });

  it('is disconnected with a log line once more than MAX_BUFFERED bytes wait for it; the other pages keep receiving', async () => {
    const store = new DashboardStore();
    const logged: string[] = [];
    hub = new StreamHub(store, (line) => logged.push(line));
    const responses = new Map<string, ServerResponse>();
    server = createServer((req, res) => {
      responses.set(req.url ?? '', res);
      hub.add(res, { kind: 'list' });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    const feed = store.handler('apps');

    let gen = 0;
    feed.reset(apps(gen));
    reader = new Reader(port);
    await reader.seen(gen);
    paused = connect(port, '127.0.0.1');
    paused.write('GET /paused HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    paused.pause();
    while (!responses.has('/paused')) await once(server, 'request');
    const stalled = responses.get('/paused') as ServerResponse;
    let dropped = false;
    stalled.once('close', () => { dropped = true; });
    assert.equal(hub.size, 2);

    // A list of about 1 MiB to every page, each after the reading page got the one before: the
    // kernel's buffers fill first (a few MiB on loopback), then Node's, up to the bound.
    while (!dropped) {
      assert.ok(gen < 200, 'the page that does not read was never disconnected');
      feed.reset(apps(++gen));
      await reader.seen(gen);
      await new Promise((done) => setImmediate(done));
    }
    assert.equal(hub.size, 1, 'only the page that does not read is gone');
    assert.ok(logged.some((l) => /does not read its stream/.test(l)), `a log line says why: ${JSON.stringify(logged)}`);

    feed.reset(apps(++gen));
    await reader.seen(gen);
  });

  it('a page still taking in a snapshot of the largest size (about 1 MiB) and a change is not disconnected', async () => {
    // A fake response: its writableLength is what a slow link has not taken yet.
    class FakeResponse extends EventEmitter {
      writableLength = 0;
      destroyed = false;
      readonly writes: string[] = [];
      writeHead() { return this; }
      write(text: string) { this.writes.push(text); this.emit('wrote'); return true; }
      destroy() { this.destroyed = true; this.emit('wrote'); this.emit('close'); return this; }
      end() { return this; }
    }
    const store = new DashboardStore();
    hub = new StreamHub(store, () => {});
    const res = new FakeResponse();
    hub.add(res as unknown as ServerResponse, { kind: 'list' });
    const before = res.writes.length;
    res.writableLength = 1.5 * 1024 * 1024;
    store.handler('apps').reset(apps(1, 10));
    while (res.writes.length === before && !res.destroyed) await once(res, 'wrote');
    assert.equal(res.destroyed, false);
    assert.equal(hub.size, 1);
  });
});
