// What the dashboard keeps of each object: the fields it shows and nothing else (no
// managedFields, no pod templates, no revision data, Event messages cut), so that memory grows
// with the number of Apps in scope and not with the size of what they own. Pure.
import { GROUP } from '../../shared/app-types.js';
import { routeReadiness, type RouteWithStatus } from '../../shared/route-readiness.js';
import { boundedText } from '../../shared/text.js';
import {
  ANNOTATION_CONFIG_COPIES, ANNOTATION_HISTORY_CHANGES, ANNOTATION_HISTORY_IMAGES, ANNOTATION_HISTORY_OUTCOME, ANNOTATION_HISTORY_STARTED_AT, LABEL_APP, LABEL_REVISION, LABEL_TRACK,
} from '../../shared/labels.js';
import type { CliApp, ControllerRevision, Deployment, HTTPRoute, Ingress, ObjectMeta, Service } from '../model.js';
import { NGINX_CANARY, NGINX_CANARY_WEIGHT, selectedRevision } from '../model.js';

/** An Event about an App, as the dashboard shows it. */
export interface AppEvent {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
  app: string;
  /** The uid of the App it is about, when the Event names it. */
  appUid?: string;
  type: string;
  reason: string;
  message: string;
  count: number;
  /** When it last happened (RFC 3339). */
  at: string;
}

export interface RawEvent {
  metadata: ObjectMeta;
  involvedObject?: { apiVersion?: string; kind?: string; name?: string; namespace?: string; uid?: string };
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  lastTimestamp?: string;
  eventTime?: string;
  firstTimestamp?: string;
}

/** Event messages are cut to this many bytes: the page shows recent Events, not logs. */
export const EVENT_MESSAGE_BYTES = 1024;

const pick = (from: Record<string, string> | undefined, keys: string[]): Record<string, string> | undefined => {
  const out: Record<string, string> = {};
  for (const k of keys) if (from?.[k] !== undefined) out[k] = from[k];
  return Object.keys(out).length ? out : undefined;
};

const meta = (m: ObjectMeta, labels: string[], annotations: string[] = []): ObjectMeta => ({
  name: m.name, namespace: m.namespace, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp,
  labels: pick(m.labels, labels), annotations: pick(m.annotations, annotations),
});

export function slimApp(app: CliApp): CliApp {
  const { managedFields: _m, annotations, ...metadata } = app.metadata as CliApp['metadata'] & { managedFields?: unknown };
  const kept = annotations ? Object.fromEntries(Object.entries(annotations).filter(([k]) => k !== 'kubectl.kubernetes.io/last-applied-configuration')) : undefined;
  return { ...app, metadata: { ...metadata, ...(kept ? { annotations: kept } : {}) } };
}

/**
 * The ConfigMap entries of a pod template's record of copies ("configMap/web-cfg=web-cfg-1a2b…"):
 * which ConfigMap each copy is of. Those of Secrets are dropped: the page names no Secret.
 */
export function configMapCopies(record: string | undefined): string | undefined {
  const kept = (record ?? '').split(',').filter((e) => e.startsWith('configMap/') && e.includes('='));
  return kept.length ? kept.join(',') : undefined;
}

export const slimDeployment = (d: Deployment): Deployment => {
  const copies = configMapCopies(d.spec?.template?.metadata?.annotations?.[ANNOTATION_CONFIG_COPIES]);
  return {
    metadata: meta(d.metadata, [LABEL_APP, LABEL_TRACK], [LABEL_REVISION]),
    spec: {
      replicas: d.spec?.replicas,
      template: {
        ...(copies ? { metadata: { annotations: { [ANNOTATION_CONFIG_COPIES]: copies } } } : {}),
        spec: { containers: (d.spec?.template?.spec?.containers ?? []).slice(0, 1).map((c) => ({ image: c.image })) },
      },
    },
    status: {
      replicas: d.status?.replicas, updatedReplicas: d.status?.updatedReplicas, readyReplicas: d.status?.readyReplicas, availableReplicas: d.status?.availableReplicas,
    },
  };
};

export const slimService = (s: Service): Service => ({
  metadata: meta(s.metadata, [LABEL_APP]),
  // Of the selector, only the revision a blue-green switch writes: what the page says it selects.
  spec: { type: s.spec?.type, ports: (s.spec?.ports ?? []).map((p) => ({ port: p.port })), ...(selectedRevision(s) ? { selector: { [LABEL_REVISION]: selectedRevision(s)! } } : {}) },
});

export type SlimIngress = Ingress & { status?: { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } } };
export const slimIngress = (i: SlimIngress): SlimIngress => ({
  metadata: meta(i.metadata, [LABEL_APP], [NGINX_CANARY, NGINX_CANARY_WEIGHT]),
  spec: { rules: (i.spec?.rules ?? []).map((r) => ({ host: r.host })) },
  status: { loadBalancer: { ingress: (i.status?.loadBalancer?.ingress ?? []).map((a) => ({ ip: a.ip, hostname: a.hostname })) } },
});

/** A route as listed; kept: whether its parents took it as it is now, as the controller tells it. */
export type SlimRoute = HTTPRoute & { accepted?: boolean };
export const slimRoute = (r: HTTPRoute & RouteWithStatus): SlimRoute => ({
  metadata: meta(r.metadata, [LABEL_APP]),
  spec: { hostnames: r.spec?.hostnames, rules: (r.spec?.rules ?? []).map((rule) => ({ backendRefs: (rule.backendRefs ?? []).map((b) => ({ name: b.name, weight: b.weight })) })) },
  accepted: routeReadiness(r).ready,
});

