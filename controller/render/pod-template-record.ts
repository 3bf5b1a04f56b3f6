// The stable Deployment's record of the pod templates it ran, in annotations: the current one
// (a canary keeps stable on it) and the one before (an abort during promotion goes back to it).
// A blue-green preview records its current one too (its scale-down gives it to stable).
// Written by render.ts, read here. Pure.
import type { V1Deployment } from '@kubernetes/client-node';
import { contentHash } from '../../shared/hash.js';
import { cloneJson } from '../../shared/objects.js';
import { CONTAINER_NAME, containerImage, type PodTemplate } from '../../shared/render/pod-template.js';

/** The revision of the pod template a Deployment runs. */
export const ANNOTATION_REVISION = 'skiff.dev/revision';
/** The stable Deployment's pod template as rendered, so that a canary can keep stable on it. */
export const ANNOTATION_POD_TEMPLATE = 'skiff.dev/pod-template';
/** The template stable ran before its last change, so that an abort during promotion can go back to it. */
export const ANNOTATION_PREVIOUS_POD_TEMPLATE = 'skiff.dev/previous-pod-template';

/** The pod-template revision a Deployment Skiff rendered runs (undefined for any other). */
export const deploymentRevision = (d: V1Deployment | undefined): string | undefined => d?.metadata?.annotations?.[ANNOTATION_REVISION];

/** A recorded template whose content still has its revision (edited by hand or truncated: not trusted). */
function parseRecord(raw: string | undefined, revision?: string): PodTemplate | undefined {
  if (!raw) return undefined;
  try {
    const template = JSON.parse(raw);
    const hash = contentHash(template, 10);
    return revision === undefined || hash === revision ? { revision: hash, template } : undefined;
  } catch {
    return undefined;
  }
}

/** The pod template a stable Deployment recorded, when its record is intact. */
export function recordedPodTemplate(d: V1Deployment | undefined): PodTemplate | undefined {
  const revision = deploymentRevision(d);
  return revision ? parseRecord(d?.metadata?.annotations?.[ANNOTATION_POD_TEMPLATE], revision) : undefined;
}

/** The template a stable Deployment ran before its current one, when it recorded one. */
export function recordedPreviousPodTemplate(d: V1Deployment | undefined): PodTemplate | undefined {
  return parseRecord(d?.metadata?.annotations?.[ANNOTATION_PREVIOUS_POD_TEMPLATE]);
}

/**
 * The record of what stable ran before `nextRevision`, kept through a change of its template.
 * Carried over as recorded: it is read (and checked) only when an abort during promotion needs
 * it, not on every pass.
 */
export function previousRecordFor(stable: V1Deployment | undefined, nextRevision: string): string | undefined {
  const records = stable?.metadata?.annotations ?? {};
  const changing = records[ANNOTATION_REVISION] !== undefined && records[ANNOTATION_REVISION] !== nextRevision;
  return changing ? records[ANNOTATION_POD_TEMPLATE] : records[ANNOTATION_PREVIOUS_POD_TEMPLATE];
}

/**
 * The pod template stable keeps during a rollout: the one its Deployment recorded; or the one a
 * blue-green preview recorded, which the scale-down gives stable (its first write may have failed
 * and the template changed since, so stable's own record still names the old one); or without a
 * Deployment (deleted mid-rollout) the one its history entry renders to (`fromHistory`). A
 * Deployment from a version that recorded none ran spec's template with another image.
 */
export function keptTemplate(spec: PodTemplate, stable: V1Deployment | undefined, revision: string, others: { fromHistory?: PodTemplate; preview?: V1Deployment } = {}): PodTemplate {
  // The current record, or (an abort during promotion, when stable already took the new one)
  // the previous one.
  const records = [() => recordedPodTemplate(stable), () => recordedPreviousPodTemplate(stable), () => recordedPodTemplate(others.preview), () => (stable ? undefined : others.fromHistory)];
  for (const record of records) {
    const recorded = record();
    if (recorded?.revision === revision) return recorded;
  }
  const image = stable && containerImage(stable);
  if (!image) return spec;
  const template = cloneJson(spec.template);
  for (const c of template.spec?.containers ?? []) if (c.name === CONTAINER_NAME) c.image = image;
  return { revision, template };
}
