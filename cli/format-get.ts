// The text of `kubectl skiff get APP`: a header (status, strategy, step, weights, images,
// replicas) and a tree of the App's revisions with their Deployments, its Services, Ingresses or
// HTTPRoute, and the analysis checks. Pure: the objects and `now` in, lines out; --watch draws
// the same lines again at each change.
import { durationMs } from '../shared/durations.js';
import { canarySteps } from '../shared/steps.js';
import { age, humanDuration } from './age.js';
import {
  actualWeight, blueGreenOf, canaryUnavailable, heldChange, heldText, selectedRevision, unobserved, checkedAt, deploymentRevision, deploymentRole, imageRoles, newestByHash, NGINX_CANARY, NGINX_CANARY_WEIGHT, roleOf, rolloutAnalysis, statusWord, stepDetail, stepText, strategyOf, switchedBack, templateHashNow,
  type BlueGreenStatus, type CliApp, type Deployment, type HTTPRoute, type Ingress, type Revision, type Service,
} from './model.js';
import { oneLine, type Style } from './style.js';

export interface AppView {
  app: CliApp;
  revisions: Revision[];
  deployments: Deployment[];
  services: Service[];
  ingresses: Ingress[];
  routes: HTTPRoute[];
  /** Why the App's HTTPRoute is not shown: the user may not list HTTPRoutes, or the cluster serves none. */
  routeNotShown?: string;
}

/** How many of the newest revisions the tree shows (besides any a Deployment runs). */
export const TREE_REVISIONS = 3;

const byName = <T extends { metadata: { name: string } }>(xs: T[]) => [...xs].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));

/** The phase of a blue-green rollout, with when it switched and when the pods without traffic go. */
function blueGreenStep(b: BlueGreenStatus, now: Date): string {
  const phase = b.phase ?? '-';
  if (!b.switchedAt) return phase;
  const back = switchedBack(b);
  const goMs = b.scaleDownAt ? Date.parse(b.scaleDownAt) - now.getTime() : NaN;
  // Forward, the old pods go at scaleDownAt (and are going once ScalingDown); switched back, the preview's pods do.
  const going = phase === 'ScalingDown' && !back ? '' : goMs > 0 ? `, ${back ? 'preview pods' : 'old pods'} go in ${humanDuration(goMs)}` : '';
  return `${phase}, ${back ? 'switched back' : 'switched'} ${age(b.switchedAt, now)} ago${going}`;
}

function stepRow(app: CliApp, now: Date): string | undefined {
  const c = app.status?.canary;
  const b = blueGreenOf(app);
  if (!c) return b ? blueGreenStep(b, now) : undefined;
  let text = `${stepText(app)} ${stepDetail(app)}`;
  const step = canarySteps(app.spec.rollout)[c.stepIndex];
  const waitMs = step?.pause?.duration ? durationMs(step.pause.duration) : undefined;
  if (c.pausedAt) text += ', rollout paused';
  else if (waitMs !== undefined) text += `, ${Math.max(0, Math.ceil((Date.parse(c.stepStartedAt) + waitMs - now.getTime()) / 1000))}s left`;
  else if (step?.pause) text += ' (kubectl skiff promote to continue)';
  return text;
}

/**
 * The replicas as `kubectl argo rollouts get` counts them: desired is the stable Deployment's count
 * (the autoscaler's, once it sets it), current every pod of the App's Deployments (a canary's or a
 * preview's too), updated those that run the pod template the App asks for now.
 */
