// TCP ports on 127.0.0.1 that nothing listens on right now.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A port the kernel picks: free now, from the ephemeral range. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A free port below the kernel's ephemeral range, for a server that is stopped and started again
 * on the same port. While it is down, its clients keep reconnecting, and an outgoing connection
 * takes a local port from the ephemeral range: it may take the server's own port, or connect to
 * itself on it (TCP simultaneous open), and the server can then not listen there again.
 */
export async function stablePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const from = 10_000;
  const to = ephemeralRange()[0];
  // A machine whose ephemeral range starts this low leaves no room below it: the kernel chooses.
  if (to - from < 1_000) return Promise.all(Array.from({ length: count }, () => freePort(host)));
  const ports: number[] = [];
  for (let tries = 0; ports.length < count && tries < 200; tries++) {
    const port = from + Math.floor(Math.random() * (to - from));
    if (!ports.includes(port) && (await isFree(port, host))) ports.push(port);
  }
  if (ports.length < count) throw new Error(`found ${ports.length} of ${count} free ports between ${from} and ${to} on ${host}`);
  return ports;
}

export function belowEphemeralRange(port: number): boolean {
  return port < ephemeralRange()[0];
}

/** Whether something could listen on `port` now. */
export function isFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.unref();
    server.once('error', () => done(false));
    server.listen(port, host, () => server.close(() => done(true)));
  });
}

/** Linux's ip_local_port_range; its default elsewhere. */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return [low, high];
  } catch {
    // Not Linux: the IANA dynamic range, which macOS and Windows use.
  }
  return [49_152, 65_535];
}
