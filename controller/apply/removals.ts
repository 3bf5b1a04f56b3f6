// What server-side apply cannot take away, removed first with a strategic merge patch.
//
// - A probe (readiness, liveness, startup) the App no longer has: applying the Deployment without
//   it removes the fields skiff set (path, port) but not those the API server defaulted inside it
//   (scheme, periods, thresholds), and the half-empty probe fails validation (1.20 API server,
//   even with every default spelled out; kubernetes/kubernetes#99037 for livenessProbe).
// - A probe whose handler changed (httpGet to tcpSocket, say): the same defaulted fields (httpGet's
//   scheme) stay behind the old handler, and a probe with two handlers fails validation too; one
//   patch takes the old handler away and puts the new one in.
// - A volume whose source changed (configMap to secret, or to the emptyDir of a missing optional
//   source under trackConfig): the old source keeps its defaulted defaultMode, and a volume with
//   two sources fails validation; one patch takes the old source away and puts the new one in.
// - An env var that no longer reads a pod field (fieldRef, whose apiVersion the API server
//   defaults): the half-empty fieldRef stays beside the new value or source and fails validation.
// - A serviceAccountName the App no longer has: the API server mirrors it into the deprecated
//   alias serviceAccount and fills an empty serviceAccountName from that alias, so removing the
//   field alone leaves the pods on the old account (kubernetes/kubernetes#72519); both go at once.
// - Port entries someone else changed or added: ports are list-maps keyed by port and protocol,
//   so a port edited by hand is a new entry owned by another manager that apply leaves in place
//   (next to ours, with the same name: the apply then fails as a duplicate). The ports of the
//   App's container and Service are the App's: entries it does not have are deleted.
// - Keys someone else added to an owned Service's selector: a map keeps another manager's keys
//   through an apply, and one more key (`kubectl patch svc web -p '{"spec":{"selector":{"x":"y"}}}'`)
//   selects no pod at all. The selector is the App's: keys it does not have are deleted.
import type { KubernetesObject } from '@kubernetes/client-node';
import { ANNOTATION_SELECTED_REVISION, ANNOTATION_SWITCHED_BACK_FROM } from '../../shared/labels.js';

/** Optional container fields skiff manages whose content the API server fills with defaults. */
const DEFAULTED_CONTAINER_FIELDS = ['readinessProbe', 'livenessProbe', 'startupProbe'] as const;

/** A probe's handlers, of which the API server takes exactly one. */
const PROBE_HANDLERS = ['httpGet', 'tcpSocket', 'exec', 'grpc'] as const;

type Port = { port?: number; containerPort?: number; protocol?: string };
type Volume = { name?: string } & Record<string, unknown>;
type EnvVar = { name?: string; value?: string; valueFrom?: Record<string, unknown> | null };
type Container = { name?: string; ports?: Port[]; env?: EnvVar[] } & Record<string, unknown>;

export interface Removal {
  /** Strategic merge patch body for the object. */
  patch: Record<string, unknown>;
  /** The removed fields, for logs and Events. */
  paths: string[];
}

const spec = (obj: KubernetesObject) => (obj as { spec?: Record<string, any> }).spec;

/** Ports of `observed` that `desired` does not have, compared by merge key and protocol. */
function extraPorts(desired: Port[] | undefined, observed: Port[] | undefined, key: 'port' | 'containerPort'): Port[] {
  const id = (p: Port) => `${p[key]}/${p.protocol ?? 'TCP'}`;
  const keep = new Set((desired ?? []).map(id));
  return (observed ?? []).filter((p) => !keep.has(id(p)));
}

/**
 * A one-of object (a probe's handler, a volume's or an env var's source) whose member changed:
 * the members `had` sets and `wanted` does not, as null, beside `wanted`'s members, so that one
 * patch takes the old away and puts the new in (the API server refuses both two members and
 * none); undefined when no member went.
 */
function swappedMembers(had: Record<string, unknown>, wanted: Record<string, unknown>, members: readonly string[]): { patch: Record<string, unknown>; gone: string[] } | undefined {
  const gone = members.filter((m) => had[m] !== undefined && had[m] !== null && wanted[m] === undefined);
  if (gone.length === 0) return undefined;
  const added = members.filter((m) => wanted[m] !== undefined).map((m) => [m, wanted[m]]);
  return { patch: Object.fromEntries([...gone.map((m) => [m, null]), ...added]), gone };
}

