// Credentials that change while a process runs, over the transport to a local HTTPS server: an
// exec plugin's credential the API server refuses (401) is asked for again, as client-go does,
// and a new client certificate from it is presented on the connections that follow (the first
// pool kept the first certificate for ever). And no SNI for a tls-server-name that is an IP.
import { strict as assert } from 'node:assert';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCA, generateServingCert } from '../../certs/generate.js';
import { execConfig } from '../../shared/exec-credential.js';
import type { Connection } from '../../shared/kube-connection.js';
import { makeTransport, readText } from '../../shared/kube-transport.js';

describe('the transport\'s changing credentials', function () {
  this.timeout(20_000);
  let dir: string;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'skiff-transport-cred-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A server asking for a client certificate; `answer` by the common name it presents (none: ''). */
  async function server(answer: (cn: string) => number) {
    const ca = generateCA({ commonName: 'test-ca' });
    const serving = generateServingCert(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const seen: { cn: string; sni: string | false }[] = [];
    const s = createServer({ cert: serving.certPem, key: serving.keyPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const socket = req.socket as TLSSocket;
      const cn = String(socket.getPeerCertificate()?.subject?.CN ?? '');
      seen.push({ cn, sni: socket.servername ?? false });
      res.writeHead(answer(cn), { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const conn = (more: Partial<Connection>): Connection => ({ server: `https://127.0.0.1:${(s.address() as AddressInfo).port}`, namespace: 'default', context: 'x', ca: ca.certPem, insecure: false, files: [], ...more });
    return { seen, conn, close: () => s.close() };
  }

  it('an exec credential refused with 401 is asked for again, and its new client certificate is the one presented next', async () => {
    const one = generateCA({ commonName: 'one' });
    const two = generateCA({ commonName: 'two' });
    const credential = (c: { certPem: string; keyPem: string }) => JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { clientCertificateData: c.certPem, clientKeyData: c.keyPem } });
    writeFileSync(join(dir, 'one.json'), credential(one));
    writeFileSync(join(dir, 'two.json'), credential(two));
    const runs = join(dir, 'runs');
    writeFileSync(runs, '');
    const plugin = join(dir, 'plugin');
    // The first run gives certificate one (revoked, say), every later one certificate two.
    writeFileSync(plugin, `#!/bin/sh\necho run >> ${runs}\nif [ "$(wc -l < ${runs})" -le 1 ]; then cat ${dir}/one.json; else cat ${dir}/two.json; fi\n`);
    chmodSync(plugin, 0o755);
    const s = await server((cn) => (cn === 'two' ? 200 : 401));
    try {
      const exec = execConfig({ apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' }, dir, {}, undefined);
      const t = makeTransport(s.conn({ exec }), 'skiff-test/1');
      const status = async () => { const res = await t.send('GET', '/api'); await readText(res); return res.statusCode; };
      assert.equal(await status(), 401);
      assert.equal(await status(), 200);
      assert.equal(await status(), 200);
      assert.deepEqual(s.seen.map((x) => x.cn), ['one', 'two', 'two']);
      t.close();
    } finally {
      s.close();
    }
  });

  it('sends no SNI for a tls-server-name that is an IP address, and checks the certificate against it', async () => {
    const s = await server(() => 200);
    try {
      const t = makeTransport(s.conn({ serverName: '127.0.0.1', server: s.conn({}).server.replace('127.0.0.1', 'localhost') }), 'skiff-test/1');
      await readText(await t.send('GET', '/api'));
      assert.deepEqual(s.seen.map((x) => x.sni), [false]);
      t.close();
    } finally {
      s.close();
    }
  });
});
