import { strict as assert } from 'node:assert';
import type { Api } from '../../cli/api.js';
import type { CommandLine } from '../../cli/args.js';
import { undo, type Context } from '../../cli/commands.js';
import { CliError } from '../../cli/errors.js';
import type { CliApp, ControllerRevision } from '../../cli/model.js';
import { plainStyle } from '../../cli/style.js';

// `kubectl skiff undo --to-revision 1` given again: the App asks for revision 1's template already
// (held back by spec.rollout.paused, so it has no history entry yet, or not yet seen by the
// controller). The refusal says so; it named ConfigMap or Secret data that undo cannot put back,
// which this App (no trackConfig) does not even have.
const UID = 'web-uid';
const entry = (n: number, hash: string, image: string): ControllerRevision => ({
  metadata: {
    name: `web-${n}`, labels: { 'skiff.dev/app': 'web', 'skiff.dev/revision': hash },
    annotations: { 'skiff.dev/images': image, 'skiff.dev/outcome': 'Promoted', 'skiff.dev/changes': n === 1 ? '' : 'image' },
    ownerReferences: [{ uid: UID, controller: true }],
  },
  revision: n, data: { spec: { image, port: 8080 } },
});

function context(app: CliApp, patches: unknown[], out: (text: string) => void = () => {}): Context {
  const api = {
    connection: { server: 'https://127.0.0.1:6443' },
    get: async (path: string) => (path.includes('/controllerrevisions') ? { items: [entry(1, 'aaaaaaaaaa', 'web:1'), entry(2, 'bbbbbbbbbb', 'web:2')] } : app),
    mergePatch: async (_path: string, patch: unknown) => { patches.push(patch); return app; },
    watchOnce: async () => {},
  } as unknown as Api;
  const cmd = { command: 'undo', app: 'web', toRevision: 1, skipCanary: false, allNamespaces: false, color: false, watch: false, wait: false } as CommandLine;
  return { cmd, api, namespace: 'shop', style: plainStyle, out, err: () => {}, now: () => new Date(), isTTY: false, columns: () => 80, rows: () => 24 };
}

const app = (status: CliApp['status'], generation: number): CliApp => ({
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop', uid: UID, generation },
  spec: { image: 'web:1', port: 8080, rollout: { strategy: 'Canary', paused: true } },
  status,
});

async function refusal(a: CliApp): Promise<string> {
  const patches: unknown[] = [];
  const err = await undo(context(a, patches)).then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof CliError, 'refused');
  assert.deepEqual(patches, [], 'nothing written');
  return err.message;
}

describe('kubectl skiff undo: to the template the App asks for already', () => {
  it('a change held back by the pause (status.updateRevision, no history entry yet)', async () => {
    const held = app({ observedGeneration: 3, stableRevision: 'bbbbbbbbbb', updateRevision: 'aaaaaaaaaa' }, 3);
    const message = await refusal(held);
    assert.match(message, /has revision 1's pod template already \(hash aaaaaaaaaa\): nothing to undo/);
    assert.doesNotMatch(message, /ConfigMaps|data of what the template references/);
  });

  it('a change the controller has not seen yet (generation ahead of observedGeneration)', async () => {
    const unseen = app({ observedGeneration: 2, stableRevision: 'bbbbbbbbbb', updateRevision: 'bbbbbbbbbb' }, 3);
    assert.match(await refusal(unseen), /has revision 1's pod template already \(hash aaaaaaaaaa\): nothing to undo/);
  });
});

describe('kubectl skiff undo --skip-canary to the template the App asks for already', () => {
  it('is refused as changing nothing, not as a revision that cannot skip its canary (undo without the flag would be refused too)', async () => {
    const patches: unknown[] = [];
    // Revision 1's template is the App's now (a retry of it, say), and it was never promoted.
    const current = app({ observedGeneration: 3, stableRevision: 'bbbbbbbbbb', updateRevision: 'aaaaaaaaaa' }, 3);
    current.spec.rollout = { strategy: 'BlueGreen' };
    const ctx = context(current, patches);
    ctx.cmd.skipCanary = true;
    const api = ctx.api as unknown as { get: (path: string) => Promise<unknown> };
    const get = api.get;
    api.get = async (path: string) => (path.includes('/controllerrevisions') ? { items: [{ ...entry(1, 'aaaaaaaaaa', 'web:1'), metadata: { ...entry(1, 'aaaaaaaaaa', 'web:1').metadata, annotations: { ...entry(1, 'aaaaaaaaaa', 'web:1').metadata.annotations, 'skiff.dev/outcome': 'Aborted' } } }, entry(2, 'bbbbbbbbbb', 'web:2')] } : get(path));
    const err = await undo(ctx).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof CliError);
    assert.match(err.message, /has revision 1's pod template already \(hash aaaaaaaaaa\): nothing to undo/);
    assert.deepEqual(patches, []);
  });
});

describe('kubectl skiff undo on a paused App', () => {
  it('says the change waits for resume, as set image does', async () => {
    const said: string[] = [];
    const paused = app({ observedGeneration: 3, stableRevision: 'bbbbbbbbbb', updateRevision: 'bbbbbbbbbb' }, 3);
    const patches: unknown[] = [];
    assert.equal(await undo(context({ ...paused, spec: { ...paused.spec, image: 'web:2' } }, patches, (t) => said.push(t))), 0);
    assert.equal(patches.length, 1);
    assert.equal(said.join(''), 'app shop/web: undo to revision 1 (hash aaaaaaaaaa, image web:1); rolled out once resumed (the App is paused)\n');
    // Back to the stable revision: the rollout under way is cancelled at once, paused or not.
    said.length = 0;
    const rollingOut = app({ observedGeneration: 3, stableRevision: 'aaaaaaaaaa', updateRevision: 'bbbbbbbbbb' }, 3);
    assert.equal(await undo(context({ ...rollingOut, spec: { ...rollingOut.spec, image: 'web:2' } }, patches, (t) => said.push(t))), 0);
    assert.equal(said.join(''), 'app shop/web: undo to revision 1 (hash aaaaaaaaaa, image web:1)\n');
  });
});
