import { strict as assert } from 'node:assert';
import { ApiError, NotFoundError } from '../../cli/errors.js';
import { APP_API_MISSING } from '../../cli/paths.js';
import { statusWait } from '../../cli/wait.js';
import { followedApp, followingContext, within } from '../support/cli-context.js';

// `kubectl skiff status APP --wait` where the App API answers 404 for the resource itself (the CRD
// not installed, or deleted between the read of the App and the list the wait follows): nothing
// can come of waiting. It ends with exit 1 and the words the other commands use, not at the
// timeout (or never, without one). An App that is not there is a 404 of another kind: "not found".
const app = followedApp(2);

/** The API server's answer for a resource it does not serve (a Status, or a bare "404 page not found"). */
const notServed = () => new ApiError(404, 'the server could not find the requested resource', 'NotFound');
const appNotFound = () => new ApiError(404, 'apps.skiff.dev "web" not found', 'NotFound');

const context = (answer: (path: string) => unknown) => followingContext(answer, { command: 'status', wait: true, timeoutMs: 2_000 });

const soon = <T>(p: Promise<T>) => within(p, 1_000);

describe('kubectl skiff status --wait: the App API not served', () => {
  it('at the read of the App: fails at once with the App API missing', async () => {
    const { ctx } = context(() => notServed());
    await assert.rejects(soon(statusWait(ctx)), (e: Error) => e instanceof NotFoundError && e.message === APP_API_MISSING);
  });

  it('at the list the wait follows (the CRD deleted after the read): exit 1 at once with the same words, not the timeout', async () => {
    const { ctx, err } = context((path) => (path.endsWith('/apps/web') ? app : notServed()));
    assert.equal(await soon(statusWait(ctx)), 1);
    assert.equal(err.at(-1), `error: ${APP_API_MISSING}\n`);
  });

  it('an App that does not exist is "not found", not the App API missing', async () => {
    const { ctx } = context(() => appNotFound());
    await assert.rejects(soon(statusWait(ctx)), (e: Error) => e instanceof NotFoundError && e.message === 'app "web" not found in namespace "shop"');
  });
});
