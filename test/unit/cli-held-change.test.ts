// A pod-template change that spec.rollout.paused holds back has no canary or preview: it is in the
// App's spec and status.updateRevision only. Every overview says it waits, and what settles it
// (resume rolls it out, undo drops it); and `status` says when the controller has not yet seen
// the App's latest generation, which nothing else it prints reflects.
import { strict as assert } from 'node:assert';
import { formatGet } from '../../cli/format-get.js';
import { formatList } from '../../cli/format-list.js';
import { formatStatus } from '../../cli/format-status.js';
import { detail } from '../../cli/dashboard/views.js';
import type { CliApp } from '../../cli/model.js';
import { plainStyle } from '../../cli/style.js';

const now = new Date('2026-11-29T12:00:00Z');

/** web at 1.26, paused, then set to 1.28: the controller has seen it (updateRevision) and holds it. */
function held(): CliApp {
  return {
    apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
    metadata: { name: 'web', namespace: 'shop', uid: 'web-uid', generation: 3, creationTimestamp: '2026-11-29T11:00:00Z' },
    spec: { image: 'web:1.28', replicas: 4, rollout: { strategy: 'Canary', paused: true } },
    status: {
      observedGeneration: 3, stableImage: 'web:1.26', stableRevision: 'aaaaaaaaaa', updateRevision: 'cccccccccc',
      conditions: [{ type: 'Progressing', status: 'Unknown', reason: 'RolloutPaused', message: 'rollouts of the App are paused', lastTransitionTime: '2026-11-29T11:59:00Z' }],
    },
  };
}

const none = { deployments: [], services: [], ingresses: [], routes: [], revisions: [], disruptionBudgets: [], autoscalers: [], configMaps: [] };
const HELD = 'revision cccccccccc (web:1.28) waits for spec.rollout.paused to be false: kubectl skiff resume rolls it out, kubectl skiff undo drops it';

