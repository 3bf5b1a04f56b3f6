// A dashboard action confirmed on one revision while the App moves on: the check of the revision
// the page showed and the write are of the same read, so a rollout that changed in between is
// never promoted, aborted or retried in its place.
import { strict as assert } from 'node:assert';
import { runAction } from '../../cli/dashboard/actions.js';
import type { CliApp } from '../../cli/model.js';
import { racingApi, rolling } from '../support/racing-api.js';

describe('dashboard actions racing the App', () => {
  it('a new revision after the check and before the write: refused by the API server, checked again, nothing written', async () => {
    const { api, written } = racingApi(rolling('r3', 'web:3', '10'), (n) => (n === 1 ? rolling('r4', 'web:4', '11') : undefined));
    const result = await runAction(api, 'shop', 'web', 'promote', { expectRevision: 'r3' });
    assert.deepEqual(result.ok === false && [result.status, result.message], [409, "nothing done: the page showed revision r3, and the App's rollout is revision r4 now; look again"]);
    assert.deepEqual(written, []);
  });

  it('a rollout that ended before the confirmation (promoted, or replaced): said as such, nothing written', async () => {
    const done = rolling('r3', 'web:3', '12');
    done.status = { observedGeneration: 2, stableRevision: 'r3', stableImage: 'web:3' };
    const { api, written } = racingApi(done, () => undefined);
    const result = await runAction(api, 'shop', 'web', 'promote', { expectRevision: 'r3' });
    assert.deepEqual(result.ok === false && [result.status, result.message], [409, 'nothing done: the page showed revision r3, and the App has no rollout now (it ended, or was replaced); look again']);
    assert.deepEqual(written, []);
  });

  it('only the status written meanwhile (the same rollout): written on the next read, guarded by its resourceVersion', async () => {
    let rv = 10;
    const { api, written } = racingApi(rolling('r3', 'web:3', '10'), (n) => (n <= 2 ? rolling('r3', 'web:3', String(++rv)) : undefined));
    const result = await runAction(api, 'shop', 'web', 'abort', { expectRevision: 'r3' });
    assert.deepEqual(result, { ok: true, message: 'app shop/web: aborting the canary of web:3' });
    assert.deepEqual(written, [{ metadata: { annotations: { 'skiff.dev/abort': 'true' }, resourceVersion: '12' } }]);
  });

  it('an App that keeps changing: the API server\'s 409 after a few reads, nothing written', async () => {
    let rv = 10;
    const { api, written } = racingApi(rolling('r3', 'web:3', '10'), () => rolling('r3', 'web:3', String(++rv)));
    const result = await runAction(api, 'shop', 'web', 'promote', { expectRevision: 'r3' });
    assert.deepEqual(result.ok === false && [result.status, result.reason], [409, 'Conflict']);
    assert.deepEqual(written, []);
  });

  it('blue-green promote and abort name the preview\'s image, not a newer one spec names before the controller took it up', async () => {
    const app: CliApp = {
      ...rolling('r2', 'web:3', '5'),
      spec: { image: 'web:3', rollout: { strategy: 'BlueGreen' } },
      status: { observedGeneration: 2, stableRevision: 'r1', stableImage: 'web:1', blueGreen: { previewRevision: 'r2', activeRevision: 'r1', phase: 'Preview', image: 'web:2' } },
    };
    const { api } = racingApi(app, () => undefined);
    assert.deepEqual(await runAction(api, 'shop', 'web', 'promote', {}), { ok: true, message: 'app shop/web: promoting web:2' });
    assert.deepEqual(await runAction(api, 'shop', 'web', 'abort', {}), { ok: true, message: 'app shop/web: aborting the preview of web:2' });
  });
});
