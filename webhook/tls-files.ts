// The serving certificate and key from --cert-dir (tls.crt, tls.key), checked to belong together:
// cert-manager and the kubelet replace them one after another, and a half-swapped pair must not
// be served.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';

export interface ServingPair {
  cert: string;
  key: string;
  /** The certificate's fingerprint, to tell a new pair from the one being served. */
  fingerprint: string;
  notAfter: string;
  /** When the certificate expires, in seconds since the Unix epoch. */
  notAfterSeconds: number;
}

/** The serving pair in --cert-dir cannot be read or used (as opposed to, say, a port in use). */
export class ServingPairError extends Error {}

/** readServingPair, its failures as ServingPairError. */
export function readServingPairOrFail(certDir: string): ServingPair {
  try {
    return readServingPair(certDir);
  } catch (err) {
    throw new ServingPairError((err as Error).message);
  }
}

export function readServingPair(certDir: string): ServingPair {
  const cert = readFileSync(join(certDir, 'tls.crt'), 'utf8');
  const key = readFileSync(join(certDir, 'tls.key'), 'utf8');
  const x509 = new X509Certificate(cert);
  if (!x509.checkPrivateKey(createPrivateKey(key))) throw new Error(`${join(certDir, 'tls.key')} does not match ${join(certDir, 'tls.crt')}`);
  // X509Certificate reads the first certificate only; TLS loads the whole chain, and a chain cut
  // short after a whole first certificate (a file still being written) would throw only when served.
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    throw new Error(`${join(certDir, 'tls.crt')} and ${join(certDir, 'tls.key')} cannot be served: ${(err as Error).message}`);
  }
  return { cert, key, fingerprint: x509.fingerprint256, notAfter: x509.validTo, notAfterSeconds: x509.validToDate.getTime() / 1000 };
}
