// npm test's runner: every suite with mocha, in two lanes at once. The suites against a real
// Prometheus (analysis, blue-green) spend most of their time waiting out check intervals, pauses
// and scale-down delays: on their own they take 9 minutes of wall time and a quarter of one core.
// Run after the rest they were over a third of the run; beside it, they add little load. Each
// lane is one mocha process with the same .mocharc.json, and each suite starts its own control
// plane (and Prometheus) on ports of its own, as always.
//
// The busy lane prints as it goes; the waiting lane's report is held and printed whole after it,
// so that the two never interleave. The exit code is the busy lane's when it failed, else the
// waiting lane's. Arguments go to both mocha processes (`npm test -- --grep ...`).
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { repoRoot } from './bundle.js';

/** The suites that mostly wait, run in the second lane. */
export const WAITING_LANE = ['dist/test/integration/analysis.test.js', 'dist/test/integration/bluegreen.test.js'];
const EVERY_SUITE = 'dist/test/**/*.test.js';

const mocha = createRequire(import.meta.url).resolve('mocha/bin/mocha.js');
const extra = process.argv.slice(2);

interface Lane {
  name: string;
  child: ChildProcess;
  /** Its exit code, once it ended. */
  exit: Promise<number>;
  /** What it printed, when held. */
  held: Buffer[];
}

function lane(name: string, args: string[], hold: boolean): Lane {
  const child = spawn(process.execPath, [mocha, ...args, ...extra], { cwd: repoRoot, stdio: hold ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  const held: Buffer[] = [];
  child.stdout?.on('data', (c: Buffer) => held.push(c));
  child.stderr?.on('data', (c: Buffer) => held.push(c));
  const exit = new Promise<number>((done) => {
    child.once('error', (err) => {
      held.push(Buffer.from(`${name}: ${err.message}\n`));
      done(1);
    });
    child.once('close', (code, signal) => done(code ?? (signal ? 128 : 1)));
  });
  return { name, child, exit, held };
}

const lanes = [
  lane('every other suite', [EVERY_SUITE, ...WAITING_LANE.flatMap((f) => ['--ignore', f])], false),
  lane('analysis and blue-green', WAITING_LANE, true),
];

// Ctrl-C reaches both mocha processes from the terminal by itself: the runner only waits for them
// to end and reports. A SIGTERM or SIGHUP (CI cancelling, the terminal gone) reaches the runner
// alone and is passed on, so that no lane goes on running without it.
process.on('SIGINT', () => {});
for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    for (const l of lanes) if (l.child.exitCode === null && l.child.signalCode === null) l.child.kill('SIGTERM');
  });
}

void (async () => {
  const codes: number[] = [];
  for (const l of lanes) {
    codes.push(await l.exit);
    if (l.held.length) process.stdout.write(Buffer.concat(l.held));
  }
  process.stdout.write(`\n${lanes.map((l, i) => `${l.name}: ${codes[i] === 0 ? 'passed' : `failed (exit ${codes[i]})`}`).join('; ')}\n`);
  process.exit(codes.find((c) => c !== 0) ?? 0);
})();
