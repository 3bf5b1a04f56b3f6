// A real headless Chromium for the dashboard's browser tests: Debian's `chromium` package,
// installed on first use when missing (as Prometheus is, dev/prometheus.ts), driven by
// playwright-core pointed at that executable; playwright never downloads a browser of its own.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';

type Log = (line: string) => void;

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

async function findChromium(): Promise<string | undefined> {
  const wanted = process.env.SKIFF_CHROMIUM ? [process.env.SKIFF_CHROMIUM] : CANDIDATES;
  for (const path of wanted) {
    try {
      await access(path, constants.X_OK);
      return path;
    } catch {
      // not there: the next one
    }
  }
  return undefined;
}

function run(cmd: string, args: string[], log: Log): Promise<{ ok: boolean; output: string }> {
  return new Promise((done) => {
    log(`$ ${cmd} ${args.join(' ')}`);
    execFile(cmd, args, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const output = `${stdout}${stderr}`;
      done({ ok: !err, output: err && !output ? err.message : output });
    });
  });
}

let installing: Promise<string> | undefined;

/**
 * The path of Chromium: SKIFF_CHROMIUM, /usr/bin/chromium, or Debian's package installed now (as
 * root, or through `sudo -n`), with `apt-get update` first when the package is not found.
 * Concurrent calls share one install.
 */
export function ensureChromium(log: Log = (l) => process.stderr.write(`${l}\n`)): Promise<string> {
  installing ??= (async () => {
    const found = await findChromium();
    if (found) return found;
    const asRoot = process.getuid?.() === 0;
    const apt = (args: string[]) => (asRoot ? run('apt-get', args, log) : run('sudo', ['-n', 'apt-get', ...args], log));
    const install = ['install', '-y', '--no-install-recommends', 'chromium'];
    log('chromium not found: installing Debian\'s package (once)');
    let result = await apt(install);
    if (!result.ok && /Unable to locate package|has no installation candidate|Failed to fetch/.test(result.output)) {
      const update = await apt(['update']);
      if (!update.ok) throw new Error(`apt-get update failed:\n${update.output.slice(-2000)}`);
      result = await apt(install);
    }
    if (!result.ok) {
      const how = asRoot ? '' : ' (not root: needs password-less sudo, or install the package yourself)';
      throw new Error(`installing chromium failed${how}:\n${result.output.slice(-2000)}`);
    }
    const installed = await findChromium();
    if (!installed) throw new Error('chromium was installed but is not at /usr/bin/chromium');
    return installed;
  })();
  installing.catch(() => (installing = undefined)); // a failed install may be retried
  return installing;
}
