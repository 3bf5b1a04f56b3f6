// The caBundle of webhook configurations: the CA that signed the webhook's serving certificate,
// so that the API server trusts it. cert-manager's CA injector does this in a cluster; this
// is the same for clusters without it and for local runs.
import { AdmissionregistrationV1Api, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';

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

/** Sets the caBundle of every webhook in the named live configurations (JSON patch per webhook). */
export async function injectIntoCluster(kc: KubeConfig, caPem: string, names: { mutating?: string[]; validating?: string[] }): Promise<string[]> {
  const api = kc.makeApiClient(AdmissionregistrationV1Api);
  const patched: string[] = [];
  const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
  for (const name of names.mutating ?? []) {
    const current = await api.readMutatingWebhookConfiguration({ name });
    const body = (current.webhooks ?? []).map((_, i) => ({ op: 'add', path: `/webhooks/${i}/clientConfig/caBundle`, value: base64(caPem) }));
    await api.patchMutatingWebhookConfiguration({ name, body }, jsonPatch);
    patched.push(`mutatingwebhookconfiguration/${name}`);
  }
  for (const name of names.validating ?? []) {
    const current = await api.readValidatingWebhookConfiguration({ name });
    const body = (current.webhooks ?? []).map((_, i) => ({ op: 'add', path: `/webhooks/${i}/clientConfig/caBundle`, value: base64(caPem) }));
    await api.patchValidatingWebhookConfiguration({ name, body }, jsonPatch);
    patched.push(`validatingwebhookconfiguration/${name}`);
  }
  return patched;
}
