// queryInstant against a small local HTTP server that answers the way Prometheus (and what may
// stand in front of it) can: every odd answer becomes an outcome, never a throw or a hang.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearerTokenFile, MAX_BODY_BYTES, prometheusUrlProblem, queryInstant, readBearerTokenFile } from '../../controller/analysis/prometheus.js';
import { TOKEN_FILE_REFRESH_MS } from '../../shared/token-file.js';
import { freePort } from '../../dev/free-port.js';

const vector = (...values: string[]) => ({
  status: 'success',
  data: { resultType: 'vector', result: values.map((v, i) => ({ metric: { i: String(i) }, value: [1_700_000_000.123, v] })) },
});

type Answer = { status?: number; type?: string; body: string | object; delayMs?: number };

// The query text picks the answer.
const answers: Record<string, Answer> = {
  one: { body: vector('0.97') },
  exp: { body: vector('1.5e+3') },
  scalar: { body: { status: 'success', data: { resultType: 'scalar', result: [1_700_000_000, '1'] } } },
  nan: { body: vector('NaN') },
  inf: { body: vector('+Inf') },
  ninf: { body: vector('-Inf') },
  empty: { body: vector() },
  several: { body: vector('1', '2', '3') },
  text: { body: vector('abc') },
  // Digits then a letter: a pattern that backtracks takes seconds at this length, blocking the process.
  longDigits: { body: vector('1'.repeat(200_000) + 'x') },
  longNumber: { body: vector('0.' + '5'.repeat(100)) },
  missingValue: { body: { status: 'success', data: { resultType: 'vector', result: [{ metric: {} }] } } },
  noData: { body: { status: 'success' } },
  matrix: { body: { status: 'success', data: { resultType: 'matrix', result: [{ metric: {}, values: [[1, '1'], [2, '2']] }] } } },
  string: { body: { status: 'success', data: { resultType: 'string', result: [1, 'hello'] } } },
  html502: { status: 502, type: 'text/html', body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>' },
  badData: { status: 400, body: { status: 'error', errorType: 'bad_data', error: 'invalid parameter "query": 1:5: parse error: unexpected "}"' } },
  execError: { status: 422, body: { status: 'error', errorType: 'execution', error: 'found duplicate series for the match group' } },
  plain500: { status: 500, type: 'text/plain', body: 'internal error' },
  escapeError: { status: 422, body: { status: 'error', errorType: 'execution', error: '\u001b[2Jgone\r\u0007 for good' } },
  escapeText: { status: 500, type: 'text/plain', body: '\u001b]0;owned\u0007 down' },
  notJson: { type: 'text/plain', body: 'hello' },
  jsonArray: { body: [1, 2] },
  slow: { body: vector('1'), delayMs: 2_000 },
  huge: { body: { status: 'success', data: { resultType: 'vector', result: [] }, pad: 'x'.repeat(MAX_BODY_BYTES) } },
  hugeError: { status: 422, body: { status: 'error', errorType: 'execution', error: `query processing would load too many samples: ${'e'.repeat(900_000)}` } },
  hugeErrorType: { status: 400, body: { status: 'error', errorType: 't'.repeat(200_000), error: 'bad' } },
  hugeStatus: { body: { status: 's'.repeat(200_000) } },
  hugeValue: { body: vector('9'.repeat(400_000)) },
  hugeSample: { body: { status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: [1, { v: 'w'.repeat(200_000) }] }] } } },
  hugeHtml: { status: 502, type: 'text/html', body: '<'.repeat(900_000) },
  hugeFailure: { status: 503, type: 'text/html', body: '<'.repeat(MAX_BODY_BYTES + 1) },
  hugePage: { status: 200, type: 'text/html', body: '<'.repeat(MAX_BODY_BYTES + 1) },
};

let server: Server;
let base: string;
const seen: string[] = [];
/** The Authorization header of each request to /bearer (undefined: none). */
const bearers: (string | undefined)[] = [];

