import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandUsage, parseCommandLine, parseDuration, USAGE, UsageError, usageErrorText, type CommandLine } from '../../cli/args.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

const parsed = (argv: string[]) => parseCommandLine(argv) as CommandLine;
const usageError = (argv: string[], message: RegExp) => assert.throws(() => parseCommandLine(argv), (err: Error) => err instanceof UsageError && message.test(err.message));

describe('kubectl skiff command line', () => {
  it('parses each command with its operands and flags', () => {
    assert.deepEqual(parsed(['list', '-A']), { command: 'list', app: undefined, image: undefined, toRevision: undefined, timeoutMs: undefined, namespace: undefined, allNamespaces: true, kubeconfig: undefined, context: undefined, color: true, watch: false, wait: false, skipCanary: false, port: undefined, address: undefined });
    const get = parsed(['get', 'web', '-n', 'shop', '--watch', '--kubeconfig', '/k', '--context', 'prod', '--no-color']);
    assert.deepEqual([get.command, get.app, get.namespace, get.watch, get.kubeconfig, get.context, get.color], ['get', 'web', 'shop', true, '/k', 'prod', false]);
    const set = parsed(['set', 'image', 'web', 'registry.example/web:2']);
    assert.deepEqual([set.command, set.app, set.image], ['set-image', 'web', 'registry.example/web:2']);
    const undo = parsed(['undo', 'web', '--to-revision', '3', '--skip-canary']);
    assert.deepEqual([undo.command, undo.toRevision, undo.skipCanary], ['undo', 3, true]);
    const status = parsed(['status', 'web', '--wait', '--timeout', '5m']);
    assert.deepEqual([status.wait, status.timeoutMs], [true, 300_000]);
    for (const c of ['history', 'promote', 'abort', 'pause', 'resume', 'retry']) assert.equal(parsed([c, 'web']).command, c);
    assert.deepEqual(parseCommandLine(['get', '--help']), { command: 'help', of: 'get' });
    assert.deepEqual(parseCommandLine(['set', 'image', '-h']), { command: 'help', of: 'set image' });
    assert.deepEqual(parseCommandLine(['--help']), { command: 'help' });
    const dash = parsed(['dashboard', '--port', '0', '--address', '::1', '-A']);
    assert.deepEqual([dash.command, dash.port, dash.address, dash.allNamespaces], ['dashboard', 0, '::1', true]);
    assert.deepEqual([parsed(['dashboard']).port, parsed(['dashboard']).address], [undefined, undefined]);
  });

  it('a command\'s --help is its own usage (its synopsis, what it does, the flags); the plugin\'s for none', () => {
    assert.equal(commandUsage('undo').split('\n\nflags:')[0], [
      'usage: kubectl skiff undo APP [--to-revision N] [--skip-canary]',
      '',
      '  put the pod template of revision N back (default: the newest promoted',
      '  revision other than the template the App asks for now: the one before',
      '  a finished rollout, stable during one or while a pause holds a change);',
      '  --skip-canary: straight to stable when N was promoted before',
    ].join('\n'));
    assert.match(commandUsage('resume'), /^usage: kubectl skiff pause APP \/ resume APP\n\n {2}set spec\.rollout\.paused/);
    assert.match(commandUsage('set image'), /^usage: kubectl skiff set image APP IMAGE\n\n {2}set spec\.image\n\nflags:\n {2}-n, --namespace NS/);
    for (const c of ['list', 'get', 'history', 'status', 'promote', 'abort', 'pause', 'retry', 'dashboard']) {
      assert.match(commandUsage(c), new RegExp(`^usage: kubectl skiff ${c}\\b`), c);
      assert.match(commandUsage(c), /\nexit codes: /, `${c}: with the flags and exit codes`);
    }
    assert.equal(commandUsage(undefined), USAGE);
  });

  it('a command\'s --help describes its own flags, then the common ones; -A only where it is taken', () => {
    const flags = (c: string) => commandUsage(c).split('\n\nflags:\n')[1]!.split('\n\nexit codes')[0]!;
    assert.match(flags('get'), /^ {2}-w, --watch +keep the view up to date as the App changes/);
    assert.match(flags('status'), /^ {6}--wait +until rolled out \(exit 0\), Degraded \(exit 1\) or the timeout \(exit 3\)\n {6}--timeout D +with --wait: give up after D/);
    assert.match(flags('undo'), /^ {6}--to-revision N +the revision to put back[^\n]*\n {6}--skip-canary +straight to stable/);
    assert.match(flags('dashboard'), /^ {2}-A, --all-namespaces +every namespace\n {6}--port P +[^\n]*\n {6}--address A /);
    assert.match(flags('list'), /^ {2}-A, --all-namespaces/);
    for (const c of ['get', 'status', 'undo', 'promote', 'set image']) {
      assert.doesNotMatch(flags(c), /--all-namespaces/, c);
      assert.match(flags(c), /(^|\n) {2}-n, --namespace NS/, c);
    }
    assert.doesNotMatch(flags('promote'), /--wait|--watch|--port/);
  });

  it('`help [COMMAND]` is --help, as kubectl\'s help command; an unknown command is a usage error, with --help too', () => {
    assert.deepEqual(parseCommandLine(['help']), { command: 'help' });
    assert.deepEqual(parseCommandLine(['help', 'undo']), { command: 'help', of: 'undo' });
    assert.deepEqual(parseCommandLine(['help', 'set', 'image']), { command: 'help', of: 'set image' });
    assert.deepEqual(parseCommandLine(['help', 'set']), { command: 'help', of: 'set image' });
    assert.deepEqual(parseCommandLine(['help', 'help']), { command: 'help' });
    assert.throws(() => parseCommandLine(['help', 'deploy']), (e: Error) => e instanceof UsageError && e.message === 'help: unknown command "deploy"');
    assert.throws(() => parseCommandLine(['deploy', '--help']), (e: Error) => e instanceof UsageError && e.message === 'unknown command "deploy"');
    // Names every object has are no commands.
    for (const name of ['toString', 'constructor', '__proto__']) {
      assert.throws(() => parseCommandLine(['help', name]), UsageError, name);
      assert.throws(() => parseCommandLine([name, '--help']), UsageError, name);
      assert.throws(() => parseCommandLine([name, 'web']), UsageError, name);
    }
  });

  it('takes --as, --as-group (repeated) and --as-uid on every command, as kubectl does, each on its own (merged over the kubeconfig\'s)', () => {
    assert.deepEqual(parsed(['promote', 'web', '--as', 'jane', '--as-group', 'devs', '--as-group=ops', '--as-uid', '42']).impersonate, { user: 'jane', groups: ['devs', 'ops'], uid: '42' });
    assert.deepEqual(parsed(['dashboard', '--as=jane']).impersonate, { user: 'jane' });
    assert.deepEqual(parsed(['list', '--as-group', 'devs']).impersonate, { groups: ['devs'] });
    assert.equal(parsed(['list']).impersonate, undefined);
  });

  it('refuses a dashboard port or address that is none', () => {
    usageError(['dashboard', '--port', '70000'], /--port "70000" is not a port number/);
    usageError(['dashboard', '--port', 'http'], /not a port number/);
    usageError(['dashboard', '--address', 'a b'], /not an IP address or host name/);
    usageError(['dashboard', 'web'], /unexpected argument web/);
    usageError(['list', '--port', '1'], /list does not take --port/);
  });

  it('refuses what does not fit, saying why', () => {
    usageError([], /missing command/);
    usageError(['deploy', 'web'], /unknown command "deploy"/);
    usageError(['get'], /get: missing APP/);
    usageError(['set', 'image', 'web'], /set image: missing IMAGE/);
    usageError(['set', 'replicas', 'web', '3'], /unknown command "set replicas"/);
    usageError(['get', 'web', 'extra'], /unexpected argument extra/);
    usageError(['list', 'web'], /unexpected argument web/);
    usageError(['get', 'web', '-A'], /get does not take --all-namespaces/);
    usageError(['list', '--watch'], /list does not take --watch/);
    usageError(['status', 'web', '--wait', '--timeout', 'soon'], /not a duration/);
    usageError(['status', 'web', '--timeout', '5s'], /--timeout goes with --wait/);
    usageError(['undo', 'web', '--to-revision', '0'], /not a revision number/);
    usageError(['get', 'web', '--colour'], /Unknown option '--colour'/);
  });

  it('a usage error is one line and a pointer to the command\'s --help, as kubectl words it', () => {
    const textOf = (argv: string[]) => {
      try {
        parseCommandLine(argv);
      } catch (err) {
        return usageErrorText(err as UsageError);
      }
      return assert.fail('no usage error');
    };
    assert.equal(textOf(['get']), 'error: get: missing APP\nSee \'kubectl skiff get --help\' for usage.\n');
    assert.equal(textOf(['set', 'image', 'web']), 'error: set image: missing IMAGE\nSee \'kubectl skiff set image --help\' for usage.\n');
    assert.equal(textOf(['deploy', 'web']), 'error: unknown command "deploy"\nSee \'kubectl skiff --help\' for usage.\n');
    // An error of the flags' parser names the command as well, wherever the command stands.
    assert.match(textOf(['-n', 'shop', 'get', 'web', '--colour']), /\nSee 'kubectl skiff get --help' for usage\.\n$/);
    assert.match(textOf(['list', '--colour']), /^error: [^\n]*'--colour'[^\n]*\nSee 'kubectl skiff list --help' for usage\.\n$/);
  });

  it('a negative number after a flag is its value, refused in the flag\'s own words (not the flags parser\'s)', () => {
    usageError(['undo', 'web', '--to-revision', '-1'], /^--to-revision "-1" is not a revision number \(1, 2, \.\.\.\)$/);
    usageError(['dashboard', '--port', '-1'], /^--port "-1" is not a port number/);
    usageError(['status', 'web', '--wait', '--timeout', '-5s'], /^--timeout "-5s" is not a duration/);
    // Another value that starts with "-" reads as a flag: said in one line, with how to give such a value.
    usageError(['get', 'web', '-n', '-A'], /^option '-n' needs a value \(one that starts with "-" is written --namespace=VALUE\)$/);
    usageError(['get', 'web', '-n'], /^option '-n, --namespace' needs a value$/);
  });

  it('takes flags in the forms kubectl takes them: -n=NS, and a boolean flag =true or =false', () => {
    assert.equal(parsed(['get', 'web', '-n=shop']).namespace, 'shop');
    assert.equal(parsed(['get', 'web', '-nshop']).namespace, 'shop');
    assert.equal(parsed(['get', 'web', '--namespace=shop']).namespace, 'shop');
    assert.equal(parsed(['list', '--all-namespaces=true']).allNamespaces, true);
    assert.equal(parsed(['list', '-A=true']).allNamespaces, true);
    assert.equal(parsed(['list', '--all-namespaces=false', '-n', 'shop']).allNamespaces, false);
    // -A with -n: every namespace, as `kubectl get -A -n shop` (a script that always passes -n can add -A).
    assert.deepEqual([parsed(['list', '-A', '-n', 'shop']).allNamespaces, parsed(['dashboard', '-n', 'shop', '-A']).allNamespaces], [true, true]);
    assert.equal(parsed(['get', 'web', '--watch=false']).watch, false);
    assert.equal(parsed(['get', 'web', '--no-color=true']).color, false);
    // The last one counts, as in kubectl: a later =false takes back an earlier flag, a later flag an earlier =false.
    assert.equal(parsed(['get', 'web', '-w', '--watch=false']).watch, false);
    assert.equal(parsed(['list', '-A', '--all-namespaces=false', '-n', 'shop']).allNamespaces, false);
    assert.equal(parsed(['list', '--all-namespaces', '-A=false']).allNamespaces, false);
    assert.equal(parsed(['get', 'web', '--no-color', '--no-color=false']).color, true);
    assert.equal(parsed(['get', 'web', '--watch=false', '-w']).watch, true);
    usageError(['list', '--all-namespaces=maybe'], /^invalid argument "maybe" for "--all-namespaces": true or false$/);
    // Only pflag's words: not the names every JavaScript object has.
    for (const word of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) usageError(['get', 'web', `--watch=${word}`], new RegExp(`^invalid argument "${word}" for "--watch": true or false$`));
    // After "--" nothing is a flag.
    assert.deepEqual([parsed(['get', '--', '-n=shop']).app, parsed(['get', '--', '-n=shop']).namespace], ['-n=shop', undefined]);
  });

  it('reads durations like 90s, 5m, 1h30m', () => {
    assert.equal(parseDuration('90s'), 90_000);
    assert.equal(parseDuration('1h30m'), 5_400_000);
    assert.equal(parseDuration('250ms'), 250);
    assert.equal(parseDuration('5'), undefined);
    assert.equal(parseDuration('-5s'), undefined);
    // Go's int64 nanoseconds: kubectl's --timeout refuses a longer duration, and so does the plugin (a usage error).
    assert.equal(parseDuration('2562047h'), 2_562_047 * 3_600_000);
    assert.equal(parseDuration('2562048h'), undefined);
    assert.equal(parseDuration('1h1000000000h'), undefined);
  });

  it('reads durations as kubectl\'s --timeout does: fractions, and 0 for no timeout', () => {
    assert.equal(parseDuration('1.5h'), 5_400_000);
    assert.equal(parseDuration('.5s'), 500);
    assert.equal(parseDuration('2m0.25s'), 120_250);
    assert.equal(parseDuration('0'), 0);
    assert.equal(parseDuration('0s'), 0);
    assert.equal(parseDuration('.s'), undefined);
    assert.equal(parseDuration('1.5'), undefined);
    assert.equal(parseDuration('1..5s'), undefined);
    assert.equal(parsed(['status', 'web', '--wait', '--timeout', '0']).timeoutMs, 0);
  });

  it('reads every unit and sign Go\'s time.ParseDuration takes (kubectl\'s --timeout), and never turns a timeout into none', () => {
    assert.equal(parseDuration('1500us'), 2, 'µs and ns as Go takes them, rounded to whole ms');
    assert.equal(parseDuration('1500µs'), 2);
    assert.equal(parseDuration('1500μs'), 2);
    assert.equal(parseDuration('3000000ns'), 3);
    assert.equal(parseDuration('1m1ms'), 60_001);
    assert.equal(parseDuration('+5m'), 300_000);
    // A duration above 0 but below 1 ms is the shortest timeout, not 0 (which waits without end).
    assert.equal(parseDuration('0.4ms'), 1);
    assert.equal(parseDuration('300ns'), 1);
    assert.equal(parseDuration('0ms'), 0);
    assert.equal(parseDuration('5u'), undefined);
    assert.equal(parseDuration('+'), undefined);
  });

  it('refuses a namespace that no namespace can be called: a "/" in it asked the API server for another path', () => {
    usageError(['list', '-n', 'shop/web'], /^-n "shop\/web" is not a namespace name \(a DNS-1123 label: lower-case letters, digits and "-", at most 63\)$/);
    usageError(['status', 'web', '--namespace=Shop'], /is not a namespace name/);
    usageError(['list', '-n', 'a'.repeat(64)], /is not a namespace name/);
    assert.equal(parsed(['list', '-n', 'kube-system']).namespace, 'kube-system');
  });

  it('takes an empty -n, --kubeconfig or --context as not given, as kubectl does', () => {
    const cmd = parsed(['get', 'web', '-n', '', '--context', '', '--kubeconfig', '']);
    assert.deepEqual([cmd.namespace, cmd.context, cmd.kubeconfig], [undefined, undefined, undefined]);
    assert.equal(parsed(['list', '-A', '-n', '']).allNamespaces, true);
  });

  describe('exit codes of the plugin', function () {
    this.timeout(20_000);
    const run = (args: string[], env: NodeJS.ProcessEnv = {}) => new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(join(root, 'cli', 'kubectl-skiff'), args, { env: { ...process.env, ...env } }, (err, stdout, stderr) => done({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr }));
    });
    it('0 with the usage for --help, 2 for a usage error, 1 for an error', async () => {
      const help = await run(['--help']);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /^usage: kubectl skiff <command>/);
      const bad = await run(['frobnicate']);
      assert.equal(bad.code, 2);
      // One line naming the problem and where the usage is, as kubectl says it: not the whole help.
      assert.equal(bad.stderr, 'error: unknown command "frobnicate"\nSee \'kubectl skiff --help\' for usage.\n');
      const badFlag = await run(['undo', 'web', '--to-revision', 'x']);
      assert.equal(badFlag.code, 2);
      assert.equal(badFlag.stderr, 'error: --to-revision "x" is not a revision number (1, 2, ...)\nSee \'kubectl skiff undo --help\' for usage.\n');
      const noConfig = await run(['list'], { KUBECONFIG: '', HOME: '/nonexistent', KUBERNETES_SERVICE_HOST: '' });
      assert.equal(noConfig.code, 1);
      assert.match(noConfig.stderr, /^error: no Kubernetes configuration found/);
    });
  });
});
