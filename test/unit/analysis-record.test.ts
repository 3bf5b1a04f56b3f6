import { strict as assert } from 'node:assert';
import { HISTORY_CHECKS, recordCheck } from '../../controller/analysis/record.js';
import type { CheckResult } from '../../controller/analysis/types.js';

const result = (verdict: CheckResult['result'], value?: number): CheckResult => ({
  result: verdict,
  message: `latency ${value} ms`,
  metrics: [{ name: 'latency', ...(value !== undefined ? { value } : {}), max: 300, result: verdict, message: `latency ${value} ms` }],
});
const at = (i: number) => new Date(Date.UTC(2026, 10, 24, 10, 0, i * 10)).toISOString();

describe('recordCheck: a check counted into the analysis status', () => {
  it('counts checks, failures (as noData counts them) and inconclusive ones, and keeps the last check whole', () => {
    let s = recordCheck(undefined, { at: at(0), weight: 20, result: result('Passed', 40), counted: 'Passed' });
    s = recordCheck(s, { at: at(1), weight: 20, result: result('Inconclusive'), counted: 'Failed' });
    s = recordCheck(s, { at: at(2), weight: 50, result: result('Inconclusive'), counted: 'Wait' });
    assert.deepEqual([s.checks, s.failures, s.inconclusive], [3, 1, 2]);
    assert.deepEqual([s.lastCheckAt, s.lastWeight, s.lastResult, s.message], [at(2), 50, 'Inconclusive', 'latency undefined ms']);
    assert.equal(s.metrics?.[0].message, 'latency undefined ms');
  });

  it(`keeps the last ${HISTORY_CHECKS} checks for charts, oldest first, without messages`, () => {
    let s = recordCheck(undefined, { at: at(0), weight: 20, result: result('Passed', 0), counted: 'Passed' });
    for (let i = 1; i < 40; i++) s = recordCheck(s, { at: at(i), weight: 20, result: result('Passed', i), counted: 'Passed' });
    assert.equal(s.checks, 40);
    assert.equal(s.history?.length, HISTORY_CHECKS);
    assert.deepEqual(s.history?.map((h) => h.metrics[0].value), Array.from({ length: 30 }, (_, i) => i + 10));
    assert.deepEqual(s.history?.at(-1), { at: at(39), weight: 20, result: 'Passed', metrics: [{ name: 'latency', value: 39, max: 300, result: 'Passed' }] });
    assert.equal(JSON.stringify(s.history).includes('message'), false);
  });
});
