// spec.rollout.trackConfig in a reconcile (controller/config-tracking.ts): what goes on, on which
// copies, when a source the template references has been deleted.
import { strict as assert } from 'node:assert';
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import type { ConfigSources } from '../../controller/config-sources.js';
import { trackedUnderWay, type ConfigTrackingDeps } from '../../controller/config-tracking.js';
import { withConfigCondition } from '../../controller/guards/config-gate.js';
import { trackedPodTemplate, type SourceContent } from '../../shared/render/config-copies.js';
import { renderPodTemplate } from '../../shared/render/pod-template.js';
import { ANNOTATION_REVISION } from '../../controller/render/pod-template-record.js';
import { ownerReference } from '../../shared/owner-reference.js';
import type { AppStatus } from '../../shared/app-types.js';
import { defaultedAppFixture } from '../support/app-fixture.js';

const spec = {
  volumes: [{ name: 'cfg', mountPath: '/etc/web', configMap: { name: 'web-cfg' } }],
  rollout: { strategy: 'Canary' as const, trackConfig: true },
  ingress: { host: 'web.example.com' },
};
const appWith = (status: AppStatus) => defaultedAppFixture({ spec, metadata: { uid: 'u1', generation: 2 }, status });

const v1: SourceContent = { data: { 'app.yaml': 'a: 1' } };
const v2: SourceContent = { data: { 'app.yaml': 'a: 2' } };
const base = appWith({});
const onCopies = (content: SourceContent) => trackedPodTemplate(base, renderPodTemplate(base, 'stable'), new Map([['configMap/web-cfg', content]]), false).pod;
const old = onCopies(v1);
const promoted = onCopies(v2);

const deployment = (name: string, pod: typeof old): KubernetesObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'shop', annotations: { [ANNOTATION_REVISION]: pod.revision }, ownerReferences: [ownerReference(base)] },
  spec: { template: pod.template },
} as unknown as V1Deployment as KubernetesObject);

/** The source web-cfg deleted; `deployments` what the cache shows. */
function deleted(deployments: KubernetesObject[]): ConfigTrackingDeps {
  const sources = {
    trackSecrets: false,
    reference: () => {},
    forget: () => {},
    resolve: async () => new Map([['configMap/web-cfg', null]]),
    ownedCopies: () => [],
  } as unknown as ConfigSources;
  return { sources, deploymentsOf: () => deployments };
}

describe('trackConfig: a source deleted while a rollout winds down', () => {
  it('a promoted canary whose pods wait out scaleDownDelaySeconds: stable\'s copies stand for the source, so the wind-down ends', async () => {
    const app = appWith({ stableRevision: promoted.revision, scaleDown: { revision: promoted.revision, deleteAt: '2026-11-26T10:00:30Z' } });
    const tracked = await trackedUnderWay('shop/web', app, deleted([deployment('web', promoted), deployment('web-canary', promoted)]));
    assert.equal(tracked?.pod.revision, promoted.revision, 'the revision stable runs, not ConfigNotFound with the canary\'s pods left running');
  });

  it('a cancelled canary waiting out its delay: the template stays stable\'s, never the cancelled one\'s', async () => {
    const app = appWith({ stableRevision: old.revision, scaleDown: { revision: promoted.revision, deleteAt: '2026-11-26T10:00:30Z' } });
    const tracked = await trackedUnderWay('shop/web', app, deleted([deployment('web', old), deployment('web-canary', promoted)]));
    assert.equal(tracked?.pod.revision, old.revision);
  });

  it('no rollout and no wind-down: nothing stands for the source (ConfigNotFound)', async () => {
    const app = appWith({ stableRevision: old.revision });
    assert.equal(await trackedUnderWay('shop/web', app, deleted([deployment('web', old)])), undefined);
  });
});

describe('trackConfig: ConfigTracked while a rollout goes on without its source', () => {
  it('counts the copy that stands for the deleted source: every reference still runs from a copy', async () => {
    const app = appWith({ stableRevision: promoted.revision, scaleDown: { revision: promoted.revision, deleteAt: '2026-11-26T10:00:30Z' } });
    const tracked = await trackedUnderWay('shop/web', app, deleted([deployment('web', promoted), deployment('web-canary', promoted)]));
    const condition = withConfigCondition({}, app, tracked, new Date('2026-11-26T10:00:00Z')).conditions!.find((c) => c.type === 'ConfigTracked')!;
    assert.equal(condition.status, 'True');
    assert.match(condition.message, /^1 source copied/, 'not "0 sources copied" for an App whose one source runs from its copy');
  });
});

describe('trackConfig: ConfigTracked with sources that do not exist yet', () => {
  const optional = { ...spec, volumes: [{ name: 'cfg', mountPath: '/etc/web', configMap: { name: 'opt', optional: true } }] };
  const app = defaultedAppFixture({ spec: optional, metadata: { uid: 'u1', generation: 2 } });
  const conditionOf = (sources: Map<string, SourceContent | null>) => {
    const tracked = trackedPodTemplate(app, renderPodTemplate(app, 'stable'), sources, false);
    return withConfigCondition({}, app, tracked, new Date('2026-11-26T10:00:00Z')).conditions!.find((c) => c.type === 'ConfigTracked')!;
  };

  it('an optional source not there: names it, left out of the template, and says what its making does; never "0 sources copied; a change of one"', () => {
    const condition = conditionOf(new Map([['configMap/opt', null]]));
    assert.equal(condition.status, 'True');
    assert.equal(condition.message, 'no source copied; optional configMap opt not found (left out of the pod template): once it is made, a new revision rolls out');
  });

  it('once it exists: its copy counted', () => {
    assert.equal(conditionOf(new Map([['configMap/opt', v1]])).message, '1 source copied; a change of one rolls out as a new revision');
  });

  it('a template that references none', () => {
    const bare = defaultedAppFixture({ spec: { ...spec, volumes: [] }, metadata: { uid: 'u1', generation: 2 } });
    const tracked = trackedPodTemplate(bare, renderPodTemplate(bare, 'stable'), new Map(), false);
    const condition = withConfigCondition({}, bare, tracked, new Date('2026-11-26T10:00:00Z')).conditions!.find((c) => c.type === 'ConfigTracked')!;
    assert.equal(condition.message, "no source copied: the pod template's env, envFrom and volumes reference no ConfigMap or Secret");
  });
});
