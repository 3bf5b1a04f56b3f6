// The preview objects acted upon: created or corrected while the plan has them, and deleted only
// once the Service `<app>` no longer sends to them.
import { strict as assert } from 'node:assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import { actPreview, type PreviewSteps } from '../../controller/act-preview.js';
import type { ReconcilePlan } from '../../controller/decide.js';
import type { Observed } from '../../controller/observe.js';

const object = (kind: string): KubernetesObject => ({ kind, metadata: { name: 'web-preview', namespace: 'shop' } });

function recording() {
  const removed: string[] = [];
  const steps: PreviewSteps = {
    apply: async (want) => ({ object: want }),
    remove: async (type) => {
      removed.push(type.kind);
      return {};
    },
  };
  return { removed, steps };
}

describe('act: the blue-green preview objects', () => {
  const plan = { removePreview: true } as ReconcilePlan;
  const observed = { preview: { deployment: object('Deployment'), service: object('Service') } } as unknown as Observed;

  it('deletes the preview routes, Service and Deployment when the plan says so', async () => {
    const { removed, steps } = recording();
    await actPreview(plan, observed, {}, steps);
    assert.deepEqual(removed, ['Ingress', 'HTTPRoute', 'Service', 'Deployment']);
  });

  it('keeps the preview while the write that takes the Service `<app>` off its pods failed: the Service may still select them', async () => {
    const { removed, steps } = recording();
    await actPreview(plan, observed, {}, steps, { error: 'applying Service shop/web: connection refused' });
    assert.deepEqual(removed, []);
  });
});

describe('act: the preview\'s Ingress or HTTPRoute when the App switches between spec.ingress and spec.route', () => {
  const versions = { httpRoute: 'gateway.networking.k8s.io/v1' } as const;
  const route = (accepted: boolean): KubernetesObject => ({
    ...object('HTTPRoute'),
    metadata: { name: 'web-preview', namespace: 'shop', generation: 1 },
    spec: { parentRefs: [{ name: 'public' }] },
    status: { parents: [{ parentRef: { name: 'public' }, conditions: ['Accepted', 'ResolvedRefs'].map((type) => ({ type, status: accepted ? 'True' : 'False', observedGeneration: 1 })) }] },
  } as KubernetesObject);
  const withObjects = (objects: Record<string, KubernetesObject>) => ({ preview: { objects: { deployment: object('Deployment'), service: object('Service'), ...objects } } }) as unknown as ReconcilePlan;
  const cached = (preview: Record<string, KubernetesObject | undefined>) => ({ preview: { deployment: object('Deployment'), service: object('Service'), ...preview } }) as unknown as Observed;

  it('keeps the preview Ingress serving previewHost until the preview HTTPRoute is accepted', async () => {
    const plan = withObjects({ httpRoute: route(false) });
    for (const stored of [undefined, route(false)]) {
      const { removed, steps } = recording();
      await actPreview(plan, cached({ ingress: object('Ingress'), httpRoute: stored }), versions, steps);
      assert.deepEqual(removed, [], `with the route ${stored ? 'not accepted' : 'not there yet'}, the Ingress stays`);
    }
    const { removed, steps } = recording();
    await actPreview(plan, cached({ ingress: object('Ingress'), httpRoute: route(true) }), versions, steps);
    assert.deepEqual(removed, ['Ingress'], 'deleted once every parent accepted the route');
  });

  it('keeps the preview Ingress while the cluster serves no HTTPRoutes', async () => {
    const { removed, steps } = recording();
    await actPreview(withObjects({ httpRoute: route(false) }), cached({ ingress: object('Ingress') }), {}, steps);
    assert.deepEqual(removed, []);
  });

  it('keeps the preview HTTPRoute serving previewHost until the preview Ingress is the App\'s', async () => {
    const plan = withObjects({ ingress: object('Ingress') });
    const taken = recording();
    taken.steps.apply = async (want) => (want.kind === 'Ingress' ? { conflict: 'Ingress shop/web-preview exists and is not owned by this App' } : { object: want });
    await actPreview(plan, cached({ httpRoute: route(true) }), versions, taken.steps);
    assert.deepEqual(taken.removed, [], 'the name is taken: the route stays');
    const { removed, steps } = recording();
    await actPreview(plan, cached({ httpRoute: route(true) }), versions, steps);
    assert.deepEqual(removed, ['HTTPRoute'], 'deleted once the Ingress is there');
  });

  it('deletes both at once when previewHost is removed', async () => {
    const { removed, steps } = recording();
    await actPreview(withObjects({}), cached({ ingress: object('Ingress'), httpRoute: route(true) }), versions, steps);
    assert.deepEqual(removed, ['Ingress', 'HTTPRoute']);
  });
});
