// Pods the API server refuses (a ResourceQuota, a LimitRange, an admission policy) never come: the
// Deployment controller says so in its ReplicaFailure condition, and the App says it at once,
// rather than "0 of 3 replicas updated" and no problem until the progress deadline.
import { strict as assert } from 'node:assert';
import type { V1Deployment } from '@kubernetes/client-node';
import type { Condition } from '../../shared/app-types.js';
import { computeStatus } from '../../controller/status.js';
import { deploymentSummary, rolloutState } from '../../controller/state/deployment-state.js';
import { defaultedAppFixture } from '../support/app-fixture.js';

const T0 = new Date('2026-11-29T10:00:00Z');
const REFUSED = 'pods "web-77f454d94f-c4xch" is forbidden: maximum cpu usage per Container is 500m, but limit is 1';

/** Deployment shop/web at generation 2, seen, with `ready` of 3 pods and its conditions. */
function deployment(ready: number, failure: boolean): V1Deployment {
  return {
    metadata: { name: 'web', namespace: 'shop', generation: 2, annotations: { 'skiff.dev/revision': 'r2' } },
    spec: { replicas: 3, selector: {}, template: { spec: { containers: [{ name: 'app', image: 'web:2' }] } } },
    status: {
      observedGeneration: 2, replicas: ready, updatedReplicas: ready, readyReplicas: ready, availableReplicas: ready,
      conditions: [
        { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' },
        { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable' },
        ...(failure ? [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: REFUSED }] : []),
      ],
    },
  };
}

const app = defaultedAppFixture({ metadata: { uid: 'u', generation: 4 }, spec: { image: 'web:2', replicas: 3 } });
const byType = (cs: Condition[] | undefined) => Object.fromEntries((cs ?? []).map((c) => [c.type, c]));

describe('pods the API server refuses', () => {
  it('Degraded ReplicaFailure with the Deployment\'s words; Ready and Progressing say why the pods do not come', () => {
    const c = byType(computeStatus(app, { conflicts: [], errors: [], deployment: deployment(1, true) }, T0).conditions);
    assert.deepEqual([c.Degraded.status, c.Degraded.reason, c.Degraded.message], ['True', 'ReplicaFailure', `Deployment shop/web cannot create pods: ${REFUSED}`]);
    assert.equal(c.Ready.message, `Deployment shop/web: 1 of 3 replicas updated; pods cannot be created: ${REFUSED}`);
    assert.equal(c.Progressing.message, `Deployment shop/web: 1 of 3 replicas updated; pods cannot be created: ${REFUSED}`);
  });

  it('none once the pods can be created (the condition gone, or False)', () => {
    const c = byType(computeStatus(app, { conflicts: [], errors: [], deployment: deployment(1, false) }, T0).conditions);
    assert.deepEqual([c.Degraded.status, c.Degraded.reason], ['False', 'AsExpected']);
    assert.equal(c.Ready.message, 'Deployment shop/web: 1 of 3 replicas updated');
    const cleared = deployment(1, true);
    cleared.status!.conditions![2].status = 'False';
    assert.equal(rolloutState(cleared).replicaFailure, undefined);
  });

  it('a canary or preview Deployment: the engines read it from the summary', () => {
    assert.deepEqual(deploymentSummary(deployment(0, true), 'r2'), { revision: 'r2', replicas: 3, available: false, serving: 0, replicaFailure: REFUSED });
    assert.deepEqual(deploymentSummary(deployment(3, false), 'r2'), { revision: 'r2', replicas: 3, available: false, serving: 3 });
  });

  it('serving: the available pods while all run the template, none while others remain or the spec is unseen', () => {
    const mixed = deployment(3, false);
    mixed.status!.updatedReplicas = 2;
    assert.equal(deploymentSummary(mixed, 'r2').serving, 0);
    const unseen = deployment(3, false);
    unseen.metadata!.generation = 3;
    assert.equal(deploymentSummary(unseen, 'r2').serving, 0);
  });
});
