// A cap on the size of the pod template an App renders. The controller records the template on
// the stable Deployment as an annotation (controller/render/pod-template-record.ts, ANNOTATION_POD_TEMPLATE), and
// during a promotion keeps the one stable ran before beside it (ANNOTATION_PREVIOUS_POD_TEMPLATE);
// Kubernetes allows 256 KiB of annotations on an object in all. Two records of at most 100 KiB
// each leave room for the revision and for annotations others add, at every stage of a rollout;
// the pods' own annotations (within the template) stay far below the limit as well. Pure.
import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import type { App } from './app-types.js';
import { withDefaults, type DefaultedApp } from './defaults.js';
import type { Problem } from './field-checks.js';
import { configReferences, sourceKey, trackedPodTemplate, type SourceContent } from './render/config-copies.js';
import { stablePodTemplate } from './render/pod-template.js';

export const MAX_POD_TEMPLATE_KIB = 100;
export const MAX_POD_TEMPLATE_BYTES = MAX_POD_TEMPLATE_KIB * 1024;
/** The API server's limit on all annotations of one object, keys and values (TotalAnnotationSizeLimitB). */
export const MAX_ANNOTATIONS_BYTES = 256 * 1024;

// metadata.name is absent from a mutating admission of an App created with generateName: the
// template is measured with a name of the longest length an App can have.
const LONGEST_NAME = 'x'.repeat(56);

/**
 * The template as the controller renders it at its longest. With trackConfig every reference is
 * on a copy (`<name>-<hash>`, 11 bytes longer) and the template records which copy stands for
 * which source: measured with every source present and Secrets tracked too (admission cannot know
 * the controller's --track-secrets), which only lengthens it.
 */
function longestTemplate(app: DefaultedApp): V1PodTemplateSpec {
  const template = stablePodTemplate(app);
  if (!app.spec.rollout.trackConfig) return template;
  const present: SourceContent = {};
  const sources = new Map(configReferences(template).map((r) => [sourceKey(r.kind, r.name), present]));
  return trackedPodTemplate(app, { revision: '', template }, sources, true).pod.template;
}

/** Bytes of the pod template as the controller records it (its JSON, UTF-8). Requires a schema-valid App. */
export function podTemplateBytes(app: App): number {
  // Measured with the longest name an App can have when its own is none (generateName) or not a
  // string (no API server sends one; any pod can call the webhook).
  const named = typeof app.metadata?.name === 'string' && app.metadata.name ? app : { ...app, metadata: { ...app.metadata, name: LONGEST_NAME } };
  return Buffer.byteLength(JSON.stringify(longestTemplate(withDefaults(named) as DefaultedApp)));
}

/**
 * The most bytes the rendered template of an App of `appBytes` bytes of JSON can have: every
 * App field lands in the template at most twice (a volume is both the pod's volume and the
 * container's mount; the rest once), plus what Skiff adds itself (names, labels, ports, default
 * probes, defaults filled in), far below 16 KiB. test/unit/pod-template-size.test.ts holds the
 * rendering to it over generated Apps up to the cap.
 */
export function templateBytesBound(appBytes: number, trackConfig = false): number {
  // trackConfig: each reference gains a hash, and the record of copies names each source twice.
  return (trackConfig ? 4 : 3) * appBytes + 16 * 1024;
}

/**
 * Whether the rendered template is over the cap. `appBytes`, when the caller knows an upper bound
 * of the App's JSON size (the webhook: the request body's), spares rendering an App too small to
 * reach the cap: most of them, and rendering is the dearest check of an admission.
 */
export function podTemplateSizeProblems(app: App, appBytes?: number): Problem[] {
  if (appBytes !== undefined && templateBytesBound(appBytes, app.spec?.rollout?.trackConfig === true) <= MAX_POD_TEMPLATE_BYTES) return [];
  const bytes = podTemplateBytes(app);
  if (bytes <= MAX_POD_TEMPLATE_BYTES) return [];
  return [{
    path: 'spec',
    message: `the rendered pod template is ${Math.ceil(bytes / 1024)} KiB; at most ${MAX_POD_TEMPLATE_KIB} KiB (the stable Deployment records it in an annotation, twice during a rollout; podAnnotations, env, command and args count most${app.spec?.rollout?.trackConfig ? ', and with trackConfig each reference to a ConfigMap or Secret, which names its copy' : ''})`,
  }];
}
