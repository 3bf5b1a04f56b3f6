// The HTTPRoute of an App at every point of a canary, and how it compares with what a real API
// server stores (its defaults must never count as a difference).
import { strict as assert } from 'node:assert';
import { differences } from '../../controller/apply/diff.js';
import { desiredHTTPRoute, routeCanaryWeight, routeReadiness, routesToCanary, withoutCanary, type HTTPRoute } from '../../controller/routers/gateway/render.js';
import type { AppSpec } from '../../shared/app-types.js';
import { defaultedAppFixture } from '../support/app-fixture.js';

// Every App here is routed through the https listener of infra/public.
const app = (spec: Partial<AppSpec> = {}) => defaultedAppFixture({
  metadata: { uid: 'u1' },
  spec: { route: { parentRefs: [{ name: 'public', namespace: 'infra', sectionName: 'https' }], hostnames: ['web.example.com'] }, ...spec },
});
const PATH = [{ path: { type: 'PathPrefix', value: '/' } }];

/** What a real server stores: the route with its schema defaults (see the fidelity test). */
function asStored(route: HTTPRoute): HTTPRoute {
  const out = structuredClone(route);
  out.metadata = { ...out.metadata, generation: 3, resourceVersion: '7', uid: 'r1' };
  for (const p of out.spec!.parentRefs!) Object.assign(p, { group: p.group ?? 'gateway.networking.k8s.io', kind: p.kind ?? 'Gateway' });
  for (const rule of out.spec!.rules!) {
    for (const b of rule.backendRefs ?? []) Object.assign(b, { group: '', kind: 'Service', weight: b.weight ?? 1 });
    for (const m of rule.matches ?? []) for (const h of (m.headers as { type?: string }[] | undefined) ?? []) h.type ??= 'Exact';
  }
  return out;
}

