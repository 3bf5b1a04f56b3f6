// A canary through the HTTPRoute, reconciled over the fake cluster: the route's status (what its
// Gateways report) decides when the canary's pods may go.
import { strict as assert } from 'node:assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import { gatewayRouter } from '../../controller/routers/gateway/router.js';
import { nginxRouter } from '../../controller/routers/nginx/router.js';
import type { AppSpec } from '../../shared/app-types.js';
import { containerImageOf, markAvailable, NS, setup } from '../support/reconciler.js';

type Route = KubernetesObject & { spec: { rules: { backendRefs: { name: string; weight?: number }[] }[] }; status?: unknown };

/** setup() with the Gateway API served: the App's router is the HTTPRoute. */
function gatewaySetup(spec: Partial<AppSpec> = {}) {
  const s = setup({
    image: 'web:1',
    route: { parentRefs: [{ name: 'public' }], hostnames: ['web.example.com'] },
    rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }], scaleDownDelaySeconds: 0 },
    ...spec,
  });
  const routes = s.cluster.cache('HTTPRoute');
  const gateway = gatewayRouter(s.deps.clients, () => routes);
  Object.assign(s.deps, {
    httpRoutes: routes,
    routerFor: () => gateway,
    routers: [nginxRouter(s.deps.clients, s.deps.ingresses), gateway],
    versions: { ...s.deps.versions, httpRoute: 'gateway.networking.k8s.io/v1' },
  });
  const route = () => s.cluster.get('HTTPRoute', NS, 'web') as Route;
  /** What the Gateway writes: the route's current generation Accepted (or not) and its refs resolved. */
  const report = (accepted: 'True' | 'False' = 'True', gateways = ['public']) => {
    const r = route();
    r.status = {
      parents: gateways.map((name) => ({
        parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name, namespace: NS },
        controllerName: 'example.net/gateway',
        conditions: [
          { type: 'Accepted', status: accepted, reason: accepted === 'True' ? 'Accepted' : 'NotAllowedByListeners', observedGeneration: r.metadata!.generation },
          { type: 'ResolvedRefs', status: 'True', reason: 'ResolvedRefs', observedGeneration: r.metadata!.generation },
        ],
      })),
    };
  };
  return { ...s, route, report };
}

/** gatewaySetup() whose router follows the spec, as the controller's: the HTTPRoute with spec.route, else the Ingress. */
function switchable(spec: Partial<AppSpec>) {
  const s = gatewaySetup({ rollout: { strategy: 'RollingUpdate' }, ...(spec.ingress ? { route: undefined } : {}), ...spec });
  const [nginx, gateway] = s.deps.routers;
  Object.assign(s.deps, { routerFor: (app: { spec: AppSpec }) => (app.spec.route ? gateway : nginx) });
  return s;
}

/** A RollingUpdate App on spec.route, available, its route accepted by the Gateway. */
async function acceptedRouteApp() {
  const s = switchable({});
  await s.run();
  markAvailable(s.cluster, 'web');
  s.report();
  await s.run();
  return s;
}

const canaryWeight = (route: Route) => route.spec.rules.at(-1)!.backendRefs.find((b) => b.name === 'web-canary')?.weight;

/** web:2's canary at weight 20 (its first step), accepted by the Gateway. */
async function canaryAt20(s: ReturnType<typeof gatewaySetup>): Promise<void> {
  await s.run();
  markAvailable(s.cluster, 'web');
  s.report();
  await s.run();
  s.setSpec((spec) => ({ ...spec, image: 'web:2' }));
  await s.run();
  markAvailable(s.cluster, 'web-canary');
  for (let i = 0; i < 4; i++) {
    s.report();
    await s.run();
  }
  assert.equal(canaryWeight(s.route()), 20);
}

/** An App on spec.ingress: web:2's canary at weight 20 on its canary Ingress, paused at its second step. */
async function ingressCanaryAt20(s: ReturnType<typeof gatewaySetup>): Promise<void> {
  await s.run();
  markAvailable(s.cluster, 'web');
  await s.run();
  s.setSpec((spec) => ({ ...spec, image: 'web:2' }));
  await s.run();
  markAvailable(s.cluster, 'web-canary');
  for (let i = 0; i < 4; i++) await s.run();
}

