// npm run bench:webhook — AdmissionReviews per second and latency over HTTPS keep-alive, for
// /validate and /mutate with config/samples/app-full.yaml, at 1 and 50 connections, against the
// same load on a bare node:https server that parses the AdmissionReview and answers it. Servers run in their
// own processes; the load generator (autocannon) shares the machine's cores with them.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { parse } from 'yaml';
import { ensureCerts } from '../certs/write.js';
import { freePort, mark, otherCpuNote, root, startNode, stop, table, waitUntil, watchOtherCpu } from './support.js';

export interface WebhookFigures { rows: (string | number)[][]; summary: string[] }

function load(url: string, body: string, connections: number, durationS: number): Promise<autocannon.Result> {
  return autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections, duration: durationS, pipelining: 1 });
}

async function listening(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((done) => {
    const s = connect(port, '127.0.0.1', () => { s.end(); done(true); });
    s.on('error', () => done(false));
  });
}

export async function benchWebhook(durationS = Number(process.env.BENCH_SECONDS ?? 10)): Promise<WebhookFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-bench-webhook-'));
  ensureCerts(dir, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const app = parse(readFileSync(join(root, 'config/samples/app-full.yaml'), 'utf8'));
  const review = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'bench', kind: { group: 'skiff.dev', version: 'v1alpha1', kind: 'App' }, operation: 'CREATE', namespace: 'shop', name: 'web', object: { ...app, metadata: { ...app.metadata, namespace: 'shop' } } } });

  const webhookPort = await freePort();
  const barePort = await freePort();
  const webhook = startNode('webhook/main.js', ['--port', String(webhookPort), '--bind-address', '127.0.0.1', '--cert-dir', dir, '--health-port', '0', '--metrics-port', '0'], { SKIFF_LOG_LEVEL: 'error' });
  const bare = startNode('bench/bare-server.js', [dir, String(barePort)]);
  const rows: (string | number)[][] = [];
  const summary: string[] = [];
  try {
    await waitUntil(() => listening(webhookPort), 15_000, 'the webhook');
    await waitUntil(() => listening(barePort), 15_000, 'the bare server');
    // Warm up JIT and TLS session caches so that the first measured run is not the slowest.
    await load(`https://127.0.0.1:${webhookPort}/validate`, review, 10, 2);
    await load(`https://127.0.0.1:${barePort}/`, review, 10, 2);
    for (const connections of [1, 50]) {
      const base = await load(`https://127.0.0.1:${barePort}/`, review, connections, durationS);
      rows.push(['bare node:https', connections, Math.round(base.requests.average), base.latency.p50, base.latency.p99, '1.00', base.non2xx + base.errors]);
      for (const endpoint of ['validate', 'mutate']) {
        const r = await load(`https://127.0.0.1:${webhookPort}/${endpoint}`, review, connections, durationS);
        const ratio = r.requests.average / base.requests.average;
        rows.push([`/${endpoint}`, connections, Math.round(r.requests.average), r.latency.p50, r.latency.p99, ratio.toFixed(2), r.non2xx + r.errors]);
        if (connections === 50) {
          summary.push(`/${endpoint} at 50 connections: ${ratio.toFixed(2)} of bare throughput (target >= 0.6: ${mark(ratio >= 0.6)}), p99 ${r.latency.p99} ms (target < 10 ms: ${mark(r.latency.p99 < 10)})`);
        }
      }
    }
  } finally {
    await Promise.all([stop(webhook), stop(bare)]);
    rmSync(dir, { recursive: true, force: true });
  }
  return { rows, summary };
}

export function printWebhook(f: WebhookFigures): void {
  console.log(table(['server', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'ratio to bare', 'errors'], f.rows));
  for (const line of f.summary) console.log(line);
}

if (process.argv[1]?.endsWith('bench/webhook.js')) {
  const others = watchOtherCpu();
  benchWebhook().then((f) => { printWebhook(f); console.log(otherCpuNote(others.stop())); }, (err: Error) => { console.error(err); process.exit(1); });
}
