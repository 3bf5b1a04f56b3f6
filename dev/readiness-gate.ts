// A TCP gate in front of a server: connections go through to it only while the gate is open, as
// through a load balancer that health-checks the server's /readyz. Bytes pass as they are (TLS
// included), so clients see the server itself.
import { connect, createServer, type Socket } from 'node:net';

export interface ReadinessGate {
  /** Lets new connections through. */
  open(): void;
  /** Refuses new connections (closes them at once) and drops those open, as a stopped server would. */
  shut(): void;
  /** Shuts and stops listening. */
  stop(): Promise<void>;
}

/** Listens on `host:port` and forwards to `host:backendPort`; starts shut. */
export async function startReadinessGate(port: number, backendPort: number, host = '127.0.0.1'): Promise<ReadinessGate> {
  let open = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    if (!open) return void client.destroy();
    const backend = connect(backendPort, host);
    for (const s of [client, backend]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        backend.destroy();
      });
    }
    client.pipe(backend).pipe(client);
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => done());
  });
  const shut = () => {
    open = false;
    for (const s of sockets) s.destroy();
  };
  return {
    open: () => {
      open = true;
    },
    shut,
    stop: () => new Promise((done) => {
      shut();
      server.close(() => done());
    }),
  };
}
