// The certs tool itself (certs/main.ts checks the Node.js version first): creates (or reuses) the
// CA and serving certificate in --dir, injects the CA into the webhook configurations (with a new
// CA, beside the previous one while the webhook still serves its certificate) and stores them in
// the TLS Secret the webhook Deployment mounts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, type V1Secret } from '@kubernetes/client-node';
import { FlagError, parseFlagsOrExit } from '../shared/flags.js';
import { loadKubeConfig } from '../shared/kubeconfig.js';
import { injectIntoCluster } from './inject.js';
import { ensureCerts } from './write.js';

const FLAGS = {
  dir: { type: 'string', default: 'webhook-certs', help: 'directory for ca.crt, ca.key, tls.crt, tls.key (reused when they fit)' },
  dns: { type: 'string', default: '', help: 'comma-separated DNS names of the webhook (default localhost; required with --secret or a --*-webhook flag: the webhook Service\'s names)' },
  ip: { type: 'string', default: '', help: 'comma-separated IP addresses of the webhook' },
  secret: { type: 'string', default: '', help: 'NAMESPACE/NAME of a kubernetes.io/tls Secret to create or update (after the caBundle is injected)' },
  'mutating-webhook': { type: 'string', default: '', help: 'MutatingWebhookConfiguration whose caBundle to set to the CA (after a change of CA, with the previous one too while it signed the certificate served until now)' },
  'validating-webhook': { type: 'string', default: '', help: 'ValidatingWebhookConfiguration whose caBundle to set to the CA (after a change of CA, with the previous one too while it signed the certificate served until now)' },
  kubeconfig: { type: 'string', default: '', help: 'kubeconfig file (default: $KUBECONFIG or ~/.kube/config)' },
} as const;

const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);

/**
 * The serving certificate the webhook's pods serve until they see this run's Secret: the TLS
 * Secret's tls.crt, undefined when there is none yet. A Secret of that name of another type is
 * refused here, before anything is changed.
 */
async function servedCertificate(core: CoreV1Api, ref: string): Promise<string | undefined> {
  const [namespace, name] = ref.split('/');
  if (!namespace || !name) throw new FlagError(`--secret: expected NAMESPACE/NAME, got "${ref}"`);
  try {
    const current = await core.readNamespacedSecret({ namespace, name });
    if (current.type !== 'kubernetes.io/tls') {
      throw new FlagError(`--secret: ${namespace}/${name} exists with type ${current.type ?? 'Opaque'}, not kubernetes.io/tls; it is not overwritten: delete it or name another Secret`);
    }
    const crt = current.data?.['tls.crt'];
    return crt ? Buffer.from(crt, 'base64').toString() : undefined;
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

async function storeSecret(core: CoreV1Api, ref: string, files: { caPem: string; certPem: string; keyPem: string }): Promise<string> {
  const [namespace, name] = ref.split('/');
  if (!namespace || !name) throw new FlagError(`--secret: expected NAMESPACE/NAME, got "${ref}"`);
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const body: V1Secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: { name, namespace },
    data: { 'tls.crt': b64(files.certPem), 'tls.key': b64(files.keyPem), 'ca.crt': b64(files.caPem) },
  };
  try {
    await core.createNamespacedSecret({ namespace, body });
    return `created secret ${namespace}/${name}`;
  } catch (err) {
    if ((err as { code?: number }).code !== 409) throw err;
    const current = await core.readNamespacedSecret({ namespace, name });
    // A Secret's type cannot change: say whose Secret stands in the way rather than pass on "field is immutable".
    if (current.type !== body.type) {
      throw new FlagError(`--secret: ${namespace}/${name} exists with type ${current.type ?? 'Opaque'}, not ${body.type}; it is not overwritten: delete it or name another Secret`);
    }
    await core.replaceNamespacedSecret({ namespace, name, body: { ...current, type: body.type, data: body.data } });
    return `updated secret ${namespace}/${name}`;
  }
}

async function main(): Promise<void> {
  const flags = parseFlagsOrExit('node_modules/.bin/node dist/certs/main.js', FLAGS);
  const forCluster = Boolean(flags.secret || flags['mutating-webhook'] || flags['validating-webhook']);
  // The API server checks the certificate against the webhook Service's name: one for localhost,
  // stored in the Secret without a word, failed every App write instead.
  if (forCluster && !flags.dns && !flags.ip) {
    throw new FlagError('--dns is required with --secret, --mutating-webhook or --validating-webhook: the names the API server calls the webhook by, such as skiff-webhook-service.skiff-system.svc,skiff-webhook-service.skiff-system.svc.cluster.local');
  }
  const dnsNames = flags.dns || flags.ip ? list(flags.dns) : ['localhost'];
  // Without --secret the webhook serves the files of --dir: what it served is the tls.crt there before this run.
  const servedInDir = existsSync(join(flags.dir, 'tls.crt')) ? readFileSync(join(flags.dir, 'tls.crt'), 'utf8') : undefined;
  const files = ensureCerts(flags.dir, { dnsNames, ipAddresses: list(flags.ip) });
  console.log(`certificates in ${flags.dir} (ca.crt, tls.crt, tls.key) for ${[...dnsNames, ...list(flags.ip)].join(', ')}`);
  if (!forCluster) return;

  const kc = loadKubeConfig({ path: flags.kubeconfig || undefined });
  const core = kc.makeApiClient(CoreV1Api);
  const served = flags.secret ? await servedCertificate(core, flags.secret) : servedInDir;
  // The caBundle first: it trusts the new CA (beside the one of the served certificate, if the CA
  // changed) before the Secret makes the pods serve a certificate of it.
  const patched = await injectIntoCluster(kc, files.caPem, { mutating: list(flags['mutating-webhook']), validating: list(flags['validating-webhook']) }, served);
  for (const p of patched) console.log(`injected the CA into ${p}`);
  if (flags.secret) console.log(await storeSecret(core, flags.secret, files));
}

/**
 * One line for what stopped the tool: the API server's own message of a refused request (the
 * client's error carries its headers and body twice over), with its HTTP status.
 */
export function errorLine(err: Error & { code?: number; body?: unknown }): string {
  // A request that never got an answer ("fetch failed"): its cause names the address and why.
  const cause = (err as { cause?: { message?: unknown } }).cause;
  if (typeof err.code !== 'number' && typeof cause?.message === 'string') return `${err.message}: ${cause.message}`;
  if (typeof err.code !== 'number' || err.body === undefined) return err.message;
  let body: unknown = err.body;
  if (typeof err.body === 'string') {
    try {
      body = JSON.parse(err.body);
    } catch {
      return `${err.body.slice(0, 300)} (HTTP ${err.code})`;
    }
  }
  const message = (body as { message?: unknown } | null)?.message;
  return `${typeof message === 'string' ? message : JSON.stringify(body).slice(0, 300)} (HTTP ${err.code})`;
}

export function runCertsTool(): void {
  main().catch((err: Error & { code?: number; body?: unknown }) => {
    console.error(`error: ${errorLine(err)}`);
    process.exit(1);
  });
}
