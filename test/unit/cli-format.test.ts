import { strict as assert } from 'node:assert';
import { humanDuration } from '../../cli/age.js';
import { formatGet, type AppView } from '../../cli/format-get.js';
import { formatHistory, formatList } from '../../cli/format-list.js';
import { actualWeight, pauseMeans, revisionsOf, rolloutCommandRefusal, statusWord, templateHashNow, waitDecision, type CliApp, type ControllerRevision } from '../../cli/model.js';
import { commandRevision } from '../../shared/rollout-revision.js';
import { drawingSize, frame } from '../../cli/screen.js';
import { chooseStyle, fancyStyle, plainStyle } from '../../cli/style.js';
import { refuseNoOpUndo, undoPatch, undoTarget } from '../../cli/undo.js';
import { appFixture, type AppFixture } from '../support/app-fixture.js';

const now = new Date('2026-11-22T12:00:00Z');
const ago = (s: number) => new Date(now.getTime() - s * 1000).toISOString();
const cliApp = (f: AppFixture & { paused?: boolean; blueGreen?: NonNullable<CliApp['status']>['blueGreen'] } = {}): CliApp => {
  const app = appFixture({ ...f, metadata: { generation: 1, creationTimestamp: ago(7200), ...f.metadata } }) as CliApp;
  if (f.paused !== undefined) app.spec.rollout = { ...app.spec.rollout, paused: f.paused };
  if (f.blueGreen) app.status = { ...app.status, blueGreen: f.blueGreen };
  return app;
};
const cond = (type: string, status: 'True' | 'False' | 'Unknown', reason: string) => ({ type, status, reason, message: reason, lastTransitionTime: ago(60) });

const canaryApp = cliApp({
  spec: { image: 'web:3', replicas: 2, rollout: { strategy: 'Canary', steps: [{ setWeight: 25 }, { pause: { duration: '60s' } }, { setWeight: 50 }] } },
  status: {
    observedGeneration: 1, stableImage: 'web:2', stableRevision: 'bbbbbbbbbb',
    canary: { image: 'web:3', revision: 'cccccccccc', weight: 25, stepIndex: 1, stepStartedAt: ago(18), analysis: { checks: 4, failures: 1 } },
    conditions: [cond('Progressing', 'True', 'CanaryPaused')],
  },
});

const revision = (n: number, hash: string, image: string, outcome: string, startedS: number, spec: Record<string, unknown> = { image }): ControllerRevision => ({
  metadata: { name: `web-${n}`, labels: { 'skiff.dev/app': 'web', 'skiff.dev/revision': hash }, annotations: { 'skiff.dev/images': image, 'skiff.dev/changes': n === 1 ? '' : 'image', 'skiff.dev/outcome': outcome, 'skiff.dev/started-at': ago(startedS) } },
  revision: n, data: { spec },
});
const history = revisionsOf([
  revision(2, 'bbbbbbbbbb', 'web:2', 'Promoted', 3600),
  revision(1, 'aaaaaaaaaa', 'web:1', 'Promoted', 90_000, { image: 'web:1', env: [{ name: 'MODE', value: 'old' }] }),
  revision(4, 'cccccccccc', 'web:3', 'Running', 30),
  revision(3, 'dddddddddd', 'web:x', 'Aborted', 600),
]);

