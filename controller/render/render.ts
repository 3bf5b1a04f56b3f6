// The objects an App should own, as pure functions of the defaulted App (docs/api.md, "Owned
// objects"). Only the fields the controller manages are set: the reconciler compares exactly
// these with what the API server holds and applies them with server-side apply, so everything
// left out here (API-server defaults, fields other controllers set) is never fought over.
import type { KubernetesObject, V1Deployment, V1Ingress, V1Service } from '@kubernetes/client-node';
import type { DefaultedApp } from '../../shared/defaults.js';
import { ANNOTATION_SELECTED_REVISION, ANNOTATION_SWITCHED_BACK_FROM, objectLabels, ownedName, podSelector, type Track } from '../../shared/labels.js';
import { ownerReference } from '../../shared/owner-reference.js';
import { CONTAINER_NAME, PORT_NAME, onTrack, renderPodTemplate, withSpreading, type PodTemplate } from '../../shared/render/pod-template.js';
import { revisionSelector, withRevisionLabel } from './revision-label.js';
import { desiredHorizontalPodAutoscaler, desiredPodDisruptionBudget } from './disruption-scaling.js';
import type { ServedVersions } from './served-versions.js';
import { ANNOTATION_POD_TEMPLATE, ANNOTATION_PREVIOUS_POD_TEMPLATE, ANNOTATION_REVISION } from './pod-template-record.js';

export interface StableObjects {
  deployment: V1Deployment;
  service: V1Service;
  /** Absent when the App has no spec.ingress: an owned Ingress must then be deleted. */
  ingress?: V1Ingress;
  /** Absent when not wanted (fewer than two pods) or not served: an owned one must then be deleted. */
  podDisruptionBudget?: KubernetesObject;
  /** Absent without spec.autoscaling: an owned one must then be deleted. */
  horizontalPodAutoscaler?: KubernetesObject;
}

export interface CanaryObjects {
  deployment: V1Deployment;
  service: V1Service;
}

export interface StableInput {
  /** The pod template stable runs: spec's, or during a canary the one it ran before. */
  template: PodTemplate;
  /** The stable Deployment's replicas; undefined leaves them to the HorizontalPodAutoscaler. */
  replicas?: number;
  versions: ServedVersions;
  /** The record of the template stable ran before `template` (as the Deployment holds it), to keep beside it. */
  previousRecord?: string;
  /** The Deployment rolls its own pods (no canary) and spec.rollout.paused holds them: spec.paused. */
  paused?: boolean;
  /** Blue-green: the revision the Service `<app>` selects; undefined: the stable track. */
  serviceRevision?: string;
  /** Blue-green: an abort's switch back, from this revision (ANNOTATION_SWITCHED_BACK_FROM on the Service). */
  switchedBackFrom?: string;
}

function objectMeta(app: DefaultedApp, track: Track, annotations?: Record<string, string>) {
  return {
    name: ownedName(app.metadata.name!, track),
    namespace: app.metadata.namespace,
    labels: objectLabels(app, track),
    ...(annotations ? { annotations } : {}),
    ownerReferences: [ownerReference(app)],
  };
}

/** `stablePod`: the template on the stable track (as its revision was taken); the Deployment runs it on `track`. */
export function desiredDeployment(app: DefaultedApp, track: Track, stablePod: PodTemplate, replicas: number | undefined, previousRecord?: string, paused = false): V1Deployment {
  const annotations: Record<string, string> = { [ANNOTATION_REVISION]: stablePod.revision };
  // A blue-green preview records its template as stable does: the scale-down gives it to stable.
  if (track !== 'canary') annotations[ANNOTATION_POD_TEMPLATE] = JSON.stringify(stablePod.template);
  if (track === 'stable' && previousRecord) annotations[ANNOTATION_PREVIOUS_POD_TEMPLATE] = previousRecord;
  const pod = onTrack(stablePod, app, track);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: objectMeta(app, track, annotations),
    spec: {
      ...(replicas !== undefined ? { replicas } : {}),
      selector: { matchLabels: podSelector(app.metadata.name!, track) },
      // Canary pods never carry the revision label: a canary left from before a change to BlueGreen
      // keeps its pods while it winds down, and the Service of a switch to the same revision never
      // selects pods that go after their delay.
      template: track === 'canary' ? withSpreading(pod.template, app, track) : withRevisionLabel(withSpreading(pod.template, app, track), app, pod.revision),
      strategy: { type: 'RollingUpdate' },
      progressDeadlineSeconds: app.spec.rollout.progressDeadlineSeconds,
      // Only while paused: the field is left to its default otherwise, as before there was a pause.
      ...(paused ? { paused: true } : {}),
    },
  };
}

