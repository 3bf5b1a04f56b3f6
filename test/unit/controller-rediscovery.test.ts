// A kind the cluster stops serving and serves again (a CRD removed and installed, an API server
// whose discovery lists only part of its groups for a while): when it comes back, its cache
// fills before its version is in use, and no pass in between may delete what that cache shows.
// The controller runs against a stand-in API server (plain HTTP, in this process) whose /apis
// leaves out policy/v1 while the test says so; every write it receives is recorded.
import { strict as assert } from 'node:assert';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startController } from '../../controller/controller.js';
import { createLogger } from '../../shared/logger.js';
import { eventually } from '../../dev/wait.js';

const UID = 'b3f0c6f2-0000-4000-8000-000000000001';
const owner = [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: UID, controller: true, blockOwnerDeletion: true }];
const labels = { 'app.kubernetes.io/managed-by': 'skiff', 'app.kubernetes.io/name': 'web' };
const APP = {
  apiVersion: 'skiff.dev/v1alpha1',
  kind: 'App',
  metadata: { name: 'web', namespace: 'shop', uid: UID, generation: 1, resourceVersion: '5' },
  spec: { image: 'registry.example/web:1', replicas: 3 },
};
const PDB = {
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name: 'web', namespace: 'shop', uid: 'pdb-1', resourceVersion: '7', labels, ownerReferences: owner },
  spec: { maxUnavailable: 1, selector: { matchLabels: { 'app.kubernetes.io/name': 'web' } } },
};

/**
 * Keeps what the controller writes and shows it in lists and watches, by resource and name (one
 * namespace): enough of an API server for the controller's caches to see its own writes.
 */
async function apiServer(policyServed: () => boolean) {
  const writes: string[] = [];
  const stored = new Map<string, Map<string, Record<string, any>>>([
    ['apps', new Map([['web', APP]])],
    ['poddisruptionbudgets', new Map([['web', PDB]])],
  ]);
  const watches = new Map<string, Set<ServerResponse>>();
  let version = 100;
  const store = (plural: string, name: string, obj: Record<string, any>) => {
    const kept = { ...obj, metadata: { ...obj.metadata, uid: obj.metadata?.uid ?? `uid-${plural}-${name}`, resourceVersion: String(++version) } };
    if (!stored.has(plural)) stored.set(plural, new Map());
    stored.get(plural)!.set(name, kept);
    for (const w of watches.get(plural) ?? []) w.write(`${JSON.stringify({ type: 'MODIFIED', object: kept })}\n`);
    return kept;
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, 'http://x');
    const json = (code: number, body: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    // .../namespaces/<ns>/<plural>[/<name>[/<subresource>]], or a list of all namespaces: .../<plural>
    const named = /\/namespaces\/[^/]+\/([^/]+)(?:\/([^/]+))?(?:\/([^/]+))?$/.exec(url.pathname);
    const plural = named?.[1] ?? url.pathname.split('/').pop()!;
    if (req.method !== 'GET') {
      writes.push(`${req.method} ${url.pathname}`);
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const sent = req.method === 'DELETE' || !body ? {} : JSON.parse(body);
        const name = named?.[2] ?? sent.metadata?.name;
        const was = stored.get(plural)?.get(name) ?? {};
        if (req.method === 'DELETE') {
          stored.get(plural)?.delete(name);
          return json(200, was);
        }
        const merged = named?.[3] === 'status' ? { ...was, status: sent.status } : { ...was, ...sent, metadata: { ...was.metadata, ...sent.metadata } };
        json(200, store(plural, name, merged));
      });
      return;
    }
    if (url.pathname === '/apis') {
      const groups = [{ name: 'autoscaling', versions: [{ groupVersion: 'autoscaling/v2' }] }];
      if (policyServed()) groups.push({ name: 'policy', versions: [{ groupVersion: 'policy/v1' }] });
      return json(200, { groups });
    }
    if (url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      if (!watches.has(plural)) watches.set(plural, new Set());
      watches.get(plural)!.add(res);
      res.on('close', () => watches.get(plural)!.delete(res));
      return;
    }
    if (named?.[2]) {
      const obj = stored.get(plural)?.get(named[2]);
      return obj ? json(200, obj) : json(404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'not found' });
    }
    json(200, { kind: 'List', metadata: { resourceVersion: String(version) }, items: [...(stored.get(plural)?.values() ?? [])] });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    writes,
    /** Watches of PodDisruptionBudgets open now. */
    budgetWatches: () => watches.get('poddisruptionbudgets')?.size ?? 0,
    close: () => {
      for (const set of watches.values()) for (const w of set) w.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('controller rediscovery', function () {
  this.timeout(15_000);

  it('a PodDisruptionBudget API that goes and comes back: the budget its cache shows again is not deleted before the version is in use', async () => {
    let served = true;
    const api = await apiServer(() => served);
    const controller = await startController({
      connection: { server: api.url, namespace: 'default', context: 'test', insecure: false, files: [] },
      discoveryIntervalMs: 100,
      resyncMs: 0,
      log: createLogger('test'),
    });
    try {
      await eventually(() => api.writes.some((w) => w.includes('/deployments/web')), { timeoutMs: 5000, message: 'the App is reconciled' });
      await eventually(() => api.budgetWatches() === 1, { timeoutMs: 5000, message: 'budgets watched' });
      served = false;
      // Two looks in a row without policy/v1: the kind is gone, its watch stopped.
      await eventually(() => api.budgetWatches() === 0, { timeoutMs: 5000, message: 'the budgets\' watch stops' });
      served = true;
      await eventually(() => api.budgetWatches() === 1, { timeoutMs: 5000, message: 'budgets watched again' });
      // The passes that follow: the App is looked at again once the kind is back (enqueueAll).
      await new Promise((r) => setTimeout(r, 1000));
      const deletes = api.writes.filter((w) => w.startsWith('DELETE'));
      assert.deepEqual(deletes, [], 'nothing deleted');
    } finally {
      await controller.stop();
      api.close();
    }
  });
});