describe('HTTPRoute rendering', () => {
  it('sends everything to stable without a canary', () => {
    const r = desiredHTTPRoute(app());
    assert.deepEqual(r.metadata!.ownerReferences, [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: 'u1', controller: true, blockOwnerDeletion: true }]);
    assert.equal(r.metadata!.labels!['skiff.dev/app'], 'web');
    assert.deepEqual(r.spec, {
      parentRefs: [{ name: 'public', namespace: 'infra', sectionName: 'https' }],
      hostnames: ['web.example.com'],
      rules: [{ matches: PATH, backendRefs: [{ name: 'web', port: 80, weight: 100 }] }],
    });
    assert.equal(routeCanaryWeight(r, 'web-canary'), undefined);
    assert.equal(routesToCanary(r, 'web-canary'), false);
  });

  for (const w of [0, 20, 50, 100]) {
    it(`splits the one rule at weight ${w}`, () => {
      const r = desiredHTTPRoute(app(), w);
      assert.deepEqual(r.spec!.rules, [{ matches: PATH, backendRefs: [{ name: 'web', port: 80, weight: 100 - w }, { name: 'web-canary', port: 80, weight: w }] }]);
      assert.equal(routeCanaryWeight(r, 'web-canary'), w);
      assert.equal(routesToCanary(r, 'web-canary'), true);
    });
  }

  it('reads weights set by hand as the share they give the canary, never above 100', () => {
    const split = (stable: number | undefined, canary: number | undefined): HTTPRoute => ({
      ...desiredHTTPRoute(app(), 20),
      spec: { parentRefs: [{ name: 'gw' }], rules: [{ matches: PATH, backendRefs: [{ name: 'web', port: 80, ...(stable === undefined ? {} : { weight: stable }) }, { name: 'web-canary', port: 80, ...(canary === undefined ? {} : { weight: canary }) }] }] },
    });
    assert.equal(routeCanaryWeight(split(80, 100), 'web-canary'), 56);
    assert.equal(routeCanaryWeight(split(0, 1_000_000), 'web-canary'), 100);
    assert.equal(routeCanaryWeight(split(0, 0), 'web-canary'), 0, 'no backend takes traffic');
    assert.equal(routeCanaryWeight(split(undefined, undefined), 'web-canary'), 50, 'weight 1 each when unset');
  });

  it('puts the canary header rules first: always to the canary only, never to stable only', () => {
    const r = desiredHTTPRoute(app({ rollout: { strategy: 'Canary', canaryHeader: 'X-Canary' }, route: { parentRefs: [{ name: 'gw' }], path: '/shop' } }), 20);
    const path = { path: { type: 'PathPrefix', value: '/shop' } };
    assert.deepEqual(r.spec!.rules, [
      { matches: [{ ...path, headers: [{ type: 'Exact', name: 'X-Canary', value: 'always' }] }], backendRefs: [{ name: 'web-canary', port: 80, weight: 100 }] },
      { matches: [{ ...path, headers: [{ type: 'Exact', name: 'X-Canary', value: 'never' }] }], backendRefs: [{ name: 'web', port: 80, weight: 100 }] },
      { matches: [path], backendRefs: [{ name: 'web', port: 80, weight: 80 }, { name: 'web-canary', port: 80, weight: 20 }] },
    ]);
    assert.equal(r.spec!.hostnames, undefined);
    assert.equal(routeCanaryWeight(r, 'web-canary'), 20, 'the weight of the main rule, not of the header rule');
    assert.deepEqual(desiredHTTPRoute(app({ rollout: { strategy: 'Canary', canaryHeader: 'X-Canary' } })).spec!.rules!.length, 1, 'no header rule without a canary');
  });

  it('reads the weight from the rule that carries it when a rule was added or moved by hand (drift, not a share of 0)', () => {
    const r = desiredHTTPRoute(app({ rollout: { strategy: 'Canary', canaryHeader: 'X-Canary' }, route: { parentRefs: [{ name: 'gw' }] } }), 80);
    const admin = { matches: [{ path: { type: 'PathPrefix', value: '/admin' } }], backendRefs: [{ name: 'web', port: 80 }] };
    const appended: HTTPRoute = { ...r, spec: { ...r.spec, rules: [...r.spec!.rules!, admin] } };
    const first: HTTPRoute = { ...r, spec: { ...r.spec, rules: [admin, ...r.spec!.rules!.slice().reverse()] } };
    for (const edited of [appended, first]) {
      assert.equal(routeCanaryWeight(edited, 'web-canary'), 80);
      const drained = withoutCanary(edited, 'web-canary')!;
      assert.deepEqual(drained.spec!.rules, [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [{ name: 'web', port: 80, weight: 100 }] }], 'the main rule, all to stable');
    }
  });

  it('finds no difference in a stored route that only has the server\'s defaults', () => {
    for (const weight of [undefined, 0, 30]) {
      const want = desiredHTTPRoute(app({ rollout: { strategy: 'Canary', canaryHeader: 'X-Canary' } }), weight);
      assert.deepEqual(differences(want, asStored(want)), [], `weight ${weight}`);
    }
    const twoListeners = desiredHTTPRoute(app({ route: { parentRefs: [{ name: 'public', sectionName: 'http' }, { name: 'public', sectionName: 'https' }] } }));
    assert.deepEqual(differences(twoListeners, asStored(twoListeners)), [], 'one Gateway named twice, by listener');
  });

  it('sees a changed weight and a changed path as differences', () => {
    const stored = asStored(desiredHTTPRoute(app(), 20));
    assert.deepEqual(differences(desiredHTTPRoute(app(), 50), stored), ['spec.rules[0].backendRefs[web].weight', 'spec.rules[0].backendRefs[web-canary].weight']);
    assert.notDeepEqual(differences(desiredHTTPRoute(app()), stored), []);
  });

  it('sees a backend or a parent added to the route by hand as a difference: the API server keeps those lists atomic, and the apply takes them back', () => {
    const want = desiredHTTPRoute(app({ rollout: { strategy: 'Canary', canaryHeader: 'X-Canary' } }), 20);
    const extraBackend = asStored(want);
    extraBackend.spec!.rules!.at(-1)!.backendRefs!.push({ name: 'elsewhere', port: 80, weight: 50, group: '', kind: 'Service' });
    assert.deepEqual(differences(want, extraBackend), ['spec.rules[2].backendRefs']);
    const extraHeaderBackend = asStored(want);
    extraHeaderBackend.spec!.rules![0].backendRefs!.push({ name: 'elsewhere', port: 80, weight: 1, group: '', kind: 'Service' });
    assert.deepEqual(differences(want, extraHeaderBackend), ['spec.rules[0].backendRefs']);
    const extraParent = asStored(want);
    extraParent.spec!.parentRefs!.push({ name: 'internet-facing', namespace: 'infra', group: 'gateway.networking.k8s.io', kind: 'Gateway' });
    assert.deepEqual(differences(want, extraParent), ['spec.parentRefs']);
  });

  it('is ready only when every parent accepted the current generation and resolved its refs', () => {
    const route = asStored(desiredHTTPRoute(app({ route: { parentRefs: [{ name: 'a' }, { name: 'b', namespace: 'infra' }] } })));
    const parent = (name: string, namespace: string, generation: number, accepted = 'True') => ({
      parentRef: { name, namespace, group: 'gateway.networking.k8s.io', kind: 'Gateway' },
      conditions: [{ type: 'Accepted', status: accepted, observedGeneration: generation }, { type: 'ResolvedRefs', status: 'True', observedGeneration: generation }],
    });
    assert.equal(routeReadiness(undefined).ready, false);
    assert.equal(routeReadiness(route).ready, false, 'no status yet');
    route.status = { parents: [parent('a', 'shop', 3)] };
    assert.match(routeReadiness(route).message!, /infra\/b/);
    route.status = { parents: [parent('a', 'shop', 3), parent('b', 'infra', 2)] };
    assert.equal(routeReadiness(route).message, 'parent infra/b has not reported Accepted=True for generation 3 (True for generation 2)', 'an older generation does not count, and the message says which one was accepted');
    route.status = { parents: [parent('a', 'shop', 3), parent('b', 'infra', 3, 'False')] };
    assert.equal(routeReadiness(route).message, 'parent infra/b has not reported Accepted=True for generation 3 (False)');
    route.status = { parents: [parent('a', 'shop', 3), parent('b', 'infra', 3, 'False')] };
    assert.equal(routeReadiness(route).ready, false);
    route.status = { parents: [parent('a', 'shop', 3), parent('b', 'infra', 3)] };
    assert.deepEqual(routeReadiness(route), { ready: true });
  });

  it('says whether a route not ready may still be carried as it was: a parent accepted some generation once', () => {
    const route = asStored(desiredHTTPRoute(app({ route: { parentRefs: [{ name: 'a' }] } })));
    const parent = (generation: number, accepted: string) => ({
      parentRef: { name: 'a', namespace: 'shop', group: 'gateway.networking.k8s.io', kind: 'Gateway' },
      conditions: [{ type: 'Accepted', status: accepted, observedGeneration: generation }, { type: 'ResolvedRefs', status: 'True', observedGeneration: generation }],
    });
    assert.equal(routeReadiness(undefined).served, false);
    assert.equal(routeReadiness(route).served, false, 'no status: no Gateway ever took it');
    route.status = { parents: [parent(3, 'False')] };
    assert.equal(routeReadiness(route).served, false, 'refused');
    route.status = { parents: [parent(2, 'True')] };
    assert.deepEqual([routeReadiness(route).ready, routeReadiness(route).served], [false, true], 'generation 2 is carried until generation 3 is');
  });

  it('is judged against the parents the App asks for, not only those the stored route lists', () => {
    const route = asStored(desiredHTTPRoute(app({ route: { parentRefs: [{ name: 'a' }] } })));
    route.status = { parents: [{ parentRef: { name: 'a', namespace: 'shop' }, conditions: ['Accepted', 'ResolvedRefs'].map((type) => ({ type, status: 'True', observedGeneration: 3 })) }] };
    assert.deepEqual(routeReadiness(route), { ready: true });
    // spec.route.parentRefs is now [a, b]: the route is written with b only in this pass.
    const wanted = routeReadiness(route, [{ name: 'a' }, { name: 'b', namespace: 'infra' }]);
    assert.equal(wanted.ready, false);
    assert.match(wanted.message!, /parent infra\/b has not reported Accepted=True/);
  });

  it('matches each parent by its group and kind too: one parent\'s status does not count for another of the same name', () => {
    // A Gateway `web` and, for mesh (east-west) traffic, the Service `web` as parents of one route.
    const route = asStored(desiredHTTPRoute(app({ route: { parentRefs: [{ name: 'web' }, { name: 'web', group: '', kind: 'Service' }] } })));
    const accepted = (parentRef: Record<string, string>) => ({
      parentRef: { name: 'web', namespace: 'shop', ...parentRef },
      controllerName: 'example.net/gateway',
      conditions: ['Accepted', 'ResolvedRefs'].map((type) => ({ type, status: 'True', observedGeneration: 3 })),
    });
    route.status = { parents: [accepted({ group: 'gateway.networking.k8s.io', kind: 'Gateway' })] };
    assert.equal(routeReadiness(route).ready, false, 'the Service parent has reported nothing');
    assert.match(routeReadiness(route).message!, /Service shop\/web/);
    route.status = { parents: [accepted({ group: '', kind: 'Service' })] };
    assert.equal(routeReadiness(route).ready, false, 'the Gateway parent has reported nothing');
    // Group and kind left out in the status are the Gateway API's defaults.
    route.status = { parents: [accepted({}), accepted({ group: '', kind: 'Service' })] };
    assert.deepEqual(routeReadiness(route), { ready: true });
  });

  it('goes by the entries of the current generation when a controller left an older one for the same parent', () => {
    const route = asStored(desiredHTTPRoute(app()));
    const entry = (controllerName: string, generation: number, accepted = 'True') => ({
      parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'public', namespace: 'infra', sectionName: 'https' },
      controllerName,
      conditions: [{ type: 'Accepted', status: accepted, observedGeneration: generation }, { type: 'ResolvedRefs', status: 'True', observedGeneration: generation }],
    });
    // The Gateway's class moved to another implementation; the former one did not clean up after itself.
    route.status = { parents: [entry('old.example/gateway', 1), entry('new.example/gateway', 3)] };
    assert.deepEqual(routeReadiness(route), { ready: true });
    route.status = { parents: [entry('old.example/gateway', 1), entry('new.example/gateway', 2)] };
    assert.equal(routeReadiness(route).ready, false, 'no entry for the current generation');
    route.status = { parents: [entry('a.example/gateway', 3), entry('b.example/gateway', 3, 'False')] };
    assert.equal(routeReadiness(route).ready, false, 'a current entry that does not accept the route counts');
  });

  it('leaves out the entries of controllers that do not serve the route: a policy controller\'s own conditions for the same parent', () => {
    const route = asStored(desiredHTTPRoute(app()));
    const parentRef = { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'public', namespace: 'infra', sectionName: 'https' };
    const gateway = {
      parentRef,
      controllerName: 'example.net/gateway',
      conditions: ['Accepted', 'ResolvedRefs'].map((type) => ({ type, status: 'True', observedGeneration: 3 })),
    };
    // Kuadrant's policy controller adds an entry per parent with its own condition types only.
    const policies = {
      parentRef,
      controllerName: 'kuadrant.io/policy-controller',
      conditions: [{ type: 'kuadrant.io/TLSPolicyAffected', status: 'True', reason: 'Accepted', observedGeneration: 3 }],
    };
    route.status = { parents: [gateway, policies] };
    assert.deepEqual(routeReadiness(route), { ready: true });
    route.status = { parents: [policies, gateway] };
    assert.deepEqual(routeReadiness(route), { ready: true }, 'in either order');
    route.status = { parents: [policies] };
    assert.match(routeReadiness(route).message!, /has not reported Accepted=True for generation 3/, 'the Gateway\'s own controller has not reported yet');
  });
});
