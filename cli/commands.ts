// The commands of `kubectl skiff` that read once or write once; each resolves with its exit code.
import { ANNOTATION_ABORT, ANNOTATION_PROMOTE, ANNOTATION_RETRY } from '../shared/labels.js';
import type { Api } from './api.js';
import type { CommandLine } from './args.js';
import { ApiError, CliError } from './errors.js';
import { formatHistory, formatList } from './format-list.js';
import { formatStatus } from './format-status.js';
import { commandRevisionOf, pauseMeans, retryRefusal, revisionsOf, rolloutCommandRefusal, strategyOf, templateHashNow, type CliApp, type ControllerRevision, type Revision } from './model.js';
import { appApiMissing, appMissing, appPath, appsPath, OWNED_COLLECTIONS, ownedQuery, readApp } from './paths.js';
import { oneLine, type Style } from './style.js';
import { configCaveat, noOpUndoCheck, undoPatch, undoTarget } from './undo.js';

export interface Context {
  cmd: CommandLine;
  api: Api;
  /** -n, else the context's namespace. */
  namespace: string;
  style: Style;
  out(text: string): void;
  err(text: string): void;
  now(): Date;
  isTTY: boolean;
  columns(): number;
  rows(): number;
}

const lines = (ls: string[]) => (ls.length ? `${ls.join('\n')}\n` : '');
const who = (ctx: Context) => `app ${ctx.namespace}/${ctx.cmd.app}`;

export async function list(ctx: Context): Promise<number> {
  const path = appsPath(ctx.cmd.allNamespaces ? undefined : ctx.namespace);
  const apps = await ctx.api.get<{ items: CliApp[] }>(path).catch(appApiMissing);
  if (apps.items.length === 0) {
    // kubectl get's words, on stderr as there: what people and scripts know from it.
    ctx.err(ctx.cmd.allNamespaces ? 'No resources found\n' : `No resources found in ${ctx.namespace} namespace.\n`);
    return 0;
  }
  ctx.out(lines(formatList(apps.items, { allNamespaces: ctx.cmd.allNamespaces, now: ctx.now(), style: ctx.style })));
  return 0;
}

/** The history of `app` (as read): the ControllerRevisions it controls. */
export async function readRevisions(api: Api, ns: string, app: CliApp): Promise<Revision[]> {
  const crs = await api.get<{ items: ControllerRevision[] }>(`${OWNED_COLLECTIONS.revisions(ns)}${ownedQuery(app.metadata.name!)}`);
  return revisionsOf(crs.items, app);
}

export async function history(ctx: Context): Promise<number> {
  const app = await readApp(ctx.api, ctx.namespace, ctx.cmd.app!);
  const revisions = await readRevisions(ctx.api, ctx.namespace, app);
  if (revisions.length === 0) {
    ctx.err(`${who(ctx)} has no revision history yet.\n`);
    return 0;
  }
  ctx.out(lines(formatHistory(app, revisions, { now: ctx.now(), style: ctx.style })));
  return 0;
}

export async function status(ctx: Context): Promise<number> {
  ctx.out(formatStatus(await readApp(ctx.api, ctx.namespace, ctx.cmd.app!), ctx.now()));
  return 0;
}

/** A merge patch of the App read before: deleted since, it is not found in the words of a read. */
const patchApp = (ctx: Context, patch: unknown) =>
  ctx.api.mergePatch<CliApp>(appPath(ctx.namespace, ctx.cmd.app!), patch).catch(appMissing(ctx.namespace, ctx.cmd.app!));

/** Times a write bound to a revision is made again from a new read after a 409. */
const CONFLICT_ATTEMPTS = 5;

/**
 * The App read and its patch as `decide` makes it of that read (throwing a CliError when it
 * refuses). The write is bound to one revision: the page's (cmd.expectRevision, the dashboard),
 * else the one the first read acts on. It carries the read's resourceVersion, so the API server
 * refuses it (409) when the App changed after the check; the check is then made again on a new
 * read, and a rollout of another revision by then is refused rather than promoted, aborted or
 * retried in the place of the one named.
 */
