// Answers written together at the end of the event loop's turn instead of one by one.
//
// Under load, one turn of the loop reads the requests of many connections. Written from each
// request's own callback, every answer is a write that wakes the peer, which had gone back to
// waiting in between; the sender pays for that wake-up inside the write (on loopback in a VM it was
// half of what a /validate cost at 50 connections, npm run bench:webhook). Written back to back
// once the turn's reads are done, only the first write of a batch finds the peer asleep. The price
// is the rest of the turn: a few microseconds for a lone request.

/** Queues a write for the end of the current turn (setImmediate); writes run in the order given. */
export type QueueWrite = (write: () => void) => void;

/**
 * A queue of writes flushed once per turn. A write that throws is reported to `failed` and does
 * not keep the writes after it from running.
 */
export function batchedWrites(failed: (err: unknown) => void): QueueWrite {
  let queued: (() => void)[] = [];
  const flush = () => {
    const writes = queued;
    queued = [];
    for (const write of writes) {
      try {
        write();
      } catch (err) {
        failed(err);
      }
    }
  };
  return (write) => {
    if (queued.push(write) === 1) setImmediate(flush);
  };
}
