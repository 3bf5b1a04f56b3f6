// Certificates on disk: ca.crt/ca.key and tls.crt/tls.key in one directory (the file names
// cert-manager and the kubelet use for a TLS Secret), reused while they still fit.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeCert, generateCA, generateServingCert, signedBy } from './generate.js';

export interface CertFiles {
  caPem: string;
  certPem: string;
  keyPem: string;
}

export interface EnsureOptions {
  dnsNames: string[];
  ipAddresses?: string[];
  /** Regenerate a serving certificate that expires sooner than this (default 30 days). */
  renewBeforeMs?: number;
}

const read = (dir: string, name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : undefined);

/** Writes through a temporary file and a rename, so that a watcher never reads half a file. */
export function writeAtomic(path: string, content: string, mode = 0o644): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode });
  renameSync(tmp, path);
}

/**
 * Whether tls.key is the key of tls.crt: the key is written first, so a run stopped between the
 * two leaves the old certificate (still fitting) beside a new key, which the webhook refuses.
 */
function pairs(certPem: string, keyPem: string): boolean {
  try {
    return new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
}

const DAY_MS = 24 * 3600 * 1000;
const renewBefore = (opts: EnsureOptions) => opts.renewBeforeMs ?? 30 * DAY_MS;
/** How long a certificate has left. */
const leftMs = (certPem: string) => describeCert(certPem).notAfter.getTime() - Date.now();

function covers(certPem: string, opts: EnsureOptions): boolean {
  const { dnsNames, ipAddresses } = describeCert(certPem);
  return opts.dnsNames.every((n) => dnsNames.includes(n))
    && (opts.ipAddresses ?? []).every((ip) => ipAddresses.includes(ip))
    && leftMs(certPem) > renewBefore(opts);
}

/** Whether the CA in `dir` can go on signing: ca.key is its key, and it does not end within the renewal window (nor has ended). */
function caFits(caPem: string, caKey: string, opts: EnsureOptions): boolean {
  try {
    return pairs(caPem, caKey) && leftMs(caPem) > renewBefore(opts);
  } catch {
    return false;
  }
}

/**
 * The CA and serving certificate in `dir`, created or renewed when missing, not signed by that
 * CA, not matching tls.key, missing a requested name, or close to expiry. The CA is kept while it
 * fits, so a caBundle already injected into webhook configurations stays valid across renewals;
 * one close to its end (or past it, which every call to the webhook would fail on) or not matching
 * ca.key is made anew, and the same run of certs/ stores and injects the new one.
 */
export function ensureCerts(dir: string, opts: EnsureOptions): CertFiles {
  mkdirSync(dir, { recursive: true });
  let caPem = read(dir, 'ca.crt');
  let caKey = read(dir, 'ca.key');
  if (!caPem || !caKey || !caFits(caPem, caKey, opts)) {
    const ca = generateCA();
    caPem = ca.certPem;
    caKey = ca.keyPem;
    writeAtomic(join(dir, 'ca.key'), caKey, 0o600);
    writeAtomic(join(dir, 'ca.crt'), caPem);
  }
  let certPem = read(dir, 'tls.crt');
  let keyPem = read(dir, 'tls.key');
  if (!certPem || !keyPem || !signedBy(certPem, caPem) || !pairs(certPem, keyPem) || !covers(certPem, opts)) {
    // No longer than the CA: a chain whose CA ended fails however long the certificate runs.
    const validityDays = Math.max(1, Math.min(365, Math.floor(leftMs(caPem) / DAY_MS)));
    const serving = generateServingCert({ certPem: caPem, keyPem: caKey }, { dnsNames: opts.dnsNames, ipAddresses: opts.ipAddresses, validityDays });
    certPem = serving.certPem;
    keyPem = serving.keyPem;
    // Key first: a watcher that reloads on the certificate then finds the matching key.
    writeAtomic(join(dir, 'tls.key'), keyPem, 0o600);
    writeAtomic(join(dir, 'tls.crt'), certPem);
  }
  return { caPem, certPem, keyPem };
}
