// A real headless Chromium for the dashboard's browser tests: Debian's `chromium` package,
// installed on first use when missing (as Prometheus is, dev/prometheus.ts), driven by
// playwright-core pointed at that executable; playwright never downloads a browser of its own.
import { ensureDebianProgram, firstExecutable, type Log } from '../../dev/debian-package.js';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

const findChromium = () => firstExecutable(process.env.SKIFF_CHROMIUM ? [process.env.SKIFF_CHROMIUM] : CANDIDATES);

/** The path of Chromium: SKIFF_CHROMIUM, /usr/bin/chromium, or Debian's package installed now. */
export function ensureChromium(log: Log = (l) => process.stderr.write(`${l}\n`)): Promise<string> {
  return ensureDebianProgram('chromium', findChromium, 'at /usr/bin/chromium', log);
}
