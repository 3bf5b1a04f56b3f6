// Outside text without bound, tried on a real control plane: a stand-in Prometheus on loopback
// answers every query with a 900 KB error. The App still records its checks (the status write
// fits), and what the status, the Events and the log say of the error stays small.
import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import type { CoreV1Event } from '@kubernetes/client-node';
import { pino } from 'pino';
import { condition, createApp, getApp, newNamespace } from '../support/apps.js';
import { useControllerCluster } from '../support/controller-cluster.js';
import { kubectl } from '../support/kube.js';
import { eventually, until } from '../../dev/wait.js';

const ERROR_BYTES = 900_000;
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('outside text is bounded: a Prometheus answering a 900 KB error (real control plane)', function () {
  this.timeout(120_000);
  let prometheus: Server | undefined;
  let url: string;
  let queries = 0;
  const logLines: string[] = [];
  const cluster = useControllerCluster('outside-text', {
    cluster: { controllerManager: true },
    prepare: async () => {
      const error = `query processing would load too many samples into memory: ${'x'.repeat(ERROR_BYTES)}`;
      const server = createServer((req, res) => {
        if (req.url?.startsWith('/api/v1/query')) queries++;
        res.writeHead(422, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'error', errorType: 'execution', error }));
      });
      prometheus = server;
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    },
    controllers: () => [{
      resyncMs: 30_000,
      prometheusUrl: url,
      // The controller's log, line by line, as its JSON lines would reach a log collector.
      log: pino({ name: 'controller', level: 'info', base: { component: 'controller' } }, { write: (line: string) => void logLines.push(line) }),
    }],
    cleanup: () => {
      prometheus?.closeAllConnections();
      prometheus?.close();
    },
  });

  it('records every check, and keeps the error small in status, Events and the log', async () => {
    const ns = await newNamespace(cluster.api, 'o');
    await createApp(cluster.api, ns, 'web', {
      image: 'registry.example/web:1',
      ingress: { host: `${ns}.example.com` },
      rollout: {
        strategy: 'Canary',
        steps: [{ setWeight: 20 }, { pause: {} }],
        // A query that fails counts as a failed check: each one is also a Warning Event.
        analysis: { interval: '10s', minRequests: 0, noData: 'Fail', failureLimit: 2, metrics: [{ name: 'load', query: 'sum(up)', max: 1 }] },
      },
    });
    await until(async () => assert.equal(condition(await getApp(cluster.api, ns, 'web'), 'Ready')?.status, 'True'), { timeoutMs: 45_000, message: 'Ready' });
    await kubectl(cluster.cp.kubeconfigPath, ['-n', ns, 'patch', 'app', 'web', '--type=merge', '-p', JSON.stringify({ spec: { image: 'registry.example/web:2' } })]);

    const checked = await eventually(async () => {
      const a = await getApp(cluster.api, ns, 'web');
      return (a.status?.canary?.analysis?.checks ?? 0) >= 2 && a;
    }, { timeoutMs: 80_000, intervalMs: 250, message: 'two checks recorded in status' });
    const asked = queries;
    const analysis = checked.status!.canary!.analysis!;
    assert.ok(asked <= analysis.checks + 1, `Prometheus asked ${asked} times for ${analysis.checks} checks: no check repeated by retries`);

    // Status: small, and saying what went wrong and how much of it there was.
    const status = JSON.stringify(checked.status);
    assert.ok(bytes(status) < 16 << 10, `status of ${bytes(status)} bytes`);
    assert.ok(bytes(analysis.message!) <= 1024, `analysis message of ${bytes(analysis.message!)} bytes`);
    assert.match(analysis.message!, /^load: query failed: Prometheus at http:\/\/127\.0\.0\.1:\d+ answered HTTP 422: execution: query processing would load too many samples into memory: x+… \(\d+ bytes in all\)$/);
    assert.ok(analysis.metrics!.every((m) => bytes(m.message ?? '') <= 1024), 'each metric\'s message');
    for (const c of checked.status!.conditions ?? []) assert.ok(bytes(c.message) <= 4096, `${c.type}: ${bytes(c.message)} bytes`);

    // Events: each failed check is one, at most 1 KiB.
    const events = await eventually(async () => {
      const list = (await cluster.api.core.listNamespacedEvent({ namespace: ns, fieldSelector: 'reason=AnalysisCheckFailed' })).items as CoreV1Event[];
      return list.length >= 1 && list;
    }, { timeoutMs: 10_000, message: 'an AnalysisCheckFailed Event' });
    for (const e of events) {
      assert.ok(bytes(e.message ?? '') <= 1024, `Event of ${bytes(e.message ?? '')} bytes`);
      assert.match(e.message ?? '', /bytes in all\)$/);
    }

    // The log: every line small, the checks among them.
    const checks = logLines.filter((l) => l.includes('"msg":"analysis check"'));
    assert.ok(checks.length >= 2, `${checks.length} analysis check lines`);
    const longest = Math.max(...logLines.map(bytes));
    assert.ok(longest <= 8 << 10, `the longest log line has ${longest} bytes`);
  });
});
