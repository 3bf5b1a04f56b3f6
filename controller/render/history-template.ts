// The pod template of a revision in the App's history, rendered again from the pod-template fields
// its ControllerRevision records. Stable's template during a rollout lives in its Deployment's
// annotations (pod-template-record.ts); a Deployment deleted meanwhile (by hand, or a name that was
// someone else's until now) takes that record with it, and the Deployment made again would run
// spec's new template: every request on a revision no step or check has passed. The history still
// holds what stable ran. Pure.
import type { DefaultedApp } from '../../shared/defaults.js';
import { isObject } from '../../shared/objects.js';
import { POD_TEMPLATE_FIELDS } from '../../shared/pod-template-fields.js';
import { trackedPodTemplate } from '../../shared/render/config-copies.js';
import { renderPodTemplate, type PodTemplate } from '../../shared/render/pod-template.js';

/**
 * The template of `revision` from what its history entry recorded (its `data`: the pod-template
 * fields in `spec`, and with trackConfig the copies its pods ran on in `configCopies`), with the
 * App as it was at that revision (its spec with the entry's pod-template fields, the image a status
 * names among them); undefined when that does not render to the revision: fields edited by hand,
 * a field outside the pod-template fields that changed since (the App's name, a replica count that
 * turns spreading on), or a template on copies an entry does not name (one recorded before entries
 * named them).
 */
export function historyRevision(app: DefaultedApp, data: unknown, revision: string, trackSecrets = false): { pod: PodTemplate; app: DefaultedApp } | undefined {
  const fields = isObject(data) ? data.spec : undefined;
  if (!isObject(fields) || typeof fields.image !== 'string') return undefined;
  const spec: Record<string, unknown> = { ...app.spec };
  for (const field of POD_TEMPLATE_FIELDS) {
    if (fields[field] === undefined) delete spec[field];
    else spec[field] = fields[field];
  }
  const then = { ...app, spec } as unknown as DefaultedApp;
  const copies = isObject(data) && isObject(data.configCopies) ? Object.entries(data.configCopies).filter((e): e is [string, string] => typeof e[1] === 'string') : [];
  let pod: PodTemplate;
  try {
    const rendered = renderPodTemplate(then, 'stable');
    // Each source on the copy the revision ran, whatever the source holds now (or if it is gone).
    pod = copies.length > 0 ? trackedPodTemplate(then, rendered, new Map(), trackSecrets, () => false, new Map(copies)).pod : rendered;
  } catch {
    return undefined; // fields no App of this version could hold
  }
  return pod.revision === revision ? { pod, app: then } : undefined;
}
