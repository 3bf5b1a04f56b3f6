// Rediscovery's versions against those in use: an API server that is starting lists only some of
// its groups in /apis for a few seconds. One such answer must not take a kind in use for gone.
import { strict as assert } from 'node:assert';
import { settledVersions } from '../../controller/discovery.js';
import type { ServedVersions } from '../../controller/render/served-versions.js';

const ALL: ServedVersions = { podDisruptionBudget: 'policy/v1', horizontalPodAutoscaler: 'autoscaling/v2', httpRoute: 'gateway.networking.k8s.io/v1' };
const PARTIAL: ServedVersions = { podDisruptionBudget: undefined, horizontalPodAutoscaler: 'autoscaling/v2', httpRoute: undefined };

describe('rediscovery: settled versions', () => {
  it('a kind in use missing from one answer stays in use', () => {
    assert.deepEqual(settledVersions(ALL, PARTIAL, ALL), ALL);
    assert.deepEqual(settledVersions(ALL, PARTIAL, undefined), ALL, 'the first look after start-up is one answer too');
  });

  it('gone in two answers in a row, it is gone', () => {
    assert.deepEqual(settledVersions(ALL, PARTIAL, PARTIAL), PARTIAL);
    // The second answer agrees on the HTTPRoutes only: only they go.
    assert.deepEqual(settledVersions(ALL, PARTIAL, { ...ALL, httpRoute: undefined }), { ...ALL, httpRoute: undefined });
  });

  it('a kind newly served is taken at once; a version that moved, once two answers agree', () => {
    assert.deepEqual(settledVersions(PARTIAL, ALL, undefined), ALL);
    const older: ServedVersions = { ...ALL, podDisruptionBudget: 'policy/v1beta1' };
    assert.deepEqual(settledVersions(ALL, older, ALL), ALL);
    assert.deepEqual(settledVersions(ALL, older, older), older);
  });

  it('answers that keep what is in use change nothing', () => {
    assert.deepEqual(settledVersions(ALL, ALL, PARTIAL), ALL);
    assert.deepEqual(settledVersions({}, {}, undefined), {});
  });
});
