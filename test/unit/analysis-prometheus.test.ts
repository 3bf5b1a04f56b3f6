// queryInstant against a small local HTTP server that answers the way Prometheus (and what may
// stand in front of it) can: every odd answer becomes an outcome, never a throw or a hang.
import { strict as assert } from 'node:assert';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { MAX_BODY_BYTES, prometheusUrlProblem, queryInstant } from '../../controller/analysis/prometheus.js';
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
};

let server: Server;
let base: string;
const seen: string[] = [];

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
  if (url.pathname.endsWith('/auth/api/v1/query')) {
    const ok = req.headers.authorization === `Basic ${Buffer.from('user:s3cr@t').toString('base64')}`;
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' })
      .end(JSON.stringify(ok ? vector('1') : { status: 'error', errorType: 'unauthorized', error: 'no' }));
    return;
  }
  if (query === 'hugeChunked') {
    // No content-length: the cap must hold while reading.
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = 'x'.repeat(64 << 10);
    let sent = 0;
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

  it('refuses infinities, non-numbers, several series and non-instant result types', async () => {
    const cases: [string, RegExp][] = [
      ['inf', /\+Inf is not a usable number/],
      ['ninf', /-Inf is not a usable number/],
      ['text', /"abc" is not a number/],
      ['longDigits', /sample value 1{100,}.*\(200001 bytes in all\) is not a number Prometheus writes/],
      ['longNumber', /sample value 0\.5{100} is not a number Prometheus writes/],
      ['several', /^3 series, expected one \(aggregate with sum\(\) or similar\)$/],
      ['missingValue', /sample is not \[time, value\]/],
      ['noData', /answer has no data/],
      ['matrix', /result type matrix/],
      ['string', /result type string/],
      ['jsonArray', /not an object/],
      ['notJson', /HTTP 200 with a body that is not JSON: hello/],
    ];
    for (const [query, message] of cases) {
      const out = await ask(query);
      assert.equal(out.ok, false, query);
      assert.equal(!out.ok && out.reason, 'error', query);
      assert.match(!out.ok ? out.message : '', message, query);
    }
  });

  it("passes on Prometheus's own error message and status", async () => {
    const bad = await ask('badData');
    assert.deepEqual(bad, { ok: false, reason: 'error', message: `Prometheus at ${base} answered HTTP 400: bad_data: invalid parameter "query": 1:5: parse error: unexpected "}"` });
    const exec = await ask('execError');
    assert.match(!exec.ok ? exec.message : '', /HTTP 422: execution: found duplicate series/);
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
    assert.equal(!out.ok && out.reason, 'error');
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

  it('refuses an answer larger than 1 MiB', async () => {
    for (const query of ['huge', 'hugeChunked']) {
      const out = await ask(query);
      assert.deepEqual(out, { ok: false, reason: 'error', message: `Prometheus at ${base}: answer larger than 1 MiB` }, query);
    }
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

  it('never throws, whatever fetch does', async () => {
    const throwing = (() => { throw new Error('boom'); }) as typeof fetch;
    assert.deepEqual(await queryInstant('http://p:9090', 'up', { fetch: throwing }), { ok: false, reason: 'error', message: 'Prometheus at http://p:9090 unreachable: boom' });
    const brokenBody = (async () => new Response(new ReadableStream({ pull(c) { c.error(new Error('reset')); } }))) as typeof fetch;
    assert.deepEqual(await queryInstant('http://p:9090', 'up', { fetch: brokenBody }), { ok: false, reason: 'error', message: 'Prometheus at http://p:9090: reading the answer failed: reset' });
  });
});
