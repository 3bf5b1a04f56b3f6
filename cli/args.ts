// The command line of `kubectl skiff`: parsed and checked here, before anything else loads, so
// that usage and usage errors print without loading a Kubernetes client. No heavy imports.
import { parseArgs } from 'node:util';
import type { Impersonation } from '../shared/kube-connection.js';

export const USAGE = `usage: kubectl skiff <command> [APP] [flags]

commands:
  list                      the Apps: NAME, STRATEGY, STATUS, STEP, WEIGHT, IMAGE, AGE (-A: every namespace)
  get APP [--watch]         the rollout at a glance: status, step, weights, images, replicas, and a tree
                            of revisions, Deployments, Services, Ingresses or HTTPRoute and analysis checks
  history APP               the App's revisions: REVISION, HASH, IMAGE, CHANGES, OUTCOME, AGE
  status APP [--wait] [--timeout D]
                            the rollout in detail; --wait: until rolled out (exit 0), Degraded (exit 1)
                            or the timeout (exit 3); D like 90s, 5m, 1h30m (0: none)
  promote APP               skip the remaining steps and promote the canary (or switch a blue-green preview)
  abort APP                 abort the rollout: traffic back to stable
  pause APP / resume APP    set spec.rollout.paused: a rollout holds where it is, a new pod template waits
  retry APP                 run the rollout of the aborted revision again
  undo APP [--to-revision N] [--skip-canary]
                            put the pod template of revision N back (default: the newest promoted
                            revision other than the template the App asks for now: the one before
                            a finished rollout, stable during one or while a pause holds a change);
                            --skip-canary: straight to stable when N was promoted before
  set image APP IMAGE       set spec.image
  dashboard [--port 3100] [--address 127.0.0.1] [-A]
                            a live web page of the rollouts with their actions, acting with your
                            credentials; prints its URL (with a per-run token)

flags:
  -n, --namespace NS        the App's namespace (default: the context's, else "default")
  -A, --all-namespaces      list, dashboard: every namespace
      --kubeconfig PATH     the kubeconfig (default: KUBECONFIG, else ~/.kube/config)
      --context NAME        the kubeconfig context (default: its current-context)
      --as USER             act as USER (impersonation; also --as-group GROUP, repeatable, and --as-uid UID),
                            in place of the kubeconfig user's own "as"
      --no-color            no colours or symbols (also with NO_COLOR or when output is not a terminal)
  -h, --help                this text (COMMAND --help, or help COMMAND: that command's)

exit codes: 0 success, 1 error (or, with status --wait, the rollout failed), 2 usage error,
3 status --wait timed out
`;

export class UsageError extends Error {
  /** The command whose --help the message points to ("set image"); none: the plugin's. */
  command?: string;
}

/**
 * A usage error as kubectl words one: the problem on one line and where the usage is, rather than
 * the whole help, which would push the problem off the screen.
 */
export function usageErrorText(err: UsageError): string {
  return `error: ${err.message}\nSee 'kubectl skiff ${err.command ? `${err.command} ` : ''}--help' for usage.\n`;
}

export type Command = 'list' | 'get' | 'history' | 'status' | 'promote' | 'abort' | 'pause' | 'resume' | 'retry' | 'undo' | 'set-image' | 'dashboard';

export interface CommandLine {
  command: Command;
  app?: string;
  image?: string;
  namespace?: string;
  allNamespaces: boolean;
  kubeconfig?: string;
  context?: string;
  /** --as, --as-group, --as-uid: who every request acts as, as with kubectl. */
  impersonate?: Impersonation;
  /** false with --no-color; otherwise decided by the terminal and NO_COLOR. */
  color: boolean;
  watch: boolean;
  wait: boolean;
  timeoutMs?: number;
  toRevision?: number;
  skipCanary: boolean;
  /**
   * promote, abort and retry from the dashboard: the revision the page showed the action acting on
   * (the rollout's, or the aborted one). Checked on the read the write is guarded by.
   */
  expectRevision?: string;
  /** dashboard: where it listens (defaults 127.0.0.1 and 3100; 0 picks a free port). */
  port?: number;
  address?: string;
}

