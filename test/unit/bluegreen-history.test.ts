// The revision history of a blue-green App: a revision switched to and then replaced (by a new
// pod template, or the template back at stable's) is Cancelled from the pass that replaces it,
// not Running while its pods wait out their delay. Stable never stopped running its pods: back
// at its template, its entry is the current one again, not a new one.
import { strict as assert } from 'node:assert';
import { switchedBlueGreenApp, NS } from '../support/reconciler.js';

const switchedApp = () => switchedBlueGreenApp({ history: true });

const outcome = (t: Awaited<ReturnType<typeof switchedApp>>, n: number) => t.cluster.get('ControllerRevision', NS, `web-${n}`)?.metadata?.annotations?.['skiff.dev/outcome'];

describe('blue-green revision history', () => {
  it('a new pod template after the switch: the switched-to revision is Cancelled at once, while its pods wait out their delay', async () => {
    const t = await switchedApp();
    assert.equal(outcome(t, 2), 'Running');
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:3' }));
    await t.run();
    assert.equal(t.app().status?.blueGreen?.phase, 'ScalingDown', 'the switched-back pods wait out their delay');
    assert.equal(outcome(t, 2), 'Cancelled');
  });

  it('the pod template back at stable\'s after the switch: the switched-to revision is Cancelled at once, stable\'s entry is the current one again', async () => {
    const t = await switchedApp();
    t.setSpec((s) => ({ ...s, image: 'registry.example/web:1' }));
    await t.run();
    assert.equal(t.app().status?.blueGreen?.phase, 'ScalingDown');
    assert.deepEqual([outcome(t, 1), outcome(t, 2), outcome(t, 3)], ['Promoted', 'Cancelled', undefined]);
  });
});
