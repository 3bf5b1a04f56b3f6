import { strict as assert } from 'node:assert';
import { NOW, input, none } from '../support/canary-input.js';
import { planCanary } from '../../controller/canary/plan.js';

// RollingUpdate (and a Canary App without a route) asks the canary engine with no stable revision
// on record: a verified skip-canary still says, in its Event, what it rolls back to, and names no
// "revision undefined" as what stable was.
describe('skiff.dev/skip-canary on an App with no stable revision on record (RollingUpdate)', () => {
  it('the RollbackWithoutCanary Event names no undefined revision', () => {
    const d = planCanary(input({ image: 'web:0', annotations: { 'skiff.dev/skip-canary': 'web:0' }, promotedRevisions: new Set(['web:0']) }, { stableRevision: undefined, stableImage: undefined }), none, NOW);
    const event = d.events.find((e) => e.reason === 'RollbackWithoutCanary');
    assert.ok(event, 'the rollback is told');
    assert.doesNotMatch(event.message, /undefined/);
    assert.equal(d.stableRevision, 'web:0');
  });
});
