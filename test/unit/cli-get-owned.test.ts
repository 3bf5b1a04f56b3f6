// `kubectl skiff get`: the tree shows what the App controls, not all that carries its label.
import { strict as assert } from 'node:assert';
import { viewOf } from '../../cli/get.js';
import type { CliApp } from '../../cli/model.js';

const app = { metadata: { name: 'web', namespace: 'shop', uid: 'u-now' }, spec: { image: 'web:2' } } as CliApp;
const meta = (name: string, uid?: string) => ({
  name, namespace: 'shop', labels: { 'skiff.dev/app': 'web' },
  ...(uid ? { ownerReferences: [{ apiVersion: 'skiff.dev/v1alpha1', kind: 'App', name: 'web', uid, controller: true }] } : {}),
});

describe('kubectl skiff get: the App\'s objects', () => {
  it('leaves out objects with its label that it does not control: an earlier App\'s of that name (orphaned), or no one\'s', () => {
    const view = viewOf(app, {
      revisions: [],
      deployments: [{ metadata: meta('web', 'u-now') }, { metadata: meta('web-canary', 'u-before') }],
      services: [{ metadata: meta('web', 'u-now') }, { metadata: meta('web-canary') }],
      ingresses: [{ metadata: meta('web-canary', 'u-before') }],
      routes: [{ metadata: meta('web', 'u-now') }],
    } as unknown as Parameters<typeof viewOf>[1]);
    assert.deepEqual([view.deployments, view.services, view.ingresses, view.routes].map((l) => l.map((o) => o.metadata.name)), [['web'], ['web'], [], ['web']]);
  });
});