/** Whether an object's status speaks of its current spec (the controller that writes it has seen it). */
const observed = (generation: number | undefined, observedGeneration: number | undefined) => (observedGeneration ?? 0) >= (generation ?? 0);

type Generated = ObjectMeta & { generation?: number };

/** A PodDisruptionBudget (policy/v1 or v1beta1: the fields kept are the same in both). */
export interface RawBudget {
  metadata: Generated;
  spec?: { minAvailable?: number | string; maxUnavailable?: number | string };
  status?: { observedGeneration?: number; currentHealthy?: number; desiredHealthy?: number; disruptionsAllowed?: number };
}
/** `observed`: its status is of its current budget. */
export type SlimBudget = Omit<RawBudget, 'status'> & { status?: Omit<NonNullable<RawBudget['status']>, 'observedGeneration'>; observed: boolean };
export const slimBudget = (b: RawBudget): SlimBudget => ({
  metadata: meta(b.metadata, [LABEL_APP]),
  spec: { minAvailable: b.spec?.minAvailable, maxUnavailable: b.spec?.maxUnavailable },
  status: b.status && { currentHealthy: b.status.currentHealthy, desiredHealthy: b.status.desiredHealthy, disruptionsAllowed: b.status.disruptionsAllowed },
  observed: b.status !== undefined && observed(b.metadata.generation, b.status.observedGeneration),
});

/** A HorizontalPodAutoscaler (autoscaling/v2 or v2beta2: the fields kept are the same in both). */
export interface RawAutoscaler {
  metadata: Generated;
  spec?: { minReplicas?: number; maxReplicas?: number };
  status?: { observedGeneration?: number; currentReplicas?: number; desiredReplicas?: number; conditions?: { type: string; status: string; reason?: string }[] };
}
/** `observed`: its status is of its current spec; `inactive`: why it cannot scale (ScalingActive False: no metrics, say). */
export interface SlimAutoscaler {
  metadata: ObjectMeta;
  spec?: { minReplicas?: number; maxReplicas?: number };
  status?: { currentReplicas?: number; desiredReplicas?: number };
  observed: boolean;
  inactive?: string;
}
export const slimAutoscaler = (h: RawAutoscaler): SlimAutoscaler => {
  const active = h.status?.conditions?.find((c) => c.type === 'ScalingActive');
  return {
    metadata: meta(h.metadata, [LABEL_APP]),
    spec: { minReplicas: h.spec?.minReplicas, maxReplicas: h.spec?.maxReplicas },
    status: h.status && { currentReplicas: h.status.currentReplicas, desiredReplicas: h.status.desiredReplicas },
    observed: h.status !== undefined && observed(h.metadata.generation, h.status.observedGeneration),
    ...(active?.status === 'False' ? { inactive: active.reason ?? 'ScalingActive False' } : {}),
  };
};

/** A ConfigMap copy: its name alone. Its data stays in the cluster (it may be large, and is not the page's to show). */
export interface SlimConfigMap { metadata: ObjectMeta }
export const slimConfigMap = (c: { metadata: ObjectMeta }): SlimConfigMap => ({ metadata: meta(c.metadata, [LABEL_APP]) });

/** A revision without its data: undo reads the revision afresh when it acts. */
export const slimRevision = (cr: ControllerRevision): ControllerRevision => ({
  metadata: {
    ...meta(cr.metadata, [LABEL_APP, LABEL_REVISION], [ANNOTATION_HISTORY_IMAGES, ANNOTATION_HISTORY_CHANGES, ANNOTATION_HISTORY_OUTCOME, ANNOTATION_HISTORY_STARTED_AT]),
    // The controller's reference only: what tells an entry of the App's history (revisionsOf).
    ownerReferences: (cr.metadata.ownerReferences ?? []).filter((o) => o.controller === true).map((o) => ({ uid: o.uid, controller: true })),
  },
  revision: cr.revision,
});

/** An Event about a Skiff App (involvedObject kind App of skiff.dev), or undefined for any other. */
export function slimEvent(e: RawEvent): AppEvent | undefined {
  const about = e.involvedObject;
  if (about?.kind !== 'App' || !about.name) return undefined;
  // The watch selects by kind only, and other operators have a kind App too (kapp-controller's
  // kappctrl.k14s.io): their Events would show on the Skiff App of the same name. An Event that
  // names no apiVersion is kept: the kind and name are all it says.
  if (about.apiVersion !== undefined && about.apiVersion.split('/')[0] !== GROUP) return undefined;
  // An Event is the App's only when stored in the App's namespace, as kubectl describe reads them:
  // the API server lets an Event with an eventTime name an object of another namespace, and a
  // tenant who may create Events in its own would put its words on another team's App.
  const namespace = e.metadata.namespace ?? about.namespace;
  if (about.namespace !== undefined && namespace !== about.namespace) return undefined;
  return {
    metadata: { name: e.metadata.name, namespace: e.metadata.namespace, resourceVersion: e.metadata.resourceVersion },
    app: `${namespace ?? ''}/${about.name}`,
    appUid: about.uid,
    type: e.type ?? 'Normal',
    reason: e.reason ?? '',
    message: boundedText(e.message ?? '', EVENT_MESSAGE_BYTES),
    count: e.count ?? 1,
    at: e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? String(e.metadata.creationTimestamp ?? ''),
  };
}
