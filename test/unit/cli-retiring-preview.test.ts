// A blue-green preview left behind by a change of strategy (BlueGreen → Canary or RollingUpdate
// during a rollout): the controller keeps status.blueGreen while the preview's pods wait out the
// scale-down delay, the Service already on the stable track. The plugin and the dashboard describe
// the rollout under way (a canary's, or none) and name the preview only as pods that are going:
// its revision may be the very template the canary runs now, and stable is not "active".
import { strict as assert } from 'node:assert';
import { formatGet, type AppView } from '../../cli/format-get.js';
import { formatStatus } from '../../cli/format-status.js';
import { detail } from '../../cli/dashboard/views.js';
import type { Owned } from '../../cli/dashboard/store.js';
import { rolloutCommandRefusal, stepText, type CliApp } from '../../cli/model.js';
import { plainStyle } from '../../cli/style.js';

const now = new Date('2026-11-29T12:00:00Z');
const at = (s: number) => new Date(now.getTime() + s * 1000).toISOString();

/** storefront: blue-green web:1 → web:2 switched, then made a Canary: web:2 is now a canary at 20%. */
function canaryAfterBlueGreen(): CliApp {
  return {
    apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
    metadata: { name: 'web', namespace: 'shop', uid: 'web-uid', generation: 3, creationTimestamp: at(-600) },
    spec: { image: 'web:2', replicas: 3, rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }], analysis: { interval: '10s' } } },
    status: {
      observedGeneration: 3, stableImage: 'web:1', stableRevision: 'aaaaaaaaaa', updateRevision: 'bbbbbbbbbb',
      canary: { image: 'web:2', revision: 'bbbbbbbbbb', weight: 20, stepIndex: 0, stepStartedAt: at(-3) },
      // As controller/bluegreen/running.ts retirePreview writes it: the Service back on stable.
      blueGreen: {
        phase: 'ScalingDown', previewRevision: 'bbbbbbbbbb', activeRevision: 'aaaaaaaaaa', image: 'web:2', switchedAt: at(-10), scaleDownAt: at(50),
        analysis: { checks: 1, failures: 0, inconclusive: 0, lastResult: 'Passed', lastWeight: 0 },
      },
    },
  };
}

const deployment = (name: string, revision: string, image: string, replicas: number) => ({
  metadata: { name, annotations: { 'skiff.dev/revision': revision } },
  spec: { replicas, template: { spec: { containers: [{ image }] } } },
  status: { replicas, updatedReplicas: replicas, readyReplicas: replicas, availableReplicas: replicas },
});
const deployments = [deployment('web', 'aaaaaaaaaa', 'web:1', 3), deployment('web-canary', 'bbbbbbbbbb', 'web:2', 1), deployment('web-preview', 'bbbbbbbbbb', 'web:2', 3)];
const revision = (n: number, hash: string, image: string, outcome: string) => ({
  metadata: { name: `web-${n}`, labels: { 'skiff.dev/app': 'web', 'skiff.dev/revision': hash }, annotations: { 'skiff.dev/images': image, 'skiff.dev/changes': n === 1 ? '' : 'image', 'skiff.dev/outcome': outcome, 'skiff.dev/started-at': at(-60 * n) }, ownerReferences: [{ uid: 'web-uid', controller: true }] },
  revision: n, data: { spec: { image } },
});

