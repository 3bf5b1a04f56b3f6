// The pod template an App renders (docs/api.md, "Real workloads"), and its revision: a short
// hash that changes with every pod-template field and with nothing else, so that a canary
// starts for any change of what the pods run and never for replicas, service or routing.
// Pure.
import type { V1Container, V1Deployment, V1EmptyDirVolumeSource, V1EnvVar, V1PodSpec, V1PodTemplateSpec, V1Probe, V1TopologySpreadConstraint, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { EnvVarSource, Probe, Volume } from '../app-types.js';
import type { DefaultedApp } from '../defaults.js';
import { contentHash } from '../hash.js';
import { CONTAINER_NAME, ownedLabels, podSelector, PORT_NAME, type Track } from '../labels.js';
import { cloneJson } from '../objects.js';

export { CONTAINER_NAME, PORT_NAME };

export interface PodTemplate {
  /** Short hash of the template's content; the same for the stable and the canary track. */
  revision: string;
  template: V1PodTemplateSpec;
}

const nonEmpty = <T extends object>(o: T | undefined): T | undefined => (o && Object.keys(o).length > 0 ? o : undefined);
const copy = <T>(v: T | undefined): T | undefined => (v === undefined ? undefined : cloneJson(v));

/** A probe of the App as corev1.Probe: the handler's port defaults to the container port. */
function probe(p: Probe, port: number): V1Probe {
  const out = cloneJson(p) as V1Probe;
  if (out.httpGet) out.httpGet.port ??= port;
  if (out.tcpSocket) out.tcpSocket.port ??= port;
  return out;
}

function readinessProbe(app: DefaultedApp): V1Probe | undefined {
  const { spec } = app;
  if (spec.probes?.readiness) return probe(spec.probes.readiness, spec.port);
  // The shorthand of the first API version.
  return spec.readinessPath ? { httpGet: { path: spec.readinessPath, port: spec.port } } : undefined;
}

const emptyDir = ({ medium, sizeLimit }: NonNullable<Volume['emptyDir']>): V1EmptyDirVolumeSource => ({
  ...(medium !== undefined ? { medium } : {}),
  ...(sizeLimit !== undefined ? { sizeLimit: String(sizeLimit) } : {}),
});

function volumes(app: DefaultedApp): { volumes?: V1Volume[]; mounts?: V1VolumeMount[] } {
  const list = app.spec.volumes ?? [];
  if (list.length === 0) return {};
  return {
    volumes: list.map((v) => ({
      name: v.name,
      ...(v.configMap ? { configMap: cloneJson(v.configMap) } : {}),
      ...(v.secret ? { secret: cloneJson(v.secret) } : {}),
      ...(v.emptyDir ? { emptyDir: emptyDir(v.emptyDir) } : {}),
    })),
    // Configuration and secrets are never written by the app; only an emptyDir may be writable.
    // A writable mount leaves readOnly out: the API server drops `false`, so setting it would
    // be a difference on every comparison.
    mounts: list.map((v) => ({
      name: v.name,
      mountPath: v.mountPath,
      ...(v.subPath ? { subPath: v.subPath } : {}),
      ...(v.emptyDir && !v.readOnly ? {} : { readOnly: true }),
    })),
  };
}

/**
 * An env var's source as the API server's apply takes it: a quantity (resourceFieldRef.divisor) is a
 * string there, as sizeLimit and resources are, though the App takes `divisor: 1` as a number
 * too (server-side apply refuses a number: "expected string").
 */
function envSource(from: EnvVarSource): NonNullable<V1EnvVar['valueFrom']> {
  const copy = cloneJson(from) as NonNullable<V1EnvVar['valueFrom']>;
  const divisor = copy.resourceFieldRef?.divisor as unknown;
  if (typeof divisor === 'number') copy.resourceFieldRef!.divisor = String(divisor);
  return copy;
}

function container(app: DefaultedApp, mounts: V1VolumeMount[] | undefined): V1Container {
  const { spec } = app;
  const c: V1Container = {
    name: CONTAINER_NAME,
    image: spec.image,
    // protocol is part of the list-map key of ports; server-side apply wants it set explicitly.
    ports: [{ name: PORT_NAME, containerPort: spec.port, protocol: 'TCP' }],
  };
  if (spec.command?.length) c.command = [...spec.command];
  if (spec.args?.length) c.args = [...spec.args];
  if (spec.env?.length) {
    c.env = spec.env.map((e) => (e.valueFrom ? { name: e.name, valueFrom: envSource(e.valueFrom) } : e.value !== undefined ? { name: e.name, value: e.value } : { name: e.name })) as V1Container['env'];
  }
  if (spec.envFrom?.length) c.envFrom = cloneJson(spec.envFrom);
  const resources: { requests?: Record<string, string>; limits?: Record<string, string> } = {};
  for (const kind of ['requests', 'limits'] as const) {
    const list = spec.resources?.[kind];
    if (list && Object.keys(list).length > 0) {
      resources[kind] = Object.fromEntries(Object.entries(list).map(([k, v]) => [k, String(v)]));
    }
  }
  if (resources.requests || resources.limits) c.resources = resources;
  const readiness = readinessProbe(app);
  if (readiness) c.readinessProbe = readiness;
  if (spec.probes?.liveness) c.livenessProbe = probe(spec.probes.liveness, spec.port);
  if (spec.probes?.startup) c.startupProbe = probe(spec.probes.startup, spec.port);
  if (mounts) c.volumeMounts = mounts;
  const securityContext = nonEmpty(copy(spec.securityContext));
  if (securityContext) c.securityContext = securityContext as V1Container['securityContext'];
  return c;
}

function podSpec(app: DefaultedApp): V1PodSpec {
  const { spec } = app;
  const { volumes: podVolumes, mounts } = volumes(app);
  const pod: V1PodSpec = { containers: [container(app, mounts)] };
  if (podVolumes) pod.volumes = podVolumes;
  if (spec.imagePullSecrets?.length) pod.imagePullSecrets = spec.imagePullSecrets.map((s) => ({ name: s.name }));
  if (spec.serviceAccountName) pod.serviceAccountName = spec.serviceAccountName;
  const podSecurityContext = nonEmpty(copy(spec.podSecurityContext));
  if (podSecurityContext) pod.securityContext = podSecurityContext as V1PodSpec['securityContext'];
  const nodeSelector = nonEmpty(copy(spec.nodeSelector));
  if (nodeSelector) pod.nodeSelector = nodeSelector;
  if (spec.tolerations?.length) pod.tolerations = cloneJson(spec.tolerations);
  if (spec.priorityClassName) pod.priorityClassName = spec.priorityClassName;
  if (spec.terminationGracePeriodSeconds !== undefined) pod.terminationGracePeriodSeconds = spec.terminationGracePeriodSeconds;
  return pod;
}

// Skiff's labels last: the selector depends on them (validation refuses them in podLabels too).
const podLabels = (app: DefaultedApp, track: Track) => ({ ...app.spec.podLabels, ...ownedLabels(app.metadata.name!, track) });

/** spec's pod template on the stable track, without its revision (which hashing costs most of). */
export function stablePodTemplate(app: DefaultedApp): V1PodTemplateSpec {
  const annotations = nonEmpty(copy(app.spec.podAnnotations));
  return { metadata: { labels: podLabels(app, 'stable'), ...(annotations ? { annotations } : {}) }, spec: podSpec(app) };
}

/** The pod template of spec for a track, with the revision of spec's template. */
export function renderPodTemplate(app: DefaultedApp, track: Track): PodTemplate {
  const stable = stablePodTemplate(app);
  return onTrack({ revision: contentHash(stable, 10), template: stable }, app, track);
}

/** The same template for another track: only the track's labels differ, the revision does not. */
export function onTrack(pod: PodTemplate, app: DefaultedApp, track: Track): PodTemplate {
  if (track === 'stable') return pod;
  return { revision: pod.revision, template: { ...pod.template, metadata: { ...pod.template.metadata, labels: podLabels(app, track) } } };
}

/** Pods of the App may run two or more at a time: spread them, and keep some up in disruptions. */
export function runsSeveralPods(app: DefaultedApp): boolean {
  const { autoscaling, replicas } = app.spec;
  return autoscaling ? (autoscaling.minReplicas ?? 1) >= 2 : replicas >= 2;
}

/**
 * The template with soft spreading over nodes and zones when the App runs several pods. Outside
 * the revision: a change of replicas changes the spreading but never starts a canary.
 */
export function withSpreading(template: V1PodTemplateSpec, app: DefaultedApp, track: Track): V1PodTemplateSpec {
  if (!runsSeveralPods(app)) return template;
  const labelSelector = { matchLabels: podSelector(app.metadata.name!, track) };
  const constraints: V1TopologySpreadConstraint[] = ['kubernetes.io/hostname', 'topology.kubernetes.io/zone'].map((topologyKey) => ({
    maxSkew: 1,
    topologyKey,
    whenUnsatisfiable: 'ScheduleAnyway',
    labelSelector,
  }));
  return { ...template, spec: { ...template.spec!, topologySpreadConstraints: constraints } };
}

/** The image of the App's container in a Deployment. */
export function containerImage(d: V1Deployment): string | undefined {
  return d.spec?.template?.spec?.containers?.find((c) => c.name === CONTAINER_NAME)?.image;
}
