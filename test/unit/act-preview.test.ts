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
