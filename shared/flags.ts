// Command-line flags with environment equivalents (--health-port <-> SKIFF_HEALTH_PORT).
// A flag wins over its variable, which wins over the default.
import { parseArgs } from 'node:util';

/** A port is a number from 0 to 65535: caught here, a larger one was a stack trace from listen(). */
export type FlagSpec = {
  [name: string]: {
    type: 'string' | 'number' | 'port' | 'boolean';
    default: string | number | boolean;
    help: string;
    /** Why the flag given with an empty value on the command line (`--shard=`) is refused; without it, such a value counts as not given. */
    emptyRefused?: string;
  };
};

export type FlagValues<S extends FlagSpec> = {
  [K in keyof S]: S[K]['type'] extends 'number' | 'port' ? number : S[K]['type'] extends 'boolean' ? boolean : string;
};

export const envName = (flag: string) => `SKIFF_${flag.toUpperCase().replace(/-/g, '_')}`;

export class FlagError extends Error {
  /** Whether the usage follows the message: not for a value the message alone explains. */
  constructor(message: string, readonly withUsage = true) {
    super(message);
  }
}

export function usage(program: string, spec: FlagSpec): string {
  const lines = Object.entries(spec).map(
    ([name, s]) => `  --${name}${s.type === 'boolean' ? '' : ` <${s.type}>`}  ${s.help} (env ${envName(name)}; default ${JSON.stringify(s.default)})`,
  );
  return `usage: ${program} [flags]\n${lines.join('\n')}`;
}

/**
 * A non-negative integer written in decimal digits, or undefined. Not Number(): it reads blanks
 * as 0 (a variable of spaces turned a port off) and takes 1e3, 0x1F and +5.
 */
function decimal(raw: string | boolean): number | undefined {
  return typeof raw === 'string' && /^[0-9]{1,15}$/.test(raw) ? Number(raw) : undefined;
}

export function parseFlags<S extends FlagSpec>(
  spec: S,
  argv: string[] = process.argv.slice(2),
  env: NodeJS.ProcessEnv = process.env,
): FlagValues<S> {
  const options: Record<string, { type: 'string' | 'boolean' }> = { help: { type: 'boolean' } };
  for (const [name, s] of Object.entries(spec)) options[name] = { type: s.type === 'boolean' ? 'boolean' : 'string' };
  // `--simulate-pods=false`: parseArgs takes no value for a boolean option, so the value of
  // `--<boolean>=<value>` is taken out here and read like the flag's environment variable.
  const inline: Record<string, string> = {};
  const args = argv.filter((arg) => {
    const m = /^--([^=]+)=(.*)$/s.exec(arg);
    if (!m || spec[m[1]]?.type !== 'boolean') return true;
    inline[m[1]] = m[2];
    return false;
  });
  let values: Record<string, string | boolean | undefined>;
  try {
    values = { ...inline, ...parseArgs({ args, options, strict: true, allowPositionals: false }).values } as typeof values;
  } catch (err) {
    throw new FlagError((err as Error).message);
  }
  if (values.help) throw new FlagError('help');
  const out: Record<string, string | number | boolean> = {};
  for (const [name, s] of Object.entries(spec)) {
    const raw = values[name] ?? env[envName(name)];
    if (values[name] === '' && s.emptyRefused) throw new FlagError(`--${name}: empty: ${s.emptyRefused}`, false);
    if (raw === undefined || raw === '') {
      out[name] = s.default;
    } else if (s.type === 'boolean') {
      if (typeof raw === 'boolean') out[name] = raw;
      else if (/^(true|1|yes)$/i.test(raw)) out[name] = true;
      else if (/^(false|0|no)$/i.test(raw)) out[name] = false;
      else throw new FlagError(`--${name}: expected true or false, got "${raw}"`);
    } else if (s.type === 'port') {
      const n = decimal(raw);
      if (n === undefined || n > 65535) throw new FlagError(`--${name}: expected a port from 0 to 65535, got "${String(raw)}"`);
      out[name] = n;
    } else if (s.type === 'number') {
      const n = decimal(raw);
      if (n === undefined) throw new FlagError(`--${name}: expected a non-negative integer, got "${String(raw)}"`);
      out[name] = n;
    } else {
      out[name] = String(raw);
    }
  }
  return out as FlagValues<S>;
}

/** parseFlags for a process's main: on --help or a bad flag it prints the usage and exits (0 and 2). */
export function parseFlagsOrExit<S extends FlagSpec>(program: string, spec: S, argv: string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): FlagValues<S> {
  try {
    return parseFlags(spec, argv, env);
  } catch (err) {
    const help = err instanceof FlagError && err.message === 'help';
    if (!help) console.error((err as Error).message);
    if (!(err instanceof FlagError) || err.withUsage) console.error(usage(program, spec));
    return process.exit(help ? 0 : 2);
  }
}
