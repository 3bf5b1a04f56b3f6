// readyOfCurrentTemplate: the ready pods of a Deployment's current template, across generations
// the Deployment controller has not seen yet.
import { strict as assert } from 'node:assert';
import type { V1Deployment } from '@kubernetes/client-node';
import { deploymentSummary, readyOfCurrentTemplate, rolloutState, settledRevision as settledOf, type SeenRevision, type SeenTemplate } from '../../controller/state/deployment-state.js';

const template = (image: string) => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image }] } });

function deployment(o: { uid?: string; generation: number; observed: number; replicas: number; image: string; status: { replicas: number; updated: number; ready: number } }): V1Deployment {
  return {
    metadata: { name: 'web-canary', uid: o.uid ?? 'u1', generation: o.generation },
    spec: { replicas: o.replicas, selector: {}, template: template(o.image) },
    status: { observedGeneration: o.observed, replicas: o.status.replicas, updatedReplicas: o.status.updated, readyReplicas: o.status.ready },
  };
}

/** One ready pod of web:2 at generation 3, seen by the Deployment controller. */
function seenAtOneReplica(): SeenTemplate {
  const { ready, seen } = readyOfCurrentTemplate(deployment({ generation: 3, observed: 3, replicas: 1, image: 'web:2', status: { replicas: 1, updated: 1, ready: 1 } }), undefined);
  assert.equal(ready, 1);
  assert.ok(seen);
  return seen;
}

describe('readyOfCurrentTemplate', () => {
  it('counts the ready pods of a Deployment seen at its generation with one template, and remembers that template', () => {
    const seen = seenAtOneReplica();
    assert.equal(seen.uid, 'u1');
    assert.equal(seen.generation, 3);
    // The same generation again: the same record, not a new hash.
    const again = readyOfCurrentTemplate(deployment({ generation: 3, observed: 3, replicas: 1, image: 'web:2', status: { replicas: 1, updated: 1, ready: 1 } }), seen);
    assert.equal(again.seen, seen);
  });

  it('keeps counting them through a scale the Deployment controller has not seen yet', () => {
    const seen = seenAtOneReplica();
    const scaled = deployment({ generation: 4, observed: 3, replicas: 2, image: 'web:2', status: { replicas: 1, updated: 1, ready: 1 } });
    assert.deepEqual(readyOfCurrentTemplate(scaled, seen), { ready: 1, seen });
    // Scaled twice before it caught up.
    assert.equal(readyOfCurrentTemplate({ ...scaled, metadata: { ...scaled.metadata, generation: 5 } }, seen).ready, 1);
  });

  it('counts none while a new template waits for the Deployment controller: its pods are the old template\'s', () => {
    const seen = seenAtOneReplica();
    assert.equal(readyOfCurrentTemplate(deployment({ generation: 4, observed: 3, replicas: 1, image: 'web:3', status: { replicas: 1, updated: 1, ready: 1 } }), seen).ready, 0);
    assert.equal(readyOfCurrentTemplate(deployment({ generation: 4, observed: 3, replicas: 1, image: 'web:3', status: { replicas: 1, updated: 1, ready: 1 } }), undefined).ready, 0, 'nothing remembered: nothing known');
  });

  it('counts none for another Deployment of the same name, or a status of a generation other than the one remembered', () => {
    const seen = seenAtOneReplica();
    assert.equal(readyOfCurrentTemplate(deployment({ uid: 'u2', generation: 4, observed: 3, replicas: 2, image: 'web:2', status: { replicas: 1, updated: 1, ready: 1 } }), seen).ready, 0);
    // The controller saw generation 4 (a template since put back, say) and is behind again.
    assert.equal(readyOfCurrentTemplate(deployment({ generation: 5, observed: 4, replicas: 2, image: 'web:2', status: { replicas: 1, updated: 1, ready: 1 } }), seen).ready, 0);
  });

  it('counts none while pods of another template are still there, seen or not', () => {
    const seen = seenAtOneReplica();
    assert.equal(readyOfCurrentTemplate(deployment({ generation: 4, observed: 3, replicas: 2, image: 'web:2', status: { replicas: 2, updated: 1, ready: 2 } }), seen).ready, 0);
    assert.equal(readyOfCurrentTemplate(deployment({ generation: 4, observed: 4, replicas: 1, image: 'web:3', status: { replicas: 2, updated: 1, ready: 1 } }), seen).ready, 0);
  });
});

