// Waiting for CustomResourceDefinitions to be served.
//
// `kubectl wait --for=condition=Established` is not enough on its own: kubectl 1.20 fails at
// once ("status.conditions accessor error: <nil>") when it reads a CRD the API server has not
// yet given any condition, which happens right after a create on a busy machine. This polls
// the condition itself and treats "no conditions yet" as "not yet".
import { execFile } from 'node:child_process';
import { describeLastTry, poll } from './wait.js';

interface CrdList {
  items?: { metadata?: { name?: string }; status?: { conditions?: { type?: string; status?: string }[] } }[];
}

const established = (crd: NonNullable<CrdList['items']>[number]) =>
  crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;

function getCrds(kubeconfigPath: string, names: string[]): Promise<CrdList> {
  return new Promise((done, fail) => {
    // As a List even for one name, so the answer has one shape.
    execFile('kubectl', ['--kubeconfig', kubeconfigPath, 'get', 'crd', ...names, '-o', 'json'], { maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) return fail(new Error(`kubectl get crd ${names.join(' ')}: ${stderr.trim() || err.message}`));
      try {
        const parsed = JSON.parse(stdout) as CrdList & { kind?: string };
        done(parsed.kind === 'CustomResourceDefinition' ? { items: [parsed as NonNullable<CrdList['items']>[number]] } : parsed);
      } catch (e) {
        fail(new Error(`kubectl get crd ${names.join(' ')}: not JSON: ${(e as Error).message}`));
      }
    });
  });
}

/** Resolves once every named CRD is Established; rejects after `timeoutMs` naming those that are not. */
export async function waitForCrdsEstablished(kubeconfigPath: string, names: string[], timeoutMs = 60_000): Promise<void> {
  let pending = names;
  // A throw (NotFound right after a create) counts as "not yet"; its message ends the timeout's.
  const polled = await poll(async () => {
    const list = await getCrds(kubeconfigPath, pending);
    const ready = new Set((list.items ?? []).filter(established).map((c) => c.metadata?.name));
    pending = pending.filter((n) => !ready.has(n));
    return pending.length === 0;
  }, { timeoutMs });
  if (!polled.done) {
    const lastError = polled.last.threw ? `: ${describeLastTry(polled.last)}` : '';
    throw new Error(`CustomResourceDefinitions not Established within ${timeoutMs / 1000}s: ${pending.join(', ')}${lastError}`);
  }
}
