// Waiting by polling, on a clock that moves only when the wait sleeps: every count and message
// below is exact, whatever the machine's load.
import { strict as assert } from 'node:assert';
import { startProcess, stopProcess, waitFor } from '../../dev/processes.js';
import { eventually, poll, until, type WaitClock } from '../../dev/wait.js';

/** A clock whose sleeps return at once and move the time on by what they were asked for. */
function sleepyClock(): WaitClock & { sleeps: number[] } {
  let now = 1_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    nowMs: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

/** A check answering `answers` in turn (the last one from then on), counting its calls. */
function scripted<T>(answers: (T | Error)[]) {
  const check = () => {
    const answer = answers[Math.min(check.calls++, answers.length - 1)];
    if (answer instanceof Error) throw answer;
    return answer;
  };
  check.calls = 0;
  return check;
}

describe('waiting for a state', () => {
  it('resolves with the first truthy value, sleeping the interval between tries', async () => {
    const clock = sleepyClock();
    const check = scripted<string | undefined>([undefined, '', 'found']);
    assert.equal(await eventually(check, { timeoutMs: 10_000, intervalMs: 50, message: 'x', clock }), 'found');
    assert.equal(check.calls, 3);
    assert.deepEqual(clock.sleeps, [50, 50]);
  });

  it('counts a throw as "not yet"', async () => {
    const clock = sleepyClock();
    const check = scripted<boolean>([new Error('404'), new Error('404'), true]);
    assert.equal(await eventually(check, { timeoutMs: 10_000, message: 'x', clock }), true);
    assert.deepEqual(clock.sleeps, [200, 200], 'the interval is 200 ms unless given');
  });

  it('tries once more at the deadline, then says what it waited for and the last error', async () => {
    const clock = sleepyClock();
    const check = scripted<boolean>([false, new Error('connection refused')]);
    await assert.rejects(eventually(check, { timeoutMs: 250, intervalMs: 100, message: 'the server', clock }),
      { message: 'timed out after 250 ms waiting for the server: connection refused' });
    assert.equal(check.calls, 4, 'at 0, 100, 200 and 300 ms');
  });

  it('names the last value when the check returned one', async () => {
    const clock = sleepyClock();
    await assert.rejects(eventually(() => 0, { timeoutMs: 100, message: 'a count', clock }), { message: 'timed out after 100 ms waiting for a count: returned 0' });
    await assert.rejects(eventually(() => null, { timeoutMs: 100, message: 'an object', clock }), { message: 'timed out after 100 ms waiting for an object: returned null' });
  });

  it('words a message given as a function when it times out, as things stand then', async () => {
    const clock = sleepyClock();
    let seen = 0;
    await assert.rejects(eventually(() => ++seen >= 10, { timeoutMs: 200, intervalMs: 100, message: () => `10 objects (${seen} so far)`, clock }),
      { message: 'timed out after 200 ms waiting for 10 objects (3 so far): returned false' });
  });

  it('gives up at once, before the next try, when told the state can no longer come', async () => {
    const clock = sleepyClock();
    const check = scripted<boolean>([false]);
    let exited = false;
    const waiting = poll(() => {
      exited = check.calls === 1;
      return check();
    }, { timeoutMs: 10_000, clock, giveUp: () => (exited ? new Error('exited (code 1)') : undefined) });
    await assert.rejects(waiting, { message: 'exited (code 1)' });
    assert.equal(check.calls, 2);
    assert.deepEqual(clock.sleeps, [200, 200]);
  });

  it('polls as data: done with the value, or the last try', async () => {
    const clock = sleepyClock();
    assert.deepEqual(await poll(() => 7, { timeoutMs: 0, clock }), { done: true, value: 7 });
    const err = new Error('no');
    assert.deepEqual(await poll(scripted<boolean>([err]), { timeoutMs: 0, clock }), { done: false, last: { threw: true, error: err } });
    assert.deepEqual(await poll(() => false, { timeoutMs: 0, clock }), { done: false, last: { threw: false, value: false } });
  });

  it('until: resolves once an assertion holds, and times out with its last message', async () => {
    const clock = sleepyClock();
    let n = 0;
    await until(() => assert.ok(++n >= 3, `n is ${n}`), { timeoutMs: 10_000, message: 'n', clock });
    assert.equal(n, 3);
    await assert.rejects(until(() => assert.fail('one is not two'), { timeoutMs: 0, message: 'arithmetic', clock }),
      { message: 'timed out after 0 ms waiting for arithmetic: one is not two' });
  });
});

describe('waiting for a process to be ready', function () {
  this.timeout(20_000);
  const node = (script: string) => startProcess('node', process.execPath, ['-e', script], () => {});

  it('fails as soon as the process exits, saying how', async () => {
    const proc = node('process.exit(3)');
    // The timeout is far beyond the exit: the wait ends on the exit, not the clock. (Its last
    // words may still be on their way when the exit is seen, so only the first line is certain.)
    await assert.rejects(waitFor('the server', proc, async () => false, 60_000, 10), (err: Error) => {
      assert.match(err.message, /^the server exited \(code 3\):/);
      return true;
    });
  });

  it('resolves once the check passes while the process runs', async () => {
    const proc = node('setTimeout(() => {}, 60_000)');
    try {
      let calls = 0;
      await waitFor('the server', proc, async () => ++calls === 2, 60_000, 10);
      assert.equal(calls, 2);
    } finally {
      await stopProcess(proc.child);
    }
  });
});