async function patchDecided(ctx: Context, actedOn: (app: CliApp) => string | undefined, decide: (app: CliApp) => { metadata: object }): Promise<CliApp> {
  const page = ctx.cmd.expectRevision;
  let bound = page;
  for (let attempt = 1; ; attempt++) {
    const app = await readApp(ctx.api, ctx.namespace, ctx.cmd.app!);
    const now = actedOn(app);
    if (attempt === 1 && page === undefined) bound = now;
    if (now !== bound) throw new CliError(revisionMoved(ctx, page !== undefined, bound, now));
    const patch = decide(app);
    try {
      const rv = app.metadata.resourceVersion;
      await patchApp(ctx, { ...patch, metadata: { ...patch.metadata, ...(rv !== undefined ? { resourceVersion: rv } : {}) } });
      return app;
    } catch (err) {
      // The controller writes the App's status as a rollout goes on: read again, check again.
      if (!(err instanceof ApiError && err.code === 409) || attempt >= CONFLICT_ATTEMPTS) throw err;
    }
  }
}

/** Why nothing was written: the rollout the command was for is no longer the App's. */
function revisionMoved(ctx: Context, fromPage: boolean, bound: string | undefined, now: string | undefined): string {
  const what = ctx.cmd.command === 'retry' ? 'aborted revision' : 'rollout';
  const was = fromPage ? `the page showed revision ${bound}` : `the command read revision ${bound}`;
  const is = now === undefined ? `the App has no ${what} now (it ended, or was replaced)` : `the App's ${what} is revision ${now} now`;
  return `nothing done: ${was}, and ${is}; ${fromPage ? 'look again' : `see kubectl skiff status ${ctx.cmd.app} -n ${ctx.namespace}`}`;
}

/** promote and abort: a canary in progress or a blue-green rollout. */
export async function promoteOrAbort(ctx: Context): Promise<number> {
  const command = ctx.cmd.command as 'promote' | 'abort';
  const annotation = command === 'promote' ? ANNOTATION_PROMOTE : ANNOTATION_ABORT;
  const app = await patchDecided(ctx, commandRevisionOf, (a) => {
    const refusal = rolloutCommandRefusal(a, command);
    if (refusal) throw new CliError(`${who(ctx)} ${refusal}`);
    return { metadata: { annotations: { [annotation]: 'true' } } };
  });
  const canary = app.status?.canary;
  // Spec's newer template whose preview has not started (held, or waiting for pods switched back from).
  const upcoming = !canary && commandRevisionOf(app) !== app.status?.blueGreen?.previewRevision;
  // The rollout's own image: spec may already name a newer one the controller has not taken up.
  const image = canary?.image ?? (upcoming ? undefined : app.status?.blueGreen?.image) ?? app.spec.image;
  // After a blue-green switch an abort switches the Service back: there is no preview left to abort.
  const switched = !canary && !upcoming && app.status?.blueGreen?.phase === 'Switched';
  // A paused blue-green rollout keeps the promotion on the App and switches only once resumed (a canary's goes on).
  const waits = command === 'promote' && !canary && app.spec.rollout?.paused ? '; the switch waits until the App is resumed (kubectl skiff resume)' : '';
  const aborting = switched ? `aborting ${image}: switching the Service back to the stable revision` : upcoming ? `aborting ${image} before its preview starts` : `aborting the ${canary ? 'canary' : 'preview'} of ${image}`;
  ctx.out(`${who(ctx)}: ${command === 'promote' ? `promoting ${image}${waits}` : aborting}\n`);
  return 0;
}

export async function pauseOrResume(ctx: Context): Promise<number> {
  const pause = ctx.cmd.command === 'pause';
  const app = await readApp(ctx.api, ctx.namespace, ctx.cmd.app!);
  if (Boolean(app.spec.rollout?.paused) === pause) {
    ctx.out(`${who(ctx)}: already ${pause ? 'paused' : 'running (not paused)'}\n`);
    return 0;
  }
  await patchApp(ctx, { spec: { rollout: { paused: pause } } });
  ctx.out(pause ? `${who(ctx)}: paused (${pauseMeans(app)}; kubectl skiff resume to go on)\n` : `${who(ctx)}: resumed\n`);
  return 0;
}

