// What the page shows, computed from the caches: a row per App for the list, with the counts per
// status word, and an App's detail. Pure (the caches' contents and `now` in, plain JSON out), so
// the JSON API, the server-sent events and the unit tests share one definition.
import { APP_HEALTH, type AppHealth } from '../../shared/app-health.js';
import type { MetricVerdict } from '../../shared/app-types.js';
import { durationMs } from '../../shared/durations.js';
import { canarySteps, PROMOTION_STEP, stepName } from '../../shared/steps.js';
import {
  actualWeight, blueGreenOf, pauseMeans, promotionWaiting, checkedAt, heldChange, selectedRevision, switchedBack, deploymentRole, imageRoles, newestByHash, NGINX_CANARY, NGINX_CANARY_WEIGHT, commandRevisionOf, retryRefusal, revisionsOf, roleOf, rolloutAnalysis, rolloutCommandRefusal, statusWord, stepDetail, stepText, strategyOf, templateHashNow,
  type BlueGreenStatus, type CliApp, type HeldChange, type Revision, type Role,
} from '../model.js';
import { autoscalerRow, budgetRow, configCopyRows } from './object-views.js';
import { everPromoted, noOpUndoCheck, undoMeans } from '../undo.js';
import type { AppEvent } from './slim.js';
import type { Owned } from './store.js';

export interface Row {
  key: string;
  namespace: string;
  name: string;
  labels: Record<string, string>;
  status: AppHealth;
  strategy: string;
  /** "2/4", a blue-green phase, or "-". */
  step: string;
  stepDetail?: string;
  /** The canary weight the controller set, and the one the router has now. */
  weight?: number;
  actualWeight?: number;
  images: { image: string; role: Role }[];
  createdAt?: string;
}

export function row(key: string, app: CliApp, owned: Pick<Owned, 'ingresses' | 'routes'>): Row {
  const [namespace, name] = [app.metadata.namespace ?? '', app.metadata.name ?? ''];
  return {
    key, namespace, name,
    labels: app.metadata.labels ?? {},
    status: statusWord(app),
    strategy: strategyOf(app),
    step: stepText(app),
    stepDetail: stepDetail(app),
    weight: app.status?.canary?.weight,
    actualWeight: actualWeight(app, owned.ingresses, owned.routes),
    images: imageRoles(app),
    createdAt: app.metadata.creationTimestamp ? String(app.metadata.creationTimestamp) : undefined,
  };
}

export function counts(rows: Pick<Row, 'status'>[]): Record<AppHealth, number> {
  const out = Object.fromEntries(APP_HEALTH.map((h) => [h, 0])) as Record<AppHealth, number>;
  for (const r of rows) out[r.status]++;
  return out;
}

export interface StepView { index: number; text: string; current: boolean; done: boolean }

/** The canary's steps, the current one marked; `endsAt` of a timed pause under way. */
export function stepsView(app: CliApp): { steps: StepView[]; pauseEndsAt?: string; pausedAt?: string } {
  const c = app.status?.canary;
  // A promotion under way is past every step, also those added since it began.
  const promoting = c?.step === PROMOTION_STEP;
  const steps = canarySteps(app.spec.rollout).map((s, index) => ({
    index, text: stepName(s), current: !promoting && c?.stepIndex === index, done: c !== undefined && (promoting || index < c.stepIndex),
  }));
  const step = c && !promoting ? canarySteps(app.spec.rollout)[c.stepIndex] : undefined;
  const waitMs = step?.pause?.duration ? durationMs(step.pause.duration) : undefined;
  // The status is whatever was written to it: a missing or unreadable stepStartedAt gives no end time.
  const endsMs = c && waitMs !== undefined && !c.pausedAt ? Date.parse(c.stepStartedAt) + waitMs : NaN;
  const pauseEndsAt = Number.isFinite(endsMs) ? new Date(endsMs).toISOString() : undefined;
  return { steps, pauseEndsAt, pausedAt: c?.pausedAt };
}

/** One check as the controller records it in status.canary.analysis.history. */
export interface CheckRecord {
  at?: string;
  weight?: number;
  result?: MetricVerdict;
  metrics?: { name: string; value?: number; min?: number; max?: number; result?: MetricVerdict }[];
}

export interface MetricSeries {
  name: string;
  min?: number;
  max?: number;
  /** `where`: where the check ran, as `get` says it (" at 20%", " of the preview", " under full traffic"). */
  points: { at?: string; value: number; weight?: number; where: string; result?: MetricVerdict }[];
  /** Checks that judged the metric, with a value or without (a query failing, no data): points are those with one. */
  checks: number;
  /** Why the last check has no value for the metric (its message), when it has none. */
  lastUnmeasured?: string;
}

/** A metric a check got a number for. */
const measured = (m: { value?: number }): m is { value: number } => typeof m.value === 'number' && Number.isFinite(m.value);

/**
 * Each metric's values over the checks of the running rollout: `analysis.history` (the last
 * checks, oldest first) when the controller keeps it, else the last check's metrics as single
 * points. Bounds are the newest ones given.
 */
