// The processes' signal handling: one orderly stop, and a second signal ends the process at once.
import { strict as assert } from 'node:assert';
import { EventEmitter } from 'node:events';
import { onStopSignals } from '../../shared/stop-signals.js';
import { testLogger } from '../support/apps.js';

describe('stop signals', () => {
  it('the first SIGTERM or SIGINT starts the stop once; a second exits 1 at once, without stopping again', () => {
    const source = new EventEmitter();
    const stops: string[] = [];
    const exits: number[] = [];
    onStopSignals((signal) => stops.push(signal), { log: testLogger('signals'), exit: (code) => exits.push(code), source });
    source.emit('SIGTERM');
    assert.deepEqual([stops, exits], [['SIGTERM'], []], 'an orderly stop: the process ends when it is done');
    source.emit('SIGINT');
    assert.deepEqual([stops, exits], [['SIGTERM'], [1]]);
  });

  it('Ctrl-C first is an orderly stop too', () => {
    const source = new EventEmitter();
    const stops: string[] = [];
    onStopSignals((signal) => stops.push(signal), { log: testLogger('signals'), exit: () => assert.fail('no exit on the first signal'), source });
    source.emit('SIGINT');
    assert.deepEqual(stops, ['SIGINT']);
  });
});
