// How both processes end on a signal: the first SIGTERM or SIGINT starts an orderly stop (the
// caller's), and a second one ends the process at once with 1, as controller-runtime's signal
// handler does: someone pressing Ctrl-C again does not want to wait out a stop that hangs on a
// slow API server.
import type { Logger } from './logger.js';

export type StopSignal = 'SIGTERM' | 'SIGINT';

/** Where signals come from (the process; an emitter in tests). */
export interface SignalSource {
  on(signal: StopSignal, listener: () => void): unknown;
}

export function onStopSignals(stop: (signal: StopSignal) => void, opts: { log: Logger; exit: (code: number) => void; source?: SignalSource }): void {
  let stopping = false;
  const handle = (signal: StopSignal) => {
    if (stopping) {
      opts.log.warn({ signal }, 'second signal while stopping; exiting now');
      opts.exit(1);
      return;
    }
    stopping = true;
    stop(signal);
  };
  const source = opts.source ?? process;
  source.on('SIGTERM', () => handle('SIGTERM'));
  source.on('SIGINT', () => handle('SIGINT'));
}