/**
 * canaryAt20 through the route, then the App switched to spec.ingress whose name someone else's
 * Ingress holds (so the route keeps the traffic), then aborted by annotation (not yet acted on).
 */
async function routeToTakenIngressAborted(s: ReturnType<typeof gatewaySetup>): Promise<void> {
  const [nginx, gateway] = s.deps.routers;
  Object.assign(s.deps, { routerFor: (app: { spec: AppSpec }) => (app.spec.route ? gateway : nginx) });
  await canaryAt20(s);
  s.cluster.put({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web', namespace: NS }, spec: {} });
  s.setSpec((spec) => ({ ...spec, route: undefined, ingress: { host: 'web.example.com' } }));
  await s.run();
  s.cluster.put({ ...s.app(), metadata: { ...s.app().metadata, annotations: { 'skiff.dev/abort': 'true' } } });
}

/** canaryAt20, then aborted by annotation (not yet acted on). */
async function abortedAt20(s: ReturnType<typeof gatewaySetup>): Promise<void> {
  await canaryAt20(s);
  s.cluster.put({ ...s.app(), metadata: { ...s.app().metadata, annotations: { 'skiff.dev/abort': 'true' } } });
}

describe('a canary through the HTTPRoute', () => {
  it('says a route of the App\'s name that is someone else\'s is not the App\'s, not that it does not exist yet', () => {
    const s = gatewaySetup();
    const gateway = s.deps.routers[1];
    const app = s.app() as Parameters<typeof gateway.readiness>[0];
    assert.equal(gateway.readiness(app).message, 'the HTTPRoute does not exist yet');
    s.cluster.put({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'web', namespace: NS }, spec: { rules: [] } } as KubernetesObject);
    assert.deepEqual(gateway.readiness(app), { ready: false, served: false, message: `the HTTPRoute ${NS}/web is not the App's` });
  });

  it('keeps the canary\'s pods while the stable-only route is not accepted, waiting for the route\'s watch rather than polling every second', async () => {
    const s = gatewaySetup();
    await abortedAt20(s);
    // Weight 0 first, accepted; then the route to stable only.
    for (let i = 0; i < 4 && canaryWeight(s.route()) !== undefined; i++) {
      s.report();
      await s.run();
    }
    assert.equal(canaryWeight(s.route()), undefined, 'the route sends everything to stable');
    // The Gateway no longer takes the route (a listener changed): the canary's pods stay.
    s.report('False');
    for (let i = 0; i < 3; i++) {
      const outcome = await s.run();
      assert.ok(s.cluster.get('Deployment', NS, 'web-canary'), 'the canary Deployment stays until the stable-only route is accepted');
      assert.ok((outcome.requeueAfterMs ?? Infinity) >= 10_000, `requeued after ${outcome.requeueAfterMs} ms: the route's status change comes by its watch`);
    }
    s.report();
    await s.run();
    assert.equal(s.cluster.get('Deployment', NS, 'web-canary'), undefined, 'gone once the Gateway accepted the stable-only route');
  });

  it('counts scaleDownDelaySeconds from when the Gateway has taken the traffic back to stable, not from a weight 0 it has not accepted yet', async () => {
    const s = gatewaySetup({ rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }], scaleDownDelaySeconds: 30 } });
    await abortedAt20(s);
    // The Gateway takes nothing for a minute (its controller restarting): the data plane still
    // sends 20% to the canary's pods meanwhile.
    for (let i = 0; i < 4; i++) {
      await s.run();
      s.later(15_000);
    }
    assert.equal(canaryWeight(s.route()), undefined, 'the route sends everything to stable');
    s.report();
    await s.run();
    assert.ok(s.cluster.get('Deployment', NS, 'web-canary'), 'the canary\'s pods drain for scaleDownDelaySeconds from the moment the Gateway took the change');
    s.later(30_000);
    await s.run();
    assert.equal(s.cluster.get('Deployment', NS, 'web-canary'), undefined, 'gone once the delay is over');
  });

  it('with canaryHeader, counts scaleDownDelaySeconds from when the Gateway has taken the header rule away too, not from an accepted weight 0 whose header rule still sends to the canary', async () => {
    const s = gatewaySetup({ rollout: { strategy: 'Canary', canaryHeader: 'X-Canary', steps: [{ setWeight: 20 }, { pause: {} }], scaleDownDelaySeconds: 30 } });
    await abortedAt20(s);
    await s.run();
    assert.equal(canaryWeight(s.route()), 0, 'weight 0 first');
    assert.ok(s.route().spec.rules.some((r) => r.backendRefs.length === 1 && r.backendRefs[0]!.name === 'web-canary'), 'the header rule still sends "X-Canary: always" to the canary');
    // The Gateway takes weight 0 at once; the route to stable only (no header rule) it takes 25 s later.
    s.report();
    await s.run();
    assert.equal(canaryWeight(s.route()), undefined, 'the route sends everything to stable');
    for (let i = 0; i < 5; i++) {
      s.later(5_000);
      await s.run();
    }
    s.report();
    await s.run();
    s.later(5_000);
    await s.run();
    assert.ok(s.cluster.get('Deployment', NS, 'web-canary'), 'requests with the header reached the canary\'s pods until 5 s ago: they stay for scaleDownDelaySeconds from then');
    s.later(25_000);
    await s.run();
    assert.equal(s.cluster.get('Deployment', NS, 'web-canary'), undefined, 'gone once the delay is over');
  });

  it('an App switched from spec.ingress to spec.route during a canary: the new route starts at weight 0 and carries the canary\'s weight only once accepted', async () => {
    const s = gatewaySetup({ route: undefined, ingress: { host: 'web.example.com' } });
    const nginx = nginxRouter(s.deps.clients, s.deps.ingresses);
    const gateway = s.deps.routers[1]!;
    Object.assign(s.deps, { routerFor: (app: { spec: AppSpec }) => (app.spec.route ? gateway : nginx), routers: [nginx, gateway] });
    await ingressCanaryAt20(s);
    assert.equal(s.cluster.get('Ingress', NS, 'web-canary')?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'], '20');
    assert.equal(s.app().status?.canary?.stepIndex, 1, 'paused at the second step');
    s.setSpec((spec) => ({ ...spec, ingress: undefined, route: { parentRefs: [{ name: 'public' }], hostnames: ['web.example.com'] } }));
    await s.run();
    assert.equal(canaryWeight(s.route()), 0, 'a route no Gateway has accepted yet sends the canary nothing');
    await s.run();
    assert.equal(canaryWeight(s.route()), 0, 'still nothing before the Gateway accepted it');
    // Meanwhile the Ingresses carry the traffic as before the switch: the canary's share no more than it was.
    assert.ok(s.cluster.get('Ingress', NS, 'web'), 'the Ingress stays until the route is accepted');
    assert.equal(s.cluster.get('Ingress', NS, 'web-canary')?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'], '20', 'the canary Ingress stays at its weight');
    s.report();
    await s.run();
    assert.equal(canaryWeight(s.route()), 20, 'the pause\'s weight once the route is accepted');
    // That write is the route's next generation, which no Gateway has accepted yet: what it accepted
    // sends the canary 0%. The Ingresses keep the canary's share until the route carries it.
    assert.ok(s.cluster.get('Ingress', NS, 'web'), 'the Ingress stays until the route at 20 is accepted');
    assert.equal(s.cluster.get('Ingress', NS, 'web-canary')?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'], '20', 'the canary Ingress keeps its weight meanwhile');
    await s.run();
    assert.ok(s.cluster.get('Ingress', NS, 'web-canary'), 'still there before the Gateway accepted the route at 20');
    s.report();
    await s.run();
    assert.equal(canaryWeight(s.route()), 20);
    assert.equal(s.cluster.get('Ingress', NS, 'web'), undefined, 'the Ingress goes once the route carries the traffic at the canary\'s weight');
    assert.equal(s.cluster.get('Ingress', NS, 'web-canary'), undefined);
  });

  it('an App switched from spec.ingress to spec.route while its canary is being promoted: the canary Ingress keeps the canary\'s share until the promotion takes it to 0 (stable available), not the moment the route is accepted', async () => {
    const s = switchable({ ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }], scaleDownDelaySeconds: 0 } });
    await ingressCanaryAt20(s);
    const canaryIngressWeight = () => s.cluster.get('Ingress', NS, 'web-canary')?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'];
    assert.equal(canaryIngressWeight(), '20');
    s.cluster.put({ ...s.app(), metadata: { ...s.app().metadata, annotations: { 'skiff.dev/promote': 'true' } } });
    await s.run();
    assert.equal(containerImageOf(s.cluster, 'web'), 'web:2', 'the promotion puts stable on the canary\'s revision first');
    const before = s.cluster.events.length;
    s.setSpec((spec) => ({ ...spec, ingress: undefined, route: { parentRefs: [{ name: 'public' }], hostnames: ['web.example.com'] } }));
    // The stable Deployment is not available yet: the canary keeps its weight meanwhile (api.md,
    // promotion), through the Ingress, whatever the Gateway has accepted.
    for (let i = 0; i < 4; i++) {
      await s.run();
      s.report();
      const share = Math.max(Number(canaryIngressWeight() ?? 0), canaryWeight(s.route()) ?? 0);
      assert.equal(share, 20, `pass ${i}: the canary's share is ${share}%, not the 20% the promotion keeps until stable is available`);
      assert.equal(s.app().status?.canary?.weight, 20);
    }
    const said = s.cluster.events.slice(before).map((e) => `${e.reason}: ${e.message}`);
    assert.ok(!said.some((m) => /receives 0%/.test(m)), `no Event says the canary's share went to 0: ${JSON.stringify(said)}`);
    assert.ok(said.includes('Updated: Canary web:2 gets 0% through HTTPRoute shop/web for now: the routing of spec.ingress keeps sending it 20% until HTTPRoute shop/web takes over'), JSON.stringify(said));
    markAvailable(s.cluster, 'web');
    for (let i = 0; i < 6; i++) {
      await s.run();
      s.report();
    }
    assert.equal(canaryWeight(s.route()), undefined, 'the route sends everything to stable');
    assert.equal(s.cluster.get('Ingress', NS, 'web'), undefined, 'the Ingresses go once the route carries the traffic');
    assert.equal(s.cluster.get('Ingress', NS, 'web-canary'), undefined);
    assert.equal(s.cluster.get('Deployment', NS, 'web-canary'), undefined, 'then the canary\'s pods');
  });

  it('an App switched from spec.route to spec.ingress while its canary is being promoted: the route keeps the canary\'s share until the promotion takes it to 0', async () => {
    const s = switchable({ rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }], scaleDownDelaySeconds: 0 } });
    await canaryAt20(s);
    const canaryIngressWeight = () => s.cluster.get('Ingress', NS, 'web-canary')?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'];
    s.cluster.put({ ...s.app(), metadata: { ...s.app().metadata, annotations: { 'skiff.dev/promote': 'true' } } });
    await s.run();
    assert.equal(containerImageOf(s.cluster, 'web'), 'web:2');
    s.setSpec((spec) => ({ ...spec, route: undefined, ingress: { host: 'web.example.com' } }));
    for (let i = 0; i < 4; i++) {
      await s.run();
      if (s.cluster.get('HTTPRoute', NS, 'web')) s.report();
      const route = s.cluster.get('HTTPRoute', NS, 'web') as Route | undefined;
      const share = Math.max(Number(canaryIngressWeight() ?? 0), route ? canaryWeight(route) ?? 0 : 0);
      assert.equal(share, 20, `pass ${i}: the canary's share is ${share}%, not the 20% the promotion keeps until stable is available`);
    }
    markAvailable(s.cluster, 'web');
    for (let i = 0; i < 6; i++) {
      await s.run();
      if (s.cluster.get('HTTPRoute', NS, 'web')) s.report();
    }
    assert.equal(s.cluster.get('HTTPRoute', NS, 'web'), undefined, 'the route goes once the Ingress carries the traffic');
    assert.equal(s.cluster.get('Ingress', NS, 'web-canary'), undefined);
    assert.ok(s.cluster.get('Ingress', NS, 'web'));
    assert.equal(s.cluster.get('Deployment', NS, 'web-canary'), undefined);
  });

  it('an App switched from spec.ingress to spec.route during a canary, then aborted before a Gateway accepted the route: the canary Ingress goes, the main Ingress stays', async () => {
    const s = switchable({ ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }], scaleDownDelaySeconds: 0 } });
    await ingressCanaryAt20(s);
    const canaryIngressWeight = () => s.cluster.get('Ingress', NS, 'web-canary')?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'];
    assert.equal(canaryIngressWeight(), '20');
    s.setSpec((spec) => ({ ...spec, ingress: undefined, route: { parentRefs: [{ name: 'public' }], hostnames: ['web.example.com'] } }));
    for (let i = 0; i < 3; i++) {
      await s.run();
      assert.equal(canaryIngressWeight(), '20', 'while the canary holds, the canary Ingress keeps its weight');
    }
    s.cluster.put({ ...s.app(), metadata: { ...s.app().metadata, annotations: { 'skiff.dev/abort': 'true' } } });
    for (let i = 0; i < 4; i++) await s.run();
    assert.equal(s.app().status?.conditions?.find((c) => c.type === 'Progressing')?.reason, 'RolloutAborted');
    assert.equal(s.cluster.get('Ingress', NS, 'web-canary'), undefined, 'an aborted canary gets no share through the Ingress either');
    assert.ok(s.cluster.get('Ingress', NS, 'web'), 'the main Ingress serves the host (all to stable) until a Gateway accepted the route');
  });

  it('an App switched from spec.ingress to spec.route during a canary, then given a new pod template before a Gateway accepted the route: the canary Ingress loses its share before the canary\'s pods take the new template', async () => {
    const s = switchable({ ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }], scaleDownDelaySeconds: 0 } });
    await ingressCanaryAt20(s);
    const canaryIngressWeight = () => s.cluster.get('Ingress', NS, 'web-canary')?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'];
    assert.equal(canaryIngressWeight(), '20');
    s.setSpec((spec) => ({ ...spec, ingress: undefined, route: { parentRefs: [{ name: 'public' }], hostnames: ['web.example.com'] } }));
    await s.run();
    await s.run();
    assert.equal(canaryIngressWeight(), '20', 'the canary holds: the canary Ingress keeps its weight');
    s.setSpec((spec) => ({ ...spec, image: 'web:3' }));
    for (let i = 0; i < 4; i++) {
      await s.run();
      const weight = Number(canaryIngressWeight() ?? 0);
      const template = containerImageOf(s.cluster, 'web-canary');
      assert.ok(weight === 0 || template === 'web:2', `pass ${i}: the canary Ingress sends ${weight}% to canary pods that run ${template}`);
    }
    assert.equal(Number(canaryIngressWeight() ?? 0), 0, 'the earlier canary\'s share through the Ingress is gone');
    assert.equal(containerImageOf(s.cluster, 'web-canary'), 'web:3', 'then the canary\'s pods take the new template');
    assert.ok(s.cluster.get('Ingress', NS, 'web'), 'the main Ingress serves the host until a Gateway accepted the route');
  });

  it('an App switched from spec.route to spec.ingress during a canary, its Ingress name taken, then aborted: the route drops its canary backend before the canary\'s pods go, and keeps serving stable', async () => {
    const s = gatewaySetup();
    await routeToTakenIngressAborted(s);
    for (let i = 0; i < 6; i++) {
      await s.run();
      s.report();
      const sendsToCanary = s.route().spec.rules.some((r) => r.backendRefs.some((b) => b.name === 'web-canary'));
      assert.ok(!sendsToCanary || s.cluster.get('Deployment', NS, 'web-canary'), `pass ${i}: the route sends to the canary Service, whose pods are gone`);
    }
    assert.equal(s.app().status?.conditions?.find((c) => c.type === 'Progressing')?.reason, 'RolloutAborted');
    assert.equal(canaryWeight(s.route()), undefined, 'the aborted canary gets no share through the route');
    assert.deepEqual(s.route().spec.rules.map((r) => r.backendRefs.map((b) => [b.name, b.weight])), [[['web', 100]]], 'the route serves the host, all to stable, while the App has no Ingress');
    assert.equal(s.cluster.get('Deployment', NS, 'web-canary'), undefined, 'the canary\'s pods go once no router sends to them');
  });

  it('an App switched from spec.route to spec.ingress during a canary, its Ingress name taken, then aborted: scaleDownDelaySeconds counts from when the Gateway has taken the route without its canary backend', async () => {
    const s = gatewaySetup({ rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }], scaleDownDelaySeconds: 30 } });
    await routeToTakenIngressAborted(s);
    // The Gateway takes nothing for a minute (its controller restarting): the data plane still
    // sends the canary its share through the route meanwhile.
    for (let i = 0; i < 4; i++) {
      await s.run();
      s.later(15_000);
    }
    assert.equal(canaryWeight(s.route()), undefined, 'the route sends everything to stable');
    assert.ok(s.cluster.get('Deployment', NS, 'web-canary'), 'the canary\'s pods stay while the Gateway has not taken the route without them');
    s.report();
    await s.run();
    assert.ok(s.cluster.get('Deployment', NS, 'web-canary'), 'the canary\'s pods drain for scaleDownDelaySeconds from the moment the Gateway took the change');
    s.later(30_000);
    await s.run();
    assert.equal(s.cluster.get('Deployment', NS, 'web-canary'), undefined, 'gone once the delay is over');
  });

  it('raises the weight only once every parent the App asks for accepted the route: a parent added in the pass that would raise it carries the old weight first', async () => {
    const s = gatewaySetup({ rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: { duration: '60s' } }, { setWeight: 50 }, { pause: {} }], scaleDownDelaySeconds: 0 } });
    await canaryAt20(s);
    // The pause is over and a second Gateway is added in the same update.
    s.later(61_000);
    s.setSpec((spec) => ({ ...spec, route: { ...spec.route!, parentRefs: [{ name: 'public' }, { name: 'private' }] } }));
    await s.run();
    await s.run();
    assert.equal(canaryWeight(s.route()), 20, 'the Gateway private has not accepted the route: it gets the canary\'s 20% first, not 50%');
    s.report('True', ['public', 'private']);
    await s.run();
    assert.equal(canaryWeight(s.route()), 50, 'raised once both Gateways accepted the route');
  });

  it('an App switched from spec.ingress to spec.route keeps its Ingress until a Gateway accepted the route', async () => {
    const s = switchable({ ingress: { host: 'web.example.com' } });
    await s.run();
    markAvailable(s.cluster, 'web');
    await s.run();
    s.setSpec((spec) => ({ ...spec, ingress: undefined, route: { parentRefs: [{ name: 'public' }], hostnames: ['web.example.com'] } }));
    await s.run();
    assert.ok(s.route(), 'the HTTPRoute is created');
    assert.ok(s.cluster.get('Ingress', NS, 'web'), 'the Ingress serves the host while no Gateway has accepted the route');
    await s.run();
    assert.ok(s.cluster.get('Ingress', NS, 'web'), 'still, before the Gateway reported');
    s.report('False');
    await s.run();
    assert.ok(s.cluster.get('Ingress', NS, 'web'), 'still, while the Gateway refuses the route');
    s.report();
    await s.run();
    assert.equal(s.cluster.get('Ingress', NS, 'web'), undefined, 'deleted once the route carries the traffic');
  });

  it('an App switched to spec.route on a cluster that serves no HTTPRoutes keeps its Ingress', async () => {
    const s = switchable({ ingress: { host: 'web.example.com' } });
    const nginx = s.deps.routers[0]!;
    const gateway = gatewayRouter(s.deps.clients, () => undefined);
    Object.assign(s.deps, { httpRoutes: undefined, routerFor: (app: { spec: AppSpec }) => (app.spec.route ? gateway : nginx), routers: [nginx, gateway], versions: { ...s.deps.versions, httpRoute: undefined } });
    await s.run();
    markAvailable(s.cluster, 'web');
    await s.run();
    s.setSpec((spec) => ({ ...spec, ingress: undefined, route: { parentRefs: [{ name: 'public' }], hostnames: ['web.example.com'] } }));
    await s.run();
    assert.equal(s.app().status?.conditions?.find((c) => c.type === 'Degraded')?.reason, 'RouteAPIUnavailable');
    assert.ok(s.cluster.get('Ingress', NS, 'web'), 'no route can be made: the Ingress goes on serving the host');
  });

  it('an App switched from spec.route to spec.ingress keeps its HTTPRoute until the Ingress exists', async () => {
    const s = await acceptedRouteApp();
    // Someone else's Ingress has the name: the App's cannot be made.
    s.cluster.put({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web', namespace: NS }, spec: {} });
    s.setSpec((spec) => ({ ...spec, route: undefined, ingress: { host: 'web.example.com' } }));
    await s.run();
    assert.ok(s.route(), 'the HTTPRoute serves the host while the App has no Ingress');
    s.cluster.objects.delete('Ingress/shop/web');
    await s.run();
    assert.ok(s.cluster.get('Ingress', NS, 'web')?.metadata?.ownerReferences, 'the App\'s Ingress is created');
    assert.equal(s.route(), undefined, 'and the HTTPRoute goes');
  });

  it('without HTTPRoutes in v1 (none, or only the v1beta1 of Gateway API releases before 1.0): RouteAPIUnavailable says which release to install', async () => {
    const s = gatewaySetup();
    const gateway = gatewayRouter(s.deps.clients, () => undefined);
    Object.assign(s.deps, { httpRoutes: undefined, routerFor: () => gateway, routers: [gateway], versions: { ...s.deps.versions, httpRoute: undefined } });
    await s.run();
    const degraded = s.app().status?.conditions?.find((c) => c.type === 'Degraded');
    assert.equal(degraded?.reason, 'RouteAPIUnavailable');
    assert.match(degraded!.message, /gateway\.networking\.k8s\.io\/v1 HTTPRoutes \(install the Gateway API CRDs of release v1\.0 or later\)/);
  });
  it('reports the route\'s own writes as any owned object\'s: Created with the App\'s other objects, Updated naming the fields a spec edit changed, nothing for a pass that writes none', async () => {
    const s = switchable({});
    await s.run();
    const said = () => s.cluster.events.filter((e) => e.reason === 'Created' || e.reason === 'Updated' || e.reason === 'Deleted').map((e) => `${e.reason}: ${e.message}`);
    assert.deepEqual(said().filter((m) => m.includes('HTTPRoute')), [`Created: Created Deployment ${NS}/web; Created Service ${NS}/web; Created HTTPRoute ${NS}/web`]);
    markAvailable(s.cluster, 'web');
    s.report();
    await s.run();
    const before = said().length;
    s.setSpec((spec) => ({ ...spec, route: { ...spec.route!, hostnames: ['shop.example.com'] } }));
    await s.run();
    assert.deepEqual(said().slice(before), [`Updated: Updated HTTPRoute ${NS}/web (spec.hostnames[0])`]);
    await s.run();
    assert.equal(said().length, before + 1, 'a pass with nothing to write says nothing');
  });
});

