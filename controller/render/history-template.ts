// The pod template of a revision in the App's history, rendered again from the pod-template fields
// its ControllerRevision records. Stable's template during a rollout lives in its Deployment's
// annotations (pod-template-record.ts); a Deployment deleted meanwhile (by hand, or a name that was
// someone else's until now) takes that record with it, and the Deployment made again would run
// spec's new template: every request on a revision no step or check has passed. The history still
// holds what stable ran. Pure.
import type { DefaultedApp } from '../../shared/defaults.js';
import { isObject } from '../../shared/objects.js';
import { POD_TEMPLATE_FIELDS } from '../../shared/pod-template-fields.js';
import { renderPodTemplate, type PodTemplate } from '../../shared/render/pod-template.js';

/**
 * The template of `revision` from the fields its history entry recorded (its `data.spec`), or
 * undefined when they do not render to that revision: fields edited by hand, a field outside
 * the pod-template fields that changed since (the App's name, a replica count that turns spreading
 * on), or a template on copies of tracked configuration, which the fields name by their sources.
 */
export function historyTemplate(app: DefaultedApp, fields: unknown, revision: string): PodTemplate | undefined {
  if (!isObject(fields) || typeof fields.image !== 'string') return undefined;
  const spec: Record<string, unknown> = { ...app.spec };
  for (const field of POD_TEMPLATE_FIELDS) {
    if (fields[field] === undefined) delete spec[field];
    else spec[field] = fields[field];
  }
  let pod: PodTemplate;
  try {
    pod = renderPodTemplate({ ...app, spec } as unknown as DefaultedApp, 'stable');
  } catch {
    return undefined; // fields no App of this version could hold
  }
  return pod.revision === revision ? pod : undefined;
}
