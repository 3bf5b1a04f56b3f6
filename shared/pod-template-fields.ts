// The App's fields that make up its pod template: a revision in the history
// (ControllerRevision `data.spec`) holds exactly these, and `kubectl skiff undo` puts exactly
// these back. Every other field (replicas, service, ingress, rollout, ...) is not a revision's.
import type { AppSpec } from './app-types.js';
import { isObject } from './objects.js';

export const POD_TEMPLATE_FIELDS = [
  'image',
  'port',
  'command',
  'args',
  'env',
  'envFrom',
  'resources',
  'readinessPath',
  'probes',
  'volumes',
  'imagePullSecrets',
  'serviceAccountName',
  'podAnnotations',
  'podLabels',
  'podSecurityContext',
  'securityContext',
  'nodeSelector',
  'tolerations',
  'priorityClassName',
  'terminationGracePeriodSeconds',
] as const satisfies readonly (keyof AppSpec)[];

export type PodTemplateField = (typeof POD_TEMPLATE_FIELDS)[number];

/** The pod-template fields an App spec sets, and nothing else. */
export function podTemplateFields(spec: AppSpec): Partial<Pick<AppSpec, PodTemplateField>> {
  const out: Record<string, unknown> = {};
  for (const field of POD_TEMPLATE_FIELDS) if (spec[field] !== undefined) out[field] = spec[field];
  return out as Partial<Pick<AppSpec, PodTemplateField>>;
}

/**
 * The JSON merge patch of an App's spec (now `current`) that puts back a revision's pod-template
 * fields exactly: the revision's values, and null (remove) for every field the revision did not
 * set, at every depth. A merge patch merges maps (podAnnotations, resources, probes, ...): a key
 * the App has now and the revision had not must be removed by name, or it would stay.
 */
export function podTemplatePatch(fields: Partial<Pick<AppSpec, PodTemplateField>>, current: Partial<AppSpec> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of POD_TEMPLATE_FIELDS) out[field] = replacing(current[field], fields[field]);
  return out;
}

/** The merge patch turning `from` into `to` (lists are replaced whole, as merge patches do). */
function replacing(from: unknown, to: unknown): unknown {
  if (to === undefined || to === null) return null;
  if (!isObject(to) || !isObject(from)) return to;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(from)) if (!(key in to)) out[key] = null;
  for (const [key, value] of Object.entries(to)) out[key] = replacing(from[key], value);
  return out;
}
