import { strict as assert } from 'node:assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import { planHistory, type HistoryDecision } from '../../controller/state/history-plan.js';
import { promotedRevisions, revisionEntries, type RevisionEntry } from '../../controller/state/revision-history.js';
import type { RevisionOutcome } from '../../shared/labels.js';

const entry = (number: number, hash: string, outcome?: RevisionOutcome): RevisionEntry => ({ name: `web-${number}`, number, hash, outcome, uid: `u${number}` });
const decided = (d: Partial<HistoryDecision>): HistoryDecision => ({ spec: 'b', stable: 'a', ...d });
const summary = (p: ReturnType<typeof planHistory>) => ({
  create: p.create && `${p.create.name} ${p.create.hash} ${p.create.outcome}`,
  outcomes: p.outcomes.map((o) => `${o.entry.name} ${o.outcome}`),
  prune: p.prune.map((e) => e.name),
});

describe('revision history plan', () => {
  it('records an App\'s first revision as number 1, promoted (it is stable at once)', () => {
    assert.deepEqual(summary(planHistory('web', [], { spec: 'a', stable: 'a' }, 10)), { create: 'web-1 a Promoted', outcomes: [], prune: [] });
  });

  it('writes nothing when the history already says what the decision does (a no-op pass)', () => {
    const history = [entry(1, 'a', 'Promoted'), entry(2, 'b', 'Running')];
    assert.deepEqual(summary(planHistory('web', history, decided({ rolling: 'b' }), 10)), { create: undefined, outcomes: [], prune: [] });
    assert.deepEqual(summary(planHistory('web', [entry(1, 'a', 'Promoted')], { spec: 'a', stable: 'a' }, 10)), { create: undefined, outcomes: [], prune: [] });
    // A paused App whose new template waits: nothing starts, nothing is recorded.
    assert.deepEqual(summary(planHistory('web', [entry(1, 'a', 'Promoted')], decided({}), 10)), { create: undefined, outcomes: [], prune: [] });
  });

  it('a canary that starts gets the next number, Running; its promotion and its abort are outcomes', () => {
    const history = [entry(1, 'a', 'Promoted')];
    assert.deepEqual(summary(planHistory('web', history, decided({ rolling: 'b' }), 10)), { create: 'web-2 b Running', outcomes: [], prune: [] });
    const running = [...history, entry(2, 'b', 'Running')];
    assert.deepEqual(summary(planHistory('web', running, { spec: 'b', stable: 'b' }, 10)).outcomes, ['web-2 Promoted']);
    assert.deepEqual(summary(planHistory('web', running, decided({ aborted: 'b' }), 10)).outcomes, ['web-2 Aborted']);
  });

  it('a revision replaced while running is Cancelled; the newer one is recorded in the same pass', () => {
    const history = [entry(1, 'a', 'Promoted'), entry(2, 'b', 'Running')];
    assert.deepEqual(summary(planHistory('web', history, decided({ spec: 'c', rolling: 'c' }), 10)), { create: 'web-3 c Running', outcomes: ['web-2 Cancelled'], prune: [] });
    // Back to the stable template during a canary: stable's entry is still the current one.
    assert.deepEqual(summary(planHistory('web', history, { spec: 'a', stable: 'a' }, 10)), { create: undefined, outcomes: ['web-2 Cancelled'], prune: [] });
    // A paused App whose template changed: the canary of b is cancelled, c waits.
    assert.deepEqual(summary(planHistory('web', history, decided({ spec: 'c' }), 10)), { create: undefined, outcomes: ['web-2 Cancelled'], prune: [] });
  });

  it('an undo to an earlier template makes a new number with the same hash; the old entry stays', () => {
    const history = [entry(1, 'a', 'Promoted'), entry(2, 'b', 'Promoted')];
    assert.deepEqual(summary(planHistory('web', history, { spec: 'a', stable: 'b', rolling: 'a' }, 10)), { create: 'web-3 a Running', outcomes: [], prune: [] });
    // Without a canary (skip-canary, RollingUpdate): stable at once.
    assert.deepEqual(summary(planHistory('web', history, { spec: 'a', stable: 'a' }, 10)), { create: 'web-3 a Promoted', outcomes: [], prune: [] });
  });

  it('back on stable\'s template after an abort or a cancel: no second entry of stable takes the place of a revision to go back to', () => {
    const history = [entry(1, 'z', 'Promoted'), entry(2, 'a', 'Promoted'), entry(3, 'b', 'Aborted')];
    assert.deepEqual(summary(planHistory('web', history, { spec: 'a', stable: 'a' }, 2)), { create: undefined, outcomes: [], prune: [] });
    assert.deepEqual(summary(planHistory('web', [...history.slice(0, 2), entry(3, 'b', 'Running')], { spec: 'a', stable: 'a' }, 2)), { create: undefined, outcomes: ['web-3 Cancelled'], prune: [] });
    // Another revision was promoted since stable's entry: going back to it is a rollout again.
    assert.deepEqual(summary(planHistory('web', [entry(1, 'a', 'Promoted'), entry(2, 'b', 'Promoted')], { spec: 'a', stable: 'a', rolling: 'a' }, 10)), { create: 'web-3 a Running', outcomes: [], prune: [] });
  });

  it('stable\'s pods lost or added after its rollout (its Deployment not available now) are no rollout: its entry stays Promoted, and no entry is made again', () => {
    const promoted = [entry(1, 'z', 'Promoted'), entry(2, 'a', 'Promoted')];
    const podsLost = { stable: 'a', stablePending: true, stableOneTemplate: true };
    // The newest entry: it stays Promoted, not Running again (then Cancelled by the next change).
    assert.deepEqual(summary(planHistory('web', promoted, { ...podsLost, spec: 'a', rolling: 'a' }, 10)), { create: undefined, outcomes: [], prune: [] });
    // Beside a canary that starts meanwhile: stable's entry is a revision to go back to.
    assert.deepEqual(summary(planHistory('web', promoted, { ...podsLost, spec: 'b', rolling: 'b' }, 10)), { create: 'web-3 b Running', outcomes: [], prune: [] });
    // After an aborted revision: stable is not recorded again.
    assert.deepEqual(summary(planHistory('web', [...promoted, entry(3, 'b', 'Aborted')], { ...podsLost, spec: 'a', rolling: 'a' }, 10)), { create: undefined, outcomes: [], prune: [] });
  });

  it('RollingUpdate set back to stable\'s template while another was rolling on its Deployment (pods of that one left): stable\'s template rolls out again, a new entry Running', () => {
    const history = [entry(1, 'a', 'Promoted'), entry(2, 'b', 'Running')];
    assert.deepEqual(summary(planHistory('web', history, { spec: 'a', stable: 'a', rolling: 'a', stablePending: true, stableOneTemplate: false }, 10)), { create: 'web-3 a Running', outcomes: ['web-2 Cancelled'], prune: [] });
  });

  it('a template cancelled and then rolled out again gets a new number; the cancelled entry stays Cancelled', () => {
    const history = [entry(1, 'a', 'Promoted'), entry(2, 'b', 'Cancelled')];
    assert.deepEqual(summary(planHistory('web', history, decided({ rolling: 'b' }), 10)), { create: 'web-3 b Running', outcomes: [], prune: [] });
  });

  it('a retry makes the aborted newest entry Running again; an aborted template stays aborted until then', () => {
    const history = [entry(1, 'a', 'Promoted'), entry(2, 'b', 'Aborted')];
    assert.deepEqual(summary(planHistory('web', history, decided({ aborted: 'b' }), 10)), { create: undefined, outcomes: [], prune: [] });
    assert.deepEqual(summary(planHistory('web', history, decided({ rolling: 'b' }), 10)), { create: undefined, outcomes: ['web-2 Running'], prune: [] });
  });

  it('a revision aborted in the pass its rollout starts (before any canary or preview existed) is recorded Aborted', () => {
    const history = [entry(1, 'a', 'Promoted')];
    assert.deepEqual(summary(planHistory('web', history, decided({ aborted: 'b' }), 10)), { create: 'web-2 b Aborted', outcomes: [], prune: [] });
    // One that replaced a running revision: that one is Cancelled.
    assert.deepEqual(summary(planHistory('web', [...history, entry(2, 'c', 'Running')], decided({ aborted: 'b' }), 10)), { create: 'web-3 b Aborted', outcomes: ['web-2 Cancelled'], prune: [] });
    // An abort on record for a template spec no longer asks for (a change held back while paused) records nothing new.
    assert.deepEqual(summary(planHistory('web', [...history, entry(2, 'b', 'Aborted')], decided({ spec: 'c', aborted: 'b' }), 10)), { create: undefined, outcomes: [], prune: [] });
  });

  it('prunes the oldest entries beyond the limit, never the stable one or the running one; the newest counts among the limit, and stays at 0', () => {
    const history = [entry(1, 'a', 'Promoted'), entry(2, 'b', 'Aborted'), entry(3, 'c', 'Cancelled'), entry(4, 'd', 'Aborted'), entry(5, 'e', 'Running')];
    // Stable is a (the oldest entry), e runs: two kept besides them.
    assert.deepEqual(summary(planHistory('web', history, { spec: 'e', stable: 'a', rolling: 'e' }, 2)).prune, ['web-2']);
    assert.deepEqual(summary(planHistory('web', history, { spec: 'e', stable: 'a', rolling: 'e' }, 0)).prune, ['web-2', 'web-3', 'web-4']);
    // A new revision: the one created counts as running; the one it replaces is pruned like any other.
    const p = planHistory('web', history, { spec: 'f', stable: 'a', rolling: 'f' }, 1);
    assert.deepEqual(summary(p), { create: 'web-6 f Running', outcomes: ['web-5 Cancelled'], prune: ['web-2', 'web-3', 'web-4'] });
    // The newest entry stays whatever the limit (numbers are never reused), with the newest of the stable hash.
    const aborted = [entry(1, 'a', 'Promoted'), entry(2, 'a', 'Promoted'), entry(3, 'b', 'Aborted')];
    assert.deepEqual(summary(planHistory('web', aborted, decided({ aborted: 'b' }), 0)).prune, ['web-1']);
    // Otherwise it counts among the limit: stable b, and one more, the newest (c, aborted).
    const afterAbort = [entry(1, 'a', 'Promoted'), entry(2, 'b', 'Promoted'), entry(3, 'c', 'Aborted')];
    assert.deepEqual(summary(planHistory('web', afterAbort, { spec: 'c', stable: 'b', aborted: 'c' }, 1)).prune, ['web-1']);
    assert.deepEqual(summary(planHistory('web', afterAbort, { spec: 'c', stable: 'b', aborted: 'c' }, 2)).prune, []);
    const afterCancel = [entry(1, 'a', 'Promoted'), entry(2, 'b', 'Promoted'), entry(3, 'c', 'Cancelled'), entry(4, 'b', 'Promoted')];
    assert.deepEqual(summary(planHistory('web', afterCancel, { spec: 'b', stable: 'b' }, 1)).prune, ['web-1', 'web-2']);
  });

  it('reads the App\'s entries from the cache: its own, named and numbered, oldest first; and what was promoted', () => {
    const cr = (name: string, revision: unknown, labels: Record<string, string>, uid = 'app-uid', outcome = 'Promoted'): KubernetesObject =>
      ({ metadata: { name, uid: `cr-${name}`, labels, annotations: { 'skiff.dev/outcome': outcome }, ownerReferences: [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid, controller: true }] }, revision } as KubernetesObject);
    const mine = { 'skiff.dev/app': 'web', 'skiff.dev/revision': 'h2' };
    const entries = revisionEntries([
      cr('web-2', 2, mine),
      cr('web-1', 1, { 'skiff.dev/app': 'web', 'skiff.dev/revision': 'h1' }, 'app-uid', 'Aborted'),
      cr('web-3', 3, mine, 'another-uid'),
      cr('web-x', 4, mine),
      cr('web-5', 5, { 'skiff.dev/app': 'other', 'skiff.dev/revision': 'h5' }),
      cr('web-6', '6', mine),
    ], { metadata: { name: 'web', uid: 'app-uid' } });
    assert.deepEqual(entries.map((e) => [e.name, e.number, e.hash, e.outcome]), [['web-1', 1, 'h1', 'Aborted'], ['web-2', 2, 'h2', 'Promoted']]);
    assert.deepEqual([...promotedRevisions(entries)], ['h2']);
    assert.deepEqual([...promotedRevisions(undefined)], []);
  });
});
