import { strict as assert } from 'node:assert';
import { appTraffic, blueGreenTraffic } from '../../dev/traffic-simulator.js';
import type { App } from '../../shared/app-types.js';
import { appFixture } from '../support/app-fixture.js';

/** An App behind an Ingress, with a canary at `weight` if given. */
const app = (weight?: number, annotations?: Record<string, string>): App => appFixture({
  annotations,
  spec: { ingress: { host: 'web.example.com' } },
  status: weight === undefined ? {} : { canary: { image: 'web:2', weight, stepIndex: 0, stepStartedAt: '2026-11-22T10:00:00Z' } },
});

describe('simulated traffic for npm run dev', () => {
  it('sends everything to stable without a canary, and splits by the canary weight', () => {
    assert.deepEqual(appTraffic(app()), { stable: { rps: 20, errorRatio: 0, latencyMs: 40 }, canary: undefined });
    const t = appTraffic(app(25));
    assert.deepEqual([t.stable.rps, t.canary?.rps], [15, 5]);
    assert.deepEqual(appTraffic(app(0)).canary, undefined);
  });
  it('takes the canary error ratio and latency from annotations, clamped and defaulted', () => {
    assert.deepEqual(appTraffic(app(50, { 'dev.skiff.dev/canary-error-ratio': '0.3', 'dev.skiff.dev/canary-latency-ms': '900' })).canary, { rps: 10, errorRatio: 0.3, latencyMs: 900 });
    assert.deepEqual(appTraffic(app(50, { 'dev.skiff.dev/canary-error-ratio': '7', 'dev.skiff.dev/canary-latency-ms': 'slow' })).canary, { rps: 10, errorRatio: 1, latencyMs: 40 });
  });
  it('takes a slow tail of the canary from annotations: a share of requests and their time (default 2 s)', () => {
    assert.deepEqual(appTraffic(app(50, { 'dev.skiff.dev/canary-slow-ratio': '0.02', 'dev.skiff.dev/canary-slow-ms': '3000' })).canary, { rps: 10, errorRatio: 0, latencyMs: 40, slow: { ratio: 0.02, ms: 3000 } });
    assert.deepEqual(appTraffic(app(50, { 'dev.skiff.dev/canary-slow-ratio': '0.05' })).canary?.slow, { ratio: 0.05, ms: 2000 });
    assert.equal(appTraffic(app(50, { 'dev.skiff.dev/canary-slow-ratio': '0' })).canary?.slow, undefined);
  });
  it('sends a blue-green App\'s traffic to the revision its Service selects, the new one answering as the annotations say', () => {
    const bg = appFixture({
      annotations: { 'dev.skiff.dev/canary-error-ratio': '0.3' },
      spec: { ingress: { host: 'web.example.com' }, rollout: { strategy: 'BlueGreen', blueGreen: { previewHost: 'preview.web.example.com' } } },
      status: { stableRevision: 'r1', blueGreen: { previewRevision: 'r2', activeRevision: 'r1', phase: 'Preview' } },
    });
    assert.deepEqual(blueGreenTraffic(bg, 'r1'), { main: { rps: 20, errorRatio: 0, latencyMs: 40 }, preview: { rps: 5, errorRatio: 0.3, latencyMs: 40 } });
    assert.deepEqual(blueGreenTraffic(bg, 'r2').main, { rps: 20, errorRatio: 0.3, latencyMs: 40 });
    assert.deepEqual(blueGreenTraffic({ ...bg, status: { stableRevision: 'r1' } }, 'r1'), { main: { rps: 20, errorRatio: 0, latencyMs: 40 }, preview: undefined });
  });
  it('gives a blue-green App\'s new revision the slow tail the annotations ask for, as a canary\'s (latency percentiles of the preview and under full traffic)', () => {
    const bg = appFixture({
      annotations: { 'dev.skiff.dev/canary-slow-ratio': '0.03', 'dev.skiff.dev/canary-slow-ms': '2000' },
      spec: { ingress: { host: 'web.example.com' }, rollout: { strategy: 'BlueGreen', blueGreen: { previewHost: 'preview.web.example.com' } } },
      status: { stableRevision: 'r1', blueGreen: { previewRevision: 'r2', activeRevision: 'r2', phase: 'Switched' } },
    });
    const t = blueGreenTraffic(bg, 'r2');
    assert.deepEqual(t.main.slow, { ratio: 0.03, ms: 2000 });
    assert.deepEqual(t.preview?.slow, { ratio: 0.03, ms: 2000 });
    assert.equal(blueGreenTraffic(bg, 'r1').main.slow, undefined, 'stable answers without the tail');
  });
});
