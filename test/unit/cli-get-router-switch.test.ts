// `kubectl skiff get APP` of an App switching from spec.route to spec.ingress during a canary: its
// HTTPRoute carries the canary's share until the canary Ingress takes over (made at weight 0
// meanwhile). The route is read and shown although the spec no longer names it, and the actual
// weight is what the routing sends, not the new canary Ingress's 0.
import { strict as assert } from 'node:assert';
import { get } from '../../cli/get.js';
import { actualWeight, type CliApp } from '../../cli/model.js';
import { ApiError } from '../../cli/errors.js';
import { followedApp, followingContext } from '../support/cli-context.js';

const owned = { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: 'u1', controller: true };
const meta = (name: string, extra: Record<string, unknown> = {}) => ({ name, namespace: 'shop', labels: { 'skiff.dev/app': 'web' }, ownerReferences: [owned], ...extra });

function switching(): CliApp {
  const app = followedApp(2);
  app.spec.ingress = { host: 'web.example.com' } as typeof app.spec.ingress;
  app.spec.route = undefined;
  app.spec.rollout = { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }] } as typeof app.spec.rollout;
  app.status = { ...app.status, observedGeneration: 2, canary: { image: 'web:2', weight: 20, stepIndex: 1, stepStartedAt: '2026-11-22T11:59:00Z' } } as typeof app.status;
  return app;
}
const ingresses = [
  { metadata: meta('web'), spec: { rules: [{ host: 'web.example.com' }] } },
  { metadata: meta('web-canary', { annotations: { 'nginx.ingress.kubernetes.io/canary': 'true', 'nginx.ingress.kubernetes.io/canary-weight': '0' } }), spec: { rules: [{ host: 'web.example.com' }] } },
];
const route = { metadata: meta('web'), spec: { hostnames: ['web.example.com'], rules: [{ backendRefs: [{ name: 'web', port: 80, weight: 80 }, { name: 'web-canary', port: 80, weight: 20 }] }] } };

describe('kubectl skiff get: an App switching from spec.route to spec.ingress during a canary', () => {
  it('shows the HTTPRoute that still carries the canary\'s share, and that share as the actual weight', async () => {
    const app = switching();
    const { ctx, out } = followingContext((path) => {
      if (path.endsWith('/apps/web')) return app;
      if (path.includes('/httproutes')) return { metadata: { resourceVersion: '5' }, items: [route] };
      return { metadata: { resourceVersion: '5' }, items: path.includes('/ingresses') ? ingresses : [] };
    }, { command: 'get' });
    assert.equal(await get(ctx), 0);
    const lines = out.join('').split('\n');
    assert.ok(lines.includes('Weight:   20% set, 20% actual'), out.join(''));
    assert.ok(lines.some((l) => /HTTPRoute web\b/.test(l)), out.join(''));
  });

  it('where HTTPRoutes cannot be read (forbidden, not served), the App is shown as before, without a word on routes it does not name', async () => {
    for (const refusal of [() => new ApiError(403, 'forbidden (403)', 'Forbidden'), () => new ApiError(404, 'the server could not find the requested resource', 'NotFound')]) {
      const app = switching();
      const { ctx, out } = followingContext((path) => {
        if (path.endsWith('/apps/web')) return app;
        if (path.startsWith('/apis/gateway.networking.k8s.io/')) return refusal();
        return { metadata: { resourceVersion: '5' }, items: path.includes('/ingresses') ? ingresses : [] };
      }, { command: 'get' });
      assert.equal(await get(ctx), 0);
      assert.ok(!out.join('').includes('HTTPRoute'), out.join(''));
    }
  });

  it('the actual weight is the larger share either router sends, while both are there', () => {
    const app = switching();
    assert.equal(actualWeight(app, ingresses as never, [route] as never), 20);
    assert.equal(actualWeight(app, ingresses as never, []), 0);
  });
});
