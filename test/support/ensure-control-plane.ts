// Run before the tests: makes sure the control plane binaries exist, building them once (with
// progress on stderr) so that no test times out on a first build, and that Prometheus is
// installed: the suites run in two lanes at once (run-suites.ts), and two first uses at the same
// time would each run apt-get, which allows one at a time.
import { controlPlaneBinaries } from '../../dev/control-plane.js';
import { ensurePrometheus } from '../../dev/prometheus.js';

const started = Date.now();
const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
controlPlaneBinaries()
  .then(async (dir) => {
    console.error(`control plane binaries: ${dir} (${seconds()} s)`);
    console.error(`prometheus: ${await ensurePrometheus((line) => console.error(line))} (${seconds()} s)`);
    process.exit(0);
  })
  .catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