const memberNames = (a: Record<string, unknown>, b: Record<string, unknown>) => [...new Set([...Object.keys(a), ...Object.keys(b)])];

/** Patch entries for the env vars of `observed` whose valueFrom source `desired` no longer has. */
function envSourceChanges(container: string, desired: EnvVar[], observed: EnvVar[], paths: string[]): EnvVar[] {
  const out: EnvVar[] = [];
  for (const want of desired) {
    const had = observed.find((e) => e.name === want.name)?.valueFrom;
    if (had === undefined || had === null) continue;
    const path = `spec.template.spec.containers[${container}].env[${want.name}].valueFrom`;
    if (want.valueFrom === undefined || want.valueFrom === null) {
      out.push({ name: want.name, valueFrom: null });
      paths.push(path);
      continue;
    }
    const swap = swappedMembers(had, want.valueFrom, memberNames(had, want.valueFrom));
    if (!swap) continue;
    out.push({ name: want.name, valueFrom: swap.patch });
    paths.push(...swap.gone.map((k) => `${path}.${k}`));
  }
  return out;
}

/** Patch entries for the volumes of `observed` whose source `desired` replaced by another. */
function volumeSourceChanges(desired: Volume[], observed: Volume[], paths: string[]): Volume[] {
  const out: Volume[] = [];
  for (const want of desired) {
    const have = observed.find((v) => v.name === want.name);
    if (!have) continue;
    const swap = swappedMembers(have, want, memberNames(have, want).filter((k) => k !== 'name'));
    if (!swap) continue;
    out.push({ name: want.name, ...swap.patch });
    paths.push(...swap.gone.map((k) => `spec.template.spec.volumes[${want.name}].${k}`));
  }
  return out;
}

/**
 * Both names of the pod's account, when the desired template has none and the observed one has
 * either, and the desired object changed since it was last applied: an account Skiff never set
 * (another controller's, a policy engine's mutation) is not Skiff's to take away, and taking it
 * on every pass would roll the pods on every pass.
 */
function serviceAccountRemoval(desired: Record<string, unknown>, observed: Record<string, unknown>, paths: string[], changed: boolean): Record<string, null> {
  if (!changed || desired.serviceAccountName || !(observed.serviceAccountName || observed.serviceAccount)) return {};
  paths.push('spec.template.spec.serviceAccountName');
  return { serviceAccountName: null, serviceAccount: null };
}

function deploymentRemoval(desired: KubernetesObject, observed: KubernetesObject, changed: boolean): Removal | undefined {
  const paths: string[] = [];
  const containers: Record<string, unknown>[] = [];
  const observedContainers: Container[] = spec(observed)?.template?.spec?.containers ?? [];
  for (const want of (spec(desired)?.template?.spec?.containers ?? []) as Container[]) {
    const have = observedContainers.find((c) => c.name === want.name);
    if (!have) continue;
    const patch: Record<string, unknown> = {};
    for (const f of DEFAULTED_CONTAINER_FIELDS) {
      const had = have[f] as Record<string, unknown> | undefined | null;
      if (had === undefined || had === null) continue;
      const wanted = want[f] as Record<string, unknown> | undefined;
      if (wanted === undefined) {
        patch[f] = null;
        paths.push(`spec.template.spec.containers[${want.name}].${f}`);
        continue;
      }
      const swap = swappedMembers(had, wanted, PROBE_HANDLERS);
      if (swap) {
        patch[f] = swap.patch;
        paths.push(...swap.gone.map((h) => `spec.template.spec.containers[${want.name}].${f}.${h}`));
      }
    }
    const env = envSourceChanges(want.name!, want.env ?? [], have.env ?? [], paths);
    if (env.length > 0) patch.env = env;
    const extra = extraPorts(want.ports, have.ports, 'containerPort');
    if (extra.length > 0) {
      patch.ports = extra.map((p) => ({ containerPort: p.containerPort, $patch: 'delete' }));
      paths.push(...extra.map((p) => `spec.template.spec.containers[${want.name}].ports[${p.containerPort}/${p.protocol ?? 'TCP'}]`));
    }
    if (Object.keys(patch).length > 0) containers.push({ name: want.name, ...patch });
  }
  const volumes = volumeSourceChanges(spec(desired)?.template?.spec?.volumes ?? [], spec(observed)?.template?.spec?.volumes ?? [], paths);
  const account = serviceAccountRemoval(spec(desired)?.template?.spec ?? {}, spec(observed)?.template?.spec ?? {}, paths, changed);
  const pod = { ...(containers.length ? { containers } : {}), ...(volumes.length ? { volumes } : {}), ...account };
  return paths.length ? { patch: { spec: { template: { spec: pod } } }, paths } : undefined;
}