describe('kubectl skiff output', () => {
  it('list: the contract columns, NAMESPACE with -A, the status word by precedence', () => {
    const apps = [
      canaryApp,
      cliApp({ name: 'api', namespace: 'tools', status: { observedGeneration: 1, stableImage: 'api:1', conditions: [cond('Ready', 'True', 'Available'), cond('Progressing', 'False', 'RolloutComplete')] } }),
      cliApp({ name: 'db', paused: true, status: { observedGeneration: 1, stableImage: 'db:1' } }),
      cliApp({ name: 'old', status: { observedGeneration: 1, stableImage: 'old:1', conditions: [cond('Degraded', 'True', 'RolloutAborted')] }, paused: true }),
    ];
    assert.deepEqual(formatList(apps, { allNamespaces: true, now, style: plainStyle }), [
      'NAMESPACE   NAME   STRATEGY        STATUS        STEP   WEIGHT   IMAGE            AGE',
      'shop        db     RollingUpdate   Paused        -      -        db:1             120m',
      'shop        old    RollingUpdate   Degraded      -      -        old:1            120m',
      'shop        web    Canary          Progressing   2/3    25%      web:2 -> web:3   120m',
      'tools       api    RollingUpdate   Healthy       -      -        api:1            120m',
    ]);
  });

  it('history: oldest first with hash, image, changes, outcome and age', () => {
    assert.deepEqual(formatHistory(canaryApp, history, { now, style: plainStyle }), [
      'REVISION   HASH         IMAGE   CHANGES   OUTCOME    AGE',
      '1          aaaaaaaaaa   web:1   -         Promoted   25h',
      '2          bbbbbbbbbb   web:2   image     Promoted   60m',
      '3          dddddddddd   web:x   image     Aborted    10m',
      '4          cccccccccc   web:3   image     Running    30s',
    ]);
  });

  const view: AppView = {
    app: canaryApp, revisions: history,
    deployments: [
      { metadata: { name: 'web', annotations: { 'skiff.dev/revision': 'bbbbbbbbbb' } }, spec: { replicas: 2, template: { spec: { containers: [{ image: 'web:2' }] } } }, status: { replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 } },
      { metadata: { name: 'web-canary', annotations: { 'skiff.dev/revision': 'cccccccccc' } }, spec: { replicas: 1 }, status: { replicas: 1, updatedReplicas: 1, readyReplicas: 0, availableReplicas: 0 } },
    ],
    services: [{ metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } }],
    ingresses: [{ metadata: { name: 'web-canary', annotations: { 'nginx.ingress.kubernetes.io/canary': 'true', 'nginx.ingress.kubernetes.io/canary-weight': '20' } }, spec: { rules: [{ host: 'web.example.com' }] } }],
    routes: [],
  };

  it('get: header and tree in plain text', () => {
    assert.deepEqual(formatGet(view, now, plainStyle), [
      'Name:     shop/web',
      'Status:   Progressing',
      'Strategy: Canary',
      'Step:     2/3 pause 60s, 42s left',
      'Weight:   25% set, 20% actual',
      'Images:   web:2 (stable), web:3 (canary)',
      'Replicas: 2 desired, 3 current, 1 updated, 2 ready, 2 available',
      '',
      'App web',
      '|-- revision 4  cccccccccc  web:3  changed image  Running (canary)  30s',
      '|   `-- Deployment web-canary  0/1 ready  canary',
      '|-- revision 3  dddddddddd  web:x  changed image  Aborted  10m',
      '|-- revision 2  bbbbbbbbbb  web:2  changed image  Promoted (stable)  60m',
      '|   `-- Deployment web  2/2 ready  web:2  stable',
      '|-- 1 older revision (kubectl skiff history)',
      '|-- Service web  port 80',
      '|-- Ingress web-canary  web.example.com  canary weight 20%',
      '`-- Analysis  passed 3, failed 1',
    ]);
  });

  it('get: a revision that runs the same image as stable says what changed (a tracked ConfigMap)', () => {
    const sameImage = revisionsOf([
      revision(2, 'cccccccccc', 'web:2', 'Running', 30),
      revision(1, 'bbbbbbbbbb', 'web:2', 'Promoted', 600),
    ]).map((r) => (r.number === 2 ? { ...r, changes: ['configMap web-cfg'] } : { ...r, changes: [] }));
    const lines = formatGet({ ...view, revisions: sameImage }, now, plainStyle);
    assert.ok(lines.includes('|-- revision 2  cccccccccc  web:2  changed configMap web-cfg  Running (canary)  30s'), lines.join('\n'));
    assert.ok(lines.includes('|-- revision 1  bbbbbbbbbb  web:2  Promoted (stable)  10m'), lines.join('\n'));
  });

  it('get: during a promotion the stable Deployment, on the canary\'s template, is still called stable', () => {
    const promoting: AppView = { ...view, deployments: [
      { ...view.deployments[0]!, metadata: { name: 'web', annotations: { 'skiff.dev/revision': 'cccccccccc' } }, spec: { replicas: 2, template: { spec: { containers: [{ image: 'web:3' }] } } } },
      view.deployments[1]!,
    ] };
    const lines = formatGet(promoting, now, plainStyle);
    assert.ok(lines.includes('|   |-- Deployment web  2/2 ready  web:3  stable'), lines.join('\n'));
    assert.ok(lines.includes('|   `-- Deployment web-canary  0/1 ready  canary'), lines.join('\n'));
  });

  it('get: replicas as Argo Rollouts counts them: desired the stable Deployment\'s (an autoscaler\'s), current all pods, updated those of the template asked for', () => {
    const replicas = (v: AppView) => formatGet(v, now, plainStyle).find((l) => l.startsWith('Replicas:'));
    const d = (name: string, revision: string, replicas: number, ready = replicas) => ({ metadata: { name, annotations: { 'skiff.dev/revision': revision } }, spec: { replicas }, status: { replicas, updatedReplicas: replicas, readyReplicas: ready, availableReplicas: ready } });
    const bg = cliApp({ spec: { image: 'web:2', replicas: 3, rollout: { strategy: 'BlueGreen' as 'Canary' } }, status: { observedGeneration: 1, stableImage: 'web:1', updateRevision: 'p' } });
    assert.equal(replicas({ ...view, app: bg, revisions: [], deployments: [d('web', 'a', 3), d('web-preview', 'p', 3, 1)] }), 'Replicas: 3 desired, 6 current, 3 updated, 4 ready, 4 available');
    // An autoscaler has set the stable Deployment to 5; spec.replicas (3) is only the count it started with.
    const settled = cliApp({ spec: { image: 'web:1', replicas: 3 }, status: { observedGeneration: 1, stableImage: 'web:1', updateRevision: 'a' } });
    assert.equal(replicas({ ...view, app: settled, revisions: [], deployments: [d('web', 'a', 5)] }), 'Replicas: 5 desired, 5 current, 5 updated, 5 ready, 5 available');
    // Aborted: the template asked for runs nowhere.
    const aborted = cliApp({ spec: { image: 'web:x', replicas: 3 }, status: { observedGeneration: 1, stableImage: 'web:1', updateRevision: 'x' } });
    assert.equal(replicas({ ...view, app: aborted, revisions: [], deployments: [d('web', 'a', 3)] }), 'Replicas: 3 desired, 3 current, 0 updated, 3 ready, 3 available');
    assert.equal(replicas({ ...view, app: aborted, revisions: [], deployments: [] }), 'Replicas: 3 desired, 0 ready');
  });

  it('get: colours and symbols on a terminal only', () => {
    const lines = formatGet(view, now, fancyStyle);
    assert.equal(lines[1], 'Status:   \u001b[33m◌ Progressing\u001b[0m');
    assert.equal(lines[5], 'Images:   web:2 (\u001b[32mstable\u001b[0m), web:3 (\u001b[33mcanary\u001b[0m)');
    assert.equal(lines.at(-1), '└── Analysis  \u001b[32m✔ 3\u001b[0m \u001b[31m✖ 1\u001b[0m');
    assert.equal(chooseStyle({ color: true, isTTY: true, env: {} }), fancyStyle);
    assert.equal(chooseStyle({ color: true, isTTY: true, env: { NO_COLOR: '1' } }), plainStyle);
    assert.equal(chooseStyle({ color: false, isTTY: true, env: {} }), plainStyle);
    assert.equal(chooseStyle({ color: true, isTTY: false, env: {} }), plainStyle);
  });

  it('get: the image of an App never rolled out (no stable image yet: its first Deployment not ready, or blocked) is new, not stable', () => {
    const first = cliApp({ spec: { image: 'web:1' }, status: { observedGeneration: 1 } });
    assert.equal(formatGet({ ...view, app: first, revisions: [], deployments: [], ingresses: [] }, now, plainStyle).find((l) => l.startsWith('Images:')), 'Images:   web:1 (new)');
  });

  it('get: blue-green roles, a paused canary, and the weight of an HTTPRoute', () => {
    const bg = cliApp({ spec: { image: 'web:2', rollout: { strategy: 'BlueGreen' as 'Canary' } }, blueGreen: { previewRevision: 'p', activeRevision: 'a', phase: 'Preview' }, status: { observedGeneration: 1, stableImage: 'web:1' } });
    const lines = formatGet({ ...view, app: bg, revisions: [], deployments: [], ingresses: [] }, now, plainStyle);
    assert.deepEqual(lines.slice(2, 5), ['Strategy: BlueGreen', 'Step:     Preview', 'Images:   web:1 (active), web:2 (preview)']);
    // After the switch the Service selects the new revision: it is the active one, the old pods are stable's.
    const switched = { ...bg, status: { ...bg.status, blueGreen: { previewRevision: 'p', activeRevision: 'p', phase: 'Switched' as const, image: 'web:2' } } };
    assert.equal(formatGet({ ...view, app: switched, revisions: [], deployments: [], ingresses: [] }, now, plainStyle)[4], 'Images:   web:1 (stable), web:2 (active)');
    // When it switched, and when the pods without traffic go.
    const at = (b: Partial<NonNullable<NonNullable<CliApp['status']>['blueGreen']>>) => formatGet({ ...view, app: { ...switched, status: { ...switched.status, blueGreen: { ...switched.status.blueGreen, ...b } } }, revisions: [], deployments: [], ingresses: [] }, now, plainStyle)[3];
    assert.equal(at({ switchedAt: ago(12), scaleDownAt: ago(-18) }), 'Step:     Switched, switched 12s ago, old pods go in 18s');
    assert.equal(at({ phase: 'ScalingDown', switchedAt: ago(40), scaleDownAt: ago(10) }), 'Step:     ScalingDown, switched 40s ago');
    assert.equal(at({ phase: 'ScalingDown', activeRevision: 'a', switchedAt: ago(5), scaleDownAt: ago(-25) }), 'Step:     ScalingDown, switched back 5s ago, preview pods go in 25s');
    // A blue-green rollout's checks: of the preview before the switch, under full traffic after it.
    const checked = (lastWeight: number) => ({ ...switched, spec: { ...switched.spec, rollout: { ...switched.spec.rollout, analysis: { interval: '10s' } } }, status: { ...switched.status, blueGreen: { ...switched.status.blueGreen, analysis: { checks: 3, failures: 1, inconclusive: 1, lastResult: 'Failed' as const, lastWeight } } } }) as CliApp;
    assert.equal(formatGet({ ...view, app: checked(100), revisions: [], deployments: [], ingresses: [] }, now, plainStyle).at(-1), '`-- Analysis  passed 1, failed 1, inconclusive 1  last Failed under full traffic');
    assert.equal(formatGet({ ...view, app: checked(0), revisions: [], deployments: [], ingresses: [] }, now, plainStyle).at(-1), '`-- Analysis  passed 1, failed 1, inconclusive 1  last Failed of the preview');
    // noData: Fail counts the inconclusive checks among the failed ones: two such checks passed none.
    const failing = checked(0);
    failing.spec.rollout!.analysis!.noData = 'Fail';
    failing.status!.blueGreen!.analysis = { checks: 2, failures: 2, inconclusive: 2, lastResult: 'Inconclusive', lastWeight: 0 };
    assert.equal(formatGet({ ...view, app: failing, revisions: [], deployments: [], ingresses: [] }, now, plainStyle).at(-1), '`-- Analysis  passed 0, failed 2, inconclusive 2  last Inconclusive of the preview');
    const unchecked = { ...bg, spec: { ...bg.spec, rollout: { ...bg.spec.rollout, analysis: { interval: '10s' } } } } as CliApp;
    assert.equal(formatGet({ ...view, app: unchecked, revisions: [], deployments: [], ingresses: [] }, now, plainStyle).at(-1), '`-- Analysis  no check yet');
    const paused = structuredClone(canaryApp);
    paused.spec.rollout!.paused = true;
    paused.status!.canary!.pausedAt = ago(5);
    assert.equal(statusWord(paused), 'Paused');
    assert.equal(formatGet({ ...view, app: paused }, now, plainStyle)[3], 'Step:     2/3 pause 60s, rollout paused');
    const route = { metadata: { name: 'web' }, spec: { rules: [{ backendRefs: [{ name: 'web', weight: 70 }, { name: 'web-canary', weight: 30 }] }] } };
    assert.equal(actualWeight(canaryApp, [], [route]), 30);
  });

  it('a frame overwrites the screen in place: home, each line cleared to its end, the rest cleared', () => {
    assert.equal(frame(['ab', 'a very long line'], 6, 10), '\u001b[Hab\u001b[K\r\na ver…\u001b[K\u001b[J');
    assert.equal(frame(['1', '2', '3'], 80, 2), '\u001b[H1\u001b[K\r\n2\u001b[K\u001b[J');
  });

  it('an age a little below zero (the API server\'s clock up to 2 s ahead) is 0s, as kubectl shows it; <invalid> only beyond', () => {
    // apimachinery's HumanDuration: int(d.Seconds()) truncates toward zero, tolerating up to 2 s (excluded) of skew.
    assert.deepEqual([-500, -1000, -1500, -1999, -2000, -5000].map((ms) => humanDuration(ms)), ['0s', '0s', '0s', '0s', '<invalid>', '<invalid>']);
  });

  it('ages as kubectl prints them', () => {
    assert.deepEqual([5, 119, 200, 3600, 4 * 3600 + 300, 30 * 3600, 3 * 86400 + 3600, 40 * 86400].map((s) => humanDuration(s * 1000)), ['5s', '119s', '3m20s', '60m', '4h5m', '30h', '3d1h', '40d']);
  });
});

