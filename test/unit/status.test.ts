import { strict as assert } from 'node:assert';
import type { V1Deployment } from '@kubernetes/client-node';
import type { App, AppStatus, Condition } from '../../shared/app-types.js';
import { defaulted, type DefaultedApp } from '../../shared/defaults.js';
import { computeStatus, urlPath, progressOnly, type StatusInputs } from '../../controller/status.js';
import { sameStatus, statusMergePatch } from '../../controller/state/status-compare.js';
import { setConditions } from '../../controller/state/conditions.js';
import { defaultedAppFixture } from '../support/app-fixture.js';
import { recordedAbort } from '../../controller/canary/types.js';

const T0 = new Date('2026-11-22T10:00:00.123Z');
const T1 = new Date('2026-11-22T10:05:00Z');

// Every App here is at generation 4, with three replicas of web:2.
const app = (spec: Partial<App['spec']> = {}, status?: AppStatus): DefaultedApp =>
  defaultedAppFixture({ metadata: { uid: 'u', generation: 4 }, spec: { image: 'web:2', replicas: 3, ...spec }, status });

type DeploymentState = { generation?: number; observedGeneration?: number; replicas?: number; updated?: number; ready?: number; available?: number; availableCondition?: boolean; progressing?: string };

function deployment(s: DeploymentState = {}): V1Deployment {
  const want = 3;
  const conditions = [
    { type: 'Available', status: s.availableCondition === false ? 'False' : 'True' },
    { type: 'Progressing', status: s.progressing === 'ProgressDeadlineExceeded' ? 'False' : 'True', reason: s.progressing ?? 'NewReplicaSetAvailable' },
  ];
  return {
    metadata: { name: 'web', namespace: 'shop', generation: s.generation ?? 2 },
    spec: { replicas: want, selector: {}, template: { spec: { containers: [{ name: 'app', image: 'web:2' }] } } },
    status: {
      observedGeneration: s.observedGeneration ?? 2,
      replicas: s.replicas ?? want,
      updatedReplicas: s.updated ?? want,
      readyReplicas: s.ready ?? want,
      availableReplicas: s.available ?? want,
      conditions,
    },
  };
}

