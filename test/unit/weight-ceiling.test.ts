import { strict as assert } from 'node:assert';
import { cappedWeight, nextCeiling, windsDown } from '../../controller/canary/weight-ceiling.js';
import type { CanaryStatus } from '../../shared/app-types.js';

describe('weight ceiling (a canary winding down never gets traffic again)', () => {
  it('knows a wind-down when it sees one', () => {
    const rows: [Parameters<typeof windsDown>[0], boolean][] = [
      [{ phase: 'Aborted', removeCanary: false, canary: { revision: 'r', replicas: 1, weight: 0 } }, true],
      [{ phase: 'CleaningUp', removeCanary: true }, true],
      [{ phase: 'Promoting', removeCanary: false, canary: { revision: 'r', replicas: 1, weight: 0 } }, true],
      [{ phase: 'Promoting', removeCanary: true }, true],
      [{ phase: 'Promoting', removeCanary: false, canary: { revision: 'r', replicas: 2, weight: 50 } }, false],
      [{ phase: 'CanaryStep', removeCanary: false, canary: { revision: 'r', replicas: 1, weight: 0 } }, false],
      [{ phase: 'CanaryStep', removeCanary: false, canary: { revision: 'r', replicas: 1, weight: 0 }, status: { canary: { revision: 'r' } as CanaryStatus } }, false],
      // The pods of r go back to 0 before they take s, the revision the status now rolls out (a cancellation).
      [{ phase: 'CanaryStep', removeCanary: false, canary: { revision: 'r', replicas: 1, weight: 0 }, status: { canary: { revision: 's' } as CanaryStatus } }, true],
      [{ phase: 'CanaryPaused', removeCanary: false, canary: { revision: 'r', replicas: 1, weight: 20 } }, false],
      [{ phase: 'Stable', removeCanary: false }, false],
    ];
    for (const [decision, expected] of rows) assert.equal(windsDown(decision), expected, JSON.stringify(decision));
  });

  it('begins with a wind-down, holds for its generation, and ends with a new generation', () => {
    const aborted = { phase: 'Aborted' as const, removeCanary: false, canary: { revision: 'r2', replicas: 1, weight: 0 } };
    const step = { phase: 'CanaryStep' as const, removeCanary: false, canary: { revision: 'r2', replicas: 1, weight: 50 } };
    const c = nextCeiling(undefined, aborted, 'r2', 7);
    assert.deepEqual(c, { revision: 'r2', generation: 7 });
    assert.deepEqual(nextCeiling(c, step, 'r2', 7), c, 'a later pass planning a step keeps the ceiling');
    assert.equal(nextCeiling(c, step, 'r2', 8), undefined, 'a new generation (the template changed) ends it');
    assert.deepEqual(nextCeiling(c, { ...aborted, canary: { ...aborted.canary, revision: 'r3' } }, 'r3', 7), { revision: 'r3', generation: 7 });
    assert.equal(nextCeiling(undefined, step, 'r2', 7), undefined);
    assert.deepEqual(nextCeiling(c, step, 'r2', 6), c, 'an older generation (a stale read) neither ends it');
    assert.deepEqual(nextCeiling(c, { ...aborted, canary: { ...aborted.canary, revision: 'r1' } }, 'r1', 6), c, 'nor replaces it');
  });

  it('holds a raise of the winding-down revision at the router weight, and nothing else', () => {
    const c = { revision: 'r2', generation: 7 };
    const rows: [Parameters<typeof cappedWeight>, number][] = [
      [[c, { revision: 'r2', weight: 50 }, 0, 7], 0],
      [[c, { revision: 'r2', weight: 50 }, 20, 7], 20],
      [[c, { revision: 'r2', weight: 50 }, undefined, 7], 0],
      [[c, { revision: 'r2', weight: 0 }, 50, 7], 0],
      [[c, { revision: 'r3', weight: 50 }, 0, 7], 50],
      [[c, { revision: 'r2', weight: 50 }, 0, 8], 50],
      [[c, { revision: 'r2', weight: 50 }, 0, 6], 0],
      [[undefined, { revision: 'r2', weight: 50 }, 0, 7], 50],
    ];
    for (const [args, expected] of rows) assert.equal(cappedWeight(...args), expected, JSON.stringify(args));
  });
});
