// A stand-in Api over one App that changes between reads, for the tests of promote, abort and
// retry racing the App (the terminal's commands and the dashboard's buttons alike).
import type { Api } from '../../cli/api.js';
import { ApiError } from '../../cli/errors.js';
import type { CliApp } from '../../cli/model.js';

/** App shop/web under a canary of `revision` at resourceVersion `rv`. */
export const rolling = (revision: string, image: string, rv: string): CliApp => ({
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop', uid: 'u', generation: 2, resourceVersion: rv },
  spec: { image, rollout: { strategy: 'Canary' } },
  status: { observedGeneration: 2, stableRevision: 'r1', stableImage: 'web:1', canary: { image, revision, weight: 20, stepIndex: 0, stepStartedAt: '2026-01-01T00:00:00.000Z' } },
});

/**
 * An Api over one stored App that `between` replaces after each read (the controller and other
 * users writing meanwhile), and whose merge patches the API server's way: refused (409) when
 * they carry a resourceVersion that is not the stored one. `written` holds the patches accepted.
 */
export function racingApi(first: CliApp, between: (read: number) => CliApp | undefined) {
  let stored = first;
  let reads = 0;
  const written: unknown[] = [];
  const api = {
    connection: { context: 'test' },
    async get<T>(): Promise<T> {
      const app = stored;
      stored = between(++reads) ?? stored;
      return structuredClone(app) as T;
    },
    async mergePatch<T>(_path: string, patch: { metadata?: { resourceVersion?: string } }): Promise<T> {
      const rv = patch.metadata?.resourceVersion;
      if (rv !== undefined && rv !== stored.metadata.resourceVersion) throw new ApiError(409, 'Operation cannot be fulfilled on apps.skiff.dev "web": the object has been modified', 'Conflict');
      written.push(patch);
      return stored as T;
    },
    watchOnce: async () => {},
  } as unknown as Api;
  return { api, written };
}
