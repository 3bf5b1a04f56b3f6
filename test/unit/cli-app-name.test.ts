import { strict as assert } from 'node:assert';
import type { Api } from '../../cli/api.js';
import { ApiError, NotFoundError } from '../../cli/errors.js';
import { readApp } from '../../cli/paths.js';

// An APP argument that is no object name, such as kubectl's `app/web` form: the API server reads
// the encoded "/" as a path separator, and answers for the App "app" and the subresource "web"
// (404 `apps.skiff.dev "app" not found`), or for `web/status` with the App web itself. The plugin
// said that the App API was not installed in the cluster, or acted on another path than the App's.
function fakeApi(requests: string[]): Api {
  return {
    connection: { server: 'https://127.0.0.1:6443' },
    get: async (path: string) => {
      requests.push(path);
      throw new ApiError(404, 'apps.skiff.dev "app" not found', 'NotFound');
    },
  } as unknown as Api;
}

describe('kubectl skiff: an APP that is not an object name', () => {
  for (const name of ['app/web', 'web/status', 'Web', '-n=shop', 'web.', 'a'.repeat(254)]) {
    it(`"${name.slice(0, 20)}" is not found, in words about the name, without a request`, async () => {
      const requests: string[] = [];
      const err = await readApp(fakeApi(requests), 'shop', name).then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof NotFoundError, String(err));
      assert.doesNotMatch(err.message, /not installed/);
      assert.ok(err.message.startsWith(`app "${name}" not found in namespace "shop": not a name an App can have`), err.message);
      assert.deepEqual(requests, []);
    });
  }

  it('kubectl\'s TYPE/NAME form is pointed to the name alone', async () => {
    const err = await readApp(fakeApi([]), 'shop', 'apps/web').then(() => undefined, (e: unknown) => e as Error);
    assert.match(err!.message, /give the name alone: web\)$/);
  });

  it('a name with dots (a DNS-1123 subdomain, as an App the webhook did not see may have) is asked for', async () => {
    const requests: string[] = [];
    await readApp(fakeApi(requests), 'shop', 'web.v2').catch(() => {});
    assert.deepEqual(requests, ['/apis/skiff.dev/v1alpha1/namespaces/shop/apps/web.v2']);
  });
});
