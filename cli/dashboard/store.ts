// The dashboard's caches, fed by one watch per kind and shared by every browser tab: the Apps in
// scope, the objects they own (grouped by App), and the last EVENTS_PER_APP Events of each App.
// Every change names the Apps it touches, so that the server sends each tab only what changed.
// Bounded by design: only what the scope covers is kept, slimmed (slim.ts); an App's Events are
// capped, and those of an App that no longer exists are dropped.
import { LABEL_APP } from '../../shared/labels.js';
import type { WatchEvent } from '../api.js';
import { ApiError } from '../errors.js';
import { objectKey, type CollectionHandler, type Meta } from '../live-list.js';
import type { CliApp, ControllerRevision, Deployment, Service } from '../model.js';
import { APP_API_MISSING } from '../paths.js';
import type { Kind, OwnedKind } from './scope.js';
import {
  slimApp, slimAutoscaler, slimBudget, slimConfigMap, slimDeployment, slimEvent, slimIngress, slimRevision, slimRoute, slimService,
  type AppEvent, type RawEvent, type SlimAutoscaler, type SlimBudget, type SlimConfigMap, type SlimIngress, type SlimRoute,
} from './slim.js';

export const EVENTS_PER_APP = 20;
/** Events of an App not (or no longer) in the cache are dropped once they are this old. */
export const ORPHAN_EVENTS_MS = 120_000;

export interface Owned {
  deployments: Deployment[];
  services: Service[];
  ingresses: SlimIngress[];
  routes: SlimRoute[];
  revisions: ControllerRevision[];
  disruptionBudgets: SlimBudget[];
  autoscalers: SlimAutoscaler[];
  configMaps: SlimConfigMap[];
}

/** The App keys ("ns/name") a change touches; `all` after a full list. */
export type Change = { all: true } | { all: false; apps: Set<string> };

type Slim = (o: never) => Meta;
const SLIM: Record<OwnedKind, Slim> = {
  deployments: slimDeployment, services: slimService, ingresses: slimIngress, routes: slimRoute, revisions: slimRevision,
  disruptionBudgets: slimBudget, autoscalers: slimAutoscaler, configMaps: slimConfigMap,
};

/**
 * Kinds the page does without: a cluster that does not serve one (404) or a user whose RBAC does
 * not let them list it (403) gets the App without that kind's objects, and no banner. A refused
 * watch keeps trying, so that a permission granted later shows them.
 */
const OPTIONAL: ReadonlySet<Kind> = new Set<Kind>(['routes', 'disruptionBudgets', 'autoscalers', 'configMaps']);

const appOf = (o: Meta & { metadata?: { labels?: Record<string, string> } }) => `${o.metadata?.namespace ?? ''}/${o.metadata?.labels?.[LABEL_APP] ?? ''}`;

export class DashboardStore {
  readonly apps = new Map<string, CliApp>();
  /** kind → App key → object name → object. */
  private readonly owned = new Map<OwnedKind, Map<string, Map<string, Meta>>>();
  /**
   * kind → namespace/name → the App key it is filed under: an object whose skiff.dev/app label
   * changes (edited by hand, put back by the controller) leaves the App it was filed under.
   */
  private readonly filedUnder = new Map<OwnedKind, Map<string, string>>();
  /** App key → Event name → Event; at most EVENTS_PER_APP each. */
  private readonly events = new Map<string, Map<string, AppEvent>>();
  /** The last failure of each kind's watch, until it works again. */
  readonly errors = new Map<Kind, string>();
  private readonly listeners = new Set<(c: Change) => void>();

  constructor(private readonly now: () => number = Date.now) {}

