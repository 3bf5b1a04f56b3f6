// A revision whose rollout the controller started and aborted in the same pass (skiff.dev/abort
// set with the pod-template change, before any preview or canary Deployment existed), or that an
// abort given while an earlier preview's pods drained marked aborted, is on record as aborted
// (status.abortedRevision: Degraded RolloutAborted, kubectl skiff retry works from it). Its history
// entry says so too, Aborted, and kubectl skiff history lists it; a retry makes that entry Running
// again. A change a paused App holds back never started: an abort of it is ignored, and no entry.
import { strict as assert } from 'node:assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import { revisionsOf, type CliApp, type ControllerRevision } from '../../cli/model.js';
import { formatHistory } from '../../cli/format-list.js';
import { plainStyle } from '../../cli/style.js';
import type { AppSpec } from '../../shared/app-types.js';
import { markAvailable, setup, switchedBlueGreenApp, NS, T0 } from '../support/reconciler.js';

type Test = ReturnType<typeof setup>;
const SPECS: Record<'Canary' | 'BlueGreen', AppSpec> = {
  Canary: { image: 'registry.example/web:1', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 50 }, { pause: {} }] } },
  BlueGreen: { image: 'registry.example/web:1', replicas: 2, ingress: { host: 'web.example.com' }, rollout: { strategy: 'BlueGreen', scaleDownDelaySeconds: 30 } },
};
const entries = (t: Test) => [...t.cluster.objects.values()].filter((o) => o.kind === 'ControllerRevision') as (KubernetesObject & ControllerRevision)[];
const outcomes = (t: Test) => entries(t).sort((a, b) => a.revision - b.revision).map((e) => `${e.metadata.name} ${e.metadata.annotations?.['skiff.dev/outcome']}`);
const annotate = (t: Test, annotations: Record<string, string>) => t.cluster.put({ ...t.app(), metadata: { ...t.app().metadata, annotations: { ...t.app().metadata.annotations, ...annotations } } });
/** What kubectl skiff history prints from the App's ControllerRevisions. */
const historyTable = (t: Test) => {
  const app = JSON.parse(JSON.stringify(t.app())) as CliApp;
  return formatHistory(app, revisionsOf(entries(t), app), { now: T0, style: plainStyle });
};

async function stableApp(spec: AppSpec) {
  const t = setup(spec, { history: true });
  await t.run();
  markAvailable(t.cluster, 'web');
  await t.run();
  return t;
}

for (const strategy of ['Canary', 'BlueGreen'] as const) {
  describe(`revision history of a ${strategy} revision aborted before its ${strategy === 'Canary' ? 'canary' : 'preview'} was created`, () => {
    const deployment = strategy === 'Canary' ? 'web-canary' : 'web-preview';

    it('skiff.dev/abort with the template change: the revision is recorded Aborted, and kubectl skiff history lists it', async () => {
      const t = await stableApp(SPECS[strategy]);
      t.setSpec((s) => ({ ...s, image: 'registry.example/web:2' }));
      annotate(t, { 'skiff.dev/abort': 'true' });
      await t.run();
      const aborted = t.app().status?.abortedRevision;
      assert.ok(aborted, 'the status records the revision as aborted');
      assert.equal(t.cluster.get('Deployment', NS, deployment), undefined, 'no Deployment of it was created');
      assert.deepEqual(outcomes(t), ['web-1 Promoted', 'web-2 Aborted']);
      const entry = t.cluster.get('ControllerRevision', NS, 'web-2') as KubernetesObject & ControllerRevision;
      assert.equal(entry.metadata.labels?.['skiff.dev/revision'], aborted);
      assert.equal(entry.metadata.annotations?.['skiff.dev/images'], 'registry.example/web:2');
      assert.deepEqual(t.cluster.events.filter((e) => e.reason === 'RevisionRecorded').map((e) => e.message.includes('web:2') && e.message.endsWith('Aborted')), [true]);
      const table = historyTable(t);
      assert.equal(table.length, 3, table.join('\n'));
      assert.match(table[2], /^2\s.*registry\.example\/web:2.*Aborted/);

      // The next pass writes nothing more; a retry makes that same entry Running again.
      await t.run();
      assert.deepEqual(outcomes(t), ['web-1 Promoted', 'web-2 Aborted']);
      annotate(t, { 'skiff.dev/retry': 'true' });
      await t.run();
      assert.equal(t.app().status?.abortedRevision, undefined, 'retried');
      assert.deepEqual(outcomes(t), ['web-1 Promoted', 'web-2 Running']);
    });

    it('a change held back by spec.rollout.paused, with an abort that is ignored: no rollout started, no entry', async () => {
      const t = await stableApp(SPECS[strategy]);
      t.setSpec((s) => ({ ...s, image: 'registry.example/web:2', rollout: { ...s.rollout, paused: true } }));
      annotate(t, { 'skiff.dev/abort': 'true' });
      await t.run();
      await t.run();
      assert.equal(t.app().status?.abortedRevision, undefined);
      assert.deepEqual(outcomes(t), ['web-1 Promoted']);
    });
  });
}

describe('revision history of a blue-green revision aborted while the pods of an earlier preview drain', () => {
  it('the new revision, aborted before its preview could start, is recorded Aborted; the earlier one stays Cancelled', async () => {
    const t = await switchedBlueGreenApp({ history: true });
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:3' }));
    await t.run();
    assert.deepEqual(outcomes(t), ['web-1 Promoted', 'web-2 Cancelled'], 'web:3 waits for the pods switched back from');
    annotate(t, { 'skiff.dev/abort': 'true' });
    await t.run();
    assert.ok(t.app().status?.abortedRevision, 'the status records web:3 as aborted');
    assert.deepEqual(outcomes(t), ['web-1 Promoted', 'web-2 Cancelled', 'web-3 Aborted']);
    assert.equal((t.cluster.get('ControllerRevision', NS, 'web-3') as KubernetesObject & ControllerRevision).metadata.labels?.['skiff.dev/revision'], t.app().status?.abortedRevision);
  });
});