describe('kubectl skiff decisions', () => {
  it('promote and abort act only where the controller acts on them: refused with why elsewhere', () => {
    const blue = (phase: 'Preview' | 'Switched' | 'ScalingDown', activeRevision: string) => cliApp({
      spec: { image: 'web:2', rollout: { strategy: 'BlueGreen' } },
      blueGreen: { previewRevision: 'r2', activeRevision, phase, scaleDownAt: ago(-20) },
    });
    const both = (app: CliApp) => [rolloutCommandRefusal(app, 'promote'), rolloutCommandRefusal(app, 'abort')];
    assert.deepEqual(both(canaryApp), [undefined, undefined]);
    assert.deepEqual(both(blue('Preview', 'r1')), [undefined, undefined]);
    const [promoteSwitched, abortSwitched] = both(blue('Switched', 'r2'));
    assert.match(promoteSwitched!, /^is switched already: the Service selects revision r2, .*\(kubectl skiff abort switches back until then\)/);
    assert.equal(abortSwitched, undefined, 'an abort switches back');
    for (const r of both(blue('ScalingDown', 'r2'))) assert.match(r!, /^has switched to revision r2 and its old pods are going/);
    // Switched back by an abort: retry runs it again. Switched back because the template went back
    // to stable (an undo; the history says Cancelled): nothing to retry, and no abort to speak of.
    const switchedBack = (abortedRevision?: string) => cliApp({
      spec: { image: 'web:1', rollout: { strategy: 'BlueGreen' } },
      status: { observedGeneration: 1, stableRevision: 'r1', updateRevision: 'r1', ...(abortedRevision && { abortedRevision }) },
      blueGreen: { previewRevision: 'r2', activeRevision: 'r1', phase: 'ScalingDown', scaleDownAt: ago(-20) },
    });
    const [promoteAborted, abortAborted] = both(switchedBack('r2'));
    assert.match(promoteAborted!, /^had its blue-green rollout of revision r2 aborted .* the preview's pods are going; there is nothing to promote \(kubectl skiff retry rolls it out again\)$/);
    assert.match(abortAborted!, /^had its blue-green rollout of revision r2 aborted .* there is nothing to abort$/);
    for (const r of both(switchedBack())) {
      assert.match(r!, /^had its blue-green rollout of revision r2 cancelled \(the pod template went back to stable\) .* the preview's pods are going; there is nothing to (promote|abort)$/);
    }
    // A new pod template (r3) waits for the pods switched back from to go: a promotion stays on the
    // App for its preview, and an abort aborts r3 (the controller acts on both).
    const waiting = cliApp({ spec: { image: 'web:3', rollout: { strategy: 'BlueGreen' } }, status: { observedGeneration: 1, stableRevision: 'r1', updateRevision: 'r3' }, blueGreen: { previewRevision: 'r2', activeRevision: 'r1', phase: 'ScalingDown', scaleDownAt: ago(-20) } });
    assert.deepEqual(both(waiting), [undefined, undefined]);
    // r3 aborted already: nothing left to promote or abort.
    const abortedWaiting = cliApp({ spec: { image: 'web:3', rollout: { strategy: 'BlueGreen' } }, status: { observedGeneration: 1, stableRevision: 'r1', updateRevision: 'r3', abortedRevision: 'r3' }, blueGreen: { previewRevision: 'r2', activeRevision: 'r1', phase: 'ScalingDown', scaleDownAt: ago(-20) } });
    for (const r of both(abortedWaiting)) assert.match(r!, /the preview's pods are going/);
    assert.match(rolloutCommandRefusal(cliApp({ spec: { image: 'web:1', rollout: { strategy: 'Canary' } } }), 'promote')!, /no canary rollout in progress/);
    // web:3's canary waits for web:2's pods to go: nothing of it runs, nothing to promote yet; an abort acts.
    const waitingCanary = cliApp({ spec: { image: 'web:3', rollout: { strategy: 'Canary' } }, status: { observedGeneration: 1, stableRevision: 'r1', canary: { image: 'web:3', revision: 'r3', weight: 0, stepIndex: 0, stepStartedAt: ago(5) }, scaleDown: { revision: 'r2', deleteAt: ago(-25) } } });
    assert.match(rolloutCommandRefusal(waitingCanary, 'promote')!, /canary of revision r3 that has not started: the earlier canary's pods \(revision r2\) go first/);
    assert.equal(rolloutCommandRefusal(waitingCanary, 'abort'), undefined);
    assert.equal(rolloutCommandRefusal(cliApp({ spec: { image: 'web:3', rollout: { strategy: 'Canary' } }, status: { ...waitingCanary.status, scaleDown: { revision: 'r3', deleteAt: ago(-25) } } }), 'promote'), undefined, 'its own pods winding down after a promotion: as before');
    assert.match(rolloutCommandRefusal(cliApp({ spec: { image: 'web:1' } }), 'abort')!, /spec.rollout.strategy is RollingUpdate/);
    // Nothing to promote, with the command that acts: retry after an abort, resume for a change a pause holds.
    const aborted = cliApp({ spec: { image: 'web:3', rollout: { strategy: 'Canary' } }, status: { observedGeneration: 1, stableRevision: 'r1', updateRevision: 'r3', abortedRevision: 'r3' } });
    assert.equal(rolloutCommandRefusal(aborted, 'promote'), 'has no canary rollout in progress: the rollout of revision r3 was aborted; there is nothing to promote (kubectl skiff retry runs it again)');
    const heldCanary = cliApp({ paused: true, spec: { image: 'web:3', rollout: { strategy: 'Canary' } }, status: { observedGeneration: 1, stableRevision: 'r1', updateRevision: 'r3' } });
    assert.equal(rolloutCommandRefusal(heldCanary, 'promote'), 'has no canary rollout in progress: the pod-template change (revision r3) waits for spec.rollout.paused to be false, and no canary of it runs yet; there is nothing to promote (kubectl skiff resume starts its canary, which can be promoted then)');
    // A promotion under way (status.canary.step "promotion"): another promote changes nothing; an abort takes it back.
    const promoting = cliApp({ spec: { image: 'web:3', rollout: { strategy: 'Canary' } }, status: { observedGeneration: 1, stableRevision: 'r1', canary: { image: 'web:3', revision: 'r3', weight: 100, stepIndex: 4, step: 'promotion', stepStartedAt: ago(5) } } });
    assert.equal(rolloutCommandRefusal(promoting, 'promote'), 'is promoting the canary of web:3 (revision r3) already: the stable Deployment takes its pod template; there is nothing to promote');
    assert.equal(rolloutCommandRefusal(promoting, 'abort'), undefined);
  });

  it('pause says what it holds in the rollout\'s phase: a promotion or a switched blue-green rollout goes on to its end', () => {
    assert.equal(pauseMeans(canaryApp), 'the canary holds its weight and step; a new pod template waits');
    const promoting = cliApp({ spec: { image: 'web:3', rollout: { strategy: 'Canary' } }, status: { ...canaryApp.status, canary: { ...canaryApp.status!.canary!, step: 'promotion', stepIndex: 3 } } });
    assert.equal(pauseMeans(promoting), 'the promotion of web:3 under way goes on to its end; a new pod template waits');
    const bg = (phase: 'Preview' | 'Switched' | 'ScalingDown', activeRevision = 'p') => cliApp({ spec: { image: 'web:2', rollout: { strategy: 'BlueGreen' } }, blueGreen: { previewRevision: 'p', activeRevision, phase, scaleDownAt: ago(-30) } });
    assert.equal(pauseMeans(bg('Preview', 'a')), 'the preview holds before the switch; a new pod template waits');
    assert.equal(pauseMeans(bg('Switched')), `the Service has switched already: the old pods still go at ${ago(-30)} (kubectl skiff abort switches back until then); a new pod template waits`);
    assert.equal(pauseMeans(bg('ScalingDown')), 'the scale-down after the switch goes on to its end; a new pod template waits');
    assert.equal(pauseMeans(bg('ScalingDown', 'a')), 'no preview runs; a new pod template waits', 'switched back: the preview\'s pods only go');
    assert.equal(pauseMeans(cliApp({ spec: { image: 'web:1' } })), 'the Deployment is paused: a new pod template waits');
  });

  const withConditions = (generation: number, observed: number, ...conditions: ReturnType<typeof cond>[]) =>
    cliApp({ metadata: { generation }, status: { observedGeneration: observed, stableImage: 'web:1', conditions } });

  it('status --wait: done when the current generation is rolled out and Ready, failed when Degraded, else waiting', () => {
    const complete = [cond('Progressing', 'False', 'RolloutComplete'), cond('Ready', 'True', 'Available')];
    assert.deepEqual(waitDecision(withConditions(2, 2, ...complete)), { done: true, code: 0, message: 'app shop/web: rolled out (web:1)' });
    assert.equal(waitDecision(withConditions(3, 2, ...complete)).done, false, 'a generation not yet observed is not rolled out');
    // A status that says RolloutComplete while spec's revision is not the stable one (written so by
    // a controller before the completing pass said the next rollout): not rolled out.
    const moved = cliApp({ metadata: { generation: 2 }, status: { observedGeneration: 2, stableImage: 'web:2', stableRevision: 'r2', updateRevision: 'r3', conditions: complete } });
    assert.deepEqual(waitDecision(moved), { done: false, message: 'app shop/web: revision r2 is stable; the App asks for revision r3, whose rollout has not started' });
    assert.equal(waitDecision(cliApp({ metadata: { generation: 2 }, status: { ...moved.status, updateRevision: 'r2' } })).done, true);
    assert.equal(waitDecision(withConditions(2, 2, cond('Progressing', 'False', 'RolloutComplete'), cond('Ready', 'False', 'Unavailable'))).done, false);
    assert.equal(waitDecision(withConditions(2, 2, cond('Progressing', 'True', 'CanaryPaused'), cond('Ready', 'True', 'Available'))).done, false);
    const degraded = waitDecision(withConditions(2, 2, cond('Degraded', 'True', 'RolloutAborted'), ...complete));
    assert.deepEqual(degraded, { done: true, code: 1, message: 'app shop/web: Degraded (RolloutAborted): RolloutAborted' });
    assert.equal(waitDecision(withConditions(3, 2, cond('Degraded', 'True', 'RolloutAborted'))).done, false, 'Degraded of an older generation: wait for the new one');
    const retried = withConditions(2, 2, cond('Degraded', 'True', 'RolloutAborted'), ...complete);
    retried.metadata.annotations = { 'skiff.dev/retry': 'true' };
    assert.deepEqual(waitDecision(retried), { done: false, message: 'app shop/web: a retry not yet taken up by the controller' }, 'retry changes no generation: the abort is not its outcome');
  });

  it('status --wait on a paused App: done once spec\'s revision is stable and ready, waiting while a change is held', () => {
    const paused = (status: Record<string, unknown>, ready: 'True' | 'False' = 'True') => cliApp({
      metadata: { generation: 3 },
      spec: { rollout: { strategy: 'Canary', paused: true } },
      status: { observedGeneration: 3, stableImage: 'web:1', stableRevision: 'aaaaaaaaaa', ...status, conditions: [cond('Progressing', 'Unknown', 'RolloutPaused'), cond('Ready', ready, 'Available')] },
    });
    assert.deepEqual(waitDecision(paused({ updateRevision: 'aaaaaaaaaa' })), { done: true, code: 0, message: 'app shop/web: rolled out (web:1); rollouts of the App are paused' });
    assert.equal(waitDecision(paused({ updateRevision: 'bbbbbbbbbb' })).done, false, 'a new template held by the pause is not rolled out');
    assert.equal(waitDecision(paused({ updateRevision: 'aaaaaaaaaa' }, 'False')).done, false, 'a paused Deployment still rolling (RollingUpdate) is not rolled out');
    assert.equal(waitDecision(paused({ updateRevision: 'bbbbbbbbbb', canary: { revision: 'bbbbbbbbbb', image: 'web:2', weight: 20, stepIndex: 0 } })).done, false, 'a canary held at its step');
    assert.equal(waitDecision(paused({ updateRevision: 'aaaaaaaaaa', blueGreen: { phase: 'ScalingDown', previewRevision: 'aaaaaaaaaa' } })).done, false, 'a preview still winding down');
    assert.equal(waitDecision(paused({})).done, false, 'a status from a controller that does not say spec\'s revision');
  });

  it('undo: the newest promoted revision other than the current template, or the one asked for', () => {
    assert.equal(undoTarget('shop/web', history).number, 2);
    assert.equal(undoTarget('shop/web', history, 1).number, 1);
    assert.throws(() => undoTarget('shop/web', history, 7), /has no revision 7 \(revisions: 1, 2, 3, 4\)/);
    assert.throws(() => undoTarget('shop/web', []), /no revision history/);
    assert.throws(() => undoTarget('shop/web', history.filter((r) => r.hash === 'cccccccccc')), /no earlier promoted revision/);
  });

  it('undo: with a change held back by a pause (no revision of it yet), the default is the stable revision, not the one before it', () => {
    const stableOnTop = history.filter((r) => r.number <= 2); // revision 2 stable and newest; spec asks for another template, held
    const held = cliApp({ metadata: { generation: 4 }, spec: { image: 'web:3', rollout: { strategy: 'Canary', paused: true } }, status: { observedGeneration: 4, stableRevision: 'bbbbbbbbbb', updateRevision: 'eeeeeeeeee' } });
    assert.equal(templateHashNow(held, stableOnTop), 'eeeeeeeeee');
    assert.equal(undoTarget('shop/web', stableOnTop, undefined, templateHashNow(held, stableOnTop)).number, 2);
    assert.equal(undoTarget('shop/web', stableOnTop).number, 1, 'taken for the current template, the newest entry would be skipped');
    // Not yet observed by the controller: the newest entry stands for the current template, as before.
    const unobserved = { ...held, status: { ...held.status, observedGeneration: 3 } };
    assert.equal(templateHashNow(unobserved, stableOnTop), 'bbbbbbbbbb');
  });

  it('undo: a merge patch of every pod-template field, with skip-canary only for a revision promoted before', () => {
    const patch = undoPatch('shop/web', history, history.find((r) => r.number === 1)!, true) as { spec: Record<string, unknown>; metadata: unknown };
    assert.equal(patch.spec.image, 'web:1');
    assert.deepEqual(patch.spec.env, [{ name: 'MODE', value: 'old' }]);
    assert.equal(patch.spec.probes, null, 'a field the revision did not set is removed');
    assert.equal('replicas' in patch.spec, false, 'fields outside the pod template are not touched');
    assert.deepEqual(patch.metadata, { annotations: { 'skiff.dev/skip-canary': 'aaaaaaaaaa' } });
    assert.equal(undoPatch('shop/web', history, history[0], false).metadata, undefined);
    assert.throws(() => undoPatch('shop/web', history, history.find((r) => r.number === 3)!, true), /revision 3 \(hash dddddddddd\) was never promoted/);
  });

  it('undo: applied as a merge patch (RFC 7386) to the App now, it gives exactly the revision\'s pod-template fields, maps included', () => {
    // RFC 7386: objects merge key by key, null removes, anything else replaces.
    const merge = (target: unknown, patch: unknown): unknown => {
      if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
      const out: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
      for (const [k, v] of Object.entries(patch)) {
        if (v === null) delete out[k];
        else out[k] = merge(out[k], v);
      }
      return out;
    };
    const now = {
      image: 'web:2', replicas: 3, podAnnotations: { a: '1', b: '2' },
      resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '1Gi' } },
      probes: { readiness: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 5 } },
      nodeSelector: { zone: 'a' },
    };
    const target = { ...history.find((r) => r.number === 1)!, spec: { image: 'web:1', podAnnotations: { a: '1' }, resources: { requests: { cpu: '100m' } }, probes: { readiness: { httpGet: { path: '/ready', port: 8080 } } } } };
    const patch = undoPatch('shop/web', history, target, false, now as never) as { spec: Record<string, unknown> };
    assert.deepEqual(merge(now, patch.spec), { replicas: 3, ...target.spec });
  });

  it('undo: refused when it would change nothing (the template already, or tracked configuration data that lives outside the App)', () => {
    const one = history.find((r) => r.number === 1)!;
    // Field order and absent fields do not count as differences; any value that differs does.
    assert.doesNotThrow(() => refuseNoOpUndo('shop/web', { image: 'web:3' }, history, one));
    assert.doesNotThrow(() => refuseNoOpUndo('shop/web', { image: 'web:1' }, history, one), 'env differs (revision 1 set it)');
    assert.throws(() => refuseNoOpUndo('shop/web', { env: [{ value: 'old', name: 'MODE' }], image: 'web:1', probes: undefined }, history, one), /differs in the data of what the template references/);
    assert.throws(() => refuseNoOpUndo('shop/web', { image: 'web:3' }, history, history.find((r) => r.number === 4)!), /has revision 4's pod template already \(hash cccccccccc\): nothing to undo/);
    // The same fields, one run on copies and one not: trackConfig was turned off (or on) since.
    const onCopies = { ...one, onCopies: true };
    const sameFields = { env: [{ value: 'old', name: 'MODE' }], image: 'web:1', probes: undefined };
    assert.throws(() => refuseNoOpUndo('shop/web', { ...sameFields, rollout: { trackConfig: false } } as never, history, onCopies), /revision 1 \(hash [a-z]+\) has the pod-template fields the App has now; it ran on copies of the configuration it references, and spec.rollout.trackConfig is false now: set it to true/);
    assert.throws(() => refuseNoOpUndo('shop/web', { ...sameFields, rollout: { trackConfig: true } } as never, history, one), /it ran on the configuration it references itself, not on copies, and spec.rollout.trackConfig is true now: set it to false/);
    assert.throws(() => refuseNoOpUndo('shop/web', { ...sameFields, rollout: { trackConfig: true } } as never, history, onCopies), /differs in the data of what the template references/);
    const tracked = revisionsOf([
      revision(2, 'bbbbbbbbbb', 'web:1', 'Promoted', 60),
      revision(1, 'aaaaaaaaaa', 'web:1', 'Promoted', 600),
    ]).map((r) => (r.number === 2 ? { ...r, changes: ['configMap web-cfg'] } : r));
    assert.throws(() => refuseNoOpUndo('shop/web', { image: 'web:1' }, tracked, tracked[1]), /revision 1 \(hash aaaaaaaaaa\) .*\(configMap web-cfg\), which undo cannot put back: restore that data to go back to it \(rolled out as any change; at once, with nothing to roll out, when it is the stable revision\)$/);
  });
});

describe('kubectl skiff get --watch: the size it draws at', () => {
  it('is the terminal\'s, or 80×24 where the terminal reports none or 0×0 (lines are not cut to nothing)', () => {
    assert.deepEqual(drawingSize({ columns: 132, rows: 50 }), { columns: 132, rows: 50 });
    assert.deepEqual(drawingSize({ columns: 0, rows: 0 }), { columns: 80, rows: 24 });
    assert.deepEqual(drawingSize({}), { columns: 80, rows: 24 });
    assert.match(frame(['NAME  web'], drawingSize({ columns: 0, rows: 0 }).columns, 24), /NAME {2}web/);
  });
});

describe('commandRevision: what promote and abort act on', () => {
  it('a canary\'s revision; a blue-green preview\'s; spec\'s newer template whose preview has not started', () => {
    assert.equal(commandRevision({ canary: { revision: 'c' } }, 'x'), 'c');
    assert.equal(commandRevision({ stableRevision: 'a', blueGreen: { previewRevision: 'b' } }, 'b'), 'b');
    assert.equal(commandRevision({ stableRevision: 'a', blueGreen: { previewRevision: 'b' } }, undefined), 'b', 'a generation not yet seen: the rollout in status');
    assert.equal(commandRevision({ stableRevision: 'a', blueGreen: { previewRevision: 'b' } }, 'c'), 'c', 'a newer template waiting for b\'s pods');
    assert.equal(commandRevision({ stableRevision: 'a' }, 'c'), 'c', 'held by a pause');
    assert.equal(commandRevision({ stableRevision: 'a', blueGreen: { previewRevision: 'b' } }, 'a'), 'b', 'back to stable: b\'s pods still go');
    assert.equal(commandRevision({ stableRevision: 'a', abortedRevision: 'c' }, 'c'), undefined, 'an aborted template');
  });
});
