import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { belowEphemeralRange, freePort, isFree, stablePorts } from '../../dev/free-port.js';

describe('free ports', () => {
  it('a stable port is free and below the ephemeral range, so no outgoing connection can take it', async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const ports = await stablePorts(3);
    assert.equal(new Set(ports).size, 3, 'distinct');
    for (const port of ports) {
      assert.ok(port >= 10_000 && port < low, `${port} below ${low}`);
      assert.ok(belowEphemeralRange(port));
      assert.ok(await isFree(port));
    }
    assert.equal(belowEphemeralRange(low), false);
    const kernels = await freePort();
    assert.equal(belowEphemeralRange(kernels), false, 'the kernel picks from the ephemeral range');
  });

  it('a port something listens on is not free', async () => {
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as { port: number };
    try {
      assert.equal(await isFree(port), false);
    } finally {
      server.close();
    }
  });
});
