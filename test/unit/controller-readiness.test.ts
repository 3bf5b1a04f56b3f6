// The controller's /readyz over a stand-in API server (plain HTTP, in this process): every cache
// the workers wait for counts, the tracked configuration's copies among them.
import { strict as assert } from 'node:assert';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startController, type Controller } from '../../controller/controller.js';
import { createLogger } from '../../shared/logger.js';
import { eventually } from '../../dev/wait.js';

/** Answers discovery with no API groups, every list with nothing, and holds watches open; `refuse` paths get 403. */
async function apiServer(refuse: (path: string) => boolean) {
  const watches = new Set<ServerResponse>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, 'http://x');
    const json = (code: number, body: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (refuse(url.pathname)) return json(403, { kind: 'Status', code: 403, reason: 'Forbidden', message: `${url.pathname} is forbidden` });
    if (url.pathname === '/apis') return json(200, { groups: [] });
    if (url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      watches.add(res);
      res.on('close', () => watches.delete(res));
      return;
    }
    if (req.method === 'GET') return json(200, { kind: 'List', metadata: { resourceVersion: '1' }, items: [] });
    json(201, {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const w of watches) w.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A controller run with --track-secrets against apiServer(refuse), stopped after `check`. */
async function withController(refuse: (path: string) => boolean, check: (c: Controller) => Promise<void>): Promise<void> {
  const api = await apiServer(refuse);
  let controller: Controller | undefined;
  try {
    controller = await startController({
      connection: { server: api.url, namespace: 'default', context: 'test', insecure: false, files: [] },
      trackSecrets: true,
      log: createLogger('test'),
    });
    await check(controller);
  } finally {
    await controller?.stop();
    api.close();
  }
}

describe('controller readiness', function () {
  this.timeout(10_000);

  it('is not ready while the cache of tracked-configuration copies, which the workers wait for, cannot fill (--track-secrets without its RBAC)', async () => {
    await withController((path) => path === '/api/v1/secrets', async (c) => {
      // The other caches fill at once; the Secret copies' list is refused for ever.
      await new Promise((r) => setTimeout(r, 500));
      await eventually(() => c.ready() !== undefined, { timeoutMs: 2000, message: `ready: ${c.ready()}` });
      assert.match(c.ready()!, /secrets \(copies\)/);
      assert.match(await c.metrics.registry.metrics(), /skiff_controller_leader\{shard=""\} 0/, 'the workers wait for that cache');
    });
  });

  it('is ready once every cache is filled', async () => {
    await withController(() => false, async (c) => {
      await eventually(() => c.ready() === undefined, { timeoutMs: 3000, message: `ready: ${c.ready()}` });
    });
  });
});
