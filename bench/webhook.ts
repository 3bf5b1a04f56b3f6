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
import { freePort, mark, otherCpuNote, root, startNode, startScript, stop, table, watchOtherCpu } from './support.js';
import { eventually } from '../dev/wait.js';

export interface WebhookFigures { rows: (string | number)[][]; summary: string[] }

/** Rounds of every server at each connection count; the figures are their medians. */
const ROUNDS = 5;

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

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

export async function benchWebhook(durationS = Number(process.env.BENCH_SECONDS ?? 15)): Promise<WebhookFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'skiff-bench-webhook-'));
  ensureCerts(dir, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const app = parse(readFileSync(join(root, 'config/samples/app-full.yaml'), 'utf8'));
  const review = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'bench', kind: { group: 'skiff.dev', version: 'v1alpha1', kind: 'App' }, operation: 'CREATE', namespace: 'shop', name: 'web', object: { ...app, metadata: { ...app.metadata, namespace: 'shop' } } } });

  const webhookPort = await freePort();
  const barePort = await freePort();
  const webhook = startNode('webhook', ['--port', String(webhookPort), '--bind-address', '127.0.0.1', '--cert-dir', dir, '--health-port', '0', '--metrics-port', '0'], { SKIFF_LOG_LEVEL: 'error' });
  const bare = startScript('bench/bare-server.js', [dir, String(barePort)]);
  const rows: (string | number)[][] = [];
  const summary: string[] = [];
  try {
    await eventually(() => listening(webhookPort), { timeoutMs: 15_000, intervalMs: 100, message: 'the webhook' });
    await eventually(() => listening(barePort), { timeoutMs: 15_000, intervalMs: 100, message: 'the bare server' });
    // Warm up JIT and TLS session caches so that the first measured run is not the slowest.
    await load(`https://127.0.0.1:${webhookPort}/validate`, review, 10, 2);
    await load(`https://127.0.0.1:${webhookPort}/mutate`, review, 10, 2);
    await load(`https://127.0.0.1:${barePort}/`, review, 10, 2);
    // The three servers take turns in short rounds and each figure is the median of its rounds:
    // on a shared machine the capacity drifts within a minute (neighbours, frequency), and one long
    // run of each in sequence put that drift into the ratios.
    const servers = [
      { name: 'bare node:https', url: `https://127.0.0.1:${barePort}/` },
      { name: '/validate', url: `https://127.0.0.1:${webhookPort}/validate` },
      { name: '/mutate', url: `https://127.0.0.1:${webhookPort}/mutate` },
    ];
    for (const connections of [1, 50]) {
      const runs = servers.map(() => [] as autocannon.Result[]);
      for (let round = 0; round < ROUNDS; round++) {
        for (const [i, server] of servers.entries()) runs[i].push(await load(server.url, review, connections, Math.max(1, Math.round(durationS / ROUNDS))));
      }
      const figures = runs.map((rs) => ({
        reqS: median(rs.map((r) => r.requests.average)),
        p50: median(rs.map((r) => r.latency.p50)),
        p99: median(rs.map((r) => r.latency.p99)),
        errors: rs.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
      }));
      for (const [i, server] of servers.entries()) {
        const f = figures[i];
        const ratio = f.reqS / figures[0].reqS;
        rows.push([server.name, connections, Math.round(f.reqS), f.p50, f.p99, ratio.toFixed(2), f.errors]);
        if (connections === 50 && i > 0) {
          // The goal holds in every round: each round's ratio is taken against the bare server's run of that round.
          const worst = Math.min(...runs[i].map((r, round) => r.requests.average / runs[0][round].requests.average));
          summary.push(`${server.name} at 50 connections: ${ratio.toFixed(2)} of bare throughput, ${worst.toFixed(2)} in its worst of ${ROUNDS} rounds (target >= 0.6 in every round: ${mark(worst >= 0.6)}), p99 ${f.p99} ms (target < 10 ms: ${mark(f.p99 < 10)})`);
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
