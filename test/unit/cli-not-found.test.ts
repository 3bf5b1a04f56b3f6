// `kubectl skiff get nosuch` (and the other commands that read one App) says that the App does
// not exist in kubectl's words, `Error from server (NotFound): apps.skiff.dev "nosuch" not
// found`, which people and scripts know from `kubectl get app nosuch`; exit 1. The plugin runs
// as a user runs it, against a stand-in API server that knows no App.
import { strict as assert } from 'node:assert';
import { pluginAgainst, type StandIn } from '../support/plugin-process.js';

describe('kubectl skiff: an App that does not exist', function () {
  this.timeout(30_000);
  let standIn: StandIn;
  before(async () => {
    // The API server's answer for an App it does not have: a Status 404 NotFound.
    standIn = await pluginAgainst((req, res) => {
      const name = /\/apps\/([^/?]+)$/.exec(req.url ?? '')?.[1] ?? '';
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `apps.skiff.dev "${name}" not found`, reason: 'NotFound', details: { name, group: 'skiff.dev', kind: 'apps' }, code: 404 }));
    });
  });
  after(() => standIn.close());

  for (const command of ['get', 'status', 'pause', 'resume', 'promote', 'abort', 'undo', 'history']) {
    it(`${command}: kubectl's words, exit 1`, async () => {
      const r = await standIn.run([command, 'nosuch']);
      assert.deepEqual(r, { code: 1, stdout: '', stderr: 'Error from server (NotFound): apps.skiff.dev "nosuch" not found\n' });
    });
  }
});
