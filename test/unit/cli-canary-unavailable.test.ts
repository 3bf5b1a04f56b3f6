// A canary with traffic that has lost its ready pods holds its step, and the controller records
// since when in status.canary.unavailableSince; once that is progressDeadlineSeconds ago the
// canary is aborted. `kubectl skiff status` and `get` (and the dashboard's App page) did not show
// it, so a rollout stuck on it looked like one waiting for nothing.
import { strict as assert } from 'node:assert';
import { detail } from '../../cli/dashboard/views.js';
import { formatGet } from '../../cli/format-get.js';
import { formatStatus } from '../../cli/format-status.js';
import type { CliApp } from '../../cli/model.js';
import { plainStyle } from '../../cli/style.js';
import { appFixture } from '../support/app-fixture.js';

const now = new Date('2026-11-22T12:00:00Z');
const canary = (unavailableSince?: string) => appFixture({
  metadata: { generation: 1, uid: 'u1', creationTimestamp: '2026-11-22T11:00:00Z' },
  spec: { image: 'web:2', rollout: { strategy: 'Canary', steps: [{ setWeight: 20 }, { pause: {} }] } },
  status: {
    observedGeneration: 1, stableImage: 'web:1',
    canary: { image: 'web:2', weight: 20, stepIndex: 0, stepStartedAt: '2026-11-22T11:58:00Z', ...(unavailableSince && { unavailableSince }) },
  },
}) as CliApp;
const view = (app: CliApp) => ({ app, revisions: [], deployments: [], services: [], ingresses: [], routes: [] });
const none = { deployments: [], services: [], ingresses: [], routes: [], revisions: [], disruptionBudgets: [], autoscalers: [], configMaps: [] };

describe('kubectl skiff: a canary with traffic and no available pods', () => {
  it('status shows since when, and how long ago', () => {
    assert.match(formatStatus(canary('2026-11-22T11:59:15Z'), now), /^Canary: +unavailable since 2026-11-22T11:59:15Z \(45s ago\)$/m);
    assert.doesNotMatch(formatStatus(canary(), now), /unavailable/);
  });

  it('get shows it in the header', () => {
    assert.ok(formatGet(view(canary('2026-11-22T11:57:00Z')), now, plainStyle).includes('Canary:   unavailable since 2026-11-22T11:57:00Z (3m ago)'));
    assert.ok(!formatGet(view(canary()), now, plainStyle).some((l) => /unavailable/.test(l)));
  });

  it('the dashboard\'s App detail carries it to the page', () => {
    assert.equal(detail('shop/web', canary('2026-11-22T11:59:15Z'), none, []).canary?.unavailableSince, '2026-11-22T11:59:15Z');
  });
});