describe('pods of one revision over several templates (the canary Deployment)', () => {
  /** web-canary at Skiff's revision `revision`, its template with or without the spreading a scale across one pod adds. */
  // `rollout`: the Deployment controller's number of its template (deployment.kubernetes.io/revision).
  const at = (revision: string, spread: boolean, o: { generation: number; observed: number; rollout: number; status: { replicas: number; updated: number; ready: number } }): V1Deployment => {
    const d = deployment({ ...o, replicas: o.status.replicas, image: 'web:2' });
    d.metadata!.annotations = { 'skiff.dev/revision': revision, 'deployment.kubernetes.io/revision': String(o.rollout) };
    if (spread) d.spec!.template.spec!.topologySpreadConstraints = [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway' }];
    d.status!.availableReplicas = o.status.ready;
    return d;
  };
  const rolledOut = () => readyOfCurrentTemplate(at('r2', false, { generation: 3, observed: 3, rollout: 5, status: { replicas: 3, updated: 3, ready: 3 } }), undefined, 'r2').seen!;

  it('remembers the revision it was seen rolled out alone at, and the Deployment controller\'s number of its template', () => {
    assert.deepEqual([rolledOut().revision, rolledOut().rollout], ['r2', 5]);
  });

  it('a new template within the revision (the spreading): the pods of both count, ready and available', () => {
    const seen = rolledOut();
    const rolling = at('r2', true, { generation: 4, observed: 4, rollout: 6, status: { replicas: 4, updated: 1, ready: 3 } });
    assert.equal(readyOfCurrentTemplate(rolling, seen, 'r2').ready, 3);
    assert.equal(deploymentSummary(rolling, 'r2', seen).serving, 3);
    assert.equal(deploymentSummary(rolling, 'r2', undefined).serving, 0, 'nothing remembered (a restart): nothing known');
    // Written, not yet seen by its controller: the status still counts the pods seen rolled out alone.
    const written = { ...rolling, status: { ...rolling.status, observedGeneration: 3, replicas: 3, updatedReplicas: 3 } };
    assert.equal(readyOfCurrentTemplate(written, seen, 'r2').ready, 3);
    assert.equal(deploymentSummary(written, 'r2', seen).serving, 0, 'the summary leaves that pass to settling');
  });

  it('a new revision: none of the pods before count (an aborted canary\'s pods never get its traffic)', () => {
    const seen = rolledOut();
    const next = at('r3', false, { generation: 4, observed: 4, rollout: 6, status: { replicas: 4, updated: 1, ready: 3 } });
    assert.equal(readyOfCurrentTemplate(next, seen, 'r3').ready, 0);
    assert.equal(deploymentSummary(next, 'r3', seen).serving, 0);
  });

  it('another revision in between and back (r2, r3 never rolled out alone, r2 again): r3\'s pods may be there, none count', () => {
    const seen = rolledOut();
    const back = at('r2', false, { generation: 5, observed: 5, rollout: 7, status: { replicas: 4, updated: 1, ready: 3 } });
    assert.equal(readyOfCurrentTemplate(back, seen, 'r2').ready, 0);
    assert.equal(deploymentSummary(back, 'r2', seen).serving, 0);
  });
});

describe('settledRevision', () => {
  const at = (o: Parameters<typeof deployment>[0]) => deployment(o);
  // As observe calls it: the Deployment's uid and its rolloutState's oneTemplate.
  const settledRevision = (d: V1Deployment, revision: string, seen: SeenRevision | undefined) => settledOf(d.metadata!.uid!, revision, rolloutState(d).oneTemplate, seen);
  it('is settled once seen running its revision alone, and stays so through a scale not seen yet and pods of another ReplicaSet of it (a restart)', () => {
    const seen = settledRevision(at({ generation: 3, observed: 3, replicas: 2, image: 'web:2', status: { replicas: 2, updated: 2, ready: 2 } }), 'r2', undefined);
    assert.deepEqual(seen, { uid: 'u1', revision: 'r2', settled: true });
    assert.equal(settledRevision(at({ generation: 4, observed: 3, replicas: 3, image: 'web:2', status: { replicas: 2, updated: 2, ready: 2 } }), 'r2', seen).settled, true, 'a scale');
    assert.equal(settledRevision(at({ generation: 5, observed: 5, replicas: 3, image: 'web:2', status: { replicas: 4, updated: 1, ready: 3 } }), 'r2', seen).settled, true, 'a restart');
  });
  it('is not settled at a new revision, for another Deployment of the name, or with nothing remembered, until seen running it alone', () => {
    const seen = settledRevision(at({ generation: 3, observed: 3, replicas: 2, image: 'web:2', status: { replicas: 2, updated: 2, ready: 2 } }), 'r2', undefined);
    const moved = settledRevision(at({ generation: 4, observed: 4, replicas: 2, image: 'web:3', status: { replicas: 3, updated: 1, ready: 2 } }), 'r3', seen);
    assert.deepEqual(moved, { uid: 'u1', revision: 'r3', settled: false });
    // Back to r2 while r3's pods are still there: a rollout of r2 again.
    assert.equal(settledRevision(at({ generation: 5, observed: 5, replicas: 2, image: 'web:2', status: { replicas: 3, updated: 1, ready: 2 } }), 'r2', moved).settled, false);
    assert.equal(settledRevision(at({ uid: 'u2', generation: 1, observed: 1, replicas: 2, image: 'web:2', status: { replicas: 3, updated: 1, ready: 2 } }), 'r2', seen).settled, false);
    assert.equal(settledRevision(at({ generation: 4, observed: 3, replicas: 3, image: 'web:2', status: { replicas: 2, updated: 2, ready: 2 } }), 'r2', undefined).settled, false);
  });
});

describe('rolloutState', () => {
  it('pods beyond the count, all of the current template (a scale down), are said as such; old ones while a new template rolls', () => {
    const scaledDown = deployment({ generation: 4, observed: 4, replicas: 2, image: 'web:2', status: { replicas: 5, updated: 5, ready: 5 } });
    assert.equal(rolloutState(scaledDown).message, '3 replicas beyond 2 being scaled down');
    const rolling = deployment({ generation: 4, observed: 4, replicas: 2, image: 'web:2', status: { replicas: 4, updated: 2, ready: 4 } });
    assert.equal(rolloutState(rolling).message, '2 old replicas pending termination');
    // Scaled down while it rolls: of the 2 beyond the count, one is old.
    const both = deployment({ generation: 4, observed: 4, replicas: 2, image: 'web:2', status: { replicas: 4, updated: 3, ready: 4 } });
    assert.equal(rolloutState(both).message, '1 old replica pending termination');
  });
});
