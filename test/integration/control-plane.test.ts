// The local control plane the other suites run on: the API server stopped and started again on
// its address, as the fault tests do, while a client keeps writing to it.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeKubeClients } from '../../dev/kube-clients.js';
import { forEachLimited } from '../../dev/concurrency.js';
import { startControlPlane, type ControlPlane } from '../../dev/control-plane.js';
import { belowEphemeralRange } from '../../dev/free-port.js';
import { loadKubeConfig } from '../../shared/kubeconfig.js';

const listen = (port: number) => new Promise<Server>((done, fail) => {
  const server = createServer();
  server.once('error', fail);
  server.listen(port, '127.0.0.1', () => done(server));
});

describe('local control plane', function () {
  this.timeout(120_000);
  let cp: ControlPlane;
  let dir: string;

  before(async function () {
    this.timeout(180_000);
    dir = mkdtempSync(join(tmpdir(), 'skiff-cp-'));
    cp = await startControlPlane({ dir, controllerManager: false });
  });

  after(async () => {
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('serves on a port below the ephemeral range, which no client connection can take while it is down', () => {
    assert.ok(belowEphemeralRange(Number(new URL(cp.server).port)), cp.server);
  });

  it('starts the API server again while a client keeps creating Services, and serves that client', async () => {
    // Without the readiness gate this start crashes (klog.Fatal, "Unable to perform initial IP
    // allocation check: ... the provided resource version does not match"), start after start.
    const core = makeKubeClients(loadKubeConfig({ path: cp.kubeconfigPath }), 'skiff-test').core;
    await core.createNamespace({ body: { metadata: { name: 'restart' } } });
    const service = (name: string) => ({ namespace: 'restart', body: { metadata: { name }, spec: { ports: [{ port: 80 }] } } });
    // Enough Services that the repair's list of them takes a while, as on a suite's cluster.
    await forEachLimited(Array.from({ length: 600 }, (_, i) => `pre-${i}`), 16, (name) => core.createNamespacedService(service(name)));
    await cp.stopApiServer();
    let creating = true;
    let created = 0;
    const creator = async (worker: number) => {
      for (let i = 0; creating; i++) {
        try {
          await core.createNamespacedService(service(`s-${worker}-${i}`));
          created += 1;
        } catch {
          await new Promise((r) => setTimeout(r, 5));
        }
      }
    };
    const creators = Array.from({ length: 16 }, (_, worker) => creator(worker));
    try {
      await cp.startApiServer();
      const before = created;
      const deadline = Date.now() + 30_000;
      while (created < before + 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.ok(created >= before + 20, `Services created after the restart: ${created - before}`);
    } finally {
      creating = false;
      await Promise.all(creators);
    }
  });

  it('a start that fails says why first, not only the last lines of goroutine stacks', async () => {
    await cp.stopApiServer();
    const { apiserverBehindGate } = JSON.parse(readFileSync(join(dir, 'ports.json'), 'utf8')) as { apiserverBehindGate: number };
    const holder = await listen(apiserverBehindGate);
    try {
      await assert.rejects(cp.startApiServer(), (err: Error) => {
        assert.match(err.message, /^kube-apiserver exited \(code \d+\):\nError: failed to create listener: .*address already in use/);
        return true;
      });
    } finally {
      holder.close();
    }
    await cp.startApiServer();
  });
});
