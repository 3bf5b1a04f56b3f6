// Simulated ingress traffic for `npm run dev`: every App with an ingress or a route gets requests
// through the ingress-nginx stand-in (nginx-traffic.ts), split between stable and canary by the
// canary weight in its status, so that Prometheus has something to analyse. A blue-green App's
// traffic follows the selector of its Service: once it selects the new revision, all requests are
// answered the way the new revision answers; its previewHost gets a share of its own meanwhile.
// A person makes a canary (or the new revision of a blue-green App) misbehave with annotations:
//   kubectl annotate app web dev.skiff.dev/canary-error-ratio=0.3   (share of 5xx, 0..1)
//   kubectl annotate app web dev.skiff.dev/canary-latency-ms=900
//   kubectl annotate app web dev.skiff.dev/canary-slow-ratio=0.02 dev.skiff.dev/canary-slow-ms=2000
//     (a slow tail: 2% of requests take 2 s; the mean barely moves, p99 does)
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { GROUP, PLURAL, VERSION, type App } from '../shared/app-types.js';
import type { Traffic, TrafficExporter } from './nginx-traffic.js';
import { LABEL_REVISION, ownedName } from '../shared/labels.js';

export const ANNOTATION_ERROR_RATIO = 'dev.skiff.dev/canary-error-ratio';
export const ANNOTATION_LATENCY_MS = 'dev.skiff.dev/canary-latency-ms';
export const ANNOTATION_SLOW_RATIO = 'dev.skiff.dev/canary-slow-ratio';
export const ANNOTATION_SLOW_MS = 'dev.skiff.dev/canary-slow-ms';

/** Requests per second an App gets in all, and what stable answers with. */
const TOTAL_RPS = 20;
const STABLE = { errorRatio: 0, latencyMs: 40 };

const number = (raw: string | undefined, fallback: number, max = Infinity) => {
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(n) && n >= 0 ? Math.min(n, max) : fallback;
};

/** The canary's slow tail from the annotations, if any: ratio 0..1, ms (default 2000). */
const slowTail = (annotations: Record<string, string>) => {
  const ratio = number(annotations[ANNOTATION_SLOW_RATIO], 0, 1);
  return ratio > 0 ? { slow: { ratio, ms: number(annotations[ANNOTATION_SLOW_MS], 2000) } } : {};
};

/** The traffic of one App now: stable's and canary's share of TOTAL_RPS by the canary weight. */
export function appTraffic(app: App) {
  const weight = app.status?.canary?.weight ?? 0;
  const annotations = app.metadata.annotations ?? {};
  return {
    stable: { rps: (TOTAL_RPS * (100 - weight)) / 100, ...STABLE },
    canary: weight > 0
      ? { rps: (TOTAL_RPS * weight) / 100, errorRatio: number(annotations[ANNOTATION_ERROR_RATIO], 0, 1), latencyMs: number(annotations[ANNOTATION_LATENCY_MS], STABLE.latencyMs), ...slowTail(annotations) }
      : undefined,
  };
}

/** Requests per second a blue-green preview gets on its previewHost (people trying it out). */
const PREVIEW_RPS = 5;

/** How the new revision answers: as the annotations say, slow tail included, as a canary does (stable answers well). */
const newRevision = (app: App, rps: number): Traffic => {
  const annotations = app.metadata.annotations ?? {};
  return { rps, errorRatio: number(annotations[ANNOTATION_ERROR_RATIO], 0, 1), latencyMs: number(annotations[ANNOTATION_LATENCY_MS], STABLE.latencyMs), ...slowTail(annotations) };
};

/**
 * The traffic of a blue-green App now, given the revision its Service selects: all of the App's
 * host to whichever revision that is; the preview's host, while there is a preview, to the new one.
 */
export function blueGreenTraffic(app: App, serviceRevision: string | undefined): { main: Traffic; preview?: Traffic } {
  const b = app.status?.blueGreen;
  const switched = b !== undefined && serviceRevision === b.previewRevision && serviceRevision !== app.status?.stableRevision;
  return {
    main: switched ? newRevision(app, TOTAL_RPS) : { rps: TOTAL_RPS, ...STABLE },
    preview: b && app.spec.rollout?.blueGreen?.previewHost ? newRevision(app, PREVIEW_RPS) : undefined,
  };
}

export function startTrafficSimulator(kc: KubeConfig, exporter: TrafficExporter, intervalMs = 1_000): { stop(): Promise<void> } {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const core = kc.makeApiClient(CoreV1Api);
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const list = (await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL })) as { items: App[] };
        for (const app of list.items) {
          if (!app.spec.ingress && !app.spec.route) continue;
          const key = { namespace: app.metadata.namespace!, ingress: app.metadata.name!, host: app.spec.ingress?.host ?? app.spec.route?.hostnames?.[0] };
          if (app.spec.rollout?.strategy === 'BlueGreen') {
            await simulateBlueGreen(core, exporter, app, key);
            continue;
          }
          const traffic = appTraffic(app);
          exporter.setTraffic(key, 'stable', traffic.stable);
          exporter.setTraffic(key, 'canary', traffic.canary);
        }
      } catch {
        // The API server may be restarting: try again.
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

/** One pass for a blue-green App: its Service's selector decides which revision its host reaches. */
async function simulateBlueGreen(core: CoreV1Api, exporter: TrafficExporter, app: App, key: { namespace: string; ingress: string; host?: string }): Promise<void> {
  const service = await core.readNamespacedService({ namespace: key.namespace, name: key.ingress }).catch(() => undefined);
  const traffic = blueGreenTraffic(app, service?.spec?.selector?.[LABEL_REVISION]);
  exporter.setTraffic(key, 'stable', traffic.main);
  exporter.setTraffic(key, 'canary', undefined);
  const preview = { namespace: key.namespace, ingress: ownedName(key.ingress, 'preview'), host: app.spec.rollout?.blueGreen?.previewHost };
  exporter.setTraffic(preview, 'stable', traffic.preview);
}
