// A user whose exec credential plugin cannot run is told that its credentials failed, not that
// the API server cannot be reached: no request was sent, and the server may be fine.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeApi } from '../../cli/api.js';
import { UnreachableError } from '../../cli/errors.js';
import { KubeConfigError, loadConnection } from '../../shared/kube-connection.js';

describe('kubectl skiff: an exec credential plugin that fails', function () {
  this.timeout(20_000);
  let dir: string;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'skiff-cred-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('is a kubeconfig error naming the context and the plugin\'s failure, not "cannot reach the API server"', async () => {
    const path = join(dir, 'config');
    writeFileSync(path, [
      'apiVersion: v1', 'kind: Config', 'current-context: lab',
      'contexts: [{name: lab, context: {cluster: k, user: u}}]',
      'clusters: [{name: k, cluster: {server: "https://127.0.0.1:1"}}]',
      'users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: skiff-no-such-credential-helper, interactiveMode: Never}}}]',
      '',
    ].join('\n'));
    const api = makeApi(loadConnection({ path }));
    const err = await api.get('/apis/skiff.dev/v1alpha1/namespaces/default/apps').then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof Error, 'rejected');
    assert.ok(!(err instanceof UnreachableError), `not a reachability error: ${err.message}`);
    assert.ok(err instanceof KubeConfigError, `a kubeconfig error (shown without a stack): ${err.constructor.name}`);
    assert.match(err.message, /credentials of context "lab" \(an exec credential plugin\).*skiff-no-such-credential-helper/);
  });
});
