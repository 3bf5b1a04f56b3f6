// The controller's Prometheus metrics as tests read them: from an in-process controller's registry
// or from a controller process's /metrics port. Its reconcile counter is how a test knows that
// resyncs really went by, since a resync writes nothing when nothing changed.
import { strict as assert } from 'node:assert';
import type { Controller } from '../../controller/controller.js';
import { observeFor } from './apps.js';
import { until } from '../../dev/wait.js';

/** The value of the first sample whose line starts with `prefix` (a name, or a name and labels), else 0. */
export function sampleValue(text: string, prefix: string): number {
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** The sum of every sample of a metric, whatever its labels. */
export function sampleSum(text: string, name: string): number {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

/** The exposition text of a controller process's /metrics. */
export async function scrape(metricsPort: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
}

/** Reconciles an in-process controller finished so far, whatever their result. */
export async function reconcileCount(controller: Controller): Promise<number> {
  return sampleSum(await controller.metrics.registry.getSingleMetricAsString('skiff_controller_reconcile_total'), 'skiff_controller_reconcile_total');
}

/**
 * Lets `n` resyncs go by, for a test that then asserts that they changed nothing. A resync has no
 * event of its own, so this is first a window of n resync periods (observeFor: the ticks are
 * timed), which ends only once the reconcile counter confirms them: at least n reconciles per App
 * the controller watches since the window began. Resolves with the counter from before the window.
 */
export async function resyncsGoBy(opts: {
  n: number;
  resyncMs: number;
  /** The controller's reconcile counter (any result). */
  reconciles: () => Promise<number>;
  /** How many Apps the controller resyncs. */
  apps: () => Promise<number>;
  why: string;
}): Promise<number> {
  const before = await opts.reconciles();
  const expected = opts.n * (await opts.apps());
  await observeFor(opts.n * opts.resyncMs, opts.why);
  await until(async () => {
    const done = (await opts.reconciles()) - before;
    assert.ok(done >= expected, `${done} reconciles, expected at least ${expected}`);
  }, { timeoutMs: opts.resyncMs * 3, intervalMs: 100, message: `${opts.n} resync(s) of every App to be reconciled (${opts.why})` });
  return before;
}
