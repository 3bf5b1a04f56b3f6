import { strict as assert } from 'node:assert';
import type { CommandLine } from '../../cli/args.js';
import { ACTION_COMMANDS, setImage } from '../../cli/commands.js';
import { ApiError, AppNotFoundError, NotFoundError } from '../../cli/errors.js';
import type { CliApp, ControllerRevision } from '../../cli/model.js';
import { APP_API_MISSING } from '../../cli/paths.js';
import { writingContext } from '../support/cli-context.js';

// The commands that write the App read it first. Deleted between the read and the write, the App
// is missing as much as it is for a command that cannot read it: the patch's 404 is told in the
// same words, kubectl's `Error from server (NotFound): apps.skiff.dev "web" not found` (exit 1),
// not as a raw answer to a PATCH.
const UID = 'web-uid';
const entry = (n: number, hash: string, image: string): ControllerRevision => ({
  metadata: {
    name: `web-${n}`, labels: { 'skiff.dev/app': 'web', 'skiff.dev/revision': hash },
    annotations: { 'skiff.dev/images': image, 'skiff.dev/outcome': 'Promoted', 'skiff.dev/changes': 'image' },
    ownerReferences: [{ uid: UID, controller: true }],
  },
  revision: n, data: { spec: { image, port: 8080 } },
});

/** An App that each command below has something to write for. */
const app = (paused: boolean): CliApp => ({
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop', uid: UID, generation: 2, resourceVersion: '5' },
  spec: { image: 'web:2', port: 8080, rollout: { strategy: 'Canary', paused } },
  status: {
    observedGeneration: 2, stableRevision: 'bbbbbbbbbb', updateRevision: 'bbbbbbbbbb', abortedRevision: 'bbbbbbbbbb',
    canary: { image: 'web:2', weight: 20, stepIndex: 0, stepStartedAt: '2026-11-22T10:00:00Z' },
  },
});

/** Runs `command` against an API server that has the App on read and answers the write with `gone`. */
function run(command: string, gone: ApiError, extra: Partial<CommandLine> = {}) {
  const read = (path: string) => (path.includes('/controllerrevisions') ? { items: [entry(1, 'aaaaaaaaaa', 'web:1'), entry(2, 'bbbbbbbbbb', 'web:2')] } : app(command === 'resume'));
  const { ctx, patches } = writingContext(read, () => gone, { command: command as CommandLine['command'], ...extra });
  const handler = command === 'set-image' ? setImage : ACTION_COMMANDS[command as keyof typeof ACTION_COMMANDS];
  return handler(ctx).then((code) => ({ code, patches }), (err: unknown) => ({ err, patches }));
}

const deleted = () => new ApiError(404, 'apps.skiff.dev "web" not found', 'NotFound');
const COMMANDS: [string, Partial<CommandLine>][] = [
  ['pause', {}], ['resume', {}], ['promote', {}], ['abort', {}], ['retry', {}], ['undo', { toRevision: 1 }], ['set-image', { image: 'web:3' }],
];

describe('kubectl skiff: the App deleted between the read and the write', () => {
  for (const [command, extra] of COMMANDS) {
    it(`${command}: kubectl's NotFound line, as for an App not there to read`, async () => {
      const r = await run(command, deleted(), extra);
      assert.equal(r.patches.length, 1, `${command} wrote`);
      assert.ok('err' in r && r.err instanceof AppNotFoundError, `${command}: ${'err' in r ? String(r.err) : `exit ${r.code}`}`);
      assert.equal(r.err.kubectlText, 'Error from server (NotFound): apps.skiff.dev "web" not found');
      assert.equal(r.err.message, 'app "web" not found in namespace "shop"');
    });
  }

  it('the App API gone as well (the CRD deleted): the words of a missing App API', async () => {
    const r = await run('pause', new ApiError(404, 'the server could not find the requested resource', 'NotFound'));
    assert.ok('err' in r && r.err instanceof NotFoundError && !(r.err instanceof AppNotFoundError), String('err' in r ? r.err : r.code));
    assert.equal(r.err.message, APP_API_MISSING);
  });

  it('undo still says that the App changed on a 409', async () => {
    const r = await run('undo', new ApiError(409, 'Operation cannot be fulfilled on apps.skiff.dev "web": the object has been modified', 'Conflict'), { toRevision: 1 });
    assert.ok('err' in r && r.err instanceof Error);
    assert.match(r.err.message, /^app shop\/web changed while undo read it; nothing written/);
  });
});