export function metricSeries(app: CliApp): MetricSeries[] {
  const a = rolloutAnalysis(app);
  if (!a) return [];
  const checks: CheckRecord[] = Array.isArray(a.history) && a.history.length
    ? a.history
    : [{ at: a.lastCheckAt, weight: a.lastWeight, result: a.lastResult, metrics: a.metrics }];
  const series = new Map<string, MetricSeries>();
  for (const check of checks) {
    for (const m of check.metrics ?? []) {
      let s = series.get(m.name);
      if (!s) series.set(m.name, (s = { name: m.name, points: [], checks: 0 }));
      if (m.min !== undefined) s.min = m.min;
      if (m.max !== undefined) s.max = m.max;
      s.checks++;
      if (measured(m)) s.points.push({ at: check.at, value: m.value, weight: check.weight, where: checkedAt(app, check.weight), result: m.result });
    }
  }
  // A chart of a metric whose query fails at every check has no point: it says why, as status does.
  for (const m of a.metrics ?? []) {
    const s = series.get(m.name);
    if (s && !measured(m) && m.message) s.lastUnmeasured = m.message;
  }
  return [...series.values()];
}

export interface ObjectView { kind: string; name: string; ready: boolean; text: string; role?: Role }

/**
 * The objects an App owns with their readiness: Deployments ready/desired, routing objects
 * admitted, the disruption budget's healthy pods, the autoscaler's replicas, the config copies.
 */
export function objectsView(app: CliApp, owned: Owned): ObjectView[] {
  const byName = <T extends { metadata: { name: string } }>(xs: T[]) => [...xs].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const out: ObjectView[] = byName(owned.deployments).map((d) => {
    const ready = d.status?.readyReplicas ?? 0;
    const want = d.spec?.replicas ?? 0;
    const image = d.spec?.template?.spec?.containers?.[0]?.image;
    return { kind: 'Deployment', name: d.metadata.name, ready: ready >= want && (d.status?.updatedReplicas ?? 0) >= want, text: `${ready}/${want} ready${image ? ` · ${image}` : ''}`, role: deploymentRole(app, d) };
  });
  for (const s of byName(owned.services)) out.push({ kind: 'Service', name: s.metadata.name, ready: true, text: `${s.spec?.type ?? 'ClusterIP'}${s.spec?.ports?.length ? ` · port ${s.spec.ports.map((p) => p.port).join(',')}` : ''}${selectedRevision(s) ? ` · selects revision ${selectedRevision(s)}` : ''}` });
  for (const i of byName(owned.ingresses)) {
    const hosts = (i.spec?.rules ?? []).map((r) => r.host).filter(Boolean).join(',');
    const address = (i.status?.loadBalancer?.ingress ?? []).map((a) => a.ip ?? a.hostname).filter(Boolean).join(',');
    const canary = i.metadata.annotations?.[NGINX_CANARY] === 'true' ? ` · canary weight ${i.metadata.annotations?.[NGINX_CANARY_WEIGHT] ?? 0}%` : '';
    out.push({ kind: 'Ingress', name: i.metadata.name, ready: address !== '', text: `${hosts || '-'}${canary} · ${address ? `address ${address}` : 'no address yet'}` });
  }
  for (const r of byName(owned.routes)) {
    // Every parent accepted the route's current generation: the weights shown are the ones served.
    const accepted = r.accepted === true;
    const refs = r.spec?.rules?.at(-1)?.backendRefs ?? [];
    out.push({ kind: 'HTTPRoute', name: r.metadata.name, ready: accepted, text: `${r.spec?.hostnames?.length ? `${r.spec.hostnames.join(',')} · ` : ''}${refs.map((b) => `${b.name} ${b.weight ?? 1}`).join(', ') || '-'} · ${accepted ? 'accepted' : 'not accepted yet'}` });
  }
  out.push(...byName(owned.disruptionBudgets).map(budgetRow), ...byName(owned.autoscalers).map(autoscalerRow), ...configCopyRows(byName(owned.configMaps), owned.deployments));
  return out;
}

/**
 * A blue-green rollout as the page shows it: whether it was switched back, and (while the
 * pods without traffic wait out the delay) whose pods go when, as `kubectl skiff get` says it.
 */
export interface BlueGreenView extends BlueGreenStatus {
  switchedBack: boolean;
  podsGo?: { who: 'the old pods' | "the preview's pods"; at: string };
}

export function blueGreenView(b: BlueGreenStatus): BlueGreenView {
  const back = switchedBack(b);
  // Forward, the old pods go at scaleDownAt (once ScalingDown they are going: the Deployment takes
  // the new template); switched back, the preview's pods do.
  const podsGo = b.scaleDownAt && (b.phase === 'Switched' || back) ? { who: back ? "the preview's pods" as const : 'the old pods' as const, at: b.scaleDownAt } : undefined;
  return { ...b, switchedBack: back, ...(podsGo ? { podsGo } : {}) };
}