  onChange(listener: (c: Change) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(c: Change): void {
    for (const l of this.listeners) l(c);
  }

  /** The watch handler of `kind`: what it lists and hears goes into the caches. */
  handler(kind: Kind): CollectionHandler<Meta> {
    return {
      reset: (items) => {
        this.errors.delete(kind);
        this.reset(kind, items);
        this.emit({ all: true });
      },
      event: (e) => {
        const hadError = this.errors.delete(kind);
        const apps = this.apply(kind, e);
        if (hadError) this.emit({ all: true });
        else if (apps.length > 0) this.emit({ all: false, apps: new Set(apps) });
      },
      error: (err, absent) => {
        // A kind the cluster does not serve is no error, nor an optional one the user may not list;
        // the App API missing is.
        if ((absent && kind !== 'apps') || (OPTIONAL.has(kind) && err instanceof ApiError && err.code === 403)) return this.leaveOut(kind);
        const message = absent ? APP_API_MISSING : err.message;
        if (this.errors.get(kind) === message) return;
        this.errors.set(kind, message);
        this.emit({ all: true });
      },
    };
  }

  /** Drops what was kept of an optional kind the user can no longer read (or the cluster no longer serves). */
  private leaveOut(kind: Kind): void {
    const held = this.errors.delete(kind) || (this.owned.get(kind as OwnedKind)?.size ?? 0) > 0;
    this.reset(kind, []);
    if (held) this.emit({ all: true });
  }

  private reset(kind: Kind, items: Meta[]): void {
    if (kind === 'apps') {
      this.apps.clear();
      for (const a of items as CliApp[]) this.apps.set(objectKey(a), slimApp(a));
      this.sweepEvents();
    } else if (kind === 'events') {
      this.events.clear();
      for (const e of items) this.putEvent(e as RawEvent);
    } else {
      const byApp = new Map<string, Map<string, Meta>>();
      this.owned.set(kind, byApp);
      this.filedUnder.set(kind, new Map());
      for (const o of items) this.putOwned(kind, byApp, o);
    }
  }

  /** Applies one watch event; resolves to the App keys it touched. */
  private apply(kind: Kind, e: WatchEvent<Meta>): string[] {
    if (kind === 'apps') {
      const key = objectKey(e.object);
      if (e.type === 'DELETED') {
        this.apps.delete(key);
        this.events.delete(key);
      } else this.apps.set(key, slimApp(e.object as CliApp));
      return [key];
    }
    if (kind === 'events') {
      if (e.type !== 'DELETED') return [this.putEvent(e.object as RawEvent)].filter((a): a is string => a !== undefined);
      const slim = slimEvent(e.object as RawEvent);
      if (slim) this.events.get(slim.app)?.delete(slim.metadata.name);
      return slim ? [slim.app] : [];
    }
    let byApp = this.owned.get(kind);
    if (!byApp) this.owned.set(kind, (byApp = new Map()));
    if (e.type !== 'DELETED') return this.putOwned(kind, byApp, e.object);
    return [this.unfile(kind, byApp, e.object)].filter((a): a is string => a !== undefined);
  }

  /** Files an owned object under its App; resolves with that App and the one it left, if any. */
  private putOwned(kind: OwnedKind, byApp: Map<string, Map<string, Meta>>, o: Meta): string[] {
    const app = appOf(o);
    const left = this.filedUnder.get(kind)?.get(objectKey(o)) ?? app;
    if (left !== app) this.unfile(kind, byApp, o);
    let bucket = byApp.get(app);
    if (!bucket) byApp.set(app, (bucket = new Map()));
    bucket.set(o.metadata?.name ?? '', SLIM[kind](o as never));
    let index = this.filedUnder.get(kind);
    if (!index) this.filedUnder.set(kind, (index = new Map()));
    index.set(objectKey(o), app);
    return left === app ? [app] : [app, left];
  }

  /** Takes an owned object out of the App it is filed under; resolves with that App. */
  private unfile(kind: OwnedKind, byApp: Map<string, Map<string, Meta>>, o: Meta): string | undefined {
    const index = this.filedUnder.get(kind);
    const app = index?.get(objectKey(o)) ?? appOf(o);
    index?.delete(objectKey(o));
    const bucket = byApp.get(app);
    bucket?.delete(o.metadata?.name ?? '');
    if (bucket?.size === 0) byApp.delete(app);
    return app;
  }

  private putEvent(raw: RawEvent): string | undefined {
    const e = slimEvent(raw);
    if (!e) return undefined;
    let bucket = this.events.get(e.app);
    if (!bucket) this.events.set(e.app, (bucket = new Map()));
    bucket.delete(e.metadata.name);
    bucket.set(e.metadata.name, e);
    if (bucket.size > EVENTS_PER_APP) {
      const oldest = [...bucket.values()].sort((a, b) => Date.parse(a.at) - Date.parse(b.at))[0];
      bucket.delete(oldest.metadata.name);
    }
    return e.app;
  }

  /** Drops the Events of Apps not in the cache once the newest is ORPHAN_EVENTS_MS old (an App may be seen after its first Event). */
  sweepEvents(): void {
    for (const [app, bucket] of this.events) {
      if (this.apps.has(app)) continue;
      const newest = Math.max(...[...bucket.values()].map((e) => Date.parse(e.at) || 0));
      if (bucket.size === 0 || this.now() - newest > ORPHAN_EVENTS_MS) this.events.delete(app);
    }
  }

  ownedBy(app: string): Owned {
    const items = <T>(kind: OwnedKind) => [...(this.owned.get(kind)?.get(app)?.values() ?? [])] as T[];
    return {
      deployments: items('deployments'), services: items('services'), ingresses: items('ingresses'),
      routes: items('routes'), revisions: items('revisions'),
      disruptionBudgets: items('disruptionBudgets'), autoscalers: items('autoscalers'), configMaps: items('configMaps'),
    };
  }

  /**
   * The App's Events, newest first. Those of an earlier App of the same name (deleted and created
   * again: its Events outlive it for an hour) are not this one's, as kubectl describe tells them
   * apart: by uid, when both name one.
   */
  eventsOf(app: string): AppEvent[] {
    const uid = this.apps.get(app)?.metadata.uid;
    // Event times are whole seconds: within one, the later of two is the one the watch brought
    // last (an Event repeated moves to the end), so the order they came in, reversed, breaks ties.
    return [...(this.events.get(app)?.values() ?? [])]
      .filter((e) => uid === undefined || e.appUid === undefined || e.appUid === uid)
      .reverse()
      .sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
  }

  /** How many objects the caches hold, per kind (for tests of boundedness). */
  sizes(): Record<string, number> {
    const count = (m: Map<string, Map<string, unknown>> | undefined) => [...(m?.values() ?? [])].reduce((n, b) => n + b.size, 0);
    const out: Record<string, number> = { apps: this.apps.size, events: count(this.events) };
    for (const [kind, byApp] of this.owned) out[kind] = count(byApp);
    return out;
  }
}