export async function retry(ctx: Context): Promise<number> {
  const app = await patchDecided(ctx, (a) => a.status?.abortedRevision, (a) => {
    const refusal = retryRefusal(a);
    if (refusal) throw new CliError(a.status?.abortedRevision ? `${who(ctx)}: ${refusal}` : `${who(ctx)} ${refusal}`);
    return { metadata: { annotations: { [ANNOTATION_RETRY]: 'true' } } };
  });
  const aborted = app.status!.abortedRevision;
  ctx.out(`${who(ctx)}: retrying the rollout of revision ${aborted}${app.status?.abortedImage ? ` (${app.status.abortedImage})` : ''}\n`);
  return 0;
}

export async function setImage(ctx: Context): Promise<number> {
  const app = await readApp(ctx.api, ctx.namespace, ctx.cmd.app!);
  if (app.spec.image === ctx.cmd.image) {
    ctx.out(`${who(ctx)}: image is ${ctx.cmd.image} already\n`);
    return 0;
  }
  await patchApp(ctx, { spec: { image: ctx.cmd.image } });
  ctx.out(`${who(ctx)}: image ${ctx.cmd.image} (was ${app.spec.image}); rolls out with ${strategyOf(app)}${app.spec.rollout?.paused ? ' once resumed (the App is paused)' : ''}\n`);
  return 0;
}

export async function undo(ctx: Context): Promise<number> {
  const name = `${ctx.namespace}/${ctx.cmd.app}`;
  const app = await readApp(ctx.api, ctx.namespace, ctx.cmd.app!);
  const revisions = await readRevisions(ctx.api, ctx.namespace, app);
  const target = undoTarget(name, revisions, ctx.cmd.toRevision, templateHashNow(app, revisions));
  // Revisions hold the defaulted fields, as the controller renders them. An undo that would change
  // nothing is refused first: whether it could skip the canary then does not matter.
  const noOp = noOpUndoCheck(app, revisions)(target);
  if (noOp) throw new CliError(noOp);
  const patch = undoPatch(name, revisions, target, ctx.cmd.skipCanary, app.spec);
  // The patch removes by name what the App read has and revision N had not: an edit of the App
  // since then would outlive it, half applied. With the read's resourceVersion the API server
  // refuses the write instead (409), as kubectl's read-modify-write commands do.
  const guarded = { ...patch, metadata: { ...(patch.metadata as object | undefined), resourceVersion: app.metadata.resourceVersion } };
  await patchApp(ctx, guarded).catch((err: unknown) => {
    if (err instanceof ApiError && err.code === 409) throw new CliError(`app ${name} changed while undo read it; nothing written: run kubectl skiff undo again (${err.message})`);
    throw err;
  });
  // From the ControllerRevision (its annotation, or its data): text of the cluster, shown on one line.
  const image = oneLine(target.images.join(',') || String(target.spec.image ?? '?'));
  const skipped = strategyOf(app) === 'BlueGreen' ? 'a preview' : 'the canary';
  // As set image says it: a paused App starts the change once resumed (a skip to stable goes at
  // once, and so does going back to the stable revision: the rollout under way is cancelled).
  const held = !ctx.cmd.skipCanary && app.spec.rollout?.paused && target.hash !== app.status?.stableRevision ? '; rolled out once resumed (the App is paused)' : '';
  ctx.out(`app ${name}: undo to revision ${target.number} (hash ${target.hash}, image ${image})${ctx.cmd.skipCanary ? `, straight to stable without ${skipped} (the controller checks that the template is revision ${target.number}'s; a Warning Event says when it is not)` : ''}${held}${configCaveat(app, target, ctx.cmd.skipCanary)}\n`);
  return 0;
}

/** The rollout actions, each the command that writes its patch: the terminal's and the dashboard's buttons alike. */
export const ACTION_COMMANDS = {
  promote: promoteOrAbort,
  abort: promoteOrAbort,
  pause: pauseOrResume,
  resume: pauseOrResume,
  retry,
  undo,
} satisfies Record<string, (ctx: Context) => Promise<number>>;
