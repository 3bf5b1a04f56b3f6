import { strict as assert } from 'node:assert';
import { ApiError } from '../../cli/errors.js';
import { get } from '../../cli/get.js';
import { followedApp, followingContext, within } from '../support/cli-context.js';

// `kubectl skiff get APP --watch` by a user who may read the App but not list or watch it (or its
// objects): the API server's refusal does not mend by retrying. It drew "app not found (deleted?);
// waiting for it" about an App that exists and retried the refusal every second until Ctrl-C;
// it ends now as `get` without --watch and `status --wait` do: the refusal on stderr, exit 1.
const app = followedApp(1);

const refusal = () => new ApiError(403, 'forbidden (403): apps.skiff.dev is forbidden: User "bob" cannot list resource "apps"', 'Forbidden');

function context(refused: (path: string) => boolean) {
  return followingContext((path) => {
    if (refused(path)) return refusal();
    if (path.endsWith('/apps/web')) return app;
    return { metadata: { resourceVersion: '5' }, items: path.includes('/apps?') ? [app] : [] };
  }, { command: 'get', watch: true });
}

describe('kubectl skiff get --watch: a refused list or watch', () => {
  it('of the App ends the command with exit 1 and the refusal on stderr, not an endless "not found (deleted?)"', async () => {
    const { ctx, out, err } = context((p) => p.includes('/apps?'));
    assert.equal(await within(get(ctx), 3000), 1);
    assert.match(err.join(''), /^error: cannot follow app shop\/web: forbidden \(403\)/);
    assert.doesNotMatch(out.join(''), /not found/);
  });

  it('of an object the App owns ends it the same way', async () => {
    const { ctx, err } = context((p) => p.includes('/deployments'));
    assert.equal(await within(get(ctx), 3000), 1);
    assert.match(err.join(''), /forbidden \(403\)/);
  });
});
