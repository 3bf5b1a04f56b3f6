import { strict as assert } from 'node:assert';
import { Registry } from 'prom-client';
import type { App } from '../../shared/app-types.js';
import { appHealth } from '../../shared/app-health.js';
import { registerRolloutMetrics } from '../../controller/state/rollout-metrics.js';

const cond = (type: string, status: 'True' | 'False' | 'Unknown', reason: string) => ({ type, status, reason, message: '', lastTransitionTime: '2026-11-24T10:00:00Z' });

function app(name: string, extra: { generation?: number; status?: App['status']; paused?: boolean; strategy?: 'Canary' | 'RollingUpdate' } = {}): App {
  return {
    apiVersion: 'skiff.dev/v1alpha1',
    kind: 'App',
    metadata: { name, namespace: 'shop', generation: extra.generation ?? 1 },
    spec: { image: 'web:1', rollout: { strategy: extra.strategy ?? 'Canary', ...(extra.paused ? { paused: true } : {}) } as App['spec']['rollout'] },
    status: extra.status,
  };
}

const healthy: App['status'] = { observedGeneration: 1, stableRevision: 'abc123', conditions: [cond('Ready', 'True', 'Available'), cond('Progressing', 'False', 'RolloutComplete'), cond('Degraded', 'False', 'AsExpected')] };

describe('appHealth', () => {
  it('is Healthy when the current generation is rolled out and Ready', () => {
    assert.equal(appHealth(app('web', { status: healthy })), 'Healthy');
  });
  it('is Progressing before the controller saw the generation, during a canary, or while not Ready', () => {
    assert.equal(appHealth(app('web', { generation: 2, status: healthy })), 'Progressing');
    assert.equal(appHealth(app('web', { status: { ...healthy, canary: { image: 'web:2', weight: 10, stepIndex: 0, stepStartedAt: '' } } })), 'Progressing');
    assert.equal(appHealth(app('web', { status: { ...healthy, conditions: [cond('Ready', 'False', 'Unavailable')] } })), 'Progressing');
    assert.equal(appHealth(app('web')), 'Progressing', 'never reconciled');
  });
  it('is Paused when spec.rollout.paused, and Degraded above everything', () => {
    assert.equal(appHealth(app('web', { status: healthy, paused: true })), 'Paused');
    const degraded = { ...healthy, conditions: [cond('Degraded', 'True', 'RolloutAborted')] };
    assert.equal(appHealth(app('web', { status: degraded, paused: true })), 'Degraded');
  });
});

describe('rollout metrics', () => {
  function setup(apps: App[], reporting = true) {
    const registry = new Registry();
    // What the routing carries, by App: the canary Ingress's or the HTTPRoute's weight.
    const state = { apps, reporting, routed: new Map<string, number>([['api', 20]]) };
    registerRolloutMetrics(registry, { apps: () => state.apps, reporting: () => state.reporting, canaryWeight: (a) => state.routed.get(a.metadata.name!) ?? 0 });
    return { state, text: () => registry.metrics() };
  }

  it('reports each App\'s info, phase, weight and conditions', async () => {
    const canary = app('api', { status: { ...healthy, canary: { image: 'web:2', weight: 20, stepIndex: 0, stepStartedAt: '' } } });
    const { text } = setup([app('web', { status: healthy }), canary]);
    const out = await text();
    for (const line of [
      'skiff_app_info{namespace="shop",app="web",strategy="Canary",revision="abc123"} 1',
      'skiff_app_phase{namespace="shop",app="web",phase="Healthy"} 1',
      'skiff_app_phase{namespace="shop",app="web",phase="Degraded"} 0',
      'skiff_app_phase{namespace="shop",app="api",phase="Progressing"} 1',
      'skiff_canary_weight{namespace="shop",app="web"} 0',
      'skiff_canary_weight{namespace="shop",app="api"} 20',
      'skiff_app_condition{namespace="shop",app="web",condition="Progressing",status="False",reason="RolloutComplete"} 1',
    ]) assert.ok(out.split('\n').includes(line), `${line}\nin\n${out}`);
  });

  it('drops the series of an App gone from the cache, and of a condition whose reason changed', async () => {
    const { state, text } = setup([app('web', { status: healthy }), app('api', { status: healthy })]);
    assert.match(await text(), /app="api"/);
    const aborted = { ...healthy, conditions: [cond('Degraded', 'True', 'RolloutAborted')] };
    state.apps = [app('web', { status: aborted })];
    const out = await text();
    assert.doesNotMatch(out, /app="api"/);
    assert.doesNotMatch(out, /reason="AsExpected"/);
    assert.match(out, /skiff_app_condition\{namespace="shop",app="web",condition="Degraded",status="True",reason="RolloutAborted"\} 1/);
  });

  it('reports the weight the routing carries, not the one the status has decided on', async () => {
    // A weight just decided (or refused: the canary Ingress's name is someone else's) is in the
    // status before any traffic goes to the canary.
    const decided = app('api', { status: { ...healthy, canary: { image: 'web:2', weight: 50, stepIndex: 2, stepStartedAt: '' } } });
    const { state, text } = setup([decided]);
    assert.ok((await text()).split('\n').includes('skiff_canary_weight{namespace="shop",app="api"} 20'));
    state.routed.delete('api');
    assert.ok((await text()).split('\n').includes('skiff_canary_weight{namespace="shop",app="api"} 0'));
  });

  it('reports nothing on a standby replica', async () => {
    const { state, text } = setup([app('web', { status: healthy })], false);
    assert.doesNotMatch(await text(), /app="web"/);
    state.reporting = true;
    assert.match(await text(), /app="web"/);
  });
});