function replicaRow(v: AppView): string {
  const sum = (f: (d: Deployment) => number | undefined) => v.deployments.reduce((n, d) => n + (f(d) ?? 0), 0);
  const stable = v.deployments.find((d) => d.metadata?.name === v.app.metadata.name);
  const desired = stable?.spec?.replicas ?? v.app.spec.replicas ?? 1;
  if (v.deployments.length === 0) return `${desired} desired, ${v.app.status?.readyReplicas ?? 0} ready`;
  const hash = templateHashNow(v.app, v.revisions);
  const updated = sum((d) => (hash !== undefined && deploymentRevision(d) === hash ? d.status?.updatedReplicas : 0));
  return `${desired} desired, ${sum((d) => d.status?.replicas)} current, ${updated} updated, ${sum((d) => d.status?.readyReplicas)} ready, ${sum((d) => d.status?.availableReplicas)} available`;
}

/** The header: label and value per row. */
export function headerRows(v: AppView, now: Date, style: Style): [string, string][] {
  const app = v.app;
  const rows: [string, string][] = [
    ['Name', `${app.metadata.namespace}/${app.metadata.name}`],
    ['Status', style.status(statusWord(app))],
    ['Strategy', strategyOf(app)],
  ];
  const step = stepRow(app, now);
  if (step) rows.push(['Step', step]);
  // With the App's HTTPRoute not shown, what the Ingresses alone send is not what the canary gets.
  const actual = v.routeNotShown === undefined ? actualWeight(app, v.ingresses, v.routes) : undefined;
  if (app.status?.canary || (actual !== undefined && actual > 0)) {
    rows.push(['Weight', `${app.status?.canary?.weight ?? 0}% set, ${actual === undefined ? 'unknown' : `${actual}%`} actual`]);
  }
  const unavailable = canaryUnavailable(app, now);
  if (unavailable) rows.push(['Canary', unavailable]);
  rows.push(['Images', imageRoles(app).map(({ image, role }) => `${image} (${style.role(role, role)})`).join(', ')]);
  const held = heldChange(app);
  if (held) rows.push(['Held', heldText(held)]);
  rows.push(['Replicas', replicaRow(v)]);
  const behind = unobserved(app);
  if (behind) rows.push(['Observed', behind]);
  const degraded = app.status?.conditions?.find((c) => c.type === 'Degraded' && c.status === 'True');
  // The message on one line by itself first: line breaks at its ends separate nothing, and inside
  // the row they would show as a separator. Any colours it carries go, in fancy output too.
  if (degraded) rows.push(['Message', `${degraded.reason}: ${oneLine(degraded.message)}`]);
  return rows;
}

interface Node { text: string; children?: Node[] }

function deploymentNode(d: Deployment, app: CliApp, style: Style): Node {
  const role = deploymentRole(app, d);
  const ready = d.status?.readyReplicas ?? 0;
  const total = d.spec?.replicas ?? 0;
  const image = d.spec?.template?.spec?.containers?.[0]?.image;
  return { text: `Deployment ${d.metadata.name}  ${ready}/${total} ready${image ? `  ${image}` : ''}${role ? `  ${style.role(role, role)}` : ''}` };
}

function revisionNodes(v: AppView, now: Date, style: Style): { nodes: Node[]; placed: Set<Deployment> } {
  const placed = new Set<Deployment>();
  const hostOf = newestByHash(v.revisions);
  const hosts = new Set<Revision>();
  for (const d of v.deployments) {
    const host = hostOf.get(deploymentRevision(d) ?? '');
    if (host) hosts.add(host);
  }
  const shown = v.revisions.filter((r, i) => i < TREE_REVISIONS || hosts.has(r));
  const nodes: Node[] = shown.map((r) => {
    const role = hostOf.get(r.hash) === r ? roleOf(v.app, r.hash) : undefined;
    const children = byName(v.deployments)
      .filter((d) => hostOf.get(deploymentRevision(d) ?? '') === r)
      .map((d) => (placed.add(d), deploymentNode(d, v.app, style)));
    // What changed tells revisions apart that run the same image (a tracked ConfigMap, env, resources).
    const changed = r.changes.length ? `  changed ${r.changes.join(', ')}` : '';
    const text = `revision ${r.number}  ${r.hash}  ${r.images.join(',') || '-'}${changed}  ${style.role(r.outcome, role)}${role ? ` (${style.role(role, role)})` : ''}  ${age(r.startedAt, now)}`;
    return { text, children };
  });
  const older = v.revisions.length - shown.length;
  if (older > 0) nodes.push({ text: style.dim(`${older} older revision${older === 1 ? '' : 's'} (kubectl skiff history)`) });
  return { nodes, placed };
}

