// The webhook's HTTPS server started in-process, on what the API server sends it: connections it
// keeps between admissions, AdmissionReviews that carry the App twice, and warnings it relays.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request, type RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { ensureCerts } from '../../certs/write.js';
import { createLogger } from '../../shared/logger.js';
import { BODY_LIMIT_BYTES, startWebhookServer, type WebhookServer } from '../../webhook/server.js';
import { hugeApp } from '../support/huge-app.js';

interface Reply { status: number; body: string; socket: Socket }

describe('webhook server as the API server calls it', function () {
  this.timeout(30_000);
  let dir: string;
  let caPem: string;
  let server: WebhookServer;
  const registry = new Registry();
  /** The bytes of large bodies the server holds now, from its own gauge. */
  const heldBytes = async () => (await registry.getSingleMetric('skiff_webhook_large_request_body_bytes')!.get()).values[0]?.value ?? 0;
  /** Resolves once the server holds `bytes` of large bodies (their arrival is not observable otherwise). */
  const holding = async (bytes: number) => {
    for (let i = 0; i < 1_000 && (await heldBytes()) < bytes; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok((await heldBytes()) >= bytes, `${await heldBytes()} bytes held, expected ${bytes}`);
  };
  const log = createLogger('webhook');
  log.level = 'silent';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-webhook-process-'));
    caPem = ensureCerts(dir, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] }).caPem;
    server = await startWebhookServer({ port: 0, host: '127.0.0.1', certDir: dir, log, registry, certPollMs: 60_000 });
  });

  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function call(path: string, body: string, opts: RequestOptions = {}): Promise<Reply> {
    return new Promise((done, fail) => {
      let socket: Socket | undefined;
      const req = request({ host: '127.0.0.1', port: server.port, path, method: 'POST', ca: caPem, headers: { 'content-type': 'application/json' }, ...opts }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => done({ status: res.statusCode ?? 0, body: text, socket: socket! }));
      });
      req.on('socket', (s) => (socket = s));
      req.on('error', fail);
      req.end(body);
    });
  }

  const review = (request: Record<string, unknown>) => JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u-1', kind: { group: 'skiff.dev', version: 'v1alpha1', kind: 'App' }, namespace: 'shop', ...request } });
  const app = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: 'shop', ...extra }, spec });

  it('keeps an idle connection open longer than the API server keeps it for reuse, so that an admission never goes out on a connection being closed', async () => {
    // The API server's webhook client (client-go's transport) reuses an idle connection for up to
    // 90 s and does not retry a POST that met a connection the server had just closed: the
    // admission fails ("EOF"), and with failurePolicy Fail so does the App write.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await call('/validate', review({ operation: 'CREATE', object: app({ image: 'nginx:1.27' }) }), { agent });
      assert.equal(first.status, 200);
      let closed = false;
      first.socket.once('close', () => (closed = true));
      await new Promise((r) => setTimeout(r, 6_500));
      assert.equal(closed, false, 'the server closed the idle connection after Node\'s default 5 s');
      const second = await call('/validate', review({ operation: 'CREATE', object: app({ image: 'nginx:1.27' }) }), { agent });
      assert.equal(second.status, 200);
      assert.equal(second.socket, first.socket, 'the second admission went out on the same connection');
    } finally {
      agent.destroy();
    }
  });

  it('relays warnings without control characters, which the API server would drop (it sends each as a Warning header)', async () => {
    // A tab in an Ingress path is admitted, with a warning that quotes the path.
    const object = app({ image: 'nginx:1.27', ingress: { host: 'web.example.com', path: '/a\tb' } });
    const reply = await call('/validate', review({ operation: 'CREATE', object }));
    assert.equal(reply.status, 200);
    const { response } = JSON.parse(reply.body);
    assert.equal(response.allowed, true);
    const warnings: string[] = response.warnings ?? [];
    const pathWarning = warnings.find((w) => w.startsWith('spec.ingress.path:'));
    assert.ok(pathWarning, JSON.stringify(warnings));
    // k8s.io/apimachinery's NewWarningHeader refuses text with a control character (unicode.IsControl).
    for (const w of warnings) assert.doesNotMatch(w, /\p{Cc}/u, JSON.stringify(w));
    assert.match(pathWarning, /\/a\\u0009b/);
  });

  it('denies, naming the fields, an App as large as the API server takes, though the AdmissionReview around it is larger', async () => {
    // The API server takes a request body of up to 3 MiB; the review adds its own fields and the
    // App's managedFields, and an UPDATE carries the stored App as oldObject too.
    const limit = 3 * 1024 * 1024;
    const sent = hugeApp(512, Math.floor((limit - 40_000) / 512));
    assert.ok(JSON.stringify(sent).length < limit, `${JSON.stringify(sent).length} bytes as sent`);
    const managedFields = [{ manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'skiff.dev/v1alpha1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { '.': {}, 'f:image': {}, 'f:env': Object.fromEntries(sent.spec.env.map((e) => [`k:{"name":"${e.name}"}`, { '.': {}, 'f:name': {}, 'f:value': {} }])) } } }];
    const object = { ...sent, metadata: { ...sent.metadata, uid: '6f1c4a3e-0000-4000-8000-000000000001', creationTimestamp: '2026-01-01T00:00:00Z', generation: 1, managedFields } };
    const userInfo = { username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins', 'system:authenticated'] };
    const created = review({ operation: 'CREATE', name: 'web', object, userInfo, options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions', fieldManager: 'kubectl-client-side-apply' } });
    assert.ok(created.length > limit, `${created.length} bytes of review`);
    for (const endpoint of ['/mutate', '/validate']) {
      const reply = await call(endpoint, created);
      assert.equal(reply.status, 200, `${endpoint}: ${reply.body.slice(0, 200)}`);
      const { response } = JSON.parse(reply.body);
      assert.equal(response.allowed, false);
      assert.match(response.status.message, /^spec\.env\[0\]\.name: /);
    }
    // An update of a 1.5 MiB App (etcd's default limit) to a 3 MiB one: both are in the review.
    const stored = hugeApp(256, 6_000);
    const updated = review({ operation: 'UPDATE', name: 'web', object, oldObject: stored, userInfo });
    assert.ok(updated.length > 4 * 1024 * 1024, `${updated.length} bytes of review`);
    const reply = await call('/validate', updated);
    assert.equal(reply.status, 200, reply.body.slice(0, 200));
    assert.equal(JSON.parse(reply.body).response.allowed, false);
    // Still bounded: two objects of the API server's 3 MiB and 1 MiB for the rest.
    assert.equal(BODY_LIMIT_BYTES, 7 * 1024 * 1024);
  });

  it('holds two of the largest bodies at once and answers 429 to a third, which it stops reading; small reviews go on; the bytes are given back with each answer', async () => {
    const big = review({ operation: 'CREATE', name: 'web', object: hugeApp(2048, 2_000) });
    assert.ok(big.length > 3 * 1024 * 1024 && big.length < BODY_LIMIT_BYTES, `${big.length} bytes`);
    // Declared at the largest size and sent but for the last byte: held as they arrive.
    const held = [0, 1].map(() => {
      let req: ReturnType<typeof request> | undefined;
      const body = ' '.repeat(BODY_LIMIT_BYTES - big.length) + big;
      const reply = new Promise<number>((done, fail) => {
        req = request({ host: '127.0.0.1', port: server.port, path: '/validate', method: 'POST', ca: caPem, headers: { 'content-type': 'application/json', 'content-length': BODY_LIMIT_BYTES } }, (res) => {
          res.resume();
          res.on('end', () => done(res.statusCode ?? 0));
        });
        req.on('error', fail);
        req.write(body.slice(0, -1));
      });
      return { reply, end: () => req!.end(body.slice(-1)) };
    });
    await holding(2 * (BODY_LIMIT_BYTES - 1));
    const third = await call('/validate', big);
    assert.equal(third.status, 429, 'a third large body at once');
    assert.match(third.body, /too many large admission requests at once/);
    const small = await call('/validate', review({ operation: 'CREATE', object: app({ image: 'nginx:1.27' }) }));
    assert.equal(small.status, 200, 'an ordinary review is not held up');
    held.forEach((h) => h.end());
    assert.deepEqual(await Promise.all(held.map((h) => h.reply)), [200, 200]);
    const after = await call('/validate', big);
    assert.equal(after.status, 200, 'the bytes were given back');
  });

  it('counts bytes that arrived, not bytes declared: connections that declare the largest bodies and send one byte lock no large review out', async () => {
    const big = review({ operation: 'CREATE', name: 'web', object: hugeApp(256, 2_000) });
    assert.ok(big.length > 64 * 1024, `${big.length} bytes: a large review`);
    const sent: Promise<void>[] = [];
    const idle = [0, 1, 2].map(() => {
      const req = request({ host: '127.0.0.1', port: server.port, path: '/validate', method: 'POST', ca: caPem, agent: false, headers: { 'content-type': 'application/json', 'content-length': BODY_LIMIT_BYTES } }, (res) => res.resume());
      req.on('error', () => {});
      sent.push(new Promise((done) => req.write('{', () => done())));
      return req;
    });
    try {
      await Promise.all(sent);
      const reply = await call('/validate', big);
      assert.equal(reply.status, 200, reply.body.slice(0, 200));
    } finally {
      idle.forEach((r) => r.destroy());
    }
  });

  it('holds bodies just under 1 MiB to the same bound (they added up past the memory limit); ordinary reviews go on beside them, and beside many connections that declare a small body and send nothing', async () => {
    // Declared at `bytes` and sent `sending` bytes of: what arrived is held until the connection closes.
    const sent: Promise<void>[] = [];
    const hold = (bytes: number, count: number, sending = 1) => Array.from({ length: count }, () => {
      const req = request({ host: '127.0.0.1', port: server.port, path: '/validate', method: 'POST', ca: caPem, agent: false, headers: { 'content-type': 'application/json', 'content-length': bytes } }, (res) => res.resume());
      req.on('error', () => {});
      // Flushed once the TLS handshake is done and the headers and the bytes are on the wire.
      sent.push(new Promise((done) => req.write(' '.repeat(sending), () => done())));
      return req;
    });
    // Refused once the held ones' first bytes are in: polled, as their arrival is not observable
    // (14 TLS handshakes take a while on a busy machine; the bound is generous, not a timing).
    const refusedAt = async (bytes: number) => {
      let reply: Reply | undefined;
      const until = Date.now() + 20_000;
      while (reply?.status !== 429 && Date.now() < until) {
        reply = await call('/validate', ' '.repeat(bytes - 2) + '{}');
        if (reply.status !== 429) await new Promise((r) => setTimeout(r, 50));
      }
      return reply!;
    };
    const justUnderMiB = 1024 * 1024 - 1;
    const large = hold(justUnderMiB, 14, justUnderMiB - 1);
    const small: ReturnType<typeof request>[] = [];
    try {
      await holding(14 * (justUnderMiB - 1));
      const refused = await refusedAt(justUnderMiB);
      assert.equal(refused.status, 429, '14 MiB of bodies under 1 MiB held: a 15th is refused');
      assert.match(refused.body, /too many large admission requests at once/);
      const ordinary = await call('/validate', review({ operation: 'CREATE', object: app({ image: 'nginx:1.27' }) }));
      assert.equal(ordinary.status, 200, 'an ordinary review beside them');
      // Connections that declare a small body and send one byte of it lock nothing out.
      sent.length = 0;
      small.push(...hold(64 * 1024, 200));
      // Every one connected and sent before the ordinary review, which comes on a connection of its own after them.
      await Promise.all(sent);
      const beside = await call('/validate', review({ operation: 'CREATE', object: app({ image: 'nginx:1.27' }) }));
      assert.equal(beside.status, 200, 'an ordinary review beside 200 idle small ones');
    } finally {
      [...large, ...small].forEach((r) => r.destroy());
    }
    // Given back as the connections close.
    let after: Reply | undefined;
    for (let i = 0; i < 100 && after?.status !== 200; i++) {
      after = await call('/validate', review({ operation: 'CREATE', object: app({ image: 'nginx:1.27' }) }));
      if (after.status !== 200) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(after!.status, 200);
  });

  it('answers with Connection: close a request that began before draining and ends after, so that the next admission goes to a pod that stays', async () => {
    const other = await startWebhookServer({ port: 0, host: '127.0.0.1', certDir: dir, log, registry: new Registry(), certPollMs: 60_000 });
    try {
      const body = review({ operation: 'CREATE', object: app({ image: 'nginx:1.27' }) });
      const reply = new Promise<{ status: number; connection?: string }>((done, fail) => {
        const req = request({ host: '127.0.0.1', port: other.port, path: '/validate', method: 'POST', ca: caPem, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
          res.resume();
          res.on('end', () => done({ status: res.statusCode ?? 0, connection: res.headers.connection }));
        });
        req.on('error', fail);
        // Headers and part of the body now, the rest once the pod is draining.
        req.write(body.slice(0, 20));
        setTimeout(() => {
          other.drain();
          req.end(body.slice(20));
        }, 200);
      });
      const { status, connection } = await reply;
      assert.equal(status, 200);
      assert.equal(connection, 'close');
    } finally {
      await other.close();
    }
  });
  it('logs bounded lines for a review whose own fields are huge (any pod can call the webhook, not only the API server)', async () => {
    const lines: string[] = [];
    const captured = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const own = await startWebhookServer({ port: 0, host: '127.0.0.1', certDir: dir, log: captured, registry: new Registry(), certPollMs: 60_000 });
    try {
      const huge = 'x'.repeat(1_000_000);
      const post = (body: string) => new Promise<number>((done, fail) => {
        const req = request({ host: '127.0.0.1', port: own.port, path: '/validate', method: 'POST', ca: caPem, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => done(res.statusCode ?? 0));
        });
        req.on('error', fail);
        req.end(body);
      });
      // Denied (an App without an image), with a huge uid, namespace, name and dryRun.
      assert.equal(await post(review({ uid: huge, namespace: huge, name: huge, dryRun: { huge }, operation: 'CREATE', object: app({}) })), 200);
      // Not a review at all: its kind is quoted in the error.
      assert.equal(await post(JSON.stringify({ kind: huge })), 400);
      const logged = lines.map((l) => JSON.parse(l) as { msg: string }).filter((l) => l.msg !== 'webhook listening');
      assert.deepEqual(logged.map((l) => l.msg), ['denied', 'bad admission request']);
      assert.ok(lines.every((l) => l.length <= 4096), `log lines of ${lines.map((l) => l.length).join(', ')} characters`);
    } finally {
      await own.close();
    }
  });

  it('counts and times a request whose admission failed inside (answered 500), as it does every other answer', async () => {
    const registry = new Registry();
    // An admission that throws part way: here the log line of a denial.
    const failing = createLogger('webhook');
    failing.level = 'silent';
    const info = failing.info.bind(failing);
    failing.info = ((obj: unknown, msg?: string) => {
      if (msg === 'denied') throw new Error('the log sink failed');
      info(obj as object, msg);
    }) as typeof failing.info;
    const other = await startWebhookServer({ port: 0, host: '127.0.0.1', certDir: dir, log: failing, registry, certPollMs: 60_000 });
    try {
      const reply = await new Promise<number>((done, fail) => {
        const req = request({ host: '127.0.0.1', port: other.port, path: '/validate', method: 'POST', ca: caPem, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => done(res.statusCode ?? 0));
        });
        req.on('error', fail);
        req.end(review({ operation: 'CREATE', object: app({}) }));
      });
      assert.equal(reply, 500);
      const text = await registry.metrics();
      assert.match(text, /^skiff_webhook_requests_total\{endpoint="validate",code="500"\} 1$/m);
      assert.match(text, /^skiff_webhook_request_duration_seconds_count\{endpoint="validate"\} 1$/m);
    } finally {
      await other.close();
    }
  });
});
