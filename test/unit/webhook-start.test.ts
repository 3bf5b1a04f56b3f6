// Why the webhook process could not start, as its last log line says: a port taken by another
// process is not a certificate problem.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCerts } from '../../certs/write.js';
import { freePort } from '../../dev/free-port.js';

const main = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'webhook', 'main.js');

/** The fatal log line of a webhook process that could not start, and its exit code. */
function fatal(args: string[]): Promise<{ code: number | null; line: { msg: string; err: string } }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [main, ...args, '--health-port=0', '--metrics-port=0'], { timeout: 15_000, env: { ...process.env, SKIFF_LOG_LEVEL: 'info' } }, (err, stdout, stderr) => {
      const lines = `${stdout}\n${stderr}`.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
      const line = lines.find((l) => l.level === 60);
      if (!line) return reject(new Error(`no fatal line in:\n${stdout}\n${stderr}`));
      resolve({ code: (err as { code?: number } | null)?.code ?? 0, line });
    });
  });
}

describe('webhook process start-up failures', function () {
  this.timeout(20_000);
  let certDir: string;
  before(() => {
    certDir = mkdtempSync(join(tmpdir(), 'skiff-webhook-start-'));
    ensureCerts(certDir, { dnsNames: ['localhost'] });
  });
  after(() => rmSync(certDir, { recursive: true, force: true }));

  it('says the port is taken, not that the certificate is missing, when the certificate is fine', async () => {
    const port = await freePort();
    const taken: Server = await new Promise((resolve) => { const s = createServer().listen(port, '127.0.0.1', () => resolve(s)); });
    try {
      const { code, line } = await fatal([`--port=${port}`, '--bind-address=127.0.0.1', `--cert-dir=${certDir}`]);
      assert.equal(code, 1);
      assert.match(line.err, /EADDRINUSE/);
      assert.doesNotMatch(line.msg, /certificate/, line.msg);
      assert.match(line.msg, new RegExp(`port ${port}`), line.msg);
    } finally {
      taken.close();
    }
  });

  it('names the certificate files when they cannot be read', async () => {
    const { code, line } = await fatal([`--port=${await freePort()}`, '--bind-address=127.0.0.1', `--cert-dir=${join(certDir, 'absent')}`]);
    assert.equal(code, 1);
    assert.match(line.msg, /serving certificate must be in .*absent \(tls\.crt, tls\.key\)/);
    assert.match(line.err, /ENOENT/);
  });
});