function routingNodes(v: AppView): Node[] {
  const out: Node[] = byName(v.services).map((s) => ({ text: `Service ${s.metadata.name}${s.spec?.ports?.length ? `  port ${s.spec.ports.map((p) => p.port).join(',')}` : ''}${selectedRevision(s) ? `  selects revision ${selectedRevision(s)}` : ''}` }));
  for (const i of byName(v.ingresses)) {
    const hosts = (i.spec?.rules ?? []).map((r) => r.host).filter(Boolean).join(',');
    const canary = i.metadata.annotations?.[NGINX_CANARY] === 'true' ? `  canary weight ${i.metadata.annotations?.[NGINX_CANARY_WEIGHT] ?? 0}%` : '';
    out.push({ text: `Ingress ${i.metadata.name}${hosts ? `  ${hosts}` : ''}${canary}` });
  }
  for (const r of byName(v.routes)) {
    const refs = r.spec?.rules?.at(-1)?.backendRefs ?? [];
    out.push({ text: `HTTPRoute ${r.metadata.name}${r.spec?.hostnames?.length ? `  ${r.spec.hostnames.join(',')}` : ''}  ${refs.map((b) => `${b.name} ${b.weight ?? 1}`).join(', ')}` });
  }
  // The App's HTTPRoute has the App's name.
  if (v.routeNotShown) out.push({ text: `HTTPRoute ${v.app.metadata.name}: not shown (${v.routeNotShown})` });
  return out;
}

function analysisNode(app: CliApp, style: Style): Node | undefined {
  const a = rolloutAnalysis(app);
  if (!a) return (app.status?.canary || app.status?.blueGreen) && app.spec.rollout?.analysis ? { text: 'Analysis  no check yet' } : undefined;
  const inconclusive = a.inconclusive;
  // `failures` are the checks counted as failed, as failureLimit judges them: with noData: Fail
  // the inconclusive ones are among them, and only the rest of the checks passed.
  const countedInconclusive = app.spec.rollout?.analysis?.noData === 'Fail' ? 0 : (inconclusive ?? 0);
  const passed = Math.max(0, a.checks - a.failures - countedInconclusive);
  const last = a.lastResult ? `  last ${a.lastResult}${checkedAt(app, a.lastWeight)}` : '';
  return { text: `Analysis  ${style.checks(passed, a.failures, inconclusive)}${last}` };
}

function drawTree(nodes: Node[], prefix: string, style: Style, out: string[]): void {
  nodes.forEach((n, i) => {
    const last = i === nodes.length - 1;
    out.push(`${prefix}${last ? style.tree.last : style.tree.branch}${n.text}`);
    if (n.children?.length) drawTree(n.children, prefix + (last ? style.tree.space : style.tree.pipe), style, out);
  });
}

export function formatGet(v: AppView, now: Date, style: Style): string[] {
  const rows = headerRows(v, now, style);
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  const lines = rows.map(([k, value]) => `${`${k}:`.padEnd(width)}${value}`);
  lines.push('', `App ${v.app.metadata.name}`);
  const { nodes, placed } = revisionNodes(v, now, style);
  const loose = byName(v.deployments).filter((d) => !placed.has(d)).map((d) => deploymentNode(d, v.app, style));
  const analysis = analysisNode(v.app, style);
  drawTree([...nodes, ...loose, ...routingNodes(v), ...(analysis ? [analysis] : [])], '', style, lines);
  return lines.map((line) => oneLine(line, style));
}
