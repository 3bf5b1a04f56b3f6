// A CA and a serving certificate signed by it, with node-forge, for the webhook on clusters
// without cert-manager and for local runs. Pure: returns PEM strings, writes nothing.
import forge from 'node-forge';

const { pki, md } = forge;

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

export interface ServingCertOptions {
  dnsNames: string[];
  ipAddresses?: string[];
  validityDays?: number;
  /** Milliseconds since the epoch to use as "now" (tests). */
  nowMs?: number;
}

/**
 * A certificate serial from 16 random bytes (unique serials matter: clients may cache
 * certificates by issuer and serial), as hex. The first byte goes to 0x40..0x7f: the DER integer
 * is then positive (sign bit clear) and minimal (no leading zero byte). A serial that starts with
 * a zero byte is one OpenSSL refuses to load ("illegal padding"), which the earlier "0" + 15 random
 * bytes made about once in fifty certificates.
 */
export function serialNumber(random: string = forge.random.getBytesSync(16)): string {
  if (random.length !== 16) throw new Error(`a serial is made of 16 random bytes, not ${random.length}`);
  const first = (random.charCodeAt(0) & 0x3f) | 0x40;
  return forge.util.bytesToHex(String.fromCharCode(first) + random.slice(1));
}

function validity(cert: forge.pki.Certificate, nowMs: number, days: number): void {
  // A minute of slack for clocks that are slightly behind.
  cert.validity.notBefore = new Date(nowMs - 60_000);
  cert.validity.notAfter = new Date(nowMs + days * 24 * 3600 * 1000);
}

export function generateCA(opts: { commonName?: string; validityDays?: number; nowMs?: number } = {}): KeyPairPem {
  const keys = pki.rsa.generateKeyPair(2048);
  const cert = pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  validity(cert, opts.nowMs ?? Date.now(), opts.validityDays ?? 3650);
  const subject = [{ name: 'commonName', value: opts.commonName ?? 'skiff-webhook-ca' }, { name: 'organizationName', value: 'skiff' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, md.sha256.create());
  return { certPem: pki.certificateToPem(cert), keyPem: pki.privateKeyToPem(keys.privateKey) };
}

export function generateServingCert(ca: KeyPairPem, opts: ServingCertOptions): KeyPairPem {
  if (opts.dnsNames.length === 0 && (opts.ipAddresses ?? []).length === 0) throw new Error('a serving certificate needs at least one DNS name or IP address');
  const caCert = pki.certificateFromPem(ca.certPem);
  const caKey = pki.privateKeyFromPem(ca.keyPem);
  const keys = pki.rsa.generateKeyPair(2048);
  const cert = pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  validity(cert, opts.nowMs ?? Date.now(), opts.validityDays ?? 365);
  cert.setSubject([{ name: 'commonName', value: opts.dnsNames[0] ?? opts.ipAddresses![0] }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [...opts.dnsNames.map((value) => ({ type: 2, value })), ...(opts.ipAddresses ?? []).map((ip) => ({ type: 7, ip }))],
    },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKey, md.sha256.create());
  return { certPem: pki.certificateToPem(cert), keyPem: pki.privateKeyToPem(keys.privateKey) };
}

/** The DNS names and IP addresses a certificate is valid for, and when it expires. */
export function describeCert(certPem: string): { dnsNames: string[]; ipAddresses: string[]; notAfter: Date } {
  const cert = pki.certificateFromPem(certPem);
  const san = cert.getExtension('subjectAltName') as { altNames?: { type: number; value?: string; ip?: string }[] } | null;
  const names = san?.altNames ?? [];
  return {
    dnsNames: names.filter((n) => n.type === 2).map((n) => n.value!),
    ipAddresses: names.filter((n) => n.type === 7).map((n) => n.ip!),
    notAfter: cert.validity.notAfter,
  };
}

/** Whether `certPem` was signed by the CA in `caPem`. */
export function signedBy(certPem: string, caPem: string): boolean {
  try {
    return pki.certificateFromPem(caPem).verify(pki.certificateFromPem(certPem));
  } catch {
    return false;
  }
}