/** The request's parameters: the URL's, or a POSTed form's, as Prometheus reads either. */
function handle(req: IncomingMessage, res: ServerResponse) {
  if (req.method !== 'POST') return answer(req, res, new URL(req.url ?? '/', 'http://x').searchParams);
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const form = req.headers['content-type'] === 'application/x-www-form-urlencoded';
    answer(req, res, form ? new URLSearchParams(Buffer.concat(chunks).toString()) : new URLSearchParams());
  });
}

function answer(req: IncomingMessage, res: ServerResponse, params: URLSearchParams) {
  const url = new URL(req.url ?? '/', 'http://x');
  seen.push(url.pathname);
  // A proxy in front of Prometheus with nginx's default limit on the request line.
  if ((req.url ?? '').length > 8192) {
    res.writeHead(414, { 'content-type': 'text/html' }).end('<html><head><title>414 Request-URI Too Large</title></head></html>');
    return;
  }
  const query = params.get('query') ?? '';
  const moved = /^\/moved\/(\d{3})\/api\/v1\/query$/.exec(url.pathname);
  if (moved) {
    // A proxy that moved Prometheus: the same server, under /prom/echo.
    res.writeHead(Number(moved[1]), { location: `/prom/echo/api/v1/query${url.search}` }).end();
    return;
  }
  if (url.pathname.endsWith('/echo/api/v1/query')) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(vector(String(query.length))));
    return;
  }
  if (url.pathname.endsWith('/timeout/api/v1/query')) {
    // The evaluation timeout asked of Prometheus as the value.
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(vector(params.get('timeout') ?? 'NaN')));
    return;
  }
  if (url.pathname.endsWith('/time/api/v1/query')) {
    // The evaluation time asked for as the value, NaN (no data) without one.
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(vector(params.get('time') ?? 'NaN')));
    return;
  }
  if (url.pathname.endsWith('/tenant/api/v1/query')) {
    // A proxy that needs a parameter of its own beside the query (a tenant, a Thanos option).
    const ok = params.get('tenant') === 'a b';
    res.writeHead(ok ? 200 : 400, { 'content-type': 'application/json' })
      .end(JSON.stringify(ok ? vector(String(query.length)) : { status: 'error', errorType: 'bad_data', error: 'no tenant' }));
    return;
  }
  if (url.pathname.endsWith('/bearer/api/v1/query')) {
    // kube-rbac-proxy in front of Prometheus: a bearer token it knows, else 401 (its answer is text).
    bearers.push(req.headers.authorization);
    const ok = /^Bearer (first|second|tok-[a-z0-9.-]+)$/.test(req.headers.authorization ?? '');
    if (ok) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(vector(String(query.length))));
    else res.writeHead(401, { 'content-type': 'text/plain' }).end('Unauthorized');
    return;
  }
  if (url.pathname.endsWith('/auth/api/v1/query')) {
    const ok = req.headers.authorization === `Basic ${Buffer.from('user:s3cr@t').toString('base64')}`;
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' })
      .end(JSON.stringify(ok ? vector('1') : { status: 'error', errorType: 'unauthorized', error: 'no' }));
    return;
  }
  if (query === 'hugeSlowHead') {
    // Declared over the limit, its first bytes arriving in two pieces: what it is shows only in the second.
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MAX_BODY_BYTES + 100) });
    res.write('{"sta');
    setTimeout(() => { if (!res.destroyed) res.end(`tus":"success","data":{"resultType":"vector","result":[${'x'.repeat(MAX_BODY_BYTES + 100 - 60)}`); }, 50).unref();
    return;
  }
  if (query === 'hugeChunked' || query === 'hugeJunk') {
    // No content-length: the cap must hold while reading. hugeJunk: no Prometheus success, though sent as JSON.
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = 'x'.repeat(64 << 10);
    let sent = 0;
    if (query === 'hugeChunked') res.write('{"status":"success","data":{"resultType":"vector","result":[');
    const more = () => {
      while (sent < 4 * MAX_BODY_BYTES && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
    return;
  }
  const answer = answers[query];
  if (!answer || !url.pathname.endsWith('/api/v1/query')) {
    res.writeHead(404).end('404 page not found');
    return;
  }
  const send = () => {
    if (res.destroyed) return;
    const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    res.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'application/json' }).end(body);
  };
  if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
  else send();
}