describe('a change held back by a pause, in every overview', () => {
  it('list shows where resume goes; get and status say it waits and what settles it; the dashboard has it', () => {
    assert.match(formatList([held()], { allNamespaces: false, now, style: plainStyle }).join('\n'), /web +Canary +Paused +- +- +web:1\.26 -> web:1\.28 \(held\)/);
    const lines = formatGet({ app: held(), revisions: [], deployments: [], services: [], ingresses: [], routes: [] }, now, plainStyle);
    assert.ok(lines.includes(`Held:     ${HELD}`), lines.join('\n'));
    assert.match(formatStatus(held(), now), new RegExp(`^Held: +${HELD.replace(/[()]/g, '\\$&')}$`, 'm'));
    assert.deepEqual(detail('shop/web', held(), none, []).held, { revision: 'cccccccccc', image: 'web:1.28' });
  });

  it('none once resumed, nor when the template is the stable one (undo dropped the change)', () => {
    const resumed = held();
    resumed.spec.rollout = { strategy: 'Canary' };
    assert.doesNotMatch(formatStatus(resumed, now), /Held/);
    const undone = held();
    undone.status!.updateRevision = 'aaaaaaaaaa';
    undone.spec.image = 'web:1.26';
    assert.doesNotMatch(formatStatus(undone, now), /Held/);
    assert.equal(detail('shop/web', undone, none, []).held, undefined);
  });

  it('with trackConfig: undo drops a change of the fields; one of a source\'s data is dropped by putting the data back', () => {
    const tracked = held();
    tracked.spec.rollout = { strategy: 'Canary', paused: true, trackConfig: true };
    assert.match(formatStatus(tracked, now), /^Held: +revision cccccccccc \(web:1\.28\) waits for spec\.rollout\.paused to be false: kubectl skiff resume rolls it out, kubectl skiff undo drops it \(a change of the App's fields; one of the data of a ConfigMap or Secret it references is dropped by putting that data back\)$/m);
    assert.equal(detail('shop/web', tracked, none, []).held?.note, " (a change of the App's fields; one of the data of a ConfigMap or Secret it references is dropped by putting that data back)", 'the page says the same');
  });

  it("none for a running canary the pause holds at its step: it is the rollout under way, not a change waiting to start", () => {
    const running = held();
    running.status!.canary = { image: 'web:1.28', revision: 'cccccccccc', weight: 20, stepIndex: 1, stepStartedAt: '2026-11-29T11:58:00Z', pausedAt: '2026-11-29T11:59:00Z' } as NonNullable<CliApp['status']>['canary'];
    assert.doesNotMatch(formatStatus(running, now), /Held/);
    assert.doesNotMatch(formatList([running], { allNamespaces: false, now, style: plainStyle }).join('\n'), /\(held\)/);
    assert.equal(detail('shop/web', running, none, []).held, undefined);
  });

  it('RollingUpdate: the paused Deployment has the new template, which status names stable\'s, while its pods run the one before: still held, in every overview', () => {
    const rolling = held();
    rolling.spec.rollout = { paused: true };
    rolling.status = {
      ...rolling.status, stableImage: 'web:1.28', stableRevision: 'cccccccccc', updateRevision: 'cccccccccc',
      conditions: [{ type: 'Ready', status: 'False', reason: 'RolloutPaused', message: 'Deployment shop/web has a new pod template that it does not roll out while paused', lastTransitionTime: '2026-11-29T11:59:00Z' }],
    };
    assert.match(formatList([rolling], { allNamespaces: false, now, style: plainStyle }).join('\n'), /web:1\.28 \(held\)/);
    const text = 'revision cccccccccc (web:1.28) waits for spec.rollout.paused to be false (the paused Deployment has its template; its pods run the one before): kubectl skiff resume rolls it out, kubectl skiff undo drops it';
    assert.match(formatStatus(rolling, now), new RegExp(`^Held: +${text.replace(/[().]/g, '\\$&')}$`, 'm'));
    assert.ok(formatGet({ app: rolling, revisions: [], deployments: [], services: [], ingresses: [], routes: [] }, now, plainStyle).includes(`Held:     ${text}`));
    assert.equal(detail('shop/web', rolling, none, []).held?.rollingUpdate, true);
    // Its image is the held template's, not one pods run: get's Images row, status and the page say so.
    assert.ok(formatGet({ app: rolling, revisions: [], deployments: [], services: [], ingresses: [], routes: [] }, now, plainStyle).includes('Images:   web:1.28 (held)'));
    assert.match(formatStatus(rolling, now), /^Stable image: +web:1\.28 \(of the paused Deployment's template, held: its pods run the one before\)$/m);
    // The revision tree says the same of the held revision and of the Deployment that has its template.
    const revisions = [{ number: 2, name: 'web-2', hash: 'cccccccccc', images: ['web:1.28'], changes: ['image'], outcome: 'Running', spec: {}, onCopies: false }];
    const deployment = { metadata: { name: 'web', annotations: { 'skiff.dev/revision': 'cccccccccc' } }, spec: { replicas: 4, template: { spec: { containers: [{ name: 'app', image: 'web:1.28' }] } } }, status: { replicas: 4, readyReplicas: 4, updatedReplicas: 0 } };
    const tree = formatGet({ app: rolling, revisions, deployments: [deployment], services: [], ingresses: [], routes: [] } as never, now, plainStyle).join('\n');
    assert.match(tree, /revision 2 +cccccccccc +web:1\.28 +changed image +Running \(held\)/);
    assert.doesNotMatch(tree, /\bstable\b/);
    assert.deepEqual(detail('shop/web', rolling, none, []).row.images, [{ image: 'web:1.28', role: 'held' }]);
    // Resumed, or rolled out while paused (Ready True): nothing held.
    const done = { ...rolling, status: { ...rolling.status, conditions: [{ type: 'Ready', status: 'True' as const, reason: 'Available', message: 'ok', lastTransitionTime: '2026-11-29T11:59:00Z' }] } };
    assert.doesNotMatch(formatStatus(done, now), /Held/);
    assert.doesNotMatch(formatList([done], { allNamespaces: false, now, style: plainStyle }).join('\n'), /\(held\)/);
    assert.deepEqual(detail('shop/web', done, none, []).row.images, [{ image: 'web:1.28', role: 'stable' }]);
    assert.match(formatStatus(done, now), /^Stable image: +web:1\.28$/m);
  });

  it('a generation the controller has not seen yet: status and get say so before anything else', () => {
    const behind = held();
    behind.spec.rollout = { strategy: 'Canary' };
    behind.metadata.generation = 4;
    const text = formatStatus(behind, now);
    assert.match(text.split('\n')[1], /^Observed: +generation 4 not yet seen by the controller: what follows is as of generation 3$/);
    assert.ok(formatGet({ app: behind, revisions: [], deployments: [], services: [], ingresses: [], routes: [] }, now, plainStyle).some((l) => l.startsWith('Observed: generation 4 not yet seen')));
    assert.doesNotMatch(formatStatus(held(), now), /Observed/);
  });
});