/** What `--help` asks for: printed by the caller. `of`: the command named beside it ("set image"). */
export interface HelpRequest {
  command: 'help';
  of?: string;
}

/**
 * The usage of one command: its entry of USAGE (pause and resume share one) and the flags, which
 * every command takes the common ones of; the plugin's whole usage for a command it does not know.
 */
export function commandUsage(command: string | undefined): string {
  const lines = USAGE.split('\n');
  const from = lines.indexOf('commands:') + 1;
  const to = lines.indexOf('', from);
  const entries: string[][] = [];
  for (const line of lines.slice(from, to)) {
    if (/^ {2}\S/.test(line)) entries.push([line]);
    else entries.at(-1)?.push(line);
  }
  // An entry's first line is its synopsis, then (after two spaces or more) the start of what it does.
  const parts = (head: string) => head.trim().split(/ {2,}/);
  const names = (head: string) => parts(head)[0].split(' / ').map((part) => part.replace(/ (APP|IMAGE|\[).*$/, ''));
  const entry = entries.find(([head]) => names(head).includes(command ?? ''));
  if (!entry) return USAGE;
  const [synopsis, ...said] = parts(entry[0]);
  const text = [...said, ...entry.slice(1).map((l) => l.trim())].map((l) => `  ${l}`).join('\n');
  // Its own flags described first, then the common ones (the -A line is a command flag's).
  const common = lines.slice(lines.indexOf('flags:') + 1).filter((l) => !l.startsWith('  -A,'));
  const own = COMMAND_FLAGS[commandKey(command!)].filter((f) => f !== 'all-namespaces').map((f) => COMMAND_FLAG_HELP[f]!);
  const all = COMMAND_FLAGS[commandKey(command!)].includes('all-namespaces') ? [COMMAND_FLAG_HELP['all-namespaces']!] : [];
  return `usage: kubectl skiff ${synopsis}\n\n${text}\n\nflags:\n${[...all, ...own, ...common].join('\n')}`;
}

const commandKey = (command: string): Command => (command === 'set image' ? 'set-image' : command) as Command;

/** What each command's own flags do, in the layout of USAGE's flags. */
const COMMAND_FLAG_HELP: Partial<Record<Flag, string>> = {
  'all-namespaces': '  -A, --all-namespaces      every namespace',
  watch: '  -w, --watch               keep the view up to date as the App changes (Ctrl-C ends it)',
  wait: '      --wait                until rolled out (exit 0), Degraded (exit 1) or the timeout (exit 3)',
  timeout: '      --timeout D           with --wait: give up after D, like 90s, 5m, 1h30m (0: none)',
  'to-revision': '      --to-revision N       the revision to put back (kubectl skiff history APP lists them)',
  'skip-canary': '      --skip-canary         straight to stable, without a canary, when revision N was promoted before',
  port: '      --port P              the port the page listens on (default 3100)',
  address: '      --address A           the address the page listens on (default 127.0.0.1)',
};

const OPTIONS = {
  namespace: { type: 'string', short: 'n' },
  'all-namespaces': { type: 'boolean', short: 'A' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  as: { type: 'string' },
  'as-group': { type: 'string', multiple: true },
  'as-uid': { type: 'string' },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  watch: { type: 'boolean', short: 'w' },
  wait: { type: 'boolean' },
  timeout: { type: 'string' },
  'to-revision': { type: 'string' },
  'skip-canary': { type: 'boolean' },
  port: { type: 'string' },
  address: { type: 'string' },
} as const;

type Flag = keyof typeof OPTIONS;

/** The flags each command takes besides -n, --kubeconfig, --context, --no-color and -h. */
const COMMAND_FLAGS: Record<Command, Flag[]> = {
  list: ['all-namespaces'],
  get: ['watch'],
  history: [],
  status: ['wait', 'timeout'],
  promote: [],
  abort: [],
  pause: [],
  resume: [],
  retry: [],
  undo: ['to-revision', 'skip-canary'],
  'set-image': [],
  dashboard: ['all-namespaces', 'port', 'address'],
};
const COMMON_FLAGS: Flag[] = ['namespace', 'kubeconfig', 'context', 'as', 'as-group', 'as-uid', 'no-color', 'help'];

/** Go's longest time.Duration, 2^63-1 ns, in milliseconds. */
const MAX_GO_DURATION_MS = 9_223_372_036_854.775;
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * "90s", "5m", "1h30m", "1.5h", "250ms", "500us", "+5m" or "0" in milliseconds, as Go's
 * time.ParseDuration reads them (kubectl's --timeout); undefined when it is none of these (or
 * negative). A duration above 0 is at least 1 ms: rounded to 0, it would mean no timeout at all.
 */
export function parseDuration(text: string): number | undefined {
  const unsigned = text.startsWith('+') ? text.slice(1) : text;
  if (unsigned === '0') return 0;
  if (!/^(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$/.test(unsigned)) return undefined;
  let ms = 0;
  for (const [, n, , unit] of unsigned.matchAll(/([0-9]*(\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)/g)) ms += Number(n) * UNIT_MS[unit];
  // Go's durations are int64 nanoseconds: time.ParseDuration refuses a longer one (about 2562047h).
  if (ms > MAX_GO_DURATION_MS) return undefined;
  return ms > 0 ? Math.max(1, Math.round(ms)) : 0;
}

/** The one-letter form of a flag, when it has one (-n, -A, -w, -h). */
const shortOf = (flag: Flag) => (OPTIONS[flag] as { short?: string }).short;

/** The long name of a flag as written: "-n" → "namespace", "--port" → "port". */
function longName(flag: string): string | undefined {
  if (flag.startsWith('--')) return flag.slice(2) in OPTIONS ? flag.slice(2) : undefined;
  return (Object.keys(OPTIONS) as Flag[]).find((f) => shortOf(f) === flag.slice(1));
}

/** pflag's boolean words (Go's strconv.ParseBool), which kubectl's `--flag=VALUE` takes. */
const BOOLEAN_WORDS: Record<string, boolean> = {
  1: true, t: true, T: true, true: true, TRUE: true, True: true,
  0: false, f: false, F: false, false: false, FALSE: false, False: false,
};

/**
 * The arguments in the forms Node's parser reads, from those kubectl's flags (pflag) take:
 * - `-n=shop` is namespace `shop` (Node's parser would read `=shop`);
 * - `--all-namespaces=true` / `=false` sets a boolean flag or leaves it unset;
 * - a negative number after a flag that takes a value is that value (`--to-revision -1` →
 *   `--to-revision=-1`), so that the flag's own check says what is wrong with it, where Node's
 *   parser would call the flag ambiguous.
 * Nothing after `--` is touched.
 */
function kubectlForms(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') return [...out, ...argv.slice(i)];
    const [, flag, value] = /^(--?[^=-][^=]*)(?:=(.*))?$/s.exec(arg) ?? [];
    const long = flag === undefined || (flag.startsWith('-') && !flag.startsWith('--') && flag.length > 2) ? undefined : longName(flag);
    if (!long) {
      out.push(arg);
    } else if (OPTIONS[long as Flag].type === 'boolean' && value !== undefined) {
      if (!Object.hasOwn(BOOLEAN_WORDS, value)) throw new UsageError(`invalid argument "${value}" for "--${long}": true or false`);
      if (BOOLEAN_WORDS[value]) out.push(`--${long}`);
      // The last one counts, as in kubectl: `-w --watch=false` does not watch.
      else unsetBoolean(out, long as Flag);
    } else if (OPTIONS[long as Flag].type === 'string' && value !== undefined) {
      out.push(`--${long}=${value}`);
    } else if (OPTIONS[long as Flag].type === 'string' && /^-[0-9.]/.test(argv[i + 1] ?? '')) {
      out.push(`--${long}=${argv[++i]}`);
    } else {
      out.push(arg);
    }
  }
  return out;
}

/** Drops the boolean flag `long` given so far (`--watch`, `-w`, or `w` in a group of short booleans such as `-Aw`). */
function unsetBoolean(out: string[], long: Flag): void {
  const short = shortOf(long);
  const booleanShorts = new Set((Object.keys(OPTIONS) as Flag[]).filter((f) => OPTIONS[f].type === 'boolean').map(shortOf).filter(Boolean));
  for (let i = out.length - 1; i >= 0; i--) {
    const arg = out[i];
    if (arg === `--${long}`) out.splice(i, 1);
    else if (short && /^-[^-]/.test(arg) && [...arg.slice(1)].every((c) => booleanShorts.has(c)) && arg.includes(short)) {
      const rest = [...arg.slice(1)].filter((c) => c !== short).join('');
      if (rest) out[i] = `-${rest}`;
      else out.splice(i, 1);
    }
  }
}

/** Node's parser's message, on one line and in the plugin's words. */
function parseMessage(message: string): string {
  const ambiguous = /^Option '([^']+)' argument is ambiguous/.exec(message);
  if (ambiguous) return `option '${ambiguous[1]}' needs a value (one that starts with "-" is written --${longName(ambiguous[1]) ?? ambiguous[1]}=VALUE)`;
  const missing = /^Option '([^' ]+(?:, [^' ]+)?)(?: <value>)?' argument missing/.exec(message);
  if (missing) return `option '${missing[1]}' needs a value`;
  return message.replace(/\. To specify a positional.*$/s, '').split('\n')[0];
}

function parse(argv: string[]) {
  try {
    return parseArgs({ args: kubectlForms(argv), allowPositionals: true, strict: true, options: OPTIONS });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(parseMessage((err as Error).message));
  }
}

/** The command and its operands from the positionals: `set image APP IMAGE` is one command. */
function commandOf(positionals: string[]): { command: Command; operands: string[] } {
  const [first, ...rest] = positionals;
  if (!first) throw new UsageError('missing command');
  if (first === 'set') {
    const [what, ...operands] = rest;
    if (what !== 'image') throw new UsageError(what ? `unknown command "set ${what}" (only "set image")` : 'set: missing what to set ("set image APP IMAGE")');
    return { command: 'set-image', operands };
  }
  if (!Object.hasOwn(COMMAND_FLAGS, first) || first === 'set-image') throw new UsageError(`unknown command "${first}"`);
  return { command: first as Command, operands: rest };
}

function operandsOf(command: Command, operands: string[]): { app?: string; image?: string } {
  const name = command === 'set-image' ? 'set image' : command;
  const wanted = command === 'list' || command === 'dashboard' ? [] : command === 'set-image' ? ['APP', 'IMAGE'] : ['APP'];
  if (operands.length < wanted.length) throw new UsageError(`${name}: missing ${wanted.slice(operands.length).join(' and ')}`);
  if (operands.length > wanted.length) throw new UsageError(`${name}: unexpected argument${operands.length - wanted.length > 1 ? 's' : ''} ${operands.slice(wanted.length).join(' ')}`);
  return { app: operands[0], image: operands[1] };
}

/**
 * The command a command line names, as its words say it ("set image"), or undefined: found without
 * checking the flags, so that a usage error in them can still point to the command's help.
 */
function commandNamed(argv: string[]): string | undefined {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: false, options: OPTIONS });
  const [first, second] = positionals;
  if (first === 'set') return second === 'image' ? 'set image' : undefined;
  return first !== undefined && Object.hasOwn(COMMAND_FLAGS, first) && first !== 'set-image' ? first : undefined;
}

