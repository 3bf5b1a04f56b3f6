// The revision a blue-green App's Service selects: the switch is one write of that selector key,
// so `kubectl skiff get` and the dashboard show it beside the Service.
import { strict as assert } from 'node:assert';
import { formatGet } from '../../cli/format-get.js';
import { detail } from '../../cli/dashboard/views.js';
import { slimService } from '../../cli/dashboard/slim.js';
import type { Owned } from '../../cli/dashboard/store.js';
import { plainStyle } from '../../cli/style.js';
import { switchedBlueGreenApp } from '../support/switched-app.js';

const now = new Date('2026-11-29T12:00:10Z');

const switched = switchedBlueGreenApp('2026-11-29');

describe('the revision a blue-green Service selects', () => {
  it('get and the dashboard name it beside the Service (the switch is a write of it); the dashboard keeps only that key of the selector', () => {
    const app = switched;
    const service = slimService({ metadata: { name: 'web', labels: { 'skiff.dev/app': 'web' } }, spec: { type: 'ClusterIP', ports: [{ port: 80 }], selector: { 'skiff.dev/app': 'web', 'skiff.dev/revision': 'bbbbbbbbbb', other: 'x'.repeat(63) } } });
    assert.deepEqual(service.spec!.selector, { 'skiff.dev/revision': 'bbbbbbbbbb' });
    const lines = formatGet({ app, revisions: [], deployments: [], services: [service, { metadata: { name: 'web-preview' }, spec: { ports: [{ port: 80 }], selector: { 'skiff.dev/app': 'web', 'skiff.dev/track': 'preview' } } }], ingresses: [], routes: [] }, now, plainStyle);
    assert.ok(lines.includes('|-- Service web  port 80  selects revision bbbbbbbbbb'), lines.join('\n'));
    assert.ok(lines.includes('`-- Service web-preview  port 80'), lines.join('\n'));
    const owned: Owned = { deployments: [], services: [service], ingresses: [], routes: [], disruptionBudgets: [], autoscalers: [], configMaps: [], revisions: [] };
    assert.equal(detail('shop/web', app, owned, []).objects.find((o) => o.kind === 'Service')!.text, 'ClusterIP · port 80 · selects revision bbbbbbbbbb');
  });
});
