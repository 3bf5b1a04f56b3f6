// kubectl skiff: the plugin's entry point. Only the command line is parsed here, with nothing
// heavy loaded, so that --help and usage errors answer at once; the command itself (and its API
// client) is imported only when it runs.
import { commandUsage, parseCommandLine, UsageError, usageErrorText, USAGE } from './args.js';
import { nodeVersionProblem } from '../shared/node-version.js';
import { oneLine } from './style.js';

export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;

async function main(argv: string[]): Promise<number> {
  const tooOld = nodeVersionProblem('kubectl skiff', process.versions.node, process.execPath);
  if (tooOld) {
    process.stderr.write(`error: ${tooOld}\n`);
    return EXIT_ERROR;
  }
  const cmd = parseCommandLine(argv);
  if (cmd.command === 'help') {
    process.stdout.write(cmd.of === undefined ? USAGE : commandUsage(cmd.of));
    return 0;
  }
  const { run } = await import('./run.js');
  return run(cmd);
}

function classNames(err: Error): string[] {
  const names: string[] = [];
  for (let p = Object.getPrototypeOf(err); p && p !== Error.prototype; p = Object.getPrototypeOf(p)) names.push(p.constructor.name);
  return names;
}

function fail(err: Error): void {
  if (err instanceof UsageError) {
    process.stderr.write(usageErrorText(err));
    process.exitCode = EXIT_USAGE;
    return;
  }
  // Only errors the plugin explains (and API answers) are shown bare; anything else is a bug and keeps its stack.
  // Told by class name up the prototype chain (subclasses such as UnreachableError included), so
  // that this entry point loads none of the modules that define them.
  const explained = classNames(err).some((n) => ['CliError', 'ApiError', 'KubeConfigError'].includes(n));
  // An answer kubectl words its own way (an App not found: "Error from server (NotFound): ...") is
  // printed in those words, without "error: ".
  const kubectlText = explained ? (err as { kubectlText?: unknown }).kubectlText : undefined;
  // An explained message may quote the cluster (an annotation, a webhook's denial): on one line,
  // without the terminal escapes it may carry. A bug's stack keeps its lines.
  process.stderr.write(typeof kubectlText === 'string' ? `${oneLine(kubectlText)}\n` : `error: ${explained ? oneLine(err.message) : (err.stack ?? err.message)}\n`);
  process.exitCode = EXIT_ERROR;
}

/**
 * Exits once stdout and stderr have written what they hold: through a pipe (`| grep`, `| less`),
 * Node queues what the pipe does not take at once (64 KiB), and an immediate process.exit lost it.
 * A reader gone early (`| head -1`, EPIPE) ends the run quietly, as SIGPIPE ends kubectl.
 */
function exit(code?: number): void {
  let open = 2;
  // process.exit(undefined) exits 0 whatever process.exitCode says: the code is passed on explicitly.
  outcome = code ?? Number(process.exitCode ?? 0);
  const end = () => process.exit(outcome);
  const flushed = () => { if (--open === 0) end(); };
  for (const stream of [process.stdout, process.stderr]) stream.write('', flushed);
}

/** The status a shell reports for a program that SIGPIPE ended (128 + 13), as it reports kubectl's. */
export const EXIT_PIPE = 141;
/** The command's own exit status, once it has one. */
let outcome: number | undefined;

// A reader gone while a command still writes (`get --watch | head -3`): the write's EPIPE is an
// 'error' event, which without a listener killed the plugin with Node's stack trace. It ends the
// run quietly, as SIGPIPE ends kubectl, and never as a success the command did not have: with the
// command's own status when it has one by the next turn of the event loop (`status --wait` timed
// out, its message written to a closed pipe: 3), else 141 as a shell reports kubectl ended so.
// Another failure to write the output is an error exit.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') process.exit(EXIT_ERROR);
    setImmediate(() => process.exit(outcome ?? (process.exitCode === undefined ? EXIT_PIPE : Number(process.exitCode))));
  });
}

main(process.argv.slice(2)).then((code) => exit(code), (err: Error) => {
  fail(err);
  exit();
});