/** The command line, or a UsageError saying what is wrong with it (and naming the command, when known). */
export function parseCommandLine(argv: string[]): CommandLine | HelpRequest {
  try {
    return parseChecked(argv);
  } catch (err) {
    if (err instanceof UsageError) err.command = commandNamed(argv);
    throw err;
  }
}

function parseChecked(argv: string[]): CommandLine | HelpRequest {
  const { values, positionals } = parse(argv);
  // `kubectl skiff help [COMMAND]`, as kubectl's own help command.
  if (positionals[0] === 'help') {
    // `help set` is `set image`'s, the only set; `help help` the plugin's.
    const words = positionals[1] === 'set' && positionals.length === 2 ? ['set', 'image'] : positionals.slice(1);
    const of = words.length === 1 && words[0] === 'help' ? undefined : commandNamed(words);
    if (words.length > 0 && words[0] !== 'help' && of === undefined) throw new UsageError(`help: unknown command "${words.join(' ')}"`);
    return of === undefined ? { command: 'help' } : { command: 'help', of };
  }
  if (values.help) {
    const of = commandNamed(argv);
    // An unknown command is the error it is without --help too.
    if (of === undefined && positionals.length > 0) commandOf(positionals);
    return of === undefined ? { command: 'help' } : { command: 'help', of };
  }
  const { command, operands } = commandOf(positionals);
  const given = (Object.keys(values) as Flag[]).filter((f) => values[f] !== undefined);
  const wrong = given.filter((f) => !COMMON_FLAGS.includes(f) && !COMMAND_FLAGS[command].includes(f));
  if (wrong.length) throw new UsageError(`${command === 'set-image' ? 'set image' : command} does not take ${wrong.map((f) => `--${f}`).join(', ')}`);
  const { app, image } = operandsOf(command, operands);
  let timeoutMs: number | undefined;
  if (values.timeout !== undefined) {
    timeoutMs = parseDuration(values.timeout);
    if (timeoutMs === undefined) throw new UsageError(`--timeout "${values.timeout}" is not a duration like 90s, 5m, 1h30m or 0 (no timeout)`);
    if (!values.wait) throw new UsageError('--timeout goes with --wait');
  }
  let toRevision: number | undefined;
  if (values['to-revision'] !== undefined) {
    toRevision = Number(values['to-revision']);
    if (!/^[1-9][0-9]*$/.test(values['to-revision'])) throw new UsageError(`--to-revision "${values['to-revision']}" is not a revision number (1, 2, ...)`);
  }
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!/^[0-9]+$/.test(values.port) || port > 65535) throw new UsageError(`--port "${values.port}" is not a port number (0..65535)`);
  }
  // A "/" in it would be a path separator to the API server (its 404 read as the App API missing).
  if (values.namespace && !(values.namespace.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(values.namespace))) {
    throw new UsageError(`-n "${values.namespace}" is not a namespace name (a DNS-1123 label: lower-case letters, digits and "-", at most 63)`);
  }
  if (values.address !== undefined && !/^[0-9A-Za-z.:-]+$/.test(values.address)) throw new UsageError(`--address "${values.address}" is not an IP address or host name`);
  if (image !== undefined && !/^\S+$/.test(image)) throw new UsageError(`"${image}" is not an image reference`);
  const impersonate = impersonationOf(values.as, values['as-group'], values['as-uid']);
  return {
    command, app, image, toRevision, timeoutMs,
    // An empty -n, --kubeconfig or --context means "not given", as in kubectl.
    namespace: values.namespace || undefined,
    allNamespaces: values['all-namespaces'] ?? false,
    kubeconfig: values.kubeconfig || undefined,
    context: values.context || undefined,
    ...(impersonate ? { impersonate } : {}),
    color: !values['no-color'],
    watch: values.watch ?? false,
    wait: values.wait ?? false,
    skipCanary: values['skip-canary'] ?? false,
    port,
    address: values.address,
  };
}

/**
 * --as, --as-group and --as-uid, as kubectl takes them: each over the kubeconfig user's own
 * (kube-connection.ts merges them, and refuses groups or a uid with no user to act as).
 */
function impersonationOf(user: string | undefined, groups: string[] | undefined, uid: string | undefined): Impersonation | undefined {
  const named = (groups ?? []).filter((g) => g !== '');
  const out: Impersonation = { ...(user ? { user } : {}), ...(named.length ? { groups: named } : {}), ...(uid ? { uid } : {}) };
  return Object.keys(out).length ? out : undefined;
}
