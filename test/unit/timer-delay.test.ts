import { strict as assert } from 'node:assert';
import { MAX_TIMER_DELAY_MS, timerDelayMs } from '../../controller/runtime/timer-delay.js';

describe('timer delays', () => {
  it('keeps delays a timer holds, rounded up to whole milliseconds', () => {
    assert.deepEqual([0, 1, 0.2, 999.5, 60_000, MAX_TIMER_DELAY_MS].map((ms) => timerDelayMs(ms)), [0, 1, 1, 1000, 60_000, MAX_TIMER_DELAY_MS]);
  });

  it('cuts longer ones to 2^31-1 ms, the most a Node timer holds', () => {
    assert.equal(MAX_TIMER_DELAY_MS, 2_147_483_647);
    for (const ms of [MAX_TIMER_DELAY_MS + 1, 1000 * 3_600_000, 30 * 86_400_000, 1e300, Number.POSITIVE_INFINITY]) {
      assert.equal(timerDelayMs(ms), MAX_TIMER_DELAY_MS, String(ms));
    }
  });

  it('makes nothing below 0, and NaN the longest delay rather than none', () => {
    assert.equal(timerDelayMs(-1), 0);
    assert.equal(timerDelayMs(Number.NEGATIVE_INFINITY), 0);
    assert.equal(timerDelayMs(Number.NaN), MAX_TIMER_DELAY_MS);
  });

  it('takes a lower maximum', () => {
    assert.equal(timerDelayMs(5_000, 1_000), 1_000);
    assert.equal(timerDelayMs(Number.NaN, 1_000), 1_000);
    assert.equal(timerDelayMs(5_000, 1e20), 5_000, 'a maximum above what a timer holds is what a timer holds');
    assert.equal(timerDelayMs(1e20, Number.NaN), MAX_TIMER_DELAY_MS);
  });

  it('what it returns never makes Node clamp a timer to 1 ms', async () => {
    const { setTimeout: schedule } = await import('node:timers');
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      for (const ms of [1e12, Number.NaN, Number.POSITIVE_INFINITY]) clearTimeout(schedule(() => {}, timerDelayMs(ms)));
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(warnings, [], 'no TimeoutOverflowWarning');
  });
});
