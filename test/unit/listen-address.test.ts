// The addresses the processes listen on by default. A pod of an IPv6 single-stack cluster has an
// IPv6 address only: the kubelet probes it there and the API server reaches the webhook there, so
// a server bound to 0.0.0.0 (IPv4 only) is never ready and never answers an admission.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { ensureCerts } from '../../certs/write.js';
import { freePort } from '../../dev/free-port.js';
import { eventually } from '../../dev/wait.js';
import { startOpsServers } from '../../shared/ops-server.js';

const distRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The status of GET path on host:port; over TLS with `ca`, for the name localhost the certificate holds. */
function status(host: string, port: number, path: string, ca?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const done = (res: import('node:http').IncomingMessage) => { res.resume(); resolve(res.statusCode ?? 0); };
    const req = ca ? httpsGet({ host, port, path, ca, servername: 'localhost' }, done) : httpGet({ host, port, path }, done);
    req.on('error', reject);
  });
}

describe('listen addresses', function () {
  this.timeout(20_000);

  it('the health and metrics servers answer on IPv6 and IPv4 when no address is given', async () => {
    const ops = await startOpsServers({ healthPort: await freePort(), metricsPort: await freePort(), registry: new Registry(), healthy: () => undefined, ready: () => undefined });
    try {
      for (const host of ['::1', '127.0.0.1']) {
        assert.equal(await status(host, ops.healthPort!, '/healthz'), 200, host);
        assert.equal(await status(host, ops.metricsPort!, '/metrics'), 200, host);
      }
    } finally {
      await ops.close();
    }
  });

  it('the webhook process without --bind-address answers admissions and probes on IPv6 and IPv4', async () => {
    const certDir = mkdtempSync(join(tmpdir(), 'skiff-listen-'));
    const { caPem } = ensureCerts(certDir, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const [port, healthPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, [join(distRoot, 'webhook', 'main.js'), `--port=${port}`, `--cert-dir=${certDir}`, `--health-port=${healthPort}`, '--metrics-port=0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, SKIFF_LOG_LEVEL: 'error', SKIFF_BIND_ADDRESS: '' },
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    try {
      await eventually(() => status('127.0.0.1', port, '/healthz', caPem).then((s) => s === 200), { timeoutMs: 15_000, intervalMs: 100, message: () => `the webhook answering:\n${stderr}` });
      for (const host of ['::1', '127.0.0.1']) {
        assert.equal(await status(host, port, '/readyz', caPem), 200, `admission port on ${host}`);
        assert.equal(await status(host, healthPort, '/readyz'), 200, `health port on ${host}`);
      }
    } finally {
      child.kill();
      rmSync(certDir, { recursive: true, force: true });
    }
  });
});
