// Simulated ingress traffic for `npm run dev`: every App with an ingress or a route gets requests
// through the ingress-nginx stand-in (nginx-traffic.ts), split between stable and canary by the
// canary weight in its status, so that Prometheus has something to analyse. A person makes a
// canary misbehave with annotations on the App:
//   kubectl annotate app web dev.skiff.dev/canary-error-ratio=0.3   (share of 5xx, 0..1)
//   kubectl annotate app web dev.skiff.dev/canary-latency-ms=900
//   kubectl annotate app web dev.skiff.dev/canary-slow-ratio=0.02 dev.skiff.dev/canary-slow-ms=2000
//     (a slow tail: 2% of requests take 2 s; the mean barely moves, p99 does)
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { GROUP, PLURAL, VERSION, type App } from '../shared/app-types.js';
import type { TrafficExporter } from './nginx-traffic.js';

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

export function startTrafficSimulator(kc: KubeConfig, exporter: TrafficExporter, intervalMs = 1_000): { stop(): Promise<void> } {
  const custom = kc.makeApiClient(CustomObjectsApi);
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const list = (await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL })) as { items: App[] };
        for (const app of list.items) {
          if (!app.spec.ingress && !app.spec.route) continue;
          const key = { namespace: app.metadata.namespace!, ingress: app.metadata.name!, host: app.spec.ingress?.host ?? app.spec.route?.hostnames?.[0] };
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