export interface RevisionView extends Omit<Revision, 'spec'> {
  role?: Role;
  /** The template the App asks for now: no undo to it. */
  current: boolean;
  /** An older entry of a template a newer revision also ran: the newer one offers the undo. */
  repeated: boolean;
  /** Why an undo to it would change nothing (the App has its pod-template fields already), as kubectl skiff undo refuses it. */
  noUndo?: string;
  /** It was Promoted once: an undo to it may skip the canary. */
  everPromoted: boolean;
  /** What an undo to it does in the App's phase, with and without the canary skipped. */
  undoMeans: { rollout: string; skipCanary?: string };
}

export interface Detail {
  row: Row;
  message?: string;
  paused: boolean;
  /** What a pause holds in the rollout's phase (as kubectl skiff pause says it). */
  pauseMeans: string;
  /** A blue-green promotion asked for that waits for the switch (kubectl skiff status: "promoted"). */
  promotionWaiting: boolean;
  canary?: { image: string; revision?: string; changes?: string[]; stepIndex: number; stepStartedAt: string; unavailableSince?: string };
  blueGreen?: BlueGreenView;
  /** spec.rollout.analysis is set: a rollout under way without a check yet has one coming. */
  analysisConfigured: boolean;
  /** The checks of the rollout under way, whichever the strategy. */
  analysis?: { checks: number; failures: number; lastResult?: string };
  abortedRevision?: string;
  abortedImage?: string;
  /** A pod-template change spec.rollout.paused holds back: resume rolls it out, undo drops it. */
  held?: HeldChange;
  /** The revision promote and abort act on now (the server refuses them once it is another). */
  commandRevision?: string;
  scaleDown?: { revision: string; deleteAt: string };
  steps: ReturnType<typeof stepsView>;
  metrics: MetricSeries[];
  revisions: RevisionView[];
  conditions: { type: string; status: string; reason: string; message: string; lastTransitionTime?: string }[];
  events: AppEvent[];
  objects: ObjectView[];
  /** The actions that make sense now (the API server still decides whether the user may). */
  actions: { promote: boolean; abort: boolean; pause: boolean; resume: boolean; retry: boolean; undo: boolean };
}

export function detail(key: string, app: CliApp, owned: Owned, events: AppEvent[]): Detail {
  const s = app.status;
  const c = s?.canary;
  const revisions = revisionsOf(owned.revisions, app);
  const newest = newestByHash(revisions);
  // The template the App asks for now, if it has an entry (a change held back by a pause has
  // none): no undo to it, under any of its revision numbers (an undo to it would change nothing).
  const current = newest.get(templateHashNow(app, revisions) ?? '')?.hash;
  const analysis = rolloutAnalysis(app);
  const blueGreen = blueGreenOf(app);
  const noUndo = noOpUndoCheck(app, revisions);
  const paused = app.spec.rollout?.paused === true;
  const degraded = s?.conditions?.find((x) => x.type === 'Degraded' && x.status === 'True');
  return {
    row: row(key, app, owned),
    message: degraded ? `${degraded.reason}: ${degraded.message}` : undefined,
    paused,
    pauseMeans: pauseMeans(app),
    promotionWaiting: promotionWaiting(app),
    canary: c && { image: c.image, revision: c.revision, changes: c.changes, stepIndex: c.stepIndex, stepStartedAt: c.stepStartedAt, unavailableSince: c.unavailableSince },
    blueGreen: blueGreen && blueGreenView(blueGreen),
    analysisConfigured: app.spec.rollout?.analysis !== undefined,
    analysis: analysis && { checks: analysis.checks, failures: analysis.failures, lastResult: analysis.lastResult },
    abortedRevision: s?.abortedRevision,
    abortedImage: s?.abortedImage,
    held: heldChange(app),
    commandRevision: commandRevisionOf(app),
    scaleDown: s?.scaleDown,
    steps: stepsView(app),
    metrics: metricSeries(app),
    // A hash's role is its newest revision's: an older entry of the same template ran before.
    revisions: revisions.map((revision) => {
      const { spec: _spec, ...r } = revision;
      const newestOfHash = newest.get(r.hash) === revision;
      return { ...r, role: newestOfHash ? roleOf(app, r.hash) : undefined, current: r.hash === current, repeated: !newestOfHash, noUndo: noUndo(revision), everPromoted: everPromoted(revisions, r.hash), undoMeans: undoMeans(app, r.hash) };
    }),
    conditions: (s?.conditions ?? []).map((x) => ({ type: x.type, status: x.status, reason: x.reason, message: x.message, lastTransitionTime: x.lastTransitionTime })),
    events,
    objects: objectsView(app, owned),
    actions: { promote: rolloutCommandRefusal(app, 'promote') === undefined && !promotionWaiting(app), abort: rolloutCommandRefusal(app, 'abort') === undefined, pause: !paused, resume: paused, retry: retryRefusal(app) === undefined, undo: revisions.length > 1 },
  };
}
