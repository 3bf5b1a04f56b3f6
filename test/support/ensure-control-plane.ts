// Run before the tests: makes sure the control plane binaries exist, building them once (with
// progress on stderr) so that no test times out on a first build.
import { controlPlaneBinaries } from '../../dev/control-plane.js';

const started = Date.now();
controlPlaneBinaries().then(
  (dir) => {
    console.error(`control plane binaries: ${dir} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    process.exit(0);
  },
  (err: Error) => {
    console.error(err.message);
    process.exit(1);
  },
);
