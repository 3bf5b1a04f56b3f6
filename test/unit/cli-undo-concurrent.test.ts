import { strict as assert } from 'node:assert';
import type { Api } from '../../cli/api.js';
import type { CommandLine } from '../../cli/args.js';
import { undo, type Context } from '../../cli/commands.js';
import { ApiError, CliError } from '../../cli/errors.js';
import type { CliApp, ControllerRevision } from '../../cli/model.js';
import { plainStyle } from '../../cli/style.js';

// `kubectl skiff undo` computes its patch from the App it read: the fields revision N did not set
// are removed by name. An edit of the App between that read and the write (another user, a CI
// job) would survive the patch, leaving a template that is neither N's nor the edit's, so the
// write carries the read's resourceVersion: the API server refuses it (409) instead.
const UID = 'web-uid';
const entry = (n: number, hash: string, spec: Record<string, unknown>): ControllerRevision => ({
  metadata: {
    name: `web-${n}`, labels: { 'skiff.dev/app': 'web', 'skiff.dev/revision': hash },
    annotations: { 'skiff.dev/images': String(spec.image), 'skiff.dev/outcome': 'Promoted', 'skiff.dev/changes': n === 1 ? '' : 'image' },
    ownerReferences: [{ uid: UID, controller: true }],
  },
  revision: n, data: { spec },
});

/** RFC 7386, as the API server applies application/merge-patch+json. */
function merge(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = merge(out[k], v);
  }
  return out;
}

describe('kubectl skiff undo: an edit of the App after undo read it', () => {
  it('is not half overwritten: the write is refused (409), and the App keeps the edit', async () => {
    let stored: CliApp = {
      apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
      metadata: { name: 'web', namespace: 'shop', uid: UID, generation: 2, resourceVersion: '5' },
      spec: { image: 'web:2', port: 8080, podAnnotations: { team: 'a' }, rollout: { strategy: 'Canary' } },
      status: { observedGeneration: 2, stableRevision: 'bbbbbbbbbb', updateRevision: 'bbbbbbbbbb' },
    };
    const api = {
      connection: { server: 'https://127.0.0.1:6443' },
      get: async (path: string) => {
        if (path.includes('/controllerrevisions')) {
          // Someone edits the App while undo reads the history.
          stored = { ...stored, metadata: { ...stored.metadata, resourceVersion: '6', generation: 3 }, spec: { ...stored.spec, podAnnotations: { team: 'a', oncall: 'b' } } };
          return { items: [entry(1, 'aaaaaaaaaa', { image: 'web:1', port: 8080, podAnnotations: { team: 'a' } }), entry(2, 'bbbbbbbbbb', { image: 'web:2', port: 8080, podAnnotations: { team: 'a' } })] };
        }
        return structuredClone(stored);
      },
      mergePatch: async (_path: string, patch: { metadata?: { resourceVersion?: string } }) => {
        const rv = patch.metadata?.resourceVersion;
        if (rv !== undefined && rv !== stored.metadata.resourceVersion) {
          throw new ApiError(409, 'Operation cannot be fulfilled on apps.skiff.dev "web": the object has been modified; please apply your changes to the latest version and try again', 'Conflict');
        }
        stored = merge(stored, patch) as CliApp;
        return stored;
      },
      watchOnce: async () => {},
    } as unknown as Api;
    const cmd = { command: 'undo', app: 'web', toRevision: 1, skipCanary: false, allNamespaces: false, color: false, watch: false, wait: false } as CommandLine;
    const ctx: Context = { cmd, api, namespace: 'shop', style: plainStyle, out: () => {}, err: () => {}, now: () => new Date(), isTTY: false, columns: () => 80, rows: () => 24 };
    const result = await undo(ctx).then(() => 'written', (e: unknown) => e);
    if (result === 'written') {
      assert.deepEqual({ image: stored.spec.image, podAnnotations: stored.spec.podAnnotations }, { image: 'web:1', podAnnotations: { team: 'a' } }, 'a written undo leaves revision 1\'s template, not a mix with the edit');
    } else {
      assert.ok(result instanceof CliError, String(result));
      assert.match(result.message, /app shop\/web changed while undo read it; nothing written: run kubectl skiff undo again/);
      assert.deepEqual([stored.spec.image, stored.spec.podAnnotations], ['web:2', { team: 'a', oncall: 'b' }], 'the edit is kept');
    }
  });
});
