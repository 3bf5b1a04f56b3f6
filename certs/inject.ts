// The caBundle of webhook configurations: the CA that signed the webhook's serving certificate,
// so that the API server trusts it. cert-manager's CA injector does this in a cluster; this
// is the same for clusters without it and for local runs.
import { AdmissionregistrationV1Api, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { FlagError } from '../shared/flags.js';
import { describeCert, signedBy } from './generate.js';

type WebhookConfigurationLike = { kind?: string; webhooks?: { clientConfig?: Record<string, unknown> }[] };
type CRDLike = { kind?: string; spec?: { conversion?: { webhook?: { clientConfig?: Record<string, unknown> } } } };

const base64 = (pem: string) => Buffer.from(pem).toString('base64');

/**
 * A copy of a Mutating/ValidatingWebhookConfiguration with every webhook's caBundle set, or of a
 * CRD with a conversion webhook with that webhook's caBundle set; other objects unchanged.
 */
export function injectCABundle<T>(obj: T, caPem: string): T {
  const crd = obj as unknown as CRDLike;
  if (crd?.kind === 'CustomResourceDefinition') {
    const clientConfig = crd.spec?.conversion?.webhook?.clientConfig;
    if (!clientConfig) return obj;
    const out = structuredClone(crd);
    out.spec!.conversion!.webhook!.clientConfig = { ...clientConfig, caBundle: base64(caPem) };
    return out as unknown as T;
  }
  const o = obj as unknown as WebhookConfigurationLike;
  if (o?.kind !== 'MutatingWebhookConfiguration' && o?.kind !== 'ValidatingWebhookConfiguration') return obj;
  const out = structuredClone(o);
  for (const hook of out.webhooks ?? []) hook.clientConfig = { ...hook.clientConfig, caBundle: base64(caPem) };
  return out as unknown as T;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * The caBundle for a webhook that is to be served with certificates of the CA `caPem`, given its
 * current caBundle and the serving certificate the webhook's pods have served until now
 * (`servedPem`: the Secret's tls.crt before this run). The API server accepts a serving
 * certificate signed by any CA in the bundle, and the pods go on serving the old certificate
 * until they see the new Secret (about a minute): so when the CA changes, the current bundle's
 * CA that signed the served certificate stays after the new one, and App writes are not refused
 * during the switch. It is kept only while it signed what was served and has not ended: the next
 * run, once the new certificate is the one stored, drops it. With no change of CA this is `caPem`.
 */
export function caBundleFor(caPem: string, currentBundle: string | undefined, servedPem: string | undefined, nowMs = Date.now()): string {
  if (!servedPem || !currentBundle || signedBy(servedPem, caPem)) return caPem;
  const kept = (currentBundle.match(PEM_CERTIFICATE) ?? []).filter((old) => {
    try {
      return signedBy(servedPem, old) && describeCert(old).notAfter.getTime() > nowMs;
    } catch {
      return false; // not a certificate: nothing to keep
    }
  });
  if (kept.length === 0) return caPem;
  return [caPem, ...kept].map((pem) => (pem.endsWith('\n') ? pem : `${pem}\n`)).join('');
}

const decoded = (caBundle: string | undefined) => (caBundle ? Buffer.from(caBundle, 'base64').toString() : undefined);

/** A configuration a flag names that the cluster does not have: said as the flag's mistake, in one line. */
const notFound = (flag: string, kind: string, name: string) => (err: { code?: number }): never => {
  if (err.code !== 404) throw err;
  throw new FlagError(`${flag}: the cluster has no ${kind} ${name}: apply the bundle first (kubectl kustomize config/selfsigned | kubectl apply -f -), or name the one it made (with a namePrefix: <prefix>${flag === '--mutating-webhook' ? 'mutating' : 'validating'}-webhook-configuration)`);
};

/**
 * Sets the caBundle of every webhook in the named live configurations (JSON patch per webhook):
 * the CA, and during a change of CA also the one that signed `servedPem` (caBundleFor). Returns
 * what it patched, each saying whether a previous CA was kept.
 */
export async function injectIntoCluster(kc: KubeConfig, caPem: string, names: { mutating?: string[]; validating?: string[] }, servedPem?: string): Promise<string[]> {
  const api = kc.makeApiClient(AdmissionregistrationV1Api);
  const patched: string[] = [];
  const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
  const patchOf = (webhooks: { clientConfig?: { caBundle?: string } }[] | undefined) => {
    const bundles = (webhooks ?? []).map((hook) => caBundleFor(caPem, decoded(hook.clientConfig?.caBundle), servedPem));
    const note = bundles.some((b) => b !== caPem) ? ' (with the previous CA too, which signed the certificate served until now; the next run drops it)' : '';
    return { body: bundles.map((b, i) => ({ op: 'add', path: `/webhooks/${i}/clientConfig/caBundle`, value: base64(b) })), note };
  };
  for (const name of names.mutating ?? []) {
    const current = await api.readMutatingWebhookConfiguration({ name }).catch(notFound('--mutating-webhook', 'MutatingWebhookConfiguration', name));
    const { body, note } = patchOf(current.webhooks);
    await api.patchMutatingWebhookConfiguration({ name, body }, jsonPatch);
    patched.push(`mutatingwebhookconfiguration/${name}${note}`);
  }
  for (const name of names.validating ?? []) {
    const current = await api.readValidatingWebhookConfiguration({ name }).catch(notFound('--validating-webhook', 'ValidatingWebhookConfiguration', name));
    const { body, note } = patchOf(current.webhooks);
    await api.patchValidatingWebhookConfiguration({ name, body }, jsonPatch);
    patched.push(`validatingwebhookconfiguration/${name}${note}`);
  }
  return patched;
}