describe('the App\'s HTTPRoute and its parents', () => {
  const condition = (s: ReturnType<typeof gatewaySetup>, type: string) => s.app().status?.conditions?.find((c) => c.type === type);

  it('refused by its Gateway (Accepted=False for its generation): Degraded RouteNotAccepted, naming the parent and its reason; Ready stays the Deployment\'s; clears once accepted', async () => {
    const s = switchable({});
    await s.run();
    markAvailable(s.cluster, 'web');
    s.report('False');
    await s.run();
    assert.equal(condition(s, 'Ready')?.status, 'True');
    const degraded = condition(s, 'Degraded');
    assert.equal(`${degraded?.status}/${degraded?.reason}`, 'True/RouteNotAccepted');
    assert.equal(degraded?.message, `HTTPRoute ${NS}/web: parent ${NS}/public has not reported Accepted=True for generation 1 (False, NotAllowedByListeners); the App's hostnames do not reach its pods through that parent`);
    assert.ok(s.cluster.events.some((e) => e.type === 'Warning' && e.reason === 'RouteNotAccepted'), 'a Warning Event says so');
    s.report('True');
    await s.run();
    assert.equal(`${condition(s, 'Degraded')?.status}/${condition(s, 'Degraded')?.reason}`, 'False/AsExpected');
  });

  it('its CRD deleted before discovery says so (writes answer 404 page not found, or 405 while it is being deleted): Degraded RouteAPIUnavailable at once, not a raw 404 as a ReconcileError', async () => {
    for (const refusal of [
      Object.assign(new Error('HTTP 404'), { code: 404, body: '404 page not found\n' }),
      // From Kubernetes 1.38 the path's 404 is a Status naming no object.
      Object.assign(new Error('HTTP 404'), { code: 404, body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', message: 'the server could not find the requested resource', code: 404 }) }),
      Object.assign(new Error('HTTP 405'), { code: 405, body: JSON.stringify({ kind: 'Status', reason: 'MethodNotAllowed', message: 'create not allowed while custom resource definition is terminating' }) }),
    ]) {
      const s = switchable({});
      await s.run();
      markAvailable(s.cluster, 'web');
      s.report();
      await s.run();
      s.cluster.beforeWrite = (w) => {
        if (w.kind === 'HTTPRoute') throw refusal;
      };
      s.setSpec((spec) => ({ ...spec, route: { ...spec.route!, hostnames: ['shop.example.com'] } }));
      await s.run();
      const degraded = condition(s, 'Degraded');
      assert.equal(`${degraded?.status}/${degraded?.reason}`, 'True/RouteAPIUnavailable', degraded?.message);
      assert.match(degraded!.message, /the API server no longer serves gateway\.networking\.k8s\.io\/v1 HTTPRoutes \((its path answers 404 page not found|its path answers 404: the server could not find the requested resource|its CRD is being deleted \(create not allowed while custom resource definition is terminating\))\): the Gateway API CRDs are not installed \(removed, or not yet served\)/);
    }
  });

  it('not yet reported on by its Gateway: not Degraded (a Gateway answers in its own time; a canary waits for it, WaitingForRoute)', async () => {
    const s = switchable({});
    await s.run();
    markAvailable(s.cluster, 'web');
    await s.run();
    assert.equal(condition(s, 'Degraded')?.reason, 'AsExpected');
  });

  it('removed from the spec: the HTTPRoute goes with a Deleted Event, as the Ingress does', async () => {
    const s = await acceptedRouteApp();
    s.setSpec((spec) => ({ ...spec, route: undefined }));
    await s.run();
    assert.equal(s.route(), undefined);
    assert.ok(s.cluster.events.some((e) => e.reason === 'Deleted' && e.message === `Deleted HTTPRoute ${NS}/web (the App has no spec.route)`), JSON.stringify(s.cluster.events.map((e) => e.message)));
  });
});

describe('an HTTPRoute beside a Service web the App does not own', () => {
  it('is not written (it would send the App\'s hostnames to that Service); the App\'s own goes; Ready False', async () => {
    const t = gatewaySetup();
    await t.run();
    assert.ok(t.route(), 'the App\'s route');
    t.cluster.objects.delete(`Service/${NS}/web`);
    t.cluster.put({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: NS }, spec: { selector: { app: 'other' }, ports: [{ port: 80 }] } } as KubernetesObject);
    await t.run().catch(() => undefined);
    assert.equal(t.route(), undefined);
    assert.equal(t.cluster.get('Service', NS, 'web')?.metadata?.ownerReferences, undefined);
    assert.equal(t.app().status?.conditions?.find((c) => c.type === 'Ready')?.reason, 'ResourceConflict');
  });
});

describe('an HTTPRoute whose CRD is being deleted', () => {
  it('is not made again by a server-side apply (which the API server takes where it refuses a create), so the CRD\'s deletion can end; Degraded says why', async () => {
    const t = await acceptedRouteApp();
    assert.ok(t.route(), 'the App has its route');
    // kubectl delete crd httproutes...: the API server deletes every route, and refuses creates until the CRD is gone.
    t.cluster.terminating.add('HTTPRoute');
    t.cluster.objects.delete(`HTTPRoute/${NS}/web`);
    await t.run();
    assert.equal(t.route(), undefined, 'not made again');
    const degraded = t.app().status?.conditions?.find((c) => c.type === 'Degraded');
    assert.equal(degraded?.reason, 'RouteAPIUnavailable');
    assert.match(degraded?.message ?? '', /create not allowed while custom resource definition is terminating/);
    // The CRDs installed again: the route is made at once.
    t.cluster.terminating.delete('HTTPRoute');
    await t.run();
    assert.ok(t.route(), 'made again');
  });
});
