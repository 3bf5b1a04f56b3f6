// What one check of a canary asks Prometheus and how it judges the answers, through runCheck
// with a stand-in client: the weight it runs at decides what there is to compare with.
import { strict as assert } from 'node:assert';
import { runCheck } from '../../controller/analysis/check.js';
import { withDefaults, type DefaultedApp } from '../../shared/defaults.js';
import type { QueryOutcome } from '../../controller/analysis/types.js';
import type { AnalysisSpec } from '../../shared/app-types.js';

const canaryApp = (analysis: AnalysisSpec) => withDefaults({
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: 'shop' },
  spec: { image: 'nginx:1.27', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', steps: [{ setWeight: 50 }, { setWeight: 100 }], analysis } },
}) as DefaultedApp;

/** Prometheus as ingress-nginx's metrics make it answer: stable (`canary=""`) served nothing in the window. */
const noStableTraffic = (asked: string[]) => ({
  url: 'http://prometheus',
  query: async (_url: string, q: string): Promise<QueryOutcome> => {
    asked.push(q);
    if (q.includes('canary=""')) return { ok: false, reason: 'no-data', message: 'NaN (a 0/0, as a ratio of rates over a window without traffic gives)' };
    return { ok: true, value: q.startsWith('sum(increase(') ? 600 : 100 };
  },
});

describe('runCheck of a canary', () => {
  it('compares with stable while stable has traffic', async () => {
    const asked: string[] = [];
    const app = canaryApp({ successRate: { min: 99, maxDropFromStable: 1 } });
    const check = await runCheck(noStableTraffic(asked), app, 50);
    assert.ok(asked.some((q) => q.includes('canary=""')));
    assert.equal(check.result, 'Inconclusive');
  });

  it('at weight 100 holds successRate to min only: stable serves nothing to compare with, as after a blue-green switch', async () => {
    const asked: string[] = [];
    const app = canaryApp({ successRate: { min: 99, maxDropFromStable: 1 } });
    const check = await runCheck(noStableTraffic(asked), app, 100);
    assert.deepEqual(asked.filter((q) => q.includes('canary=""')), []);
    assert.equal(check.result, 'Passed', check.message);
  });

  it('at weight 100 with maxDropFromStable alone: the success rate is shown as held to nothing, not as judged', async () => {
    const app = canaryApp({ successRate: { maxDropFromStable: 1 } });
    const check = await runCheck(noStableTraffic([]), app, 100);
    const successRate = check.metrics.find((m) => m.name === 'successRate');
    assert.match(successRate?.message ?? '', /^successRate 100\.00 \(held to nothing: maxDropFromStable is not applied under full traffic/);
    assert.equal(successRate?.min, undefined);
  });
});