describe('a blue-green preview left by a change of strategy', () => {
  it('kubectl skiff get: the canary is the canary, the leftover preview is the preview, stable is stable', () => {
    const app = canaryAfterBlueGreen();
    const view: AppView = { app, revisions: [], deployments, services: [], ingresses: [], routes: [] };
    const lines = formatGet(view, now, plainStyle);
    assert.equal(lines.find((l) => l.startsWith('Step:')), 'Step:     1/2 setWeight 20%');
    assert.equal(lines.find((l) => l.startsWith('Images:')), 'Images:   web:1 (stable), web:2 (canary)');
    const row = (name: string) => lines.find((l) => l.includes(`Deployment ${name} `));
    assert.match(row('web')!, /web:1 {2}stable$/);
    assert.match(row('web-canary')!, /web:2 {2}canary$/);
    assert.match(row('web-preview')!, /web:2 {2}preview$/);
    // The analysis shown is the canary's (none yet), not the preview's check before the strategy changed.
    assert.equal(lines.at(-1), '`-- Analysis  no check yet');
  });

  it('kubectl skiff status: the canary, and the preview\'s pods going, with when', () => {
    const text = formatStatus(canaryAfterBlueGreen(), now);
    assert.match(text, /^Canary revision: +bbbbbbbbbb$/m);
    assert.match(text, /^Old preview: +the blue-green preview's pods \(revision bbbbbbbbbb\), left from before the strategy became Canary, get no traffic and go at 2026-11-29T12:00:50.000Z \(50s left\)$/m);
    assert.doesNotMatch(text, /Service selects|Blue-green:/);
  });

  it('under RollingUpdate: no blue-green phase as the step, and no command acts on the preview', () => {
    const app = canaryAfterBlueGreen();
    app.spec.rollout = { strategy: 'RollingUpdate' };
    // RollingUpdate made spec's template stable; the preview ran that template too.
    app.status = { ...app.status, canary: undefined, stableImage: 'web:2', stableRevision: 'bbbbbbbbbb', blueGreen: { ...app.status!.blueGreen!, activeRevision: 'bbbbbbbbbb' } };
    assert.equal(stepText(app), '-');
    const text = formatStatus(app, now);
    assert.match(text, /^Old preview: .*left from before the strategy became RollingUpdate, get no traffic and go at .* \(50s left\)$/m);
    assert.doesNotMatch(text, /the old pods/);
    const lines = formatGet({ app, revisions: [], deployments: [deployments[0], deployments[2]].map((d) => ({ ...d, metadata: { ...d.metadata, annotations: { 'skiff.dev/revision': 'bbbbbbbbbb' } } })), services: [], ingresses: [], routes: [] }, now, plainStyle);
    assert.equal(lines.find((l) => l.startsWith('Images:')), 'Images:   web:2 (stable)');
    assert.match(lines.find((l) => l.includes('Deployment web '))!, /stable$/);
    assert.match(lines.find((l) => l.includes('Deployment web-preview '))!, /preview$/);
    assert.match(rolloutCommandRefusal(app, 'abort')!, /does not use the Canary or BlueGreen strategy/);
    app.spec.rollout = { strategy: 'Canary' };
    assert.equal(rolloutCommandRefusal(app, 'promote'), 'has no canary rollout in progress; there is nothing to promote');
  });

  it('the dashboard: no blue-green section, roles by what each revision and Deployment is now', () => {
    const app = canaryAfterBlueGreen();
    const owned: Owned = {
      deployments, services: [], ingresses: [], routes: [], disruptionBudgets: [], autoscalers: [], configMaps: [],
      revisions: [revision(2, 'bbbbbbbbbb', 'web:2', 'Running'), revision(1, 'aaaaaaaaaa', 'web:1', 'Promoted')],
    };
    const d = detail('shop/web', app, owned, []);
    assert.equal(d.blueGreen, undefined);
    assert.equal(d.analysis, undefined);
    assert.deepEqual(d.revisions.map((r) => [r.hash, r.role]), [['bbbbbbbbbb', 'canary'], ['aaaaaaaaaa', 'stable']]);
    assert.deepEqual(d.objects.filter((o) => o.kind === 'Deployment').map((o) => [o.name, o.role]), [['web', 'stable'], ['web-canary', 'canary'], ['web-preview', 'preview']]);
    assert.deepEqual(d.row.images, [{ image: 'web:1', role: 'stable' }, { image: 'web:2', role: 'canary' }]);
  });
});

describe('a canary left by a change of strategy to BlueGreen', () => {
  it('is named by no role of a revision: its pods get no traffic, though they run the template the Service now selects', async () => {
    const { deploymentRole } = await import('../../cli/model.js');
    // Canary web:2 at 50%, then made BlueGreen and switched to web:2's preview: the canary's pods wait out the delay.
    const app: CliApp = {
      apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
      metadata: { name: 'web', namespace: 'shop', uid: 'web-uid', generation: 4, creationTimestamp: at(-600) },
      spec: { image: 'web:2', replicas: 3, rollout: { strategy: 'BlueGreen' } },
      status: {
        observedGeneration: 4, stableImage: 'web:1', stableRevision: 'aaaaaaaaaa', updateRevision: 'bbbbbbbbbb',
        scaleDown: { revision: 'bbbbbbbbbb', deleteAt: at(30) },
        blueGreen: { phase: 'Switched', previewRevision: 'bbbbbbbbbb', activeRevision: 'bbbbbbbbbb', image: 'web:2', switchedAt: at(-5), scaleDownAt: at(55) },
      },
    };
    assert.equal(deploymentRole(app, deployment('web-canary', 'bbbbbbbbbb', 'web:2', 2)), undefined);
    assert.equal(deploymentRole(app, deployment('web-preview', 'bbbbbbbbbb', 'web:2', 3)), 'active');
    // While a canary runs, its Deployment is the canary.
    assert.equal(deploymentRole(canaryAfterBlueGreen(), deployment('web-canary', 'bbbbbbbbbb', 'web:2', 1)), 'canary');
  });
});
