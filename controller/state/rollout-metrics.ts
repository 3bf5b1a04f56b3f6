// Rollout metrics, one series per App and label set, for dashboards and alerts
// (config/prometheus): what strategy and revision each App runs, its health, its canary weight
// and its conditions. Computed from the App cache when Prometheus scrapes, not kept per pass:
// nothing to update in a reconcile, and the series of a deleted App are gone at the next scrape.
// Only the replica that reconciles reports them, so that standbys do not duplicate the series.
// Every label is bounded by the fleet (namespace, name, a revision hash, a fixed set of words).
import { Gauge, type Registry } from 'prom-client';
import type { App } from '../../shared/app-types.js';
import { APP_HEALTH, appHealth } from '../../shared/app-health.js';

export interface RolloutMetricsSource {
  /** The Apps this controller reconciles (its cache). */
  apps: () => Iterable<App>;
  /** Whether this replica reconciles now (it holds the Lease, or runs without election). */
  reporting: () => boolean;
  /**
   * The share of traffic (0..100) the App's canary gets now, as its routing carries it (the canary
   * Ingress, the HTTPRoute's weights): not status.canary.weight, which holds a weight just decided
   * before the router has it, and one the router never took (a routing object that is someone
   * else's, a write that fails).
   */
  canaryWeight: (app: App) => number;
}

/** The Apps to report at a scrape: none on a standby. */
const reported = (source: RolloutMetricsSource): Iterable<App> => (source.reporting() ? source.apps() : []);

export function registerRolloutMetrics(registry: Registry, source: RolloutMetricsSource): void {
  const registers = [registry];
  new Gauge({
    name: 'skiff_app_info',
    help: 'Always 1 for each App: its strategy and the pod-template revision stable runs.',
    labelNames: ['namespace', 'app', 'strategy', 'revision'],
    registers,
    collect() {
      this.reset();
      for (const app of reported(source)) {
        const { namespace = '', name = '' } = app.metadata;
        this.set({ namespace, app: name, strategy: app.spec.rollout?.strategy ?? 'RollingUpdate', revision: app.status?.stableRevision ?? '' }, 1);
      }
    },
  });
  new Gauge({
    name: 'skiff_app_phase',
    help: 'The App\'s rollout phase: 1 for the current one of Healthy, Progressing, Paused, Degraded, 0 for the others.',
    labelNames: ['namespace', 'app', 'phase'],
    registers,
    collect() {
      this.reset();
      for (const app of reported(source)) {
        const { namespace = '', name = '' } = app.metadata;
        const current = appHealth(app);
        for (const phase of APP_HEALTH) this.set({ namespace, app: name, phase }, phase === current ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: 'skiff_canary_weight',
    help: 'The percentage of traffic the App\'s canary gets now, as its Ingress or HTTPRoute carries it (0 without a canary).',
    labelNames: ['namespace', 'app'],
    registers,
    collect() {
      this.reset();
      for (const app of reported(source)) {
        const { namespace = '', name = '' } = app.metadata;
        this.set({ namespace, app: name }, source.canaryWeight(app));
      }
    },
  });
  new Gauge({
    name: 'skiff_app_condition',
    help: 'Always 1 for each condition of each App, with its status and reason.',
    labelNames: ['namespace', 'app', 'condition', 'status', 'reason'],
    registers,
    collect() {
      this.reset();
      for (const app of reported(source)) {
        const { namespace = '', name = '' } = app.metadata;
        for (const c of app.status?.conditions ?? []) this.set({ namespace, app: name, condition: c.type, status: c.status, reason: c.reason }, 1);
      }
    },
  });
}