before(async () => {
  server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

const ask = (query: string, opts: { timeoutMs?: number } = {}) => queryInstant(base, query, opts);

describe('queryInstant (the Prometheus client)', () => {
  it('a query cancelled (its check no longer counts) answers at once that it was, also when cancelled before it was sent', async () => {
    const never: typeof fetch = () => new Promise<Response>(() => {});
    const before = new AbortController();
    before.abort();
    assert.deepEqual(await queryInstant('http://prometheus.test', 'up', { signal: before.signal, fetch: never, timeoutMs: 60_000 }), { ok: false, reason: 'error', message: 'Prometheus at http://prometheus.test: the query was cancelled' });
    const during = new AbortController();
    const asked = queryInstant('http://prometheus.test', 'up', { signal: during.signal, fetch: never, timeoutMs: 60_000 });
    during.abort();
    assert.deepEqual(await asked, { ok: false, reason: 'error', message: 'Prometheus at http://prometheus.test: the query was cancelled' });
  });

  it('reads the one series of a vector', async () => {
    assert.deepEqual(await ask('one'), { ok: true, value: 0.97 });
    assert.deepEqual(await ask('exp'), { ok: true, value: 1500 });
  });

  it('reads a scalar result', async () => {
    assert.deepEqual(await ask('scalar'), { ok: true, value: 1 });
  });

  it('calls /api/v1/query under a path prefix, with or without a trailing slash, the query URL-encoded', async () => {
    const q = 'sum(rate(x{a="b",c!~"5.*"}[1m])) / 2 + 1 & #';
    for (const prefix of ['/prom/echo', '/prom/echo/']) {
      seen.length = 0;
      assert.deepEqual(await queryInstant(`${base}${prefix}`, q), { ok: true, value: q.length });
      assert.deepEqual(seen, ['/prom/echo/api/v1/query']);
    }
  });

  it('keeps the path prefix, and sends the parameters of a URL with a query string with every query', async () => {
    for (const url of [`${base}/prom/tenant?tenant=a+b`, `${base}/prom/tenant/?tenant=a%20b#top`]) {
      for (const q of ['up', `sum(x{a="${'b'.repeat(5000)}"})`]) {
        seen.length = 0;
        assert.deepEqual(await queryInstant(url, q), { ok: true, value: q.length }, `${url} ${q.length}`);
        assert.deepEqual(seen, ['/prom/tenant/api/v1/query']);
      }
    }
    seen.length = 0;
    assert.deepEqual(await queryInstant(`${base}/prom/echo#top`, 'up'), { ok: true, value: 2 });
    assert.deepEqual(seen, ['/prom/echo/api/v1/query']);
  });

  it('asks Prometheus to stop evaluating when it stops waiting (timeout, in seconds), unless the address sets its own', async () => {
    assert.deepEqual(await queryInstant(`${base}/timeout`, 'up', { timeoutMs: 2500 }), { ok: true, value: 2.5 });
    assert.deepEqual(await queryInstant(`${base}/timeout`, 'up'), { ok: true, value: 10 });
    assert.deepEqual(await queryInstant(`${base}/timeout?timeout=1`, 'up', { timeoutMs: 2500 }), { ok: true, value: 1 });
  });

  it('asks for the evaluation time it is given, in Unix seconds, and for none otherwise', async () => {
    assert.deepEqual(await queryInstant(`${base}/time`, 'up', { time: new Date(Date.UTC(2026, 10, 22, 10, 0, 10, 250)) }), { ok: true, value: Date.UTC(2026, 10, 22, 10, 0, 10, 250) / 1000 });
    assert.equal((await queryInstant(`${base}/time`, 'up')).ok, false);
    assert.equal((await queryInstant(`${base}/time`, 'up', { time: new Date(Number.NaN) })).ok, false);
  });

  it('sends a long query in a form body, not in a URL that proxies refuse past a few KiB', async () => {
    // A template under the 4096 characters admission allows, as sent: every selector with namespace="<ns>".
    const terms = (matcher: string) => Array.from({ length: 60 }, (_, i) => `sum(rate(http_requests_total{${matcher}code=~"5..",route="/r${i}"}[1m]))`).join(' + ');
    const long = terms('namespace="payments-processing-eu-west-1-production",');
    assert.ok(terms('').length < 4096 && new URLSearchParams({ query: long }).toString().length > 8192);
    for (const prefix of ['/prom/echo', '/prom/echo/']) {
      seen.length = 0;
      assert.deepEqual(await queryInstant(`${base}${prefix}`, long, { time: new Date(1_700_000_000_000) }), { ok: true, value: long.length });
      assert.deepEqual(seen, ['/prom/echo/api/v1/query']);
    }
    assert.deepEqual(await queryInstant(`${base}/time`, long, { time: new Date(1_700_000_000_250) }), { ok: true, value: 1_700_000_000.25 });
  });

  it('follows a 307 or 308 with the long query\'s POST, and refuses a 301, 302 or 303, which would drop the query', async () => {
    const long = `sum(x{a="${'b'.repeat(5000)}"})`;
    for (const code of [307, 308]) {
      seen.length = 0;
      assert.deepEqual(await queryInstant(`${base}/moved/${code}`, long), { ok: true, value: long.length }, String(code));
      assert.deepEqual(seen, [`/moved/${code}/api/v1/query`, '/prom/echo/api/v1/query']);
    }
    for (const code of [301, 302, 303]) {
      const outcome = await queryInstant(`${base}/moved/${code}`, long);
      assert.equal(outcome.ok, false, String(code));
      assert.match((outcome as { message: string }).message, new RegExp(`redirected a long query \\(HTTP ${code}\\).*set --prometheus-url to the address it redirects to`));
    }
    // A short query is a GET, which any redirect keeps whole.
    assert.deepEqual(await queryInstant(`${base}/moved/302`, 'up'), { ok: true, value: 2 });
  });

  it('treats NaN (0/0: no traffic) and an empty vector as no data', async () => {
    const nan = await ask('nan');
    assert.equal(nan.ok, false);
    assert.equal(!nan.ok && nan.reason, 'no-data');
    assert.match(!nan.ok ? nan.message : '', /NaN/);
    assert.deepEqual(await ask('empty'), { ok: false, reason: 'no-data', message: 'no series' });
  });

  it('refuses infinities, non-numbers, several series and non-instant result types: an answer of the query\'s shape is invalid, one that is no Prometheus answer an error', async () => {
    // invalid: Prometheus answered the query, which gives no one number (the App author's query);
    // error: nothing Prometheus would answer (a proxy in the way, a broken server).
    const cases: [string, RegExp, 'invalid' | 'error'][] = [
      ['inf', /\+Inf is not a usable number/, 'invalid'],
      ['ninf', /-Inf is not a usable number/, 'invalid'],
      ['text', /"abc" is not a number/, 'error'],
      ['longDigits', /sample value 1{100,}.*\(200001 bytes in all\) is not a number Prometheus writes/, 'error'],
      ['longNumber', /sample value 0\.5{100} is not a number Prometheus writes/, 'error'],
      ['several', /^3 series, expected one \(aggregate with sum\(\) or similar\)$/, 'invalid'],
      ['missingValue', /sample is not \[time, value\]/, 'error'],
      ['noData', /answer has no data/, 'error'],
      ['matrix', /result type matrix/, 'invalid'],
      ['string', /result type string/, 'invalid'],
      ['jsonArray', /not an object/, 'error'],
      ['notJson', /HTTP 200 with a body that is not JSON: hello/, 'error'],
    ];
    for (const [query, message, reason] of cases) {
      const out = await ask(query);
      assert.equal(out.ok, false, query);
      assert.equal(!out.ok && out.reason, reason, query);
      assert.match(!out.ok ? out.message : '', message, query);
    }
  });

  it("passes on Prometheus's own error message and status; a query it refused as such (400 bad_data, 422 execution) is invalid, not Prometheus failing", async () => {
    const bad = await ask('badData');
    assert.deepEqual(bad, { ok: false, reason: 'invalid', message: `Prometheus at ${base} answered HTTP 400: bad_data: invalid parameter "query": 1:5: parse error: unexpected "}" (positions count in the query as sent: badData)` });
    const exec = await ask('execError');
    assert.match(!exec.ok ? exec.message : '', /HTTP 422: execution: found duplicate series/);
    assert.equal(!exec.ok && exec.reason, 'invalid');
  });

  it('writes the control characters of an error (escape sequences, carriage returns) as \\uXXXX, in JSON and in text', async () => {
    const json = await ask('escapeError');
    assert.equal(!json.ok && json.message, `Prometheus at ${base} answered HTTP 422: execution: \\u001b[2Jgone\\u000d\\u0007 for good`);
    const text = await ask('escapeText');
    assert.equal(!text.ok && text.message, `Prometheus at ${base} answered HTTP 500 with a body that is not JSON: \\u001b]0;owned\\u0007 down`);
  });

  it('describes an HTML or plain-text error page briefly, on one line', async () => {
    const out = await ask('html502');
    assert.equal(!out.ok && out.reason, 'error');
    assert.equal(!out.ok && out.message, `Prometheus at ${base} answered HTTP 502 with a body that is not JSON: 502 Bad Gateway 502 Bad Gateway nginx`);
    const plain = await ask('plain500');
    assert.match(!plain.ok ? plain.message : '', /HTTP 500 .*: internal error/);
    const missing = await ask('no-such-case');
    assert.match(!missing.ok ? missing.message : '', /HTTP 404 .*404 page not found/);
  });

  it('cuts the text of an answer to a few hundred bytes: a 900 KB error is named, not quoted whole', async () => {
    const out = await ask('hugeError');
    assert.equal(!out.ok && out.reason, 'invalid');
    const message = !out.ok ? out.message : '';
    assert.ok(Buffer.byteLength(message) <= 1024, `${Buffer.byteLength(message)} bytes`);
    assert.ok(message.startsWith(`Prometheus at ${base} answered HTTP 422: execution: query processing would load too many samples: eee`), message.slice(0, 120));
    assert.match(message, /… \(\d+ bytes in all\)$/);
    for (const query of ['hugeErrorType', 'hugeStatus', 'hugeValue', 'hugeSample']) {
      const odd = await ask(query);
      assert.equal(!odd.ok && odd.reason, 'error', query);
      assert.ok(!odd.ok && Buffer.byteLength(odd.message) <= 1024, `${query}: ${!odd.ok && Buffer.byteLength(odd.message)} bytes`);
      assert.match(!odd.ok ? odd.message : '', /bytes in all/, query);
    }
  });

  it('reads an excerpt of a large non-JSON body at once, whatever is in it', async () => {
    const started = Date.now();
    const out = await ask('hugeHtml');
    assert.equal(!out.ok && out.reason, 'error');
    assert.ok(!out.ok && Buffer.byteLength(out.message) <= 1024);
    assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
  });

  it('refuses an answer larger than 1 MiB: a success that large is the query\'s doing (invalid), any other Prometheus failing (error)', async () => {
    for (const query of ['huge', 'hugeChunked', 'hugeSlowHead']) {
      const out = await ask(query);
      assert.deepEqual(out, { ok: false, reason: 'invalid', message: `Prometheus at ${base}: answer larger than 1 MiB; the query returns far more than one number (aggregate it with sum() or similar)` }, query);
    }
    const failing = await ask('hugeFailure');
    assert.deepEqual(failing, { ok: false, reason: 'error', message: `Prometheus at ${base}: answer larger than 1 MiB` });
    // A success that is no JSON (an address pointing at something else): no Prometheus answer.
    const page = await ask('hugePage');
    assert.deepEqual(page, { ok: false, reason: 'error', message: `Prometheus at ${base}: answer larger than 1 MiB` });
    // Sent as JSON, yet no Prometheus success (a proxy's junk): no Prometheus answer either, so
    // that it fires the alert on failing queries; the advice to aggregate would be wrong.
    const junk = await ask('hugeJunk');
    assert.deepEqual(junk, { ok: false, reason: 'error', message: `Prometheus at ${base}: answer larger than 1 MiB` });
  });

  it('gives up at the timeout, not when a slow server answers', async () => {
    const started = Date.now();
    const out = await ask('slow', { timeoutMs: 200 });
    const took = Date.now() - started;
    assert.deepEqual(out, { ok: false, reason: 'error', message: `Prometheus at ${base} did not answer within 200 ms` });
    assert.ok(took >= 190 && took < 600, `took ${took} ms`);
  });

  it('returns on time even with a fetch that ignores its abort signal', async () => {
    const hanging = (() => new Promise<Response>(() => {})) as typeof fetch;
    const started = Date.now();
    const out = await queryInstant('http://prometheus.example:9090', 'up', { timeoutMs: 100, fetch: hanging });
    assert.deepEqual(out, { ok: false, reason: 'error', message: 'Prometheus at http://prometheus.example:9090 did not answer within 100 ms' });
    assert.ok(Date.now() - started < 500);
  });

  it('takes any timeout without throwing', async () => {
    for (const timeoutMs of [-5, 0, Number.NaN, 1e12]) {
      const out = await ask('one', { timeoutMs });
      assert.ok(out.ok || out.message.includes('did not answer'), `${timeoutMs}: ${JSON.stringify(out)}`);
    }
  });

  it('names the address when nothing listens there', async () => {
    const port = await freePort();
    const started = Date.now();
    const out = await queryInstant(`http://127.0.0.1:${port}/`, 'up');
    assert.deepEqual(out, { ok: false, reason: 'error', message: `Prometheus at http://127.0.0.1:${port} unreachable: connect ECONNREFUSED 127.0.0.1:${port}` });
    assert.ok(Date.now() - started < 2_000);
  });

  it('refuses a URL that is not http(s), and leaves credentials out of messages', async () => {
    assert.match(((await queryInstant('not a url', 'up')) as { message: string }).message, /not a valid URL/);
    assert.match(((await queryInstant('file:///etc/passwd', 'up')) as { message: string }).message, /is not http\(s\)/);
    const port = await freePort();
    const out = await queryInstant(`http://user:secret@127.0.0.1:${port}/prom/`, 'up');
    assert.equal(!out.ok && out.message.includes('secret'), false);
    assert.match(!out.ok ? out.message : '', new RegExp(`^Prometheus at http://127.0.0.1:${port}/prom unreachable`));
  });

  it('tells a --prometheus-url that can never be asked, as the controller refuses it at start', () => {
    for (const ok of ['http://prometheus.monitoring:9090', 'https://prom.example/prometheus/', 'http://user:s3cr%40t@127.0.0.1:9090']) assert.equal(prometheusUrlProblem(ok), undefined, ok);
    // Without a scheme, "prometheus.monitoring:" parses as one: not http(s).
    assert.equal(prometheusUrlProblem('prometheus.monitoring:9090'), 'Prometheus URL "prometheus.monitoring:9090" is not http(s)');
    assert.equal(prometheusUrlProblem('prometheus'), 'Prometheus URL "prometheus" is not a valid URL');
    assert.equal(prometheusUrlProblem('http://user:secret@'), 'Prometheus URL "http://" is not a valid URL');
  });

  it('sends credentials in the URL as basic auth', async () => {
    const withAuth = base.replace('http://', 'http://user:s3cr%40t@');
    assert.deepEqual(await queryInstant(`${withAuth}/auth`, 'up'), { ok: true, value: 1 });
  });

  it('a parse error quotes the query as sent, where its position counts (placeholders filled, namespace matchers added)', async () => {
    const refusing = (async () => new Response(JSON.stringify({ status: 'error', errorType: 'bad_data', error: 'invalid parameter "query": 1:44: parse error: missing unit character in duration' }), { status: 400 })) as typeof fetch;
    const sent = 'sum(rate(requests{namespace="shop",app="web"}[100]))';
    assert.deepEqual(await queryInstant('http://p:9090', sent, { fetch: refusing }), {
      ok: false,
      reason: 'invalid',
      message: `Prometheus at http://p:9090 answered HTTP 400: bad_data: invalid parameter "query": 1:44: parse error: missing unit character in duration (positions count in the query as sent: ${sent})`,
    });
    // Other refusals are as Prometheus words them.
    const execution = (async () => new Response(JSON.stringify({ status: 'error', errorType: 'execution', error: 'found duplicate series for the match group' }), { status: 422 })) as typeof fetch;
    assert.equal((await queryInstant('http://p:9090', sent, { fetch: execution }) as { message: string }).message, 'Prometheus at http://p:9090 answered HTTP 422: execution: found duplicate series for the match group');
  });

  it('never throws, whatever fetch does', async () => {
    const throwing = (() => { throw new Error('boom'); }) as typeof fetch;
    assert.deepEqual(await queryInstant('http://p:9090', 'up', { fetch: throwing }), { ok: false, reason: 'error', message: 'Prometheus at http://p:9090 unreachable: boom' });
    const brokenBody = (async () => new Response(new ReadableStream({ pull(c) { c.error(new Error('reset')); } }))) as typeof fetch;
    assert.deepEqual(await queryInstant('http://p:9090', 'up', { fetch: brokenBody }), { ok: false, reason: 'error', message: 'Prometheus at http://p:9090: reading the answer failed: reset' });
  });
});

describe('queryInstant with a bearer token (--prometheus-bearer-token-file)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-prom-token-'));
    bearers.length = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('sends Authorization: Bearer <token> on every query, a GET and a long query\'s POST alike', async () => {
    const bearerToken = async () => 'tok-abc.def';
    assert.deepEqual(await queryInstant(`${base}/prom/bearer`, 'up', { bearerToken }), { ok: true, value: 2 });
    const long = `sum(x{a="${'b'.repeat(5000)}"})`;
    assert.deepEqual(await queryInstant(`${base}/prom/bearer/`, long, { bearerToken }), { ok: true, value: long.length });
    assert.deepEqual(bearers, ['Bearer tok-abc.def', 'Bearer tok-abc.def']);
    // Without one, none is sent (and the proxy refuses).
    assert.equal((await queryInstant(`${base}/prom/bearer`, 'up')).ok, false);
    assert.equal(bearers.at(-1), undefined);
  });

  it('reads the token file again once a minute has passed (a rotated ServiceAccount token), keeping the last token while the file is unreadable or holds none', async () => {
    const file = join(dir, 'token');
    writeFileSync(file, 'first\n');
    let now = 1_000;
    const bearerToken = bearerTokenFile(file, (readBearerTokenFile(file) as { token: string }).token, () => now);
    const ask = async () => {
      const outcome = await queryInstant(`${base}/bearer`, 'up', { bearerToken });
      assert.equal(outcome.ok, true, JSON.stringify(outcome));
      return bearers.at(-1);
    };
    assert.equal(await ask(), 'Bearer first');
    writeFileSync(file, 'second\n');
    now += TOKEN_FILE_REFRESH_MS - 1;
    assert.equal(await ask(), 'Bearer first', 'not read again before a minute');
    now += 1;
    assert.equal(await ask(), 'Bearer second');
    // Kept while the file is gone, empty, or holds something that is no token.
    for (const content of [undefined, '', '\n', 'not a token\n']) {
      if (content === undefined) rmSync(file);
      else writeFileSync(file, content);
      now += TOKEN_FILE_REFRESH_MS;
      assert.equal(await ask(), 'Bearer second', JSON.stringify(content));
    }
    writeFileSync(file, 'tok-third');
    now += TOKEN_FILE_REFRESH_MS;
    assert.equal(await ask(), 'Bearer tok-third');
  });

  it('reads the file at the first query when not given the token read at start', async () => {
    const file = join(dir, 'token');
    writeFileSync(file, 'tok-lazy\n');
    const bearerToken = bearerTokenFile(file, undefined, () => 0);
    assert.deepEqual(await queryInstant(`${base}/bearer`, 'up', { bearerToken }), { ok: true, value: 2 });
    assert.deepEqual(bearers, ['Bearer tok-lazy']);
    // A file never read fails the query rather than send it without a token.
    const missing = await queryInstant(`${base}/bearer`, 'up', { bearerToken: bearerTokenFile(join(dir, 'none'), undefined, () => 0) });
    assert.deepEqual(missing, { ok: false, reason: 'error', message: `Prometheus at ${base}/bearer: no bearer token to send (its file could not be read)` });
    assert.equal(bearers.length, 1, 'nothing sent without the token');
  });

  it('puts the token in no message: refused, unreachable, unusable, or beside URL credentials', async () => {
    const secret = 'tok-s3cret-value';
    const bearerToken = async () => secret;
    const port = await freePort();
    const outcomes = [
      await queryInstant(`${base}/other`, 'up', { bearerToken }), // 404 from the server
      await queryInstant(`http://127.0.0.1:${port}/`, 'up', { bearerToken }),
      await queryInstant(`http://127.0.0.1:${port}/`, `sum(x{a="${'b'.repeat(5000)}"})`, { bearerToken }),
      // fetch names a header value it refuses (a newline, a NUL): such a token is not handed to it.
      await queryInstant(`${base}/bearer`, 'up', { bearerToken: async () => `${secret}\nX-Other: 1` }),
      await queryInstant(`${base}/bearer`, 'up', { bearerToken: async () => `${secret}\u0000` }),
      await queryInstant(`${base}/bearer`, 'up', { bearerToken: async () => `${secret}\u00e9` }),
      await queryInstant(`${base}/bearer`, 'up', { bearerToken: async () => '' }),
      await queryInstant(base.replace('http://', 'http://user:pw@') + '/bearer', 'up', { bearerToken }),
      await queryInstant(`${base}/bearer`, 'up', { bearerToken: async () => { throw new Error(secret); } }),
    ];
    for (const outcome of outcomes) {
      assert.equal(outcome.ok, false, JSON.stringify(outcome));
      assert.ok(!outcome.ok && !outcome.message.includes('s3cret'), JSON.stringify(outcome));
    }
    assert.match(!outcomes[3].ok ? outcomes[3].message : '', /: the bearer token holds characters other than visible ASCII/);
    assert.match(!outcomes[6].ok ? outcomes[6].message : '', /: the bearer token is empty$/);
    assert.match(!outcomes[7].ok ? outcomes[7].message : '', /user:password credentials and a bearer token/);
    assert.deepEqual(bearers, [], 'no request carried an unusable token, nor two credentials');
  });

  it('reads the file at start, and tells why it cannot be used without quoting it', () => {
    const file = join(dir, 'token');
    writeFileSync(file, '  tok-start\n');
    assert.deepEqual(readBearerTokenFile(file), { token: 'tok-start' });
    assert.deepEqual(readBearerTokenFile(join(dir, 'none')), { problem: `cannot read the bearer token file ${join(dir, 'none')}: no such file` });
    mkdirSync(join(dir, 'folder'));
    assert.deepEqual(readBearerTokenFile(join(dir, 'folder')), { problem: `cannot read the bearer token file ${join(dir, 'folder')}: a directory, not a file` });
    const denied = () => { throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }); };
    assert.deepEqual(readBearerTokenFile('/secret/token', denied), { problem: 'cannot read the bearer token file /secret/token: permission denied' });
    writeFileSync(file, '\n');
    assert.deepEqual(readBearerTokenFile(file), { problem: `the bearer token file ${file} is empty` });
    writeFileSync(file, 'password: s3cret\n');
    const odd = readBearerTokenFile(file);
    assert.ok('problem' in odd && !odd.problem.includes('s3cret'), JSON.stringify(odd));
    assert.match('problem' in odd ? odd.problem : '', /holds characters other than visible ASCII/);
  });

  it('refuses a --prometheus-url with user:password beside a token file, without showing the password', () => {
    assert.equal(prometheusUrlProblem('https://thanos-querier.openshift-monitoring:9091', { bearerToken: true }), undefined);
    const problem = prometheusUrlProblem('https://user:s3cret@thanos-querier.openshift-monitoring:9091/', { bearerToken: true });
    assert.equal(problem, 'Prometheus URL "https://thanos-querier.openshift-monitoring:9091/" has user:password credentials, and --prometheus-bearer-token-file is set as well: use one of them');
    assert.equal(prometheusUrlProblem('https://user:s3cret@thanos-querier.openshift-monitoring:9091/'), undefined);
  });
});