const observed = (o: Partial<StatusInputs> = {}): StatusInputs => ({ conflicts: [], errors: [], ...o });
const brief = (conditions: Condition[] | undefined) => Object.fromEntries((conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason}`]));

describe('status', () => {
  it('reports an available Deployment as Ready, rolled out, not degraded', () => {
    const s = computeStatus(app(), observed({ deployment: deployment() }), T0);
    assert.deepEqual(s, {
      observedGeneration: 4,
      replicas: 3,
      readyReplicas: 3,
      ready: '3/3',
      stableImage: 'web:2',
      conditions: [
        { type: 'Ready', status: 'True', observedGeneration: 4, lastTransitionTime: '2026-11-22T10:00:00Z', reason: 'Available', message: 'Deployment shop/web is available with all replicas ready' },
        { type: 'Progressing', status: 'False', observedGeneration: 4, lastTransitionTime: '2026-11-22T10:00:00Z', reason: 'RolloutComplete', message: 'Deployment shop/web is rolled out' },
        { type: 'Degraded', status: 'False', observedGeneration: 4, lastTransitionTime: '2026-11-22T10:00:00Z', reason: 'AsExpected', message: 'no problems found' },
      ],
    });
  });

  const table: [string, StatusInputs, Record<string, string>][] = [
    ['no Deployment yet', observed(), { Ready: 'False/Creating', Progressing: 'True/RollingOut', Degraded: 'False/AsExpected' }],
    // Every pod of the generation before is up and serves: Ready stays (a change outside the pod
    // template moves none), while Progressing says the new generation is not rolled out yet.
    ['generation not observed yet, the pods before all up', observed({ deployment: deployment({ generation: 3 }) }), { Ready: 'True/Available', Progressing: 'True/RollingOut', Degraded: 'False/AsExpected' }],
    ['generation not observed yet, a pod before not ready', observed({ deployment: deployment({ generation: 3, ready: 2, available: 2 }) }), { Ready: 'False/RollingOut', Progressing: 'True/RollingOut', Degraded: 'False/AsExpected' }],
    ['pods being replaced', observed({ deployment: deployment({ updated: 1, replicas: 4 }) }), { Ready: 'False/RollingOut', Progressing: 'True/RollingOut', Degraded: 'False/AsExpected' }],
    ['updated but not all ready', observed({ deployment: deployment({ ready: 2, available: 2 }) }), { Ready: 'False/Unavailable', Progressing: 'True/RollingOut', Degraded: 'False/AsExpected' }],
    ['Available condition false', observed({ deployment: deployment({ availableCondition: false }) }), { Ready: 'False/Unavailable', Progressing: 'False/RolloutComplete', Degraded: 'False/AsExpected' }],
    [
      'progress deadline exceeded',
      observed({ deployment: deployment({ ready: 0, available: 0, progressing: 'ProgressDeadlineExceeded' }) }),
      { Ready: 'False/Unavailable', Progressing: 'False/ProgressDeadlineExceeded', Degraded: 'True/ProgressDeadlineExceeded' },
    ],
    [
      // A fix of a stuck rollout: the Deployment controller has not read the new template yet, and
      // its condition still speaks of the generation before.
      'progress deadline exceeded at a generation before the current one',
      observed({ deployment: deployment({ generation: 3, ready: 0, available: 0, progressing: 'ProgressDeadlineExceeded' }) }),
      { Ready: 'False/RollingOut', Progressing: 'True/RollingOut', Degraded: 'False/AsExpected' },
    ],
    [
      'a foreign Deployment',
      observed({ conflicts: ['Deployment shop/web exists and is not owned by this App'] }),
      { Ready: 'False/ResourceConflict', Progressing: 'False/ResourceConflict', Degraded: 'True/ResourceConflict' },
    ],
    [
      // The App's host is not routed to a Service it does not own (act.ts): its pods get no traffic.
      'a foreign Service next to an owned Deployment',
      observed({ deployment: deployment(), conflicts: ['Service shop/web exists and is not owned by this App'] }),
      { Ready: 'False/ResourceConflict', Progressing: 'False/RolloutComplete', Degraded: 'True/ResourceConflict' },
    ],
    ['an API error', observed({ deployment: deployment(), errors: ['applying Service shop/web: 500 boom'] }), { Ready: 'True/Available', Progressing: 'False/RolloutComplete', Degraded: 'True/ReconcileError' }],
    [
      // The cached Deployment is complete, but at the template before: the App's is not in it.
      'a refused write of the stable Deployment',
      observed({ deployment: deployment(), deploymentError: 'applying Deployment shop/web: 422 boom', errors: ['applying Deployment shop/web: 422 boom'] }),
      { Ready: 'True/Available', Progressing: 'False/DeploymentUpdateFailed', Degraded: 'True/ReconcileError' },
    ],
    [
      // Nothing is being created while the API server refuses it: not "creating" (True/RollingOut).
      'a refused creation of the stable Deployment',
      observed({ deploymentError: 'applying Deployment shop/web: 422 field label not supported: status.hostIPs', errors: ['applying Deployment shop/web: 422 field label not supported: status.hostIPs'] }),
      { Ready: 'False/Creating', Progressing: 'False/DeploymentCreateFailed', Degraded: 'True/ReconcileError' },
    ],
  ];
  for (const [name, obs, want] of table) {
    it(`conditions: ${name}`, () => assert.deepEqual(brief(computeStatus(app(), obs, T0).conditions), want));
  }

  it('a paused RollingUpdate App whose Deployment holds a new template is RolloutPaused, not RollingOut; a paused canary\'s promotion still rolls', () => {
    const held = observed({ deployment: deployment({ updated: 0 }) });
    assert.deepEqual(brief(computeStatus(app({ rollout: { paused: true } }), held, T0).conditions), { Ready: 'False/RolloutPaused', Progressing: 'Unknown/RolloutPaused', Degraded: 'False/AsExpected' });
    assert.deepEqual(brief(computeStatus(app(), held, T0).conditions).Ready, 'False/RollingOut');
    const canary = app({ ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', paused: true } });
    assert.deepEqual(brief(computeStatus(canary, held, T0).conditions).Ready, 'False/RollingOut');
  });

  it('an aborted rollout keeps its reason in Progressing while a foreign Deployment holds Degraded, so the abort is still known (and alerted once) when the conflict clears', () => {
    const abort = { status: 'False' as const, reason: 'AnalysisFailed' as const, message: 'successRate 80.00 < min 99' };
    const rollout = { phase: 'Aborted' as const, status: { stableRevision: 'r1', abortedRevision: 'r2' }, progressing: abort, degraded: { reason: abort.reason, message: abort.message } };
    const conflict = observed({ conflicts: ['Deployment shop/web exists and is not owned by this App'], rollout });
    const s = computeStatus(app({ ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary' } }), conflict, T0);
    assert.deepEqual(brief(s.conditions), { Ready: 'False/ResourceConflict', Progressing: 'False/AnalysisFailed', Degraded: 'True/ResourceConflict' });
    assert.deepEqual(recordedAbort(s.conditions), { reason: 'AnalysisFailed', message: abort.message });
  });

  it('names the conflicting object and the error in the Degraded message', () => {
    const s = computeStatus(app(), observed({ conflicts: ['Deployment shop/web exists and is not owned by this App'] }), T0);
    assert.equal(s.conditions!.find((c) => c.type === 'Degraded')!.message, 'Deployment shop/web exists and is not owned by this App');
    const e = computeStatus(app(), observed({ errors: ['applying Service shop/web: 500 boom'] }), T0);
    assert.equal(e.conditions!.find((c) => c.type === 'Degraded')!.message, 'applying Service shop/web: 500 boom');
  });

  it('gives the url only with an ingress, https with a TLS secret', () => {
    assert.equal(computeStatus(app(), observed(), T0).url, undefined);
    assert.equal(computeStatus(app({ ingress: { host: 'web.example.com' } }), observed(), T0).url, 'http://web.example.com/');
    assert.equal(computeStatus(app({ ingress: { host: 'web.example.com', path: '/x', tlsSecretName: 't' } }), observed(), T0).url, 'https://web.example.com/x');
    // A valid URL whatever the path holds: a space, a character outside ASCII, a lone %; an escape stays as written.
    assert.equal(computeStatus(app({ ingress: { host: 'web.example.com', path: '/a b/ü/50%/%2F' } }), observed(), T0).url, 'http://web.example.com/a%20b/%C3%BC/50%25/%2F');
    assert.equal(urlPath('/shop/(v1);x=1'), '/shop/(v1);x=1');
  });

  it('counts ready replicas against the desired replicas', () => {
    const s = computeStatus(app(), observed({ deployment: deployment({ ready: 1, available: 1 }) }), T0);
    assert.equal(s.ready, '1/3');
    assert.equal(s.readyReplicas, 1);
    // An App stored without replicas (no webhook yet) is defaulted to 1 before its status is computed.
    const noReplicas = defaulted({ ...app(), spec: { image: 'web:2' } });
    assert.equal(computeStatus(noReplicas, observed(), T0).ready, '0/1');
  });

  it('keeps the stable image when the Deployment is gone, and carries canary fields over', () => {
    const previous: AppStatus = { stableImage: 'web:1', abortedImage: 'web:3', canary: { image: 'web:2', weight: 20, stepIndex: 1, stepStartedAt: 'x' } };
    const s = computeStatus(app({}, previous), observed(), T0);
    assert.equal(s.stableImage, 'web:1');
    assert.deepEqual(s.canary, previous.canary);
    assert.equal(s.abortedImage, 'web:3');
  });

  it('is unchanged (deep-equal) when computed again from its own output later', () => {
    const first = computeStatus(app(), observed({ deployment: deployment() }), T0);
    const again = computeStatus(app({}, first), observed({ deployment: deployment() }), T1);
    assert.deepEqual(again, first);
    assert.ok(sameStatus(first, again));
  });

  it('moves lastTransitionTime only for conditions whose status changed', () => {
    const first = computeStatus(app(), observed({ deployment: deployment({ ready: 2, available: 2 }) }), T0);
    const second = computeStatus(app({}, first), observed({ deployment: deployment() }), T1);
    const at = (s: AppStatus, type: string) => s.conditions!.find((c) => c.type === type)!;
    assert.equal(at(second, 'Ready').lastTransitionTime, '2026-11-22T10:05:00Z');
    assert.equal(at(second, 'Progressing').lastTransitionTime, '2026-11-22T10:05:00Z');
    assert.equal(at(second, 'Degraded').lastTransitionTime, '2026-11-22T10:00:00Z');
  });
});

describe('conditions', () => {
  const prev: Condition[] = [
    { type: 'Ready', status: 'False', lastTransitionTime: 'then', reason: 'Creating', message: 'm' },
    { type: 'CanaryHealthy', status: 'True', lastTransitionTime: 'then', reason: 'Fine', message: 'm' },
  ];

  it('keeps lastTransitionTime when only reason or message change', () => {
    const out = setConditions(prev, [{ type: 'Ready', status: 'False', reason: 'RollingOut', message: 'n' }], 5, T1);
    assert.deepEqual(out[0], { type: 'Ready', status: 'False', observedGeneration: 5, lastTransitionTime: 'then', reason: 'RollingOut', message: 'n' });
  });

  it('holds a message to 4 KiB, so that a status quoting others stays far below the API server\'s request limit', () => {
    const message = `Deployment shop/web: 422 ${'y'.repeat(900_000)}`;
    const [ready] = setConditions(prev, [{ type: 'Ready', status: 'False', reason: 'ReconcileError', message }], 5, T1);
    assert.ok(Buffer.byteLength(ready.message) <= 4096, `${Buffer.byteLength(ready.message)} bytes`);
    assert.ok(ready.message.startsWith('Deployment shop/web: 422 yyy'));
    assert.ok(ready.message.endsWith(`… (${Buffer.byteLength(message)} bytes in all)`));
    const again = setConditions([ready], [{ type: 'Ready', status: 'False', reason: 'ReconcileError', message }], 5, T1);
    assert.deepEqual(again[0], ready, 'the same long message gives the same condition: no status write on the next pass');
  });

  it('keeps conditions of other types as they were', () => {
    const out = setConditions(prev, [{ type: 'Ready', status: 'True', reason: 'Available', message: 'n' }], 5, T1);
    assert.equal(out[0].lastTransitionTime, '2026-11-22T10:05:00Z');
    assert.deepEqual(out[1], prev[1]);
  });
});

describe('status merge patch', () => {
  it('nulls fields that disappeared and detects changes regardless of key order', () => {
    assert.deepEqual(statusMergePatch({ url: 'http://x/', ready: '1/1' }, { ready: '1/1' }), { ready: '1/1', url: null });
    // Inside an object too: a merge patch merges status.canary, so a field it drops is removed by name.
    const canary = { image: 'web:2', revision: 'r2', weight: 20, stepIndex: 1, stepStartedAt: 't1' };
    assert.deepEqual(statusMergePatch({ canary: { ...canary, pausedAt: 't0' } }, { canary }), { canary: { ...canary, pausedAt: null } });
    assert.ok(sameStatus({ ready: '1/1', replicas: 1 }, { replicas: 1, ready: '1/1' }));
    assert.ok(!sameStatus({ ready: '1/1' }, { ready: '0/1' }));
  });
});

describe('progress-only status changes', () => {
  const base = (over: Partial<AppStatus> = {}, ready: Partial<Condition> = {}): AppStatus => ({
    observedGeneration: 4, replicas: 3, readyReplicas: 0, ready: '0/3', stableRevision: 'r1', stableImage: 'web:2',
    conditions: [
      { type: 'Ready', status: 'False', reason: 'Unavailable', message: '0 of 3 ready', lastTransitionTime: 't0', observedGeneration: 4, ...ready },
      { type: 'Progressing', status: 'True', reason: 'RollingOut', message: 'web: waiting', lastTransitionTime: 't0', observedGeneration: 4 },
      { type: 'Degraded', status: 'False', reason: 'AsExpected', message: 'no problems found', lastTransitionTime: 't0', observedGeneration: 4 },
    ],
    ...over,
  });

  it('are counts and the reasons and messages of Ready and Progressing, while not Ready', () => {
    assert.ok(progressOnly(base(), base({ readyReplicas: 1, ready: '1/3' }, { message: '1 of 3 ready' })));
  });

  it('are not a first status, Ready, a new generation, a canary step, a revision, or a change of Degraded', () => {
    assert.equal(progressOnly(undefined, base()), false);
    assert.equal(progressOnly(base(), base({ readyReplicas: 3, ready: '3/3' }, { status: 'True', reason: 'Available' })), false);
    assert.equal(progressOnly(base(), base({ observedGeneration: 5 })), false);
    assert.equal(progressOnly(base(), base({ canary: { image: 'web:3', weight: 20, stepIndex: 1, stepStartedAt: 't' } })), false);
    assert.equal(progressOnly(base(), base({ stableRevision: 'r2' })), false);
    const degraded = base();
    degraded.conditions![2] = { ...degraded.conditions![2], message: 'something else' };
    assert.equal(progressOnly(base(), degraded), false);
  });
});
