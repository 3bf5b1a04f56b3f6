// npm run bench:scale [-- --sizes 1000,10000] — the controller benchmark at fleet sizes: N Apps
// created at once on a real control plane (pod simulator), against the direct-client baseline,
// with time, writes, peak RSS and CPU against the footprint goals, and whether 10,000 Apps fit the
// bundle's 512Mi memory limit. Time and memory against N go to bench/results/scale.svg.
// The baseline runs up to 1,000 (--baseline for every size: at 10,000 it adds most of an hour,
// paced by the Deployment controller and the pod simulator, not by anything Skiff does).
// Client-go's sample-controller is left out: at its default 5 requests a second, 10,000 Foos
// take it over an hour (npm run bench:peer -- --sizes 10000 runs it anyway).
import { cpus, totalmem } from 'node:os';
import { benchController, printController, writeControllerSvg } from './controller.js';
import { otherCpuNote, watchOtherCpu } from './support.js';

const sizes = (() => {
  const i = process.argv.indexOf('--sizes');
  return (i >= 0 ? process.argv[i + 1] : '1000,10000').split(',').map(Number).filter((x) => x > 0);
})();

const others = watchOtherCpu();
const started = Date.now();
benchController(sizes, { baselineUpTo: process.argv.includes('--baseline') ? Infinity : 1000 }).then((rows) => {
  const cpu = cpus();
  console.log(`\nMachine: ${cpu.length} x ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, Kubernetes 1.20.2 control plane on loopback`);
  console.log(`Controller at scale (Apps created 20 at a time, 4 workers, baseline 4 at a time; ${((Date.now() - started) / 1000).toFixed(0)} s; ${otherCpuNote(others.stop())})`);
  printController(rows);
  console.log(`plot: ${writeControllerSvg(rows, 'scale.svg')}`);
}, (err: Error) => { console.error(err); process.exit(1); }).then(() => process.exit(0));
