// Listening for both processes' servers (the webhook's HTTPS, the health and metrics ports).
import type { AddressInfo, Server } from 'node:net';

/**
 * Listens on host:port; resolves with the port (the one the kernel chose for port 0). Without a
 * host (or an empty one), on every address, IPv6 and IPv4 (Node's `::`, or 0.0.0.0 on a machine
 * without IPv6): a pod of an IPv6 single-stack cluster is reached on its IPv6 address only.
 */
export function listen(server: Server, port: number, host: string | undefined): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    const listening = () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    };
    if (host) server.listen(port, host, listening);
    else server.listen(port, listening);
  });
}
