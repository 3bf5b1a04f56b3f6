import { strict as assert } from 'node:assert';
import { ApiError } from '../../cli/errors.js';
import { get } from '../../cli/get.js';
import { APP_API_MISSING } from '../../cli/paths.js';
import { followedApp, followingContext, within } from '../support/cli-context.js';

// `kubectl skiff get APP --watch` where the list of Apps it follows answers 404 for the resource
// itself (the CRD deleted after the App was read): no App can come of watching. It ends with exit
// 1 and the words the other commands use, as `status --wait` does, instead of stopping that list
// silently and showing the last frame until Ctrl-C.
const app = followedApp(1);

const notServed = () => new ApiError(404, 'the server could not find the requested resource', 'NotFound');

const context = (answer: (path: string) => unknown) => followingContext(answer, { command: 'get', watch: true });

describe('kubectl skiff get --watch: the App API not served', () => {
  it('at the list of the App (the CRD deleted after the read): exit 1 at once with the App API missing', async () => {
    const { ctx, err } = context((path) => {
      if (path.endsWith('/apps/web')) return app;
      if (path.includes('/apps?')) return notServed();
      return { metadata: { resourceVersion: '5' }, items: [] };
    });
    assert.equal(await within(get(ctx), 1_000), 1);
    assert.equal(err.at(-1), `error: ${APP_API_MISSING}\n`);
  });

  it('a 404 for another list (not the App\'s) does not end it', async () => {
    const { ctx } = context((path) => {
      if (path.endsWith('/apps/web')) return app;
      if (path.includes('/deployments?')) return notServed();
      return { metadata: { resourceVersion: '5' }, items: path.includes('/apps?') ? [app] : [] };
    });
    const running = get(ctx);
    assert.equal(await within(running, 500), 'still running');
    process.emit('SIGTERM');
    assert.equal(await running, 0);
  });
});
