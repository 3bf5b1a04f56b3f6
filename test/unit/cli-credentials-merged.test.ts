// An exec credential plugin of a user in a KUBECONFIG of several files, as kubectl merges them:
// the first file that names an entry wins, and a missing file is skipped. The credentials were
// computed by client-node loading KUBECONFIG again, which fails on both (ENOENT, "Duplicate
// cluster"), so such users could not run any command where kubectl works.
import { strict as assert } from 'node:assert';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execCommandPath, execCredentials } from '../../shared/exec-credential.js';
import { loadConnection } from '../../shared/kube-connection.js';

describe('kubectl skiff: an exec credential plugin with a KUBECONFIG of several files', function () {
  this.timeout(20_000);
  let dir: string;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'skiff-cred-merged-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('gets the credentials of the entries kubectl would use', async () => {
    const helper = join(dir, 'helper');
    writeFileSync(helper, '#!/bin/sh\necho \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-helper"}}\'\n');
    chmodSync(helper, 0o755);
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    writeFileSync(a, [
      'apiVersion: v1', 'kind: Config', 'current-context: lab',
      'contexts: [{name: lab, context: {cluster: k, user: u}}]',
      'clusters: [{name: k, cluster: {server: "https://127.0.0.1:1"}}]',
      `users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: ${helper}, interactiveMode: Never}}}]`,
      '',
    ].join('\n'));
    // The same names again, as in a file merged in from elsewhere: the first file's entries win.
    writeFileSync(b, [
      'apiVersion: v1', 'kind: Config', 'current-context: other',
      'contexts: [{name: lab, context: {cluster: k, user: u}}, {name: other, context: {cluster: k, user: u}}]',
      'clusters: [{name: k, cluster: {server: "https://127.0.0.1:2"}}]',
      'users: [{name: u, user: {token: not-this-one}}]',
      '',
    ].join('\n'));
    const env = { KUBECONFIG: [a, join(dir, 'missing'), b].join(':') };
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = env.KUBECONFIG;
    try {
      const conn = loadConnection({}, env);
      assert.equal(conn.exec?.command, helper);
      assert.deepEqual(await execCredentials(conn.exec!, { terminal: false })(), { token: 'from-helper' });
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
  });
  it('runs a plugin given by a relative path from the kubeconfig\'s folder, as client-go does (ResolveLocalPaths)', async () => {
    const conf = join(dir, 'conf');
    mkdirSync(join(conf, 'bin'), { recursive: true });
    const helper = join(conf, 'bin', 'helper');
    writeFileSync(helper, '#!/bin/sh\necho \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"relative-helper"}}\'\n');
    chmodSync(helper, 0o755);
    const config = join(conf, 'config');
    writeFileSync(config, [
      'apiVersion: v1', 'kind: Config', 'current-context: lab',
      'contexts: [{name: lab, context: {cluster: k, user: u}}]',
      'clusters: [{name: k, cluster: {server: "https://127.0.0.1:1"}}]',
      'users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: ./bin/helper, interactiveMode: Never}}}]',
      '',
    ].join('\n'));
    // The process runs elsewhere than the kubeconfig's folder.
    assert.notEqual(process.cwd(), conf);
    const conn = loadConnection({ path: config }, {});
    assert.deepEqual(await execCredentials(conn.exec!, { terminal: false })(), { token: 'relative-helper' });
  });

  it('looks a bare command name up on PATH, and leaves an absolute path as it is', () => {
    assert.equal(execCommandPath('aws', '/home/me/.kube'), 'aws');
    assert.equal(execCommandPath('/usr/local/bin/aws', '/home/me/.kube'), '/usr/local/bin/aws');
    assert.equal(execCommandPath('bin/helper', '/home/me/.kube'), '/home/me/.kube/bin/helper');
  });
});
