import { strict as assert } from 'node:assert';
import { revisionsOf, type ControllerRevision } from '../../cli/model.js';
import { slimRevision } from '../../cli/dashboard/slim.js';
import { undoTarget } from '../../cli/undo.js';

// The App's history is the ControllerRevisions it controls (as the controller reads it), not every
// one labelled skiff.dev/app=<name>: those of an earlier App of the same name (deleted with
// --cascade=orphan, or not yet collected) or someone else's are not its revisions to show or undo to.
const UID = 'uid-new';
const cr = (n: number, hash: string, outcome: string, owner?: string, name = `web-${n}`): ControllerRevision => ({
  metadata: {
    name, labels: { 'skiff.dev/app': 'web', 'skiff.dev/revision': hash },
    annotations: { 'skiff.dev/images': `web:${n}`, 'skiff.dev/outcome': outcome },
    ...(owner ? { ownerReferences: [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid: owner, controller: true }] } : {}),
  },
  revision: n, data: { spec: { image: `web:${n}` } },
});
const app = { metadata: { name: 'web', uid: UID } };

describe("kubectl skiff: the App's history is the revisions it controls", () => {
  const items = [
    cr(1, 'aaaaaaaaaa', 'Promoted', 'uid-old'), // an earlier App "web", orphaned
    cr(2, 'bbbbbbbbbb', 'Promoted', 'uid-old'),
    cr(3, 'cccccccccc', 'Promoted'), // no owner at all
    cr(5, 'eeeeeeeeee', 'Promoted', UID, 'web-five'), // not named <app>-<revision>
    cr(4, 'dddddddddd', 'Promoted', UID),
  ];

  it('history, get and undo see only the entries the App controls', () => {
    assert.deepEqual(revisionsOf(items, app).map((r) => r.number), [4]);
    // undo finds nothing earlier to go back to, rather than an orphan's template.
    assert.throws(() => undoTarget('shop/web', revisionsOf(items, app), undefined, 'dddddddddd'), /no earlier promoted revision/);
  });

  it("the dashboard's slim copy keeps what tells the owner", () => {
    assert.deepEqual(revisionsOf(items.map(slimRevision), app).map((r) => r.number), [4]);
  });
});
