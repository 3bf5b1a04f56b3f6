// The App's fields that make up its pod template: a revision in the history
// (ControllerRevision `data.spec`) holds exactly these, and `kubectl skiff undo` puts exactly
// these back. Every other field (replicas, service, ingress, rollout, ...) is not a revision's.
import type { AppSpec } from './app-types.js';

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
 * The JSON merge patch of an App's spec that puts back a revision's pod-template fields:
 * the revision's values, and null (remove) for every field the revision did not set.
 */
export function podTemplatePatch(fields: Partial<Pick<AppSpec, PodTemplateField>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of POD_TEMPLATE_FIELDS) out[field] = fields[field] ?? null;
  return out;
}
