// The dashboard page: plain DOM, no framework and no build step. Data comes only from the
// server-sent events of /api/stream (a snapshot, then changes); actions are POSTs carrying the
// per-run token in a header. Every text from the cluster goes in with textContent, never as HTML.
'use strict';

const token = new URLSearchParams(location.search).get('token') || '';
const STATUSES = ['Healthy', 'Progressing', 'Paused', 'Degraded'];
const SVG = 'http://www.w3.org/2000/svg';

const state = { view: null, source: null, list: null, detail: null, filter: new Set(), search: '', retry: undefined, session: null };

// ---- DOM helpers ---------------------------------------------------------------------------

/** An element with attributes (on*: listeners) and children (strings become text). */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) if (c !== undefined && c !== null && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

function s(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  return el;
}

const $ = (id) => document.getElementById(id);

/** Ages as kubectl prints them: 45s, 3m20s, 2h5m, 4d. */
function humanDuration(ms) {
  const sec = Math.floor(ms / 1000);
  if (sec < 0) return '0s';
  if (sec < 120) return `${sec}s`;
  const m = Math.floor(sec / 60);
  if (m < 10) return sec % 60 === 0 ? `${m}m` : `${m}m${sec % 60}s`;
  if (m < 180) return `${m}m`;
  const hr = Math.floor(m / 60);
  if (hr < 8) return m % 60 === 0 ? `${hr}h` : `${hr}h${m % 60}m`;
  if (hr < 48) return `${hr}h`;
  return `${Math.floor(hr / 24)}d`;
}

/** A span that keeps showing how long ago `since` was (updated every second). */
function ageOf(since) {
  const t = Date.parse(since || '');
  return h('span', { 'data-since': Number.isNaN(t) ? undefined : t, title: since || undefined }, Number.isNaN(t) ? '-' : humanDuration(Date.now() - t));
}

function tickAges() {
  for (const el of document.querySelectorAll('[data-since]')) el.textContent = humanDuration(Date.now() - Number(el.dataset.since));
  for (const el of document.querySelectorAll('[data-until]')) el.textContent = `${Math.max(0, Math.ceil((Number(el.dataset.until) - Date.now()) / 1000))}s left`;
}

function badge(status) {
  const symbol = { Healthy: '✔', Progressing: '◌', Paused: '‖', Degraded: '✖' }[status] || '';
  return h('span', { class: `badge ${String(status).toLowerCase()}` }, `${symbol} ${status}`);
}

// As `kubectl skiff get`: weights only during a canary, or while the router still sends some traffic to one.
const weightText = (r) => (r.weight === undefined && !(r.actualWeight > 0) ? '-'
  : `${r.weight === undefined ? '-' : `${r.weight}%`} set · ${r.actualWeight === undefined ? '?' : `${r.actualWeight}%`} actual`);

function images(list) {
  return h('span', { class: 'images' }, list.map((i) => h('span', { class: `image ${i.role}` }, h('code', {}, i.image), ` ${i.role}`)));
}

/** Replaces the content of `parent`, keeping the keyboard focus on the element with the same data-focus key. */
function replace(parent, ...children) {
  const focused = document.activeElement && parent.contains(document.activeElement) ? document.activeElement.dataset.focus : undefined;
  parent.replaceChildren(...children.flat(Infinity).filter((c) => c !== undefined && c !== null && c !== false));
  if (focused) {
    const again = parent.querySelector(`[data-focus="${CSS.escape(focused)}"]`);
    // A button the change disabled (Pause, once paused) cannot hold the focus: it goes to the
    // line that says what the action did, not to the page's start.
    if (again && !again.disabled) again.focus();
    else parent.querySelector('#result')?.focus();
  }
}

// ---- connection ----------------------------------------------------------------------------

function setLive(text, ok) {
  const live = $('live');
  live.textContent = text;
  live.classList.toggle('down', !ok);
}

/**
 * The stream broke: what the page shows is what it last heard. Said in the banner, and the actions
 * are off (they would not reach the dashboard), until the snapshot of the next connection redraws it.
 */
function markStale() {
  for (const b of document.querySelectorAll('button[data-action]')) b.disabled = true;
  const banner = $('banner');
  banner.hidden = false;
  banner.textContent = 'The dashboard does not answer: this page shows what it last heard, which may be out of date, and its actions are off until it is back.';
}

function showErrors(errors) {
  const banner = $('banner');
  const lines = Object.entries(errors || {}).map(([kind, msg]) => `watch of ${(KINDS[kind] || [kind])[0]}: ${msg} (retrying)`);
  banner.hidden = lines.length === 0;
  banner.textContent = lines.join('\n');
}

/**
 * Opens the event stream of the current view; a new snapshot arrives on every (re)connection.
 * A hidden tab holds none: a browser opens at most six HTTP/1.1 connections to one host and port,
 * shared by all its tabs, and a stream holds one for as long as it is open, so that six tabs
 * following the dashboard left a seventh, and every action's request, waiting. Shown again, the
 * tab connects anew and its snapshot brings it up to date.
 */
function connect() {
  if (state.source) state.source.close();
  state.source = null;
  clearTimeout(state.retry);
  if (document.visibilityState === 'hidden') {
    setLive('paused while hidden', true);
    return;
  }
  if (outOfScope()) return;
  const q = new URLSearchParams({ token });
  if (state.view.kind === 'app') q.set('app', state.view.key);
  const source = new EventSource(`/api/stream?${q}`);
  state.source = source;
  source.onopen = () => setLive('live', true);
  source.onerror = () => {
    setLive('reconnecting…', false);
    markStale();
    if (source.readyState === EventSource.CLOSED) state.retry = setTimeout(checkAndReconnect, 2000);
  };
  source.addEventListener('list', (e) => onList(JSON.parse(e.data)));
  source.addEventListener('rows', (e) => onRows(JSON.parse(e.data)));
  source.addEventListener('app', (e) => onDetail(JSON.parse(e.data)));
  source.addEventListener('gone', (e) => onGone(JSON.parse(e.data)));
}

/**
 * An App's page of a namespace the dashboard does not cover (known from its session): said in
 * place of the page, with no stream opened (it would be refused, and the page would read as a
 * dashboard that does not answer).
 */
function outOfScope() {
  const scope = state.session && state.session.scope;
  const ns = state.view.kind === 'app' ? state.view.key.split('/')[0] : undefined;
  if (!scope || ns === undefined || ns === scope) return false;
  setLive('live', true);
  $('banner').hidden = true;
  // Only a name a namespace can have is offered as a command to run, not whatever the address held.
  const named = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(ns) && ns.length <= 63;
  replace($('main'), h('p', {}, h('a', { href: '#/' }, '← All Apps')), h('h1', {}, state.view.key),
    h('p', { class: 'muted' }, named
      ? `Namespace ${ns} is not in this dashboard's scope (namespace ${scope}): kubectl skiff dashboard -n ${ns}, or -A, shows it.`
      : `${JSON.stringify(ns.slice(0, 80))} is no namespace name; this dashboard's scope is namespace ${scope}.`));
  return true;
}

function tokenRefused() {
  setLive('disconnected', false);
  $('banner').hidden = false;
  $('banner').textContent = 'This page\'s token is not accepted (mistyped, or the dashboard restarted with a new one): open the URL kubectl skiff dashboard printed.';
}

/** The stream was refused or broke for good: a refused token says so, anything else tries again. */
async function checkAndReconnect() {
  try {
    const res = await fetch('/api/session', { headers: { 'x-skiff-token': token } });
    if (res.status === 401) return void tokenRefused();
    // An App of a namespace the dashboard does not cover: its stream is refused (404) for good.
    if (res.ok) state.session = await res.json();
    if (outOfScope()) return;
  } catch {
    // The dashboard is down: try again below.
  }
  connect();
}

// ---- list ----------------------------------------------------------------------------------

/**
 * Whether a row matches one search term: label=value (or ==) and label!=value as kubectl's label
 * selectors read them; anything else a part of the name or namespace, in any case (names are
 * lower-case, and a search for WEB means web).
 */
function termMatches(row, term) {
  const ne = term.indexOf('!=');
  if (ne > 0) return row.labels[term.slice(0, ne)] !== term.slice(ne + 2);
  const eq = /^([^=]+)==?(.*)$/.exec(term);
  if (eq) return row.labels[eq[1]] === eq[2];
  const part = term.toLowerCase();
  return row.name.toLowerCase().includes(part) || row.namespace.toLowerCase().includes(part);
}

function matches(row) {
  if (state.filter.size && !state.filter.has(row.status)) return false;
  // Commas too: `team=pay,tier=web` is two requirements, as in kubectl's -l (no name holds one).
  return state.search.trim().split(/[\s,]+/).filter(Boolean).every((term) => termMatches(row, term));
}

function listShell() {
  const search = h('input', {
    id: 'search', type: 'search', placeholder: 'name, or label=value', value: state.search, 'aria-describedby': 'search-help',
    oninput: (e) => { state.search = e.target.value; drawRows(); },
  });
  return [
    h('h1', {}, 'Apps'),
    h('div', { class: 'controls' },
      h('div', { id: 'counts', class: 'counts', role: 'group', 'aria-label': 'Filter by status' }),
      h('label', { for: 'search', class: 'search' }, 'Search ', search),
      h('span', { id: 'search-help', class: 'muted' }, 'several terms: all must match; label!=value excludes')),
    h('div', { class: 'scroll' }, h('table', { class: 'apps' },
      h('thead', {}, h('tr', {}, ['Name', 'Namespace', 'Status', 'Strategy', 'Step', 'Weight', 'Images', 'Age'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', { id: 'rows' }))),
    h('p', { id: 'empty', class: 'muted', hidden: true }),
  ];
}

function drawCounts() {
  const counts = state.list.counts;
  const total = state.list.rows.length;
  const toggle = (s) => () => {
    if (s === 'All') state.filter.clear();
    else if (state.filter.has(s)) state.filter.delete(s);
    else state.filter.add(s);
    drawCounts();
    drawRows();
  };
  replace($('counts'),
    h('button', { type: 'button', class: 'count all', 'aria-pressed': String(state.filter.size === 0), 'data-focus': 'count-All', onclick: toggle('All') }, `All ${total}`),
    STATUSES.map((st) => h('button', {
      type: 'button', class: `count ${st.toLowerCase()}`, 'aria-pressed': String(state.filter.has(st)), 'data-focus': `count-${st}`, 'data-status': st, onclick: toggle(st),
    }, `${st} `, h('span', { class: 'n' }, String(counts[st] || 0)))));
}

function drawRows() {
  const rows = state.list.rows.filter(matches);
  replace($('rows'), rows.map((r) => h('tr', { 'data-key': r.key, 'data-status': r.status },
    h('td', {}, h('a', { href: `#/app/${encodeURIComponent(r.namespace)}/${encodeURIComponent(r.name)}`, 'data-focus': `row-${r.key}` }, r.name)),
    h('td', {}, r.namespace),
    h('td', {}, badge(r.status)),
    h('td', {}, r.strategy),
    h('td', { title: r.stepDetail }, r.step),
    h('td', { class: 'weight' }, weightText(r)),
    h('td', { class: 'long' }, images(r.images)),
    h('td', {}, ageOf(r.createdAt)))));
  const empty = $('empty');
  empty.hidden = rows.length > 0;
  // A watch of Apps that fails (RBAC forbids it) shows none: that says they cannot be shown, not that there are none.
  empty.textContent = state.list.rows.length ? 'No App matches the filter.' : watchFails(state.list, 'apps', 'The Apps') || 'No Apps in this scope yet.';
}

function onList(list) {
  state.list = list;
  showErrors(list.errors);
  if (!$('rows')) replace($('main'), listShell());
  drawCounts();
  drawRows();
}

function onRows(delta) {
  if (!state.list) return;
  const byKey = new Map(state.list.rows.map((r) => [r.key, r]));
  for (const k of delta.remove) byKey.delete(k);
  for (const r of delta.upsert) byKey.set(r.key, r);
  state.list = { rows: [...byKey.values()].sort((a, b) => a.key.localeCompare(b.key)), counts: delta.counts, errors: delta.errors };
  showErrors(delta.errors);
  drawCounts();
  drawRows();
}

// ---- detail --------------------------------------------------------------------------------

function section(title, ...content) {
  const id = `h-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), ...content);
}

function table(head, rows, attrs) {
  // A table wider than a narrow window scrolls by itself; the page around it keeps the window's width.
  return h('div', { class: 'scroll' }, h('table', attrs || {}, h('thead', {}, h('tr', {}, head.map((c) => h('th', { scope: 'col' }, c)))), h('tbody', {}, rows)));
}

function header(d) {
  const r = d.row;
  const step = d.canary
    ? [`${r.step} ${r.stepDetail || ''}`, d.steps.pausedAt ? ' · rollout paused' : '', d.steps.pauseEndsAt ? [', ', h('span', { class: 'muted', 'data-until': Date.parse(d.steps.pauseEndsAt) }, '')] : '']
    : [r.step];
  const rows = [
    ['Status', badge(r.status)], ['Strategy', r.strategy], ['Step', h('span', { id: 'step' }, step)],
    ['Weight', h('span', { id: 'weight' }, weightText(r))], ['Images', images(r.images)], ['Age', ageOf(r.createdAt)],
  ];
  if (d.message) rows.push(['Message', h('span', { class: 'error-text' }, d.message)]);
  // A canary with traffic and no available pods holds its step, and is aborted at its progress deadline.
  if (d.canary && d.canary.unavailableSince) rows.push(['Canary', h('span', { class: 'error-text' }, ['unavailable since ', d.canary.unavailableSince, ' (', ageOf(d.canary.unavailableSince), ' ago)'])]);
  if (d.held) rows.push(['Held', `revision ${d.held.revision} (${d.held.image}) waits for the rollout to be resumed${d.held.rollingUpdate ? ' (the paused Deployment has its template; its pods run the one before)' : ''}: Resume rolls it out, an undo drops it${d.held.note || ''}`]);
  // As kubectl skiff status says it: asked for once, it switches when the controller can.
  if (d.promotionWaiting) rows.push(['Promotion', 'promoted: switches once the controller can (see Progressing)']);
  if (d.abortedRevision) rows.push(['Aborted', `revision ${d.abortedRevision}${d.abortedImage ? ` (${d.abortedImage})` : ''}`]);
  if (d.scaleDown) {
    // As kubectl skiff status says it: a canary of another revision waiting for those pods takes them over then.
    const next = d.canary && d.canary.revision && d.canary.revision !== d.scaleDown.revision;
    const left = h('span', { 'data-until': Date.parse(d.scaleDown.deleteAt) }, '');
    rows.push(['Scale-down', next
      ? ['the earlier canary\'s pods (revision ', d.scaleDown.revision, ') get no traffic and take the new pod template at ', d.scaleDown.deleteAt, ' (', left, ')']
      : ['the finished canary\'s pods (revision ', d.scaleDown.revision, ') get no traffic and go at ', d.scaleDown.deleteAt, ' (', left, ')']]);
  }
  return h('dl', { class: 'header' }, rows.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

function actionsBar(d) {
  const a = d.actions;
  // What the dialog names is what the action may act on: the server refuses it if the rollout
  // has become another revision's meanwhile.
  const rolling = d.commandRevision || undefined;
  const expect = { promote: rolling, abort: rolling, retry: d.abortedRevision || undefined };
  const button = (name, label, enabled, text) => h('button', {
    type: 'button', 'data-focus': `action-${name}`, 'data-action': name, disabled: !enabled,
    onclick: () => confirmAction(name, label, text, undefined, expect[name]),
  }, label);
  const c = d.canary;
  const bg = d.blueGreen;
  // A change of configuration only keeps the image: what changed names the rollout then.
  const changed = c && c.changes && c.changes.length && !c.changes.includes('image') ? ` (${c.changes.join(', ')})` : '';
  const upcoming = bg && rolling && rolling !== bg.previewRevision;
  const what = c ? `the canary of ${c.image}${changed}, revision ${c.revision || '?'}`
    : bg ? (upcoming ? `the blue-green rollout of revision ${rolling}` : `the blue-green preview of ${bg.image || 'the new pod template'}, revision ${bg.previewRevision}`) : 'the rollout';
  const switched = bg && !upcoming && bg.phase === 'Switched';
  // As kubectl skiff promote says it: a paused App switches only once resumed.
  const promote = c ? `Skip the remaining steps and promote ${what}?`
    : `Promote ${what}? The Service switches to it once it is ready${d.analysis ? ' and its check passed' : ''}${d.paused ? ', and the App is resumed: it is paused now, and the switch waits for Resume' : ''}.`;
  const abort = c ? `Abort ${what}? Traffic goes back to stable.`
    : switched ? `Abort ${what}? The Service switches back to the stable revision, and the preview's pods go after the scale-down delay.`
      : `Abort ${what}? ${upcoming ? 'No preview of it starts' : 'The preview is removed'}; the Service stays on the stable revision.`;
  return h('div', { class: 'actions', role: 'group', 'aria-label': 'Actions' },
    button('promote', 'Promote', a.promote, promote),
    button('abort', 'Abort', a.abort, abort),
    button('pause', 'Pause', a.pause, `Pause the rollout (spec.rollout.paused: true)? ${sentence(d.pauseMeans)}.`),
    button('resume', 'Resume', a.resume, 'Resume the rollout (spec.rollout.paused: false)?'),
    button('retry', 'Retry', a.retry, `Run the rollout of the aborted revision ${d.abortedRevision || ''} again?`));
}

function stepsSection(d) {
  if (!d.steps.steps.length) return undefined;
  return section('Steps', h('ol', { class: 'steps' }, d.steps.steps.map((st) => h('li', {
    class: st.current ? 'current' : st.done ? 'done' : '', 'aria-current': st.current ? 'step' : undefined,
  }, st.text, st.current ? h('span', { class: 'marker' }, ' ◀ current') : st.done ? ' ✔' : ''))));
}

function blueGreenSection(d) {
  const b = d.blueGreen;
  if (!b) return undefined;
  // As kubectl skiff get and status say it: a switch back, and whose pods go when (Abort's deadline while Switched).
  const go = b.podsGo;
  return section('Blue-green', h('dl', { class: 'header' },
    h('dt', {}, 'Phase'), h('dd', { id: 'bg-phase' }, b.switchedBack ? 'ScalingDown (switched back)' : b.phase || '-'),
    h('dt', {}, 'Active'), h('dd', {}, h('code', {}, b.activeRevision || '-'), ' (serving)'),
    h('dt', {}, 'Preview'), h('dd', {}, h('code', {}, b.previewRevision || '-'), b.phase === 'Preview' ? ' (waiting for the switch)' : ''),
    h('dt', {}, b.switchedBack ? 'Switched back' : 'Switched'), h('dd', {}, b.switchedAt ? [ageOf(b.switchedAt), ' ago'] : 'not yet'),
    go ? [h('dt', {}, 'Scale-down'), h('dd', { id: 'bg-scale-down' }, `${go.who} get no traffic and go at ${go.at} (`, h('span', { 'data-until': Date.parse(go.at) }, ''), ')',
      b.phase === 'Switched' ? '; Abort switches back until then' : '')] : []));
}

/** A small line chart of a metric over the checks, with its bounds as dashed lines. */
function chart(m) {
  const W = 300, H = 90, P = 8;
  const values = m.points.map((p) => p.value);
  const bounds = [m.min, m.max].filter((b) => typeof b === 'number');
  let lo = Math.min(...values, ...bounds), hi = Math.max(...values, ...bounds);
  if (lo === hi) { lo -= 1; hi += 1; }
  const pad = (hi - lo) * 0.1;
  lo -= pad; hi += pad;
  const x = (i) => (m.points.length === 1 ? W / 2 : P + (i * (W - 2 * P)) / (m.points.length - 1));
  const y = (v) => H - P - ((v - lo) * (H - 2 * P)) / (hi - lo);
  const last = m.points[m.points.length - 1];
  // Checks without a value (a query failing, no data) count too: "0 checks" would read as none run.
  const without = m.checks - m.points.length;
  const label = `${m.name}: ${m.checks} check${m.checks === 1 ? '' : 's'}${without > 0 ? ` (${without} without a value)` : ''}${last ? `, last ${last.value}` : ''}${m.min !== undefined ? `, min ${m.min}` : ''}${m.max !== undefined ? `, max ${m.max}` : ''}`;
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': label, 'data-metric': m.name, 'data-points': m.points.length });
  for (const [b, name] of [[m.min, 'min'], [m.max, 'max']]) {
    if (typeof b === 'number') svg.append(s('line', { x1: 0, x2: W, y1: y(b), y2: y(b), class: `bound ${name}` }));
  }
  if (m.points.length > 1) svg.append(s('polyline', { points: m.points.map((p, i) => `${x(i)},${y(p.value)}`).join(' '), class: 'series' }));
  m.points.forEach((p, i) => {
    const c = s('circle', { cx: x(i), cy: y(p.value), r: 3.5, class: `point ${String(p.result || '').toLowerCase()}` });
    const t = s('title', {});
    t.textContent = `${p.value}${p.where}${p.result ? ` ${p.result}` : ''}${p.at ? ` (${p.at})` : ''}`;
    c.append(t);
    svg.append(c);
  });
  return h('figure', { class: 'metric' }, svg, h('figcaption', {}, label), m.lastUnmeasured ? h('p', { class: 'metric-note' }, `Last check: ${m.lastUnmeasured}`) : undefined);
}

function analysisSection(d) {
  // "No check yet" only where one is coming: a rollout under way of an App with spec.rollout.analysis.
  if (!d.analysis && !d.metrics.length && !((d.canary || d.blueGreen) && d.analysisConfigured)) return undefined;
  const c = d.analysis || {};
  const summary = c.checks === undefined ? 'No check yet.' : `${c.checks} check${c.checks === 1 ? '' : 's'}, ${c.failures} failed${c.lastResult ? `, last ${c.lastResult}` : ''}.`;
  return section('Analysis', h('p', {}, summary), h('div', { class: 'charts' }, d.metrics.map(chart)));
}

/**
 * In place of "none" where the watch of a kind fails (RBAC forbids it, say): what the section
 * cannot show, not that there is nothing to show. The banner has every failing watch too.
 */
const watchFails = (d, kind, what, shown = false) => (d.errors && d.errors[kind]
  ? `${what} ${shown ? 'may be out of date' : 'cannot be shown'}: the watch of ${KINDS[kind][0]} fails (${d.errors[kind]}).`
  : undefined);

/** Each kind the dashboard watches, as the page names it, and the kind of its rows under Objects. */
const KINDS = {
  apps: ['Apps'],
  revisions: ['ControllerRevisions'],
  events: ['Events'],
  deployments: ['Deployments', 'Deployment'],
  services: ['Services', 'Service'],
  ingresses: ['Ingresses', 'Ingress'],
  routes: ['HTTPRoutes', 'HTTPRoute'],
  disruptionBudgets: ['PodDisruptionBudgets', 'PodDisruptionBudget'],
  autoscalers: ['HorizontalPodAutoscalers', 'HorizontalPodAutoscaler'],
  configMaps: ['ConfigMap copies', 'ConfigMap'],
};

/** The kinds the Objects section lists (the dashboard's scope.ts OWNED_KINDS but revisions). */
const OWNED = Object.keys(KINDS).filter((k) => KINDS[k][1] !== undefined);

function revisionsSection(d) {
  if (!d.revisions.length) return section('Revisions', h('p', { class: 'muted' }, watchFails(d, 'revisions', 'The revision history') || 'No revision history yet.'));
  return section('Revisions', table(['Revision', 'Hash', 'Images', 'Changes', 'Outcome', 'Started', ''], d.revisions.map((r) => h('tr', {},
    h('td', {}, String(r.number)), h('td', {}, h('code', {}, r.hash)), h('td', { class: 'long' }, r.images.join(', ') || '-'),
    h('td', { class: 'long' }, r.changes.join(', ') || '-'),
    h('td', {}, r.outcome, r.role ? h('span', { class: `role ${r.role}` }, ` (${r.role})`) : ''),
    h('td', {}, ageOf(r.startedAt)),
    h('td', {}, undoCell(r))))));
}

/**
 * An undo offered where it changes something: not to the template the App asks for, nor to an
 * older entry of a template a newer one names; one that would change nothing says why instead.
 */
function undoCell(r) {
  if (r.current || r.repeated) return '';
  if (r.noUndo) return h('span', { class: 'muted', title: r.noUndo }, 'same fields as now');
  return h('button', {
    type: 'button', 'data-focus': `undo-${r.number}`, 'data-action': 'undo', 'data-revision': r.number,
    onclick: () => {
      const put = `Put the pod template of revision ${r.number} (${r.images.join(', ') || r.hash}) back?`;
      // Skipping is offered where there is something to skip: not to the stable revision, nor with RollingUpdate.
      const skip = r.everPromoted && r.undoMeans.skipCanary !== undefined;
      confirmAction('undo', `Undo to revision ${r.number}`, `${put} ${r.undoMeans.rollout}`, r.number, undefined, skip, skip ? `${put} ${r.undoMeans.skipCanary}` : undefined);
    },
  }, `Undo to ${r.number}`);
}

function simpleSections(d) {
  return [
    section('Conditions', table(['Type', 'Status', 'Reason', 'Message', 'Since'], d.conditions.map((c) => h('tr', {},
      h('td', {}, c.type), h('td', {}, c.status), h('td', {}, c.reason), h('td', { class: 'message' }, c.message), h('td', {}, ageOf(c.lastTransitionTime)))))),
    section('Events', d.events.length ? table(['Type', 'Reason', 'Message', 'Count', 'Last'], d.events.map((e) => h('tr', { class: e.type === 'Warning' ? 'warning' : '' },
      h('td', {}, e.type), h('td', {}, e.reason), h('td', { class: 'message' }, e.message), h('td', {}, String(e.count)), h('td', {}, ageOf(e.at)))))
      : h('p', { class: 'muted' }, watchFails(d, 'events', 'Events') || 'No recent Events.')),
    section('Objects', table(['Kind', 'Name', 'Ready', 'Details'], d.objects.map((o) => h('tr', { 'data-object': `${o.kind}/${o.name}` },
      h('td', {}, o.kind), h('td', {}, o.name, o.role ? h('span', { class: `role ${o.role}` }, ` ${o.role}`) : ''),
      h('td', {}, h('span', { class: o.ready ? 'ok' : 'wait' }, o.ready ? '✔ ready' : '… not ready')), h('td', { class: 'long' }, o.text)))),
      // The rows of a kind whose watch fails are what was heard before it failed.
      ...OWNED.map((kind) => watchFails(d, kind, `Its ${KINDS[kind][0]}`, d.objects.some((o) => o.kind === KINDS[kind][1]))).filter(Boolean).map((text) => h('p', { class: 'muted' }, text))),
  ];
}

function onDetail(d) {
  state.detail = d;
  showErrors(d.errors);
  const r = d.row;
  document.title = `${r.name} · Skiff rollouts`;
  let result = $('result');
  if (!result) result = h('div', { id: 'result', role: 'status', 'aria-live': 'polite', tabindex: '-1', 'data-focus': 'result' });
  replace($('main'),
    h('p', {}, h('a', { href: '#/', 'data-focus': 'back' }, '← All Apps')),
    h('h1', {}, r.name, ' ', h('span', { class: 'muted' }, r.namespace)),
    header(d), actionsBar(d), result,
    [blueGreenSection(d), stepsSection(d), analysisSection(d), revisionsSection(d), ...simpleSections(d)].filter(Boolean));
}

function onGone(g) {
  showErrors(g.errors);
  // A confirmation still open for the App would act on nothing; an answer still due (an action
  // sent before the App went) is shown under the notice, not on a line no longer on the page.
  const dialog = $('confirm');
  if (dialog.open && dialog.dataset.key === g.key) dialog.close('gone');
  const result = $('result') ?? h('div', { id: 'result', role: 'status', 'aria-live': 'polite', tabindex: '-1', 'data-focus': 'result' });
  replace($('main'), h('p', {}, h('a', { href: '#/' }, '← All Apps')), h('h1', {}, g.key), h('p', { class: 'muted' }, 'This App does not exist (or not yet): waiting for it.'), result);
}

// ---- actions -------------------------------------------------------------------------------

/** "the canary holds …" as the start of a sentence. */
const sentence = (text) => (text ? text[0].toUpperCase() + text.slice(1) : '');

/** `skipText`: what the confirmation says once "Skip the canary" is ticked (an undo's). */
function confirmAction(action, label, text, revision, expect, maySkipCanary, skipText) {
  const dialog = $('confirm');
  // The App the dialog names is the one acted on, whatever the page shows by then.
  const key = state.view.key;
  dialog.dataset.key = key;
  $('confirm-title').textContent = action === 'undo' ? `Undo ${key} to revision ${revision}?` : `${label} ${key}?`;
  $('confirm-text').textContent = text;
  // Only a revision that was promoted once may skip the canary (the controller refuses any other).
  $('confirm-skip').hidden = action !== 'undo' || !maySkipCanary;
  // A blue-green App skips its preview: no canary was ever its to skip.
  const skipped = state.detail && state.detail.row && state.detail.row.strategy === 'BlueGreen' ? 'the preview' : 'the canary';
  $('confirm-skip-text').textContent = `Skip ${skipped}: straight to stable (only for a revision that was stable before)`;
  $('confirm-skip-box').checked = false;
  $('confirm-skip-box').onchange = () => { $('confirm-text').textContent = $('confirm-skip-box').checked && skipText ? skipText : text; };
  $('confirm-ok').textContent = label;
  $('confirm-ok').onclick = () => {
    const skipCanary = action === 'undo' && $('confirm-skip-box').checked;
    dialog.close('ok');
    void act(key, action, revision, skipCanary, expect);
  };
  dialog.showModal();
  $('confirm-cancel').focus();
}

async function act(key, action, revision, skipCanary, expect) {
  const [ns, name] = key.split('/');
  // The line under the App's actions; once the page has left that App, a detached one nobody sees.
  const result = $('result') ?? h('div', {});
  result.className = 'pending';
  result.textContent = `${action}…`;
  try {
    const res = await fetch(`/api/apps/${encodeURIComponent(ns)}/${encodeURIComponent(name)}/${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-skiff-token': token },
      body: JSON.stringify({ revision, skipCanary, expectRevision: expect }),
    });
    const body = await res.json();
    const ok = res.ok && body.ok;
    result.className = ok ? 'done' : 'refused';
    result.textContent = ok ? body.message : `Refused${body.status ? ` (${body.status}${body.reason ? ` ${body.reason}` : ''})` : ''}: ${body.message}`;
  } catch (err) {
    result.className = 'refused';
    result.textContent = `The dashboard did not answer: ${err.message}`;
  }
}

// ---- routing -------------------------------------------------------------------------------

/** The view a location hash names; one that does not decode (#/app/%zz/web) is the list. */
function viewOf(hash) {
  const m = /^#\/app\/([^/]+)\/([^/]+)$/.exec(hash);
  try {
    return m ? { kind: 'app', key: `${decodeURIComponent(m[1])}/${decodeURIComponent(m[2])}` } : { kind: 'list' };
  } catch {
    return { kind: 'list' };
  }
}

function route() {
  const view = viewOf(location.hash);
  if (state.view && state.view.kind === view.kind && state.view.key === view.key) return;
  state.view = view;
  state.detail = null;
  // A confirmation asked about the App the page showed: leaving it (Back, a link) answers no.
  if ($('confirm').open) $('confirm').close('cancel');
  document.title = 'Skiff rollouts';
  replace($('main'), h('p', { class: 'muted' }, 'Loading…'));
  connect();
  $('main').focus();
}

function start() {
  $('confirm-cancel').addEventListener('click', () => $('confirm').close('cancel'));
  // The skip link moves the focus only: followed, its #main would be a route (the list), and an
  // App's page would leave that App.
  $('skip').addEventListener('click', (e) => {
    e.preventDefault();
    $('main').focus();
  });
  window.addEventListener('hashchange', route);
  document.addEventListener('visibilitychange', () => {
    if (token && state.view && (document.visibilityState === 'hidden' || !state.source)) connect();
  });
  setInterval(tickAges, 1000);
  if (!token) {
    $('banner').hidden = false;
    $('banner').textContent = 'No token in the address: open the URL kubectl skiff dashboard printed.';
    setLive('disconnected', false);
    return;
  }
  // The session first: an App's page out of the dashboard's scope is said without a stream, and
  // a refused token without a stream that would first read as a dashboard that does not answer.
  void showScope().then((refused) => refused || route());
}

/** Which namespace and context the dashboard covers; true when the token is refused, which it says at once. */
async function showScope() {
  try {
    const res = await fetch('/api/session', { headers: { 'x-skiff-token': token } });
    if (res.status === 401) {
      tokenRefused();
      return true;
    }
    if (!res.ok) return false;
    const session = await res.json();
    state.session = session;
    // Whose rights the actions carry, as the terminal said it: an impersonated user is named.
    $('scope').textContent = `${session.scope ? `namespace ${session.scope}` : 'every namespace'} · context ${session.context} · ${session.actingAs || ''}`;
  } catch {
    // The stream says when the dashboard cannot be reached.
  }
  return false;
}

start();
