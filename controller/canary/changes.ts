// What differs between two pod templates, in the App's own field names ("image", "env MODE",
// "probes.liveness"), so that a person can see what a canary tries out. Pure.
import { isDeepStrictEqual } from 'node:util';
import type { V1Container, V1PodTemplateSpec } from '@kubernetes/client-node';
import { CONTAINER_NAME } from '../../shared/render/pod-template.js';
import { configChanges, referencedNames, withSourceNames } from '../../shared/render/config-copies.js';

const CONTAINER_FIELDS: [keyof V1Container, string][] = [
  ['image', 'image'],
  ['command', 'command'],
  ['args', 'args'],
  ['ports', 'port'],
  ['envFrom', 'envFrom'],
  ['resources', 'resources'],
  ['readinessProbe', 'probes.readiness'],
  ['livenessProbe', 'probes.liveness'],
  ['startupProbe', 'probes.startup'],
  ['volumeMounts', 'volumes'],
  ['securityContext', 'securityContext'],
];

const POD_FIELDS: [string, string][] = [
  ['volumes', 'volumes'],
  ['imagePullSecrets', 'imagePullSecrets'],
  ['serviceAccountName', 'serviceAccountName'],
  ['securityContext', 'podSecurityContext'],
  ['nodeSelector', 'nodeSelector'],
  ['tolerations', 'tolerations'],
  ['priorityClassName', 'priorityClassName'],
  ['terminationGracePeriodSeconds', 'terminationGracePeriodSeconds'],
];

const same = (a: unknown, b: unknown) => isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? null)), JSON.parse(JSON.stringify(b ?? null)));

function envChanges(from: V1Container['env'] = [], to: V1Container['env'] = []): string[] {
  const before = new Map(from.map((e) => [e.name, e]));
  const after = new Map(to.map((e) => [e.name, e]));
  const names = [...new Set([...before.keys(), ...after.keys()])];
  return names.filter((n) => !same(before.get(n), after.get(n))).map((n) => `env ${n}`);
}

/**
 * The App fields whose rendering differs between `from` (stable) and `to` (canary). With
 * trackConfig, a source whose copy differs is named ("configMap web-cfg"), and references are
 * compared by source, so that a new copy is not also a change of env, envFrom or volumes.
 */
export function templateChanges(stable: V1PodTemplateSpec, canary: V1PodTemplateSpec): string[] {
  const before = withSourceNames(stable);
  const after = withSourceNames(canary);
  // Which sources each references: one run from a copy on one side only says trackConfig (or the
  // controller's --track-secrets) was turned on or off, not that its data changed.
  const referenced = [referencedNames([before.template]), referencedNames([after.template])] as const;
  return [...fieldChanges(before.template, after.template), ...configChanges(before.copies, after.copies, referenced)];
}

function fieldChanges(from: V1PodTemplateSpec, to: V1PodTemplateSpec): string[] {
  const container = (t: V1PodTemplateSpec) => t.spec?.containers?.find((c) => c.name === CONTAINER_NAME) ?? ({} as V1Container);
  const a = container(from);
  const b = container(to);
  const changes = new Set<string>();
  for (const [field, name] of CONTAINER_FIELDS) if (!same(a[field], b[field])) changes.add(name);
  const env = envChanges(a.env, b.env);
  for (const e of env) changes.add(e);
  // The same variables in another order matter too: a later one may refer to an earlier one.
  if (env.length === 0 && !same(a.env?.map((e) => e.name), b.env?.map((e) => e.name))) changes.add('env (order)');
  const podA = (from.spec ?? {}) as Record<string, unknown>;
  const podB = (to.spec ?? {}) as Record<string, unknown>;
  for (const [field, name] of POD_FIELDS) if (!same(podA[field], podB[field])) changes.add(name);
  if (!same(from.metadata?.annotations, to.metadata?.annotations)) changes.add('podAnnotations');
  if (!same(from.metadata?.labels, to.metadata?.labels)) changes.add('podLabels');
  return [...changes];
}
