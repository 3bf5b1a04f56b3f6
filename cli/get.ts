// `kubectl skiff get APP [--watch]`: the App, its history and the objects it owns, read once or
// kept by watches and redrawn at each change.
import type { Api } from './api.js';
import type { Context } from './commands.js';
import { formatGet, type AppView } from './format-get.js';
import { liveList, type LiveList, type Meta } from './live-list.js';
import { controlledBy, revisionsOf, type CliApp, type ControllerRevision, type Deployment, type HTTPRoute, type Ingress, type Service } from './model.js';
import { APP_API_MISSING, appsPath, OWNED_COLLECTIONS, ownedQuery, readApp, routeVersion, routesPath } from './paths.js';
import { isRefusal } from './errors.js';
import { CLEAR_SCREEN, frame, HIDE_CURSOR, SHOW_CURSOR } from './screen.js';
import { oneLine } from './style.js';

/**
 * The HTTPRoute version to read the App's route in, or why its route is not shown. HTTPRoutes are
 * optional: a cluster without the Gateway API serves none (404), and RBAC that lets a user read
 * Apps need not let them list HTTPRoutes (403). Neither stops `get` from showing the rest.
 */
async function routeAccess(api: Api, ns: string, app: CliApp): Promise<{ version?: string; notShown?: string }> {
  // An App switched from spec.route to spec.ingress during a canary keeps its route, which sends
  // the canary its share until the canary Ingress takes over: read then too, if it can be, and
  // nothing said if not (the spec names no route).
  const switching = !app.spec.route && app.status?.canary !== undefined;
  if (!app.spec.route && !switching) return {};
  try {
    const version = await routeVersion(api, ns);
    return version ? { version } : switching ? {} : { notShown: 'HTTPRoutes are not served' };
  } catch (err) {
    if (err instanceof Error && isRefusal(err)) return switching ? {} : { notShown: err.message };
    throw err;
  }
}

/** The collections of the App's objects: path with query, per part of the view; and why the route is not shown. */
async function collections(api: Api, ns: string, app: CliApp) {
  const q = ownedQuery(app.metadata.name!);
  const { version, notShown } = await routeAccess(api, ns, app);
  return {
    revisions: `${OWNED_COLLECTIONS.revisions(ns)}${q}`,
    deployments: `${OWNED_COLLECTIONS.deployments(ns)}${q}`,
    services: `${OWNED_COLLECTIONS.services(ns)}${q}`,
    ingresses: `${OWNED_COLLECTIONS.ingresses(ns)}${q}`,
    routes: version ? `${routesPath(ns, version)}${q}` : undefined,
    routeNotShown: notShown,
  };
}

/**
 * The App's view from what its label found: the objects and history entries it controls. What
 * else carries the label (left by an earlier App of the same name, someone else's) is not shown.
 */
export function viewOf(app: CliApp, found: { revisions: ControllerRevision[]; deployments: Deployment[]; services: Service[]; ingresses: Ingress[]; routes: HTTPRoute[] }, routeNotShown?: string): AppView {
  const own = controlledBy(app);
  return {
    ...(routeNotShown !== undefined && { routeNotShown }),
    app,
    revisions: revisionsOf(found.revisions, app),
    deployments: found.deployments.filter(own),
    services: found.services.filter(own),
    ingresses: found.ingresses.filter(own),
    routes: found.routes.filter(own),
  };
}

async function readView(api: Api, ns: string, name: string): Promise<AppView> {
  const app = await readApp(api, ns, name);
  const c = await collections(api, ns, app);
  const items = async <T>(path: string | undefined) => (path ? (await api.get<{ items: T[] }>(path)).items : []);
  const [revisions, deployments, services, ingresses, routes] = await Promise.all([
    items<ControllerRevision>(c.revisions), items<Deployment>(c.deployments), items<Service>(c.services), items<Ingress>(c.ingresses), items<HTTPRoute>(c.routes),
  ]);
  return viewOf(app, { revisions, deployments, services, ingresses, routes }, c.routeNotShown);
}

