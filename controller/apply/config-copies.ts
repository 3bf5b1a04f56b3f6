// Writes of spec.rollout.trackConfig: creating the immutable copies a pass's Deployments
// reference (before those Deployments are written, so that no pod waits for a missing volume),
// and deleting the copies nothing references any more (after). A copy is never updated: its name
// is the hash of its data, so an owned copy of that name already holds that data.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { DefaultedApp } from '../../shared/defaults.js';
import { describeError, isConflict } from '../runtime/api-errors.js';
import type { EventSink } from '../runtime/events.js';
import type { Logger } from '../../shared/logger.js';
import { labelFixes } from '../../shared/objects.js';
import { isHollowCopy } from '../../shared/render/config-copies.js';
import { isControlledBy } from '../state/ownership.js';
import { deleteIfOwned, describeObject, type ApplyClients } from './apply.js';

export interface CopiesOutcome {
  errors: string[];
  conflicts: string[];
}

export interface CopyDeps {
  clients: ApplyClients;
  events: EventSink;
  /** The App's logger: a copy's creation and deletion are logged as the owned objects' are. */
  log?: Pick<Logger, 'info'>;
}

/** Creates each desired copy that is not among the App's copies (`owned`, by kind and name). */
export async function ensureCopies(deps: CopyDeps, app: DefaultedApp, desired: readonly KubernetesObject[], owned: (kind: string, name: string) => KubernetesObject | undefined): Promise<CopiesOutcome> {
  const out: CopiesOutcome = { errors: [], conflicts: [] };
  await Promise.all(desired.map(async (copy) => {
    if (owned(copy.kind!, copy.metadata!.name!)) return;
    const what = describeObject(copy);
    // Of a source not read in this pass (the copy was there when it began, and went since): made,
    // with the data read then, by the next pass; created now it would hold nothing.
    if (isHollowCopy(copy)) return void out.errors.push(`creating ${what}: it went while this pass ran, and its source's data was not read; made again on the next pass`);
    try {
      await deps.clients.api.create(copy);
      deps.log?.info({ object: what }, 'created');
      deps.events.event(app, 'Normal', 'Created', `Created ${what}`);
    } catch (err) {
      if (!isConflict(err)) return void out.errors.push(`creating ${what}: ${describeError(err)}`);
      // There already: ours (a cache behind its creation) or someone else's.
      let current: KubernetesObject;
      try {
        current = await deps.clients.api.read({ apiVersion: 'v1', kind: copy.kind!, namespace: copy.metadata!.namespace!, name: copy.metadata!.name! });
      } catch (readErr) {
        // Not known to be someone else's (a failed read, or gone since): retried as an error.
        return void out.errors.push(`creating ${what}: it exists, and reading it failed: ${describeError(readErr)}`);
      }
      if (!isControlledBy(current, app.metadata.uid!)) return void out.conflicts.push(`${what} exists and is not owned by this App`);
      // Ours, yet not in the cache: behind its creation, or its labels (which the cache selects
      // copies by) removed by hand, when every pass would create it again, be refused and read
      // it, and the copy would never be pruned. Labelled again; the data is immutable and right.
      const fixes = labelFixes(copy.metadata?.labels ?? {}, current.metadata?.labels);
      if (Object.keys(fixes).length === 0) return;
      try {
        await deps.clients.api.patch({ apiVersion: 'v1', kind: copy.kind!, namespace: copy.metadata!.namespace!, name: copy.metadata!.name! }, { metadata: { labels: fixes } }, { type: 'merge' });
      } catch (patchErr) {
        out.errors.push(`labelling ${what} again: ${describeError(patchErr)}`);
      }
    }
  }));
  return out;
}

/** Deletes copies of the App that no Deployment uses any more. */
export async function deleteCopies(deps: CopyDeps, app: DefaultedApp, unused: readonly KubernetesObject[]): Promise<CopiesOutcome> {
  const out: CopiesOutcome = { errors: [], conflicts: [] };
  // Without the read-your-writes expectations: no pass waits on a copy's cache (a copy is only
  // created or deleted, never decided from), so nothing would ever take an entry out again and
  // one per pruned copy would pile up for as long as the controller runs.
  const clients = { ...deps.clients, expectations: undefined };
  for (const copy of unused) {
    const type = { apiVersion: 'v1', kind: copy.kind! };
    const what = describeObject(copy);
    try {
      if (await deleteIfOwned(clients, app.metadata.uid!, type, copy)) {
        deps.log?.info({ object: what }, 'deleted');
        deps.events.event(app, 'Normal', 'Deleted', `Deleted ${what} (no Deployment of the App uses it)`);
      }
    } catch (err) {
      out.errors.push(`deleting ${what}: ${describeError(err)}`);
    }
  }
  return out;
}
