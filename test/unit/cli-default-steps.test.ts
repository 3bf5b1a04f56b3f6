import { strict as assert } from 'node:assert';
import { formatGet } from '../../cli/format-get.js';
import { formatList } from '../../cli/format-list.js';
import { formatStatus } from '../../cli/format-status.js';
import { stepDetail, stepText, type CliApp } from '../../cli/model.js';
import { plainStyle } from '../../cli/style.js';
import { stepsView } from '../../cli/dashboard/views.js';
import { appFixture } from '../support/app-fixture.js';

// An App stored where the webhook is not called (kube-system, Skiff's namespace): spec.rollout has
// no steps, and the controller runs the default four (20%, pause 60s, 50%, pause). The plugin
// shows the step the controller is at, not "0/0 promoting".
describe('kubectl skiff: a canary App stored without the webhook runs the default steps', () => {
  const now = new Date('2026-11-22T10:01:00Z');
  const app = appFixture({
    spec: { image: 'web:2', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary' } },
    status: {
      observedGeneration: 1, stableImage: 'web:1', stableRevision: 'aaaaaaaaaa',
      canary: { image: 'web:2', revision: 'bbbbbbbbbb', weight: 20, stepIndex: 1, stepStartedAt: '2026-11-22T10:00:18Z' },
    },
  }) as CliApp;

  it('list, get and the dashboard count and name the default steps', () => {
    assert.equal(stepText(app), '2/4');
    assert.equal(stepDetail(app), 'pause 60s');
    assert.match(formatList([app], { allNamespaces: false, now, style: plainStyle })[1], / 2\/4 /);
    assert.ok(formatGet({ app, revisions: [], deployments: [], services: [], ingresses: [], routes: [] }, now, plainStyle).some((l) => /2\/4 pause 60s, 18s left/.test(l)));
    assert.deepEqual(stepsView(app).steps.map((s) => s.text), ['setWeight 20%', 'pause 60s', 'setWeight 50%', 'pause until promoted']);
  });

  it('status shows the step and the time left in its pause', () => {
    assert.match(formatStatus(app, now), /Step: +2\/4 pause 60s, 18s left/);
  });
});

describe('kubectl skiff: an App of another strategy has no steps to show', () => {
  it('the dashboard lists no steps for a RollingUpdate App', () => {
    assert.deepEqual(stepsView(appFixture({ spec: { rollout: { strategy: 'RollingUpdate' } } }) as CliApp).steps, []);
    assert.deepEqual(stepsView(appFixture() as CliApp).steps, []);
  });
});
