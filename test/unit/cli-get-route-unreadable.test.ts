// `kubectl skiff get APP` of an App with spec.route by a user whose RBAC does not let them list
// HTTPRoutes (403), or on a cluster that does not serve the Gateway API (404): the HTTPRoute is
// optional to the view, yet the 403 failed the whole command and the 404 left the route out
// without a word. The App is shown, with a line saying why its route is not, and exit 0.
import { strict as assert } from 'node:assert';
import { ApiError } from '../../cli/errors.js';
import { get } from '../../cli/get.js';
import { followedApp, followingContext, within } from '../support/cli-context.js';

const app = followedApp(1);
app.spec.route = { parentRefs: [{ name: 'public' }] } as typeof app.spec.route;
const forbidden = () => new ApiError(403, 'forbidden (403): httproutes.gateway.networking.k8s.io is forbidden: User "bob" cannot list resource "httproutes"', 'Forbidden');
const notServed = () => new ApiError(404, 'the server could not find the requested resource', 'NotFound');

function context(gateway: () => Error, watch: boolean) {
  return followingContext((path) => {
    if (path.startsWith('/apis/gateway.networking.k8s.io/')) return gateway();
    if (path.endsWith('/apps/web')) return app;
    return { metadata: { resourceVersion: '5' }, items: path.includes('/apps?') ? [app] : [] };
  }, { command: 'get', watch });
}

describe('kubectl skiff get: an App with spec.route whose HTTPRoute cannot be read', () => {
  for (const [what, answer, line] of [
    ['HTTPRoutes forbidden (403)', forbidden, '`-- HTTPRoute web: not shown (forbidden (403): httproutes.gateway.networking.k8s.io is forbidden: User "bob" cannot list resource "httproutes")'],
    ['HTTPRoutes not served (404)', notServed, '`-- HTTPRoute web: not shown (HTTPRoutes are not served)'],
  ] as const) {
    it(`${what}: prints the App, says why the route is not shown, exit 0`, async () => {
      const { ctx, out } = context(answer, false);
      assert.equal(await get(ctx), 0);
      const lines = out.join('').split('\n');
      assert.ok(lines.includes('Name:     shop/web'), out.join(''));
      assert.ok(lines.includes(line), out.join(''));
    });

    it(`${what}, with --watch: the same line, and the watch goes on`, async () => {
      const { ctx, out } = context(answer, true);
      const running = get(ctx);
      assert.equal(await within(running, 400), 'still running');
      process.emit('SIGTERM');
      assert.equal(await running, 0);
      assert.ok(out.join('').split('\n').includes(line), out.join(''));
    });
  }
});

describe('kubectl skiff get: the actual weight of an App whose HTTPRoute is not shown', () => {
  // Switched from spec.ingress to spec.route mid-canary: the App still owns its Ingress web (all to
  // stable) until the route is accepted, and the route, unread, may send the canary its share.
  it('is "unknown", not the 0% the Ingress alone would give', async () => {
    const canary = followedApp(2);
    canary.spec.route = { parentRefs: [{ name: 'public' }] } as typeof canary.spec.route;
    canary.spec.rollout = { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }] } as typeof canary.spec.rollout;
    canary.status = { ...canary.status, observedGeneration: 2, canary: { image: 'web:2', weight: 20, stepIndex: 0, stepStartedAt: '2026-11-22T11:59:00Z' } } as typeof canary.status;
    const owned = { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: 'u1', controller: true };
    const ingress = { metadata: { name: 'web', namespace: 'shop', labels: { 'skiff.dev/app': 'web' }, ownerReferences: [owned] }, spec: { rules: [{ host: 'web.example.com' }] } };
    const { ctx, out } = followingContext((path) => {
      if (path.startsWith('/apis/gateway.networking.k8s.io/')) return forbidden();
      if (path.endsWith('/apps/web')) return canary;
      return { metadata: { resourceVersion: '5' }, items: path.includes('/ingresses') ? [ingress] : [] };
    }, { command: 'get' });
    assert.equal(await get(ctx), 0);
    const text = out.join('');
    assert.ok(text.includes('Ingress web  web.example.com'), text);
    assert.ok(text.split('\n').includes('Weight:   20% set, unknown actual'), text);
  });
});