export async function get(ctx: Context): Promise<number> {
  if (ctx.cmd.watch) return watch(ctx);
  const view = await readView(ctx.api, ctx.namespace, ctx.cmd.app!);
  ctx.out(`${formatGet(view, ctx.now(), ctx.style).join('\n')}\n`);
  return 0;
}

/** How long a burst of changes is gathered into one redraw. */
const COALESCE_MS = 100;
/** Redraws without a change, for the time left in a pause and the ages. */
const TICK_MS = 1_000;

async function watch(ctx: Context): Promise<number> {
  const ns = ctx.namespace;
  const name = ctx.cmd.app!;
  const first = await readApp(ctx.api, ns, name);
  const c = await collections(ctx.api, ns, first);
  let pending: NodeJS.Timeout | undefined;
  let lastError = '';
  let end: (code: number, message?: string) => void = () => {};
  const changed = () => { pending ??= setTimeout(draw, COALESCE_MS); };
  // Watching needs list and watch as well as get: a refusal of those ends the watch as an error
  // (as status --wait does); retried, it showed an App that exists as "not found" until Ctrl-C.
  const onError = (err: Error) => {
    if (isRefusal(err)) return end(1, `error: cannot follow app ${ns}/${name}: ${err.message}`);
    lastError = err.message;
    changed();
  };
  const open = <T extends Meta>(path: string | undefined): LiveList<T> | undefined => (path ? liveList<T>(ctx.api, path, changed, onError) : undefined);
  // Until its own list has come, the App is the one read above: another list may come first, and
  // an App not yet listed is not an App deleted.
  let appListed = false;
  const lists = {
    // A 404 for the list of Apps is the App API itself not served (the CRD deleted since the App
    // was read, or while the watch was down): that list stops, and no App can come of watching.
    // It ends as status --wait ends, with the words the other commands use.
    app: liveList<CliApp>(ctx.api, `${appsPath(ns)}?fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`, () => { appListed = true; changed(); }, onError, () => end(1, `error: ${APP_API_MISSING}`)),
    revisions: open<ControllerRevision>(c.revisions)!,
    deployments: open<Deployment>(c.deployments)!,
    services: open<Service>(c.services)!,
    ingresses: open<Ingress>(c.ingresses)!,
    routes: open<HTTPRoute>(c.routes),
  };
  let previous = '';
  function draw(): void {
    pending = undefined;
    const app = appListed ? lists.app.items()[0] : first;
    const lines = app
      ? formatGet(viewOf(app, { revisions: lists.revisions.items(), deployments: lists.deployments.items(), services: lists.services.items(), ingresses: lists.ingresses.items(), routes: lists.routes?.items() ?? [] }, c.routeNotShown), ctx.now(), ctx.style)
      : [`app "${name}" not found in namespace "${ns}" (deleted?); waiting for it`];
    if (lastError) lines.push('', `watch: ${oneLine(lastError)} (retrying)`);
    lastError = '';
    const text = lines.join('\n');
    if (ctx.isTTY) ctx.out(frame(lines, ctx.columns(), ctx.rows(), ctx.style.ellipsis));
    else if (text !== previous) ctx.out(`${previous ? '\n' : ''}${text}\n`);
    previous = text;
  }
  if (ctx.isTTY) ctx.out(HIDE_CURSOR + CLEAR_SCREEN);
  const ticker = setInterval(() => ctx.isTTY && changed(), TICK_MS);
  return new Promise<number>((done) => {
    let finished = false;
    end = (code, message) => {
      if (finished) return;
      finished = true;
      process.off('SIGINT', finish);
      process.off('SIGTERM', finish);
      clearInterval(ticker);
      if (pending) clearTimeout(pending);
      for (const l of Object.values(lists)) l?.stop();
      if (ctx.isTTY) ctx.out(`\u001b[${Math.min(previous.split('\n').length, ctx.rows()) + 1};1H${SHOW_CURSOR}`);
      // The message may hold the API server's words: on one line, and without escape sequences.
      if (message) ctx.err(`${oneLine(message)}\n`);
      done(code);
    };
    const finish = () => end(0);
    process.once('SIGINT', finish);
    process.once('SIGTERM', finish);
  });
}
