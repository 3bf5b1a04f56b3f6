// The webhook's answers written once per turn of the event loop: none before the turn's other
// callbacks, all of them in order, and one failing write costing nothing to the rest.
import { strict as assert } from 'node:assert';
import { batchedWrites } from '../../webhook/batched-writes.js';

const nextTurn = () => new Promise<void>((done) => setImmediate(done));

describe('batched writes', () => {
  it('runs the writes queued in one turn after that turn, together and in order', async () => {
    const failures: unknown[] = [];
    const queue = batchedWrites((err) => failures.push(err));
    const done: string[] = [];
    queue(() => done.push('a'));
    queue(() => done.push('b'));
    // A callback of the same turn (a later request's) still comes before the batch.
    const sameTurn = new Promise<void>((resolve) => process.nextTick(() => { done.push('tick'); queue(() => done.push('c')); resolve(); }));
    assert.deepEqual(done, []);
    await sameTurn;
    assert.deepEqual(done, ['tick']);
    await nextTurn();
    assert.deepEqual(done, ['tick', 'a', 'b', 'c']);
    assert.deepEqual(failures, []);
  });

  it('reports a write that throws and still runs the ones after it, in this batch and the next', async () => {
    const failures: unknown[] = [];
    const queue = batchedWrites((err) => failures.push(err));
    const done: string[] = [];
    queue(() => done.push('a'));
    queue(() => { throw new Error('socket gone'); });
    queue(() => done.push('c'));
    await nextTurn();
    assert.deepEqual(done, ['a', 'c']);
    assert.equal(failures.length, 1);
    assert.match((failures[0] as Error).message, /socket gone/);
    queue(() => done.push('d'));
    await nextTurn();
    assert.deepEqual(done, ['a', 'c', 'd']);
  });

  it('puts a write queued while a batch is written into the next batch', async () => {
    const queue = batchedWrites(() => assert.fail('no write fails here'));
    const done: string[] = [];
    queue(() => { done.push('a'); queue(() => done.push('later')); });
    queue(() => done.push('b'));
    await nextTurn();
    assert.deepEqual(done, ['a', 'b']);
    await nextTurn();
    assert.deepEqual(done, ['a', 'b', 'later']);
  });
});