const selected = (obj: KubernetesObject) => obj.metadata?.annotations?.[ANNOTATION_SELECTED_REVISION];
const switchedBackFrom = (obj: KubernetesObject) => obj.metadata?.annotations?.[ANNOTATION_SWITCHED_BACK_FROM];

function serviceRemoval(desired: KubernetesObject, observed: KubernetesObject): Removal | undefined {
  const extra = extraPorts(spec(desired)?.ports, spec(observed)?.ports, 'port');
  const wanted: Record<string, unknown> = spec(desired)?.selector ?? {};
  const extraKeys = Object.keys(spec(observed)?.selector ?? {}).filter((k) => !Object.hasOwn(wanted, k));
  if (extra.length === 0 && extraKeys.length === 0) return undefined;
  const annotations = Object.fromEntries(([[ANNOTATION_SELECTED_REVISION, selected], [ANNOTATION_SWITCHED_BACK_FROM, switchedBackFrom]] as const)
    .filter(([, of]) => of(desired) !== of(observed)).map(([key, of]) => [key, of(desired) ?? null]));
  return {
    patch: {
      spec: {
        // A Service needs a port: the App's ports go in with the same patch.
        ...(extra.length > 0 ? { ports: [...extra.map((p) => ({ port: p.port, $patch: 'delete' })), ...(spec(desired)?.ports ?? [])] } : {}),
        // The App's keys go in with the same patch: alone, the removal would leave a selector of
        // fewer keys for a moment (`skiff.dev/app` alone, between the track and the revision of a
        // strategy change), which selects every pod of the App, canary and preview included.
        ...(extraKeys.length > 0 ? { selector: { ...wanted, ...Object.fromEntries(extraKeys.map((k) => [k, null])) } } : {}),
      },
      // The revision a blue-green selector names goes in (or out) with it: a Service selecting a
      // revision without saying that Skiff switched it would be taken for a hand edit.
      // So does the revision an abort switched back from (to the track, here).
      ...(extraKeys.length > 0 && Object.keys(annotations).length > 0 ? { metadata: { annotations } } : {}),
    },
    paths: [...extra.map((p) => `spec.ports[${p.port}/${p.protocol ?? 'TCP'}]`), ...extraKeys.map((k) => `spec.selector.${k}`)],
  };
}

/** ingress-nginx's canary annotations: `canary` and every `canary-*` (weight, by-header, by-cookie, ...). */
const isNginxCanaryKey = (key: string) => /^nginx\.ingress\.kubernetes\.io\/canary(-|$)/.test(key);

function ingressRemoval(desired: KubernetesObject, observed: KubernetesObject): Removal | undefined {
  const wanted = desired.metadata?.annotations ?? {};
  const extra = Object.keys(observed.metadata?.annotations ?? {}).filter((k) => isNginxCanaryKey(k) && !Object.hasOwn(wanted, k));
  if (extra.length === 0) return undefined;
  return {
    patch: { metadata: { annotations: Object.fromEntries(extra.map((k) => [k, null])) } },
    paths: extra.map((k) => `metadata.annotations.${k}`),
  };
}

/**
 * What must be removed from `observed` before `desired` can be applied, if anything. `changed`:
 * the desired object differs from what was last applied (its content hash), so that removals of
 * fields only Skiff's earlier applies can have set are made once, with that change.
 */
export function removalFor(desired: KubernetesObject, observed: KubernetesObject, changed = true): Removal | undefined {
  if (desired.kind === 'Deployment') return deploymentRemoval(desired, observed, changed);
  if (desired.kind === 'Service') return serviceRemoval(desired, observed);
  if (desired.kind === 'Ingress') return ingressRemoval(desired, observed);
  return undefined;
}
