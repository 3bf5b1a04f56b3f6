// Installs config/dev (the CRD and webhook configurations that call a local webhook by URL)
// into a cluster, with the caBundle from certs/ and the webhook's real address.
import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';
import { injectCABundle } from '../certs/inject.js';
import { waitForCrdsEstablished } from './crds.js';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const DEV_WEBHOOK_CONFIGURATIONS = {
  MutatingWebhookConfiguration: 'skiff-mutating-webhook-configuration',
  ValidatingWebhookConfiguration: 'skiff-validating-webhook-configuration',
} as const;

type Obj = { kind?: string; metadata?: { name?: string }; webhooks?: { clientConfig?: { url?: string } }[] };

/** The config/dev objects with each webhook URL moved to `webhookUrlBase` and the CA injected. */
export function prepareDevBundle(docs: Obj[], opts: { caPem: string; webhookUrlBase: string }): Obj[] {
  return docs.map((doc) => {
    if (doc.kind !== 'MutatingWebhookConfiguration' && doc.kind !== 'ValidatingWebhookConfiguration') return doc;
    const out = structuredClone(doc);
    for (const hook of out.webhooks ?? []) {
      const url = new URL(hook.clientConfig?.url ?? '');
      hook.clientConfig = { ...hook.clientConfig, url: `${opts.webhookUrlBase}${url.pathname}` };
    }
    return injectCABundle(out, opts.caPem) as Obj;
  });
}

export async function buildDevBundle(): Promise<Obj[]> {
  const { stdout } = await run('kubectl', ['kustomize', join(root, 'config', 'dev')], { maxBuffer: 64 << 20 });
  return parseAllDocuments(stdout).map((d) => d.toJS() as Obj).filter(Boolean);
}

export async function installDevBundle(opts: { kubeconfigPath: string; caPem: string; webhookUrlBase: string }): Promise<void> {
  const docs = prepareDevBundle(await buildDevBundle(), opts);
  const input = docs.map((d) => stringify(d)).join('---\n');
  const kubectl = (args: string[], stdin?: string) =>
    new Promise<string>((done, fail) => {
      const child = execFile('kubectl', ['--kubeconfig', opts.kubeconfigPath, ...args], (err, stdout, stderr) =>
        err ? fail(new Error(`kubectl ${args.join(' ')}: ${stderr || err.message}`)) : done(stdout));
      if (stdin !== undefined) child.stdin!.end(stdin);
    });
  await kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=skiff-dev', '-f', '-'], input);
  await waitForCrdsEstablished(opts.kubeconfigPath, ['apps.skiff.dev']);
}

export async function removeDevWebhooks(kubeconfigPath: string): Promise<void> {
  for (const [kind, name] of Object.entries(DEV_WEBHOOK_CONFIGURATIONS)) {
    await run('kubectl', ['--kubeconfig', kubeconfigPath, 'delete', kind.toLowerCase(), name, '--ignore-not-found']);
  }
}
