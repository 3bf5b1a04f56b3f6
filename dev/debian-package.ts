// A program from one of Debian's packages, installed on first use when it is missing (as root, or
// through `sudo -n`): Prometheus for analysis and `npm run dev`, Chromium for the dashboard's
// browser tests. `apt-get update` runs first only when the install cannot find the package, and
// concurrent calls for one package share one install; a failed install may be retried.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';

export type Log = (line: string) => void;

/** The first of `paths` that is an executable file. */
export async function firstExecutable(paths: string[]): Promise<string | undefined> {
  for (const path of paths) {
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
      for (const line of output.split('\n').filter(Boolean).slice(-20)) log(`  ${line}`);
      done({ ok: !err, output: err && !output ? err.message : output });
    });
  });
}

const installing = new Map<string, Promise<string>>();

/**
 * The path `find` gives for `pkg`'s program, installing the package when it gives none.
 * `where` says where it was looked for, for the error when the install did not put it there.
 */
export function ensureDebianProgram(pkg: string, find: () => Promise<string | undefined>, where: string, log: Log): Promise<string> {
  let pending = installing.get(pkg);
  if (!pending) {
    pending = install(pkg, find, where, log);
    installing.set(pkg, pending);
    pending.catch(() => installing.delete(pkg));
  }
  return pending;
}

async function install(pkg: string, find: () => Promise<string | undefined>, where: string, log: Log): Promise<string> {
  const found = await find();
  if (found) return found;
  const asRoot = process.getuid?.() === 0;
  const apt = (args: string[]) => (asRoot ? run('apt-get', args, log) : run('sudo', ['-n', 'apt-get', ...args], log));
  const args = ['install', '-y', '--no-install-recommends', pkg];
  log(`${pkg} not found: installing Debian's package`);
  let result = await apt(args);
  if (!result.ok && /Unable to locate package|has no installation candidate|Failed to fetch/.test(result.output)) {
    const update = await apt(['update']);
    if (!update.ok) throw new Error(`apt-get update failed:\n${update.output.slice(-2000)}`);
    result = await apt(args);
  }
  if (!result.ok) {
    const how = asRoot ? '' : ' (not root: needs password-less sudo, or install the package yourself)';
    throw new Error(`installing ${pkg} failed${how}:\n${result.output.slice(-2000)}`);
  }
  const installed = await find();
  if (!installed) throw new Error(`${pkg} was installed but is not ${where}`);
  return installed;
}
