// The controller's own counters as Prometheus first scrapes them.
import { strict as assert } from 'node:assert';
import { createMetrics } from '../../controller/runtime/metrics.js';

describe('controller metrics', () => {
  it('exports every analysis result at 0 before the first check, so that rate() sees the first error (the alert on failing queries is not an interval late)', async () => {
    const { registry } = createMetrics({ queueDepth: () => 0 });
    const text = await registry.metrics();
    for (const result of ['value', 'no-data', 'error']) assert.match(text, new RegExp(`^skiff_controller_analysis_queries_total\\{result="${result}"\\} 0$`, 'm'));
    for (const result of ['Passed', 'Failed', 'Inconclusive']) assert.match(text, new RegExp(`^skiff_controller_analysis_checks_total\\{result="${result}"\\} 0$`, 'm'));
  });
});
