// The local control plane the other suites run on: the API server stopped and started again on
// its address, as the fault tests do, including when its start fails the way a real one's can.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from '../../dev/control-plane.js';
import { belowEphemeralRange } from '../../dev/free-port.js';

const listen = (port: number) => new Promise<Server>((done, fail) => {
  const server = createServer();
  server.once('error', fail);
  server.listen(port, '127.0.0.1', () => done(server));
});

describe('local control plane', function () {
  this.timeout(120_000);
  let cp: ControlPlane;
  let dir: string;
  const warnings: string[] = [];

  before(async function () {
    this.timeout(180_000);
    dir = mkdtempSync(join(tmpdir(), 'skiff-cp-'));
    cp = await startControlPlane({ dir, controllerManager: false, warn: (line) => warnings.push(line) });
  });

  after(async () => {
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('serves on a port below the ephemeral range, which no client connection can take while it is down', () => {
    assert.ok(belowEphemeralRange(Number(new URL(cp.server).port)), cp.server);
  });

  it('starts the API server again when a start exits, as a kubelet would, saying why', async () => {
    await cp.stopApiServer();
    // The port is held for a moment: the first start dies on it (as on any failed start-up step).
    const holder = await listen(Number(new URL(cp.server).port));
    setTimeout(() => holder.close(), 2_000);
    warnings.length = 0;
    await cp.startApiServer();
    assert.ok(warnings.length >= 1, 'a failed start is reported');
    assert.match(warnings[0], /kube-apiserver: start 1 of 3 failed, starting it again: .*address already in use/);
  });

  it('gives up after three starts with the reason first, not only the last lines of goroutine stacks', async () => {
    await cp.stopApiServer();
    const holder = await listen(Number(new URL(cp.server).port));
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
