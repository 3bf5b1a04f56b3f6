// undo puts back the App's fields; with trackConfig a revision's hash also covers the data of the
// sources it copied, and whether it copied at all. The command says so after writing, so that an
// emergency rollback that does not land on revision N is no surprise.
import { strict as assert } from 'node:assert';
import type { CliApp, Revision } from '../../cli/model.js';
import { configCaveat } from '../../cli/undo.js';

const app = (trackConfig: boolean): CliApp => ({
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { image: 'web:3', rollout: { strategy: 'Canary', trackConfig } },
});
const revision = (onCopies: boolean, spec: Record<string, unknown> = { image: 'web:1', envFrom: [{ configMapRef: { name: 'web-cfg' } }] }): Revision =>
  ({ number: 1, name: 'web-1', hash: 'aaaaaaaaaa', images: ['web:1'], changes: [], outcome: 'Promoted', spec, onCopies });

describe('undo: what it cannot promise of tracked configuration', () => {
  it('a revision on copies, the App still tracking: only while the sources hold the data of then', () => {
    assert.equal(configCaveat(app(true), revision(true), true), "; with trackConfig the template is revision 1's only while the ConfigMaps and Secrets it references hold the data they held then: else it rolls out as a new revision, and its canary is not skipped (Warning SkipCanaryRefused)");
    assert.doesNotMatch(configCaveat(app(true), revision(true), false), /SkipCanaryRefused/);
  });

  it('trackConfig turned off or on since: not revision N\'s template', () => {
    assert.match(configCaveat(app(false), revision(true), false), /^; revision 1 ran on copies of its configuration and spec\.rollout\.trackConfig is false now: the template is not revision 1's$/);
    assert.match(configCaveat(app(true), revision(false), false), /^; revision 1 ran on its ConfigMaps themselves, not on copies, and spec\.rollout\.trackConfig is true now/);
  });

  it('nothing to say without tracked configuration, or a template that references no ConfigMap', () => {
    assert.equal(configCaveat(app(false), revision(false), true), '');
    assert.equal(configCaveat(app(true), revision(false, { image: 'web:1' }), true), '', 'nothing to copy: the same template');
  });
});