/**
 * The Service of a track. `revision`: select the pods of that revision (the label blue-green pods
 * carry) instead of the track's: a blue-green switch is one write of this selector.
 */
export function desiredService(app: DefaultedApp, track: Track, revision?: string, switchedBackFrom?: string): V1Service {
  // The revision beside the selector, in the same write: only a switch Skiff wrote carries it; so
  // does the revision an abort switched back from.
  const annotations = {
    ...(revision === undefined ? {} : { [ANNOTATION_SELECTED_REVISION]: revision }),
    ...(switchedBackFrom === undefined ? {} : { [ANNOTATION_SWITCHED_BACK_FROM]: switchedBackFrom }),
  };
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: objectMeta(app, track, Object.keys(annotations).length > 0 ? annotations : undefined),
    spec: {
      // The canary and the preview are reached only through their routes, whatever type the stable Service has.
      type: track === 'stable' ? app.spec.service.type : 'ClusterIP',
      selector: revision === undefined ? podSelector(app.metadata.name!, track) : revisionSelector(app.metadata.name!, revision),
      // By name, not number: during a canary of a new spec.port, stable pods still listen on the
      // old one, and each pod's `http` port is the right one for it.
      ports: [{ name: PORT_NAME, port: app.spec.service.port, targetPort: PORT_NAME, protocol: 'TCP' }],
    },
  };
}

/** The Ingress routing spec.ingress's host and path to the stable Service. Requires spec.ingress. */
export function desiredIngress(app: DefaultedApp): V1Ingress {
  const ingress = app.spec.ingress!;
  const out: V1Ingress = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: objectMeta(app, 'stable'),
    spec: {
      ingressClassName: ingress.className,
      rules: [
        {
          host: ingress.host,
          http: {
            paths: [
              {
                path: ingress.path,
                pathType: ingress.pathType,
                backend: { service: { name: ownedName(app.metadata.name!, 'stable'), port: { number: app.spec.service.port } } },
              },
            ],
          },
        },
      ],
    },
  };
  if (ingress.tlsSecretName) out.spec!.tls = [{ hosts: [ingress.host], secretName: ingress.tlsSecretName }];
  return out;
}

/** Stable on spec's own pod template and replicas. */
export function specStable(app: DefaultedApp, versions: ServedVersions = {}): StableInput {
  return { template: renderPodTemplate(app, 'stable'), replicas: app.spec.replicas, versions };
}

/** The stable objects of an App. */
export function render(app: DefaultedApp, stable: StableInput = specStable(app)): StableObjects {
  const { podDisruptionBudget: pdbVersion, horizontalPodAutoscaler: hpaVersion } = stable.versions;
  return {
    deployment: desiredDeployment(app, 'stable', stable.template, stable.replicas, stable.previousRecord, stable.paused),
    service: desiredService(app, 'stable', stable.serviceRevision, stable.switchedBackFrom),
    ingress: app.spec.ingress ? desiredIngress(app) : undefined,
    podDisruptionBudget: pdbVersion ? desiredPodDisruptionBudget(app, pdbVersion) : undefined,
    horizontalPodAutoscaler: hpaVersion ? desiredHorizontalPodAutoscaler(app, hpaVersion) : undefined,
  };
}

/** The canary Deployment and Service: spec's pod template at `replicas` pods. */
export function renderCanary(app: DefaultedApp, replicas: number, spec = renderPodTemplate(app, 'stable')): CanaryObjects {
  return { deployment: desiredDeployment(app, 'canary', spec, replicas), service: desiredService(app, 'canary') };
}

export { CONTAINER_NAME, PORT_NAME };
