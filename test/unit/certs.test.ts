import { strict as assert } from 'node:assert';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describeCert, generateCA, generateServingCert, serialNumber, signedBy } from '../../certs/generate.js';
import { caBundleFor, injectCABundle } from '../../certs/inject.js';
import { ensureCerts, writeAtomic } from '../../certs/write.js';

describe('certs', function () {
  this.timeout(30_000);
  const ca = generateCA();
  const serving = generateServingCert(ca, { dnsNames: ['skiff-webhook-service.skiff-system.svc', 'localhost'], ipAddresses: ['127.0.0.1'] });

  it('makes a CA and a serving certificate it signed, with the names and IPs as SANs', () => {
    assert.ok(signedBy(serving.certPem, ca.certPem));
    assert.ok(!signedBy(serving.certPem, generateCA().certPem), 'another CA does not verify it');
    const x509 = new X509Certificate(serving.certPem);
    assert.ok(x509.checkHost('skiff-webhook-service.skiff-system.svc'));
    assert.ok(x509.checkIP('127.0.0.1'));
    assert.equal(x509.checkHost('elsewhere.example.com'), undefined);
    assert.ok(x509.verify(new X509Certificate(ca.certPem).publicKey));
    assert.equal(new X509Certificate(ca.certPem).ca, true);
    assert.equal(x509.ca, false);
    assert.deepEqual(describeCert(serving.certPem).ipAddresses, ['127.0.0.1']);
  });

  it('serials are positive and minimal in DER whatever the random bytes, so that OpenSSL loads every certificate (fast-check, seeded)', () => {
    const bytes = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((a) => String.fromCharCode(...a));
    fc.assert(fc.property(bytes, (b) => {
      const hex = serialNumber(b);
      assert.match(hex, /^[4-7][0-9a-f]{31}$/, 'first byte 0x40..0x7f: sign bit clear, no leading zero byte');
      assert.equal(hex.slice(2), Buffer.from(b.slice(1), 'latin1').toString('hex'), 'the other 15 bytes as drawn');
    }), { seed: 7, numRuns: 2000 });
    // A leading zero byte made OpenSSL refuse the certificate ("illegal padding").
    assert.match(serialNumber('\x00'.repeat(16)), /^40/);
    assert.throws(() => serialNumber('abc'), /16 random bytes/);
    assert.equal(new X509Certificate(serving.certPem).serialNumber.length, 32);
  });

  it('refuses a serving certificate without names', () => {
    assert.throws(() => generateServingCert(ca, { dnsNames: [] }), /at least one DNS name or IP/);
  });

  it('ensureCerts writes the files, reuses them, and renews the serving certificate (same CA) when names change', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-certs-'));
    try {
      const first = ensureCerts(dir, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
      assert.equal(readFileSync(join(dir, 'tls.crt'), 'utf8'), first.certPem);
      assert.equal(readFileSync(join(dir, 'ca.crt'), 'utf8'), first.caPem);
      assert.equal(statSync(join(dir, 'tls.key')).mode & 0o077, 0, 'the key is private');
      const again = ensureCerts(dir, { dnsNames: ['localhost'] });
      assert.equal(again.certPem, first.certPem, 'reused while it fits');
      const renamed = ensureCerts(dir, { dnsNames: ['localhost', 'webhook.example.com'], ipAddresses: ['127.0.0.1'] });
      assert.notEqual(renamed.certPem, first.certPem);
      assert.equal(renamed.caPem, first.caPem, 'the CA (and so the injected caBundle) stays');
      assert.ok(signedBy(renamed.certPem, first.caPem));
      const renewed = ensureCerts(dir, { dnsNames: ['localhost'], renewBeforeMs: 400 * 24 * 3600 * 1000 });
      assert.notEqual(renewed.certPem, renamed.certPem, 'renewed when it expires within the window');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ensureCerts renews a serving certificate whose key is not tls.key (a run stopped between writing the key and the certificate)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-certs-'));
    try {
      const first = ensureCerts(dir, { dnsNames: ['localhost'] });
      // The key of a renewal was written, its certificate not: the old certificate still fits the names.
      const ca = { certPem: first.caPem, keyPem: readFileSync(join(dir, 'ca.key'), 'utf8') };
      writeAtomic(join(dir, 'tls.key'), generateServingCert(ca, { dnsNames: ['localhost'] }).keyPem, 0o600);
      const next = ensureCerts(dir, { dnsNames: ['localhost'] });
      assert.ok(new X509Certificate(next.certPem).checkPrivateKey(createPrivateKey(next.keyPem)), 'tls.crt and tls.key belong together');
      assert.equal(readFileSync(join(dir, 'tls.crt'), 'utf8'), next.certPem);
      assert.equal(readFileSync(join(dir, 'tls.key'), 'utf8'), next.keyPem);
      assert.equal(next.caPem, first.caPem, 'the CA stays');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ensureCerts makes a new CA (and a serving certificate it signed) when the CA in dir ends within the window, has ended, or is not ca.key\'s', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-certs-'));
    try {
      const day = 24 * 3600 * 1000;
      for (const old of [
        generateCA({ validityDays: 1, nowMs: Date.now() - 2 * day }), // ended yesterday
        generateCA({ validityDays: 10 }), // ends within the 30 days
      ]) {
        writeAtomic(join(dir, 'ca.key'), old.keyPem, 0o600);
        writeAtomic(join(dir, 'ca.crt'), old.certPem);
        const made = ensureCerts(dir, { dnsNames: ['localhost'] });
        assert.notEqual(made.caPem, old.certPem, 'a new CA');
        assert.equal(readFileSync(join(dir, 'ca.crt'), 'utf8'), made.caPem);
        assert.ok(signedBy(made.certPem, made.caPem), 'the serving certificate is signed by it');
        assert.ok(describeCert(made.caPem).notAfter.getTime() - Date.now() > 3000 * day);
      }
      // ca.crt beside the key of another CA (a run stopped between the two writes).
      const kept = ensureCerts(dir, { dnsNames: ['localhost'] });
      writeAtomic(join(dir, 'ca.key'), generateCA().keyPem, 0o600);
      const remade = ensureCerts(dir, { dnsNames: ['localhost'] });
      assert.notEqual(remade.caPem, kept.caPem);
      assert.ok(signedBy(remade.certPem, remade.caPem));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ensureCerts gives a serving certificate no longer life than its CA', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skiff-certs-'));
    try {
      const day = 24 * 3600 * 1000;
      const ca = generateCA({ validityDays: 100 });
      writeAtomic(join(dir, 'ca.key'), ca.keyPem, 0o600);
      writeAtomic(join(dir, 'ca.crt'), ca.certPem);
      const made = ensureCerts(dir, { dnsNames: ['localhost'] });
      assert.equal(made.caPem, ca.certPem, 'a CA with 100 days left is kept');
      assert.ok(describeCert(made.certPem).notAfter.getTime() <= describeCert(ca.certPem).notAfter.getTime(), 'not past the CA');
      assert.ok(describeCert(made.certPem).notAfter.getTime() - Date.now() > 98 * day);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('injectCABundle sets every webhook caBundle of webhook configurations only', () => {
    const config = { kind: 'ValidatingWebhookConfiguration', webhooks: [{ name: 'a', clientConfig: { url: 'https://127.0.0.1:9443/validate' } }, { name: 'b', clientConfig: {} }] };
    const out = injectCABundle(config, ca.certPem);
    for (const hook of out.webhooks) assert.equal(Buffer.from((hook.clientConfig as { caBundle: string }).caBundle, 'base64').toString(), ca.certPem);
    assert.equal((out.webhooks[0].clientConfig as { url: string }).url, 'https://127.0.0.1:9443/validate');
    assert.equal((config.webhooks[0].clientConfig as { caBundle?: string }).caBundle, undefined, 'the input is not modified');
    const service = { kind: 'Service', metadata: { name: 'x' } };
    assert.equal(injectCABundle(service, ca.certPem), service);
  });

  describe('caBundleFor (the caBundle certs/ writes into a webhook configuration)', () => {
    const certsOf = (bundle: string) => bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
    const same = (a: string, b: string) => new X509Certificate(a).fingerprint256 === new X509Certificate(b).fingerprint256;
    const newCA = generateCA(); // the same name as the old one, as every run of certs/ makes
    const servedByOld = serving;
    const servedByNew = generateServingCert(newCA, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });

    it('a new CA (an empty --dir): the CA that signed the certificate served until now stays beside it, so both the old and the new certificate are trusted during the switch', async () => {
      const bundle = caBundleFor(newCA.certPem, ca.certPem, servedByOld.certPem);
      const found = certsOf(bundle);
      assert.equal(found.length, 2);
      assert.ok(same(found[0], newCA.certPem), 'the new CA first');
      assert.ok(same(found[1], ca.certPem), 'the old CA kept');
      // As the API server does with a caBundle: a TLS client trusting the bundle accepts either certificate.
      for (const served of [servedByOld, servedByNew]) assert.equal(await handshake(served, bundle), 'ok');
      assert.match(await handshake(servedByOld, newCA.certPem), /certificate/, 'the new CA alone refuses the certificate served until the pods see the new Secret');
    });

    it('the next run, once the new certificate is the one stored: the old CA goes', () => {
      const during = caBundleFor(newCA.certPem, ca.certPem, servedByOld.certPem);
      assert.equal(caBundleFor(newCA.certPem, during, servedByNew.certPem), newCA.certPem);
    });

    it('the same CA (a renewed serving certificate, or the first install): the CA alone, once', () => {
      assert.equal(caBundleFor(ca.certPem, ca.certPem, servedByOld.certPem), ca.certPem);
      assert.equal(caBundleFor(ca.certPem, undefined, undefined), ca.certPem);
      assert.equal(caBundleFor(newCA.certPem, '', servedByOld.certPem), newCA.certPem);
    });

    it('keeps no CA that signed nothing served, that has ended, or that is not a certificate', () => {
      const other = generateCA();
      const kept = certsOf(caBundleFor(newCA.certPem, other.certPem + ca.certPem, servedByOld.certPem));
      assert.deepEqual([kept.length, same(kept[0]!, newCA.certPem), same(kept[1]!, ca.certPem)], [2, true, true], 'only the CA of the served certificate');
      assert.equal(caBundleFor(newCA.certPem, ca.certPem, undefined), newCA.certPem, 'nothing served: nothing to keep');
      const ended = generateCA({ commonName: 'ended', nowMs: Date.now() - 10 * 24 * 3600 * 1000, validityDays: 1 });
      const servedByEnded = generateServingCert(ended, { dnsNames: ['localhost'], nowMs: Date.now() - 10 * 24 * 3600 * 1000, validityDays: 1 });
      assert.equal(caBundleFor(newCA.certPem, ended.certPem, servedByEnded.certPem), newCA.certPem);
      assert.equal(caBundleFor(newCA.certPem, 'not a PEM', servedByOld.certPem), newCA.certPem);
      assert.equal(caBundleFor(newCA.certPem, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', 'junk'), newCA.certPem);
    });
  });

  it('injectCABundle sets the conversion webhook caBundle of a CRD, and leaves a CRD without one alone', () => {
    const crd = { kind: 'CustomResourceDefinition', spec: { group: 'skiff.dev', conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { name: 'svc', namespace: 'ns', path: '/convert' } } } } } };
    const out = injectCABundle(crd, ca.certPem);
    const clientConfig = out.spec.conversion.webhook.clientConfig as { caBundle?: string; service: unknown };
    assert.equal(Buffer.from(clientConfig.caBundle!, 'base64').toString(), ca.certPem);
    assert.deepEqual(clientConfig.service, { name: 'svc', namespace: 'ns', path: '/convert' });
    assert.equal((crd.spec.conversion.webhook.clientConfig as { caBundle?: string }).caBundle, undefined, 'the input is not modified');
    const plain = { kind: 'CustomResourceDefinition', spec: { group: 'skiff.dev', conversion: { strategy: 'None' } } };
    assert.equal(injectCABundle(plain, ca.certPem), plain);
  });
});

/** A TLS handshake with a server presenting `served`, by a client that trusts `caBundle`: 'ok' or the client's error. */
async function handshake(served: { certPem: string; keyPem: string }, caBundle: string): Promise<string> {
  const { createServer: createTLSServer, connect: connectTLS } = await import('node:tls');
  const server = createTLSServer({ cert: served.certPem, key: served.keyPem }, (socket) => socket.end());
  server.on('tlsClientError', () => {});
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    return await new Promise<string>((done) => {
      const socket = connectTLS({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, servername: 'localhost', ca: caBundle }, () => { socket.end(); done('ok'); });
      socket.on('error', (err) => done(err.message));
    });
  } finally {
    server.close();
  }
}
