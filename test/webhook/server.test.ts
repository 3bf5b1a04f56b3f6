// The webhook's HTTPS server on a real socket with real TLS: round trips, every kind of bad
// input, TLS versions, certificate rotation on disk, and its metrics.
import { strict as assert } from 'node:assert';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request, type RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get as httpGet } from 'node:http';
import { createServer as netServer, type AddressInfo } from 'node:net';
import { connect } from 'node:tls';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { generateServingCert } from '../../certs/generate.js';
import { ensureCerts, writeAtomic } from '../../certs/write.js';
import { createLogger } from '../../shared/logger.js';
import { startOpsServers } from '../../shared/ops-server.js';
import { BODY_LIMIT_BYTES, MAX_LOGGED_DENIAL_LENGTH, startWebhookServer, type WebhookServer } from '../../webhook/server.js';
import { MAX_ERROR_LENGTH, MAX_LISTED_ERRORS } from '../../shared/validation.js';
import { hugeApp, maxDenialLength } from '../support/huge-app.js';
import { eventually } from '../../dev/wait.js';

interface Reply { status: number; body: string; headers: Record<string, unknown> }

describe('webhook HTTPS server', function () {
  this.timeout(30_000);
  let dir: string;
  let caPem: string;
  let caKey: string;
  let server: WebhookServer;
  let registry: Registry;
  const log = createLogger('webhook');
  log.level = 'silent';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-webhook-server-'));
    const files = ensureCerts(dir, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    caPem = files.caPem;
    caKey = (await import('node:fs')).readFileSync(join(dir, 'ca.key'), 'utf8');
    registry = new Registry();
    server = await startWebhookServer({ port: 0, host: '127.0.0.1', certDir: dir, log, registry, certPollMs: 200 });
  });

  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function call(path: string, body: string | Buffer | undefined, opts: RequestOptions = {}, port = server.port): Promise<Reply> {
    return new Promise((done, fail) => {
      const req = request({ host: '127.0.0.1', port, path, method: body === undefined ? 'GET' : 'POST', ca: caPem, headers: { 'content-type': 'application/json' }, ...opts }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => done({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
      });
      req.on('error', fail);
      req.end(body);
    });
  }

  const review = (spec: unknown, uid = 'uid-1') => JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid, kind: { group: 'skiff.dev', version: 'v1alpha1', kind: 'App' }, operation: 'CREATE', object: { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web' }, spec } },
  });

  it('round-trips AdmissionReviews on /mutate and /validate', async () => {
    const mutated = await call('/mutate', review({ image: 'nginx:1.27' }, 'm-1'));
    assert.equal(mutated.status, 200);
    const m = JSON.parse(mutated.body);
    assert.equal(m.response.uid, 'm-1');
    assert.equal(m.response.allowed, true);
    assert.equal(m.response.patchType, 'JSONPatch');
    const validated = JSON.parse((await call('/validate', review({ image: 'nginx:1.27', replicas: 5000 }, 'v-1'))).body);
    assert.equal(validated.response.uid, 'v-1');
    assert.equal(validated.response.allowed, false);
    assert.match(validated.response.status.message, /spec\.replicas: must be <= 1000/);
  });

  it('answers 50 concurrent reviews on 50 connections, each with its own uid and verdict', async () => {
    const { Agent } = await import('node:https');
    const agent = new Agent({ keepAlive: true, maxSockets: 50 });
    try {
      // Answers are written in batches (batched-writes.ts): none may go to another request's connection.
      const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => {
        const endpoint = i % 2 ? '/validate' : '/mutate';
        return call(endpoint, review({ image: 'nginx:1.27', replicas: i % 3 === 0 ? 5000 + i : i + 1 }, `c-${i}`), { agent }).then((r) => ({ i, endpoint, r }));
      }));
      for (const { i, endpoint, r } of replies) {
        assert.equal(r.status, 200);
        const { response } = JSON.parse(r.body);
        assert.equal(response.uid, `c-${i}`);
        assert.equal(response.allowed, i % 3 !== 0, `${endpoint} c-${i}`);
        if (i % 3 === 0) assert.match(response.status.message, /spec\.replicas: must be <= 1000/);
        assert.equal(response.patchType, endpoint === '/mutate' && i % 3 !== 0 ? 'JSONPatch' : undefined);
      }
    } finally {
      agent.destroy();
    }
  });

  it('answers 400 to malformed JSON and to a body that is not an AdmissionReview', async () => {
    const malformed = await call('/validate', '{"apiVersion": ');
    assert.equal(malformed.status, 400);
    assert.match(malformed.body, /not valid JSON/);
    const other = await call('/validate', JSON.stringify({ kind: 'Pod' }));
    assert.equal(other.status, 400);
    assert.match(other.body, /expected kind AdmissionReview/);
    const scalar = await call('/mutate', '42');
    assert.equal(scalar.status, 400);
  });

  it('answers 413 to a body over 7 MiB, and 415 to a body that is not JSON', async () => {
    const huge = JSON.stringify({ pad: 'x'.repeat(7 * 1024 * 1024 + 10) });
    const tooBig = await call('/validate', huge);
    assert.equal(tooBig.status, 413);
    assert.match(tooBig.body, /exceeds the limit/);
    const text = await call('/validate', 'hello', { headers: { 'content-type': 'text/plain' } });
    assert.equal(text.status, 415);
    // The server is still fine afterwards.
    assert.equal((await call('/healthz', undefined)).status, 200);
  });

  it('denies a 2.7 MiB App with 512 problems in a bounded answer, and logs a bounded line', async () => {
    // A server of its own, whose log lines are kept.
    const lines: string[] = [];
    const captured = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const own = await startWebhookServer({ port: 0, host: '127.0.0.1', certDir: dir, log: captured, registry: new Registry() });
    try {
      const body = JSON.stringify({
        apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
        request: { uid: 'huge-1', kind: { group: 'skiff.dev', version: 'v1alpha1', kind: 'App' }, operation: 'CREATE', object: hugeApp(512, 5_400) },
      });
      assert.ok(body.length > 2.5 * 1024 * 1024 && body.length < BODY_LIMIT_BYTES, `${body.length} bytes`);
      const reply = await call('/validate', body, {}, own.port);
      assert.equal(reply.status, 200, reply.body.slice(0, 200));
      const r = JSON.parse(reply.body);
      assert.equal(r.response.allowed, false);
      const message: string = r.response.status.message;
      const listed = message.split('; ');
      assert.equal(listed.pop(), 'and 462 more');
      assert.equal(listed.length, 50);
      assert.ok(reply.body.length <= maxDenialLength(MAX_LISTED_ERRORS, MAX_ERROR_LENGTH) + 500, `${reply.body.length} bytes`);
      const denied = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'denied');
      assert.equal(denied.length, 1);
      assert.ok(lines.every((l) => l.length <= MAX_LOGGED_DENIAL_LENGTH + 500), `log lines of ${lines.map((l) => l.length).join(', ')} characters`);
      assert.equal(denied[0].uid, 'huge-1');
    } finally {
      await own.close();
    }
  });

  it('with restrictedTenants (--restricted-tenants) denies what the restricted Pod Security profile forbids', async () => {
    const own = await startWebhookServer({ port: 0, host: '127.0.0.1', certDir: dir, log, registry: new Registry(), restrictedTenants: true });
    try {
      const post = (port: number) => new Promise<Reply>((done, fail) => {
        const req = request({ host: '127.0.0.1', port, path: '/validate', method: 'POST', ca: caPem, headers: { 'content-type': 'application/json' } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d) => (text += d));
          res.on('end', () => done({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
        });
        req.on('error', fail);
        req.end(review({ image: 'nginx:1.27', replicas: 1, port: 8080, service: { type: 'ClusterIP', port: 80 }, rollout: { strategy: 'RollingUpdate', progressDeadlineSeconds: 600 } }, 'r-1'));
      });
      const restricted = JSON.parse((await post(own.port)).body);
      assert.equal(restricted.response.allowed, false);
      assert.match(restricted.response.status.message, /spec\.podSecurityContext\.runAsNonRoot: must be true.*\(the restricted Pod Security profile\)/);
      assert.equal(JSON.parse((await post(server.port)).body).response.allowed, true, 'the same App without the option');
    } finally {
      await own.close();
    }
  });

  it('serves /healthz and /readyz on the HTTPS port', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const r = await call(path, undefined);
      assert.equal(r.status, 200, path);
      assert.equal(r.body, 'ok\n');
    }
  });

  it('reports not ready once it is closing (what /readyz answers on the HTTPS and the health port)', async () => {
    const other = await startWebhookServer({ port: 0, host: '127.0.0.1', certDir: dir, log, registry: new Registry() });
    assert.equal(other.ready(), undefined);
    const closed = other.close();
    assert.equal(other.ready(), 'shutting down');
    await closed;
  });

  it('draining: not ready, yet still answering admissions, each on a connection it then closes', async () => {
    const other = await startWebhookServer({ port: 0, host: '127.0.0.1', certDir: dir, log, registry: new Registry() });
    try {
      assert.equal((await call('/validate', review({ image: 'nginx:1.27' }), {}, other.port)).headers.connection, 'keep-alive');
      other.drain();
      assert.equal(other.ready(), 'shutting down');
      assert.equal((await call('/readyz', undefined, {}, other.port)).status, 503);
      const answered = await call('/validate', review({ image: 'nginx:1.27' }), {}, other.port);
      assert.equal(answered.status, 200);
      assert.equal(JSON.parse(answered.body).response.allowed, true);
      assert.equal(answered.headers.connection, 'close', 'the next request opens a connection to a pod that stays');
    } finally {
      await other.close();
    }
  });

  it('answers 404 with the routes it serves', async () => {
    const r = await call('/admit', review({ image: 'nginx:1.27' }));
    assert.equal(r.status, 404);
    assert.match(r.body, /POST \/mutate and POST \/validate/);
  });

  it('answers 405 with Allow: POST for another method on an admission path', async () => {
    for (const [path, method] of [['/validate', 'GET'], ['/mutate', 'PUT'], ['/mutate', 'DELETE']] as const) {
      const r = await call(path, undefined, { method });
      assert.equal(r.status, 405, `${method} ${path}`);
      assert.equal(r.headers.allow, 'POST');
      assert.match(r.body, new RegExp(`${method} is not allowed on ${path}; the webhook serves POST /mutate and POST /validate`));
    }
    // Not those paths (the admission endpoints match them exactly): no route, whatever the method.
    for (const path of ['/mutate/', '/Validate']) assert.equal((await call(path, review({ image: 'nginx:1.27' }))).status, 404, path);
  });

  it('refuses TLS 1.1 and accepts TLS 1.2 and 1.3', async () => {
    const handshake = (version: 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3') => new Promise<string>((done) => {
      // A client willing to speak old protocols, so that a refusal is the server's.
      const socket = connect({ host: '127.0.0.1', port: server.port, ca: caPem, minVersion: version, maxVersion: version, servername: 'localhost', ciphers: 'DEFAULT:@SECLEVEL=0' }, () => {
        const v = socket.getProtocol() ?? '';
        socket.end();
        done(v);
      });
      socket.on('error', (err) => done(`error: ${err.message}`));
    });
    assert.match(await handshake('TLSv1.1'), /^error: .*protocol version/);
    assert.equal(await handshake('TLSv1.2'), 'TLSv1.2');
    assert.equal(await handshake('TLSv1.3'), 'TLSv1.3');
  });

  it('serves a rotated certificate without a restart and without failed requests', async () => {
    const peerFingerprint = () => new Promise<string>((done, fail) => {
      const socket = connect({ host: '127.0.0.1', port: server.port, ca: caPem, servername: 'localhost' }, () => {
        const fp = new X509Certificate(socket.getPeerX509Certificate()!.raw).fingerprint256;
        socket.end();
        done(fp);
      });
      socket.on('error', fail);
    });
    const before = await peerFingerprint();
    // Requests keep flowing while the files change.
    let failures = 0;
    let sent = 0;
    let stop = false;
    const load = (async () => {
      while (!stop) {
        sent++;
        const r = await call('/validate', review({ image: 'nginx:1.27' })).catch(() => ({ status: 0 }));
        if (r.status !== 200) failures++;
      }
    })();
    const expiry = async () => (await registry.getSingleMetric('skiff_webhook_certificate_expiration_timestamp_seconds')!.get()).values[0]?.value;
    assert.equal(await expiry(), new X509Certificate(readFileSync(join(dir, 'tls.crt'))).validToDate.getTime() / 1000, 'the first certificate\'s notAfter');
    // A shorter-lived one, as cert-manager's 90-day certificates are.
    const next = generateServingCert({ certPem: caPem, keyPem: caKey }, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], validityDays: 90 });
    writeAtomic(join(dir, 'tls.key'), next.keyPem, 0o600);
    writeAtomic(join(dir, 'tls.crt'), next.certPem);
    const expected = new X509Certificate(next.certPem).fingerprint256;
    await eventually(async () => (await peerFingerprint()) === expected, { timeoutMs: 15_000, message: 'the new certificate to be served' });
    stop = true;
    await load;
    assert.notEqual(before, expected);
    assert.equal(await expiry(), new X509Certificate(next.certPem).validToDate.getTime() / 1000, 'the expiry of the certificate now served');
    assert.ok(sent > 0);
    assert.equal(failures, 0, `${failures} of ${sent} requests failed during the rotation`);
  });

  it('keeps the current certificate when the files do not match (half-rotated)', async () => {
    const other = generateServingCert({ certPem: caPem, keyPem: caKey }, { dnsNames: ['localhost'] });
    writeAtomic(join(dir, 'tls.key'), other.keyPem, 0o600);
    assert.equal(server.reloadCertificates(), false);
    assert.equal((await call('/healthz', undefined)).status, 200);
  });

  it('keeps the current certificate when tls.crt is cut short inside its chain (half-written), and does not crash', async () => {
    const own = mkdtempSync(join(tmpdir(), 'skiff-webhook-cut-'));
    const files = ensureCerts(own, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const other = await startWebhookServer({ port: 0, host: '127.0.0.1', certDir: own, log, registry: new Registry(), certPollMs: 60_000 });
    try {
      const next = generateServingCert({ certPem: caPem, keyPem: caKey }, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
      // The leaf is whole (it matches the key), the CA certificate after it is not.
      const chain = next.certPem + files.caPem;
      writeAtomic(join(own, 'tls.key'), next.keyPem, 0o600);
      writeAtomic(join(own, 'tls.crt'), chain.slice(0, next.certPem.length + 100));
      assert.equal(other.reloadCertificates(), false);
      // The watcher's own reload (100 ms after the change) must not throw either.
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await call('/healthz', undefined, { ca: files.caPem }, other.port)).status, 200);
    } finally {
      await other.close();
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('a body that never arrives is answered 408 by the request timeout, and counted and logged as 408, not as a malformed 400', async () => {
    const own = new Registry();
    const lines: Record<string, unknown>[] = [];
    const sink = pino({ level: 'warn' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const certs = mkdtempSync(join(tmpdir(), 'skiff-webhook-timeout-'));
    const files = ensureCerts(certs, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const other = await startWebhookServer({ port: 0, host: '127.0.0.1', certDir: certs, log: sink, registry: own, requestTimeoutMs: 1_000 });
    try {
      // Declares 5,000 bytes and sends 7: Node's request timeout answers.
      const reply = await new Promise<Reply>((done, fail) => {
        const req = request({ host: '127.0.0.1', port: other.port, path: '/validate', method: 'POST', ca: files.caPem, headers: { 'content-type': 'application/json', 'content-length': '5000' } }, (res) => {
          res.resume();
          res.on('end', () => done({ status: res.statusCode ?? 0, body: '', headers: res.headers }));
        });
        req.on('error', fail);
        req.write('{"a":1}');
      });
      assert.equal(reply.status, 408);
      // Counted when the connection closes, which may come after the answer reached the client.
      await eventually(async () => /skiff_webhook_requests_total\{endpoint="validate",code="408"\} 1/.test(await own.metrics()), { timeoutMs: 5_000, message: 'the 408 counted' });
      assert.doesNotMatch(await own.metrics(), /skiff_webhook_requests_total\{endpoint="validate",code="400"\}/);
      const line = lines.find((l) => l.msg === 'bad admission request');
      assert.equal(line?.status, 408);
      assert.match(String(line?.error), /did not arrive within the request timeout \(1 s\)/);
    } finally {
      await other.close();
      rmSync(certs, { recursive: true, force: true });
    }
  });

  it('counts requests, denials and latency in its metrics, served on the metrics port', async () => {
    // The ops server treats 0 as off, so borrow a free port from the kernel first.
    const metricsPort = await new Promise<number>((done) => {
      const probe = netServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => done(port));
      });
    });
    const ops = await startOpsServers({ healthPort: 0, metricsPort, host: '127.0.0.1', registry, healthy: () => undefined, ready: () => undefined });
    let text: string;
    try {
      text = await new Promise<string>((done, fail) => {
        httpGet({ host: '127.0.0.1', port: ops.metricsPort, path: '/metrics' }, (res) => {
          assert.equal(res.statusCode, 200);
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d) => (body += d));
          res.on('end', () => done(body));
        }).on('error', fail);
      });
    } finally {
      await ops.close();
    }
    assert.match(text, /skiff_webhook_requests_total\{endpoint="validate",code="200"\} [1-9]/);
    assert.match(text, /skiff_webhook_requests_total\{endpoint="validate",code="413"\} 1/);
    assert.match(text, /skiff_webhook_denials_total\{endpoint="validate",code="422"\} [1-9]/);
    assert.match(text, /skiff_webhook_request_duration_seconds_count\{endpoint="mutate"\} [1-9]/);
    assert.match(text, /skiff_webhook_certificate_reloads_total\{result="success"\} [1-9]/);
  });
});
