// The controller process: flags (with SKIFF_* environment equivalents) to startController.
// SIGTERM and SIGINT stop it gracefully (in-flight reconciles finish, the Lease is released);
// losing the Lease exits at once with code 1, as controller-runtime does, so a restarted process
// starts over as a candidate.
import { isDNS1123Label } from '../shared/field-checks.js';
import { parseFlagsOrExit } from '../shared/flags.js';
import { KubeConfigError, loadConnection } from '../shared/kube-connection.js';
import { createLogger, logLevelOrExit } from '../shared/logger.js';
import { nodeVersionProblem } from '../shared/node-version.js';
import { prometheusUrlProblem, readBearerTokenFile } from './analysis/prometheus.js';
import { startController } from './controller.js';
import { leaderElectionTimingProblem } from './runtime/leader-election.js';
import { shardProblem } from './shard.js';
import { onStopSignals } from '../shared/stop-signals.js';

const FLAGS = {
  'leader-elect': { type: 'boolean', default: false, help: 'reconcile only while holding the leader Lease (run several replicas)' },
  'leader-election-namespace': { type: 'string', default: '', help: 'namespace of the leader Lease (default: $POD_NAMESPACE, else skiff-system)' },
  'leader-elect-lease-duration-seconds': { type: 'number', default: 15, help: 'how long a Lease is valid without renewal; a standby takes over after this' },
  'leader-elect-renew-deadline-seconds': { type: 'number', default: 10, help: 'the leader steps down when it could not renew for this long' },
  'leader-elect-retry-period-seconds': { type: 'number', default: 2, help: 'how often candidates try to acquire and the leader renews' },
  namespace: { type: 'string', default: '', help: 'watch Apps of this namespace only (default: all namespaces)' },
  shard: {
    type: 'string',
    default: '',
    help: 'reconcile only Apps labelled skiff.dev/shard=<shard>, with a leader Lease of their own (default: only Apps without the label)',
    // Most often a template's missing value: taken as no shard, a shard's Deployment would become a
    // second controller of the Apps without the label.
    emptyRefused: 'leave the flag out for the controller of the Apps without a skiff.dev/shard label',
  },
  concurrency: { type: 'number', default: 4, help: 'Apps reconciled in parallel' },
  'health-port': { type: 'port', default: 8081, help: 'port of /healthz and /readyz (0: off)' },
  'metrics-port': { type: 'port', default: 8080, help: 'port of /metrics (0: off)' },
  'resync-seconds': { type: 'number', default: 300, help: 'reconcile every App this often even without changes (0: never)' },
  'watch-broken-limit-seconds': { type: 'number', default: 60, help: '/readyz fails once a watch has been down longer than this' },
  kubeconfig: { type: 'string', default: '', help: 'kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or in-cluster)' },
  'prometheus-url': { type: 'string', default: '', help: 'Prometheus for canary analysis, such as http://prometheus.monitoring:9090 (without it, Apps with analysis hold their canary at weight 0)' },
  'prometheus-bearer-token-file': { type: 'string', default: '', help: 'file holding a bearer token every query to --prometheus-url sends (such as the controller\'s ServiceAccount token, /var/run/secrets/kubernetes.io/serviceaccount/token), read again every minute; not with user:password in the URL' },
  'restricted-tenants': { type: 'boolean', default: false, help: 'also hold Apps the webhook does not see to the restricted Pod Security profile (set it as the webhook\'s is set)' },
  'track-secrets': { type: 'boolean', default: false, help: 'spec.rollout.trackConfig copies the Secrets a pod template references too (needs the Secret RBAC of config/components/track-secrets; without it no Secret is read)' },
  'analysis-concurrency': { type: 'number', default: 8, help: 'analysis checks running at once over all Apps, outside the reconcile workers' },
} as const;

type ElectionFlags = {
  'leader-elect': boolean;
  'leader-elect-lease-duration-seconds': number;
  'leader-elect-renew-deadline-seconds': number;
  'leader-elect-retry-period-seconds': number;
};

/** A flag value the controller cannot run with (a usage error), or undefined. */
function flagProblem(flags: { shard: string; 'prometheus-url': string; 'prometheus-bearer-token-file': string; namespace: string; 'leader-election-namespace': string; concurrency: number; 'analysis-concurrency': number } & ElectionFlags): string | undefined {
  // 0 workers (or check slots) would reconcile nothing: refused rather than quietly run as 1.
  for (const flag of ['concurrency', 'analysis-concurrency'] as const) {
    if (flags[flag] < 1) return `--${flag} ${flags[flag]}: must be at least 1`;
  }
  // A name no namespace can have: the API server lists nothing there (the controller would
  // reconcile nothing, without a word) and refuses the Lease (it would never lead).
  for (const flag of ['namespace', 'leader-election-namespace'] as const) {
    if (flags[flag] && !isDNS1123Label(flags[flag])) {
      return `--${flag} "${flags[flag]}": must be a namespace name (at most 63 lower-case letters, digits and "-", starting and ending with a letter or digit)`;
    }
  }
  // Refused here, not only by the elector, which is made once the API server has answered
  // discovery: a usage error exits 2 at once, not with a stack trace (or never, while the API
  // server cannot be reached).
  if (flags['leader-elect']) {
    const problem = leaderElectionTimingProblem(
      flags['leader-elect-lease-duration-seconds'] * 1000,
      flags['leader-elect-renew-deadline-seconds'] * 1000,
      flags['leader-elect-retry-period-seconds'] * 1000,
    );
    if (problem) return `--leader-elect-*-seconds: ${problem}`;
  }
  // No --shard (or an empty SKIFF_SHARD) is no shard; any other value must be one an App's label can hold.
  if (flags.shard) {
    const problem = shardProblem(flags.shard);
    if (problem) return problem;
  }
  // A token for no Prometheus would be read for nothing: said rather than ignored.
  const tokenFile = flags['prometheus-bearer-token-file'];
  if (tokenFile && !flags['prometheus-url']) return '--prometheus-bearer-token-file: needs --prometheus-url (the Prometheus it authenticates to)';
  // A --prometheus-url that is no http(s) URL would make every check of every App inconclusive;
  // one with user:password beside a token file would send only one of the two.
  const problem = flags['prometheus-url'] ? prometheusUrlProblem(flags['prometheus-url'], { bearerToken: Boolean(tokenFile) }) : undefined;
  return problem && `--prometheus-url: ${problem}`;
}

/**
 * Why the --prometheus-bearer-token-file cannot be used, read once at start: a missing or
 * unreadable file (or one without a token) stops the controller with its reason rather than make
 * every check inconclusive. The token itself is neither kept here nor shown.
 */
function tokenFileProblem(path: string): string | undefined {
  const read = readBearerTokenFile(path);
  return 'problem' in read ? `--prometheus-bearer-token-file: ${read.problem}` : undefined;
}

async function main(): Promise<void> {
  logLevelOrExit();
  const log = createLogger('controller');
  // Before anything fails of it further in, on a missing Node API, and says something else.
  const tooOld = nodeVersionProblem('the controller', process.versions.node, process.execPath);
  if (tooOld) {
    log.fatal(`cannot start: ${tooOld}`);
    process.exit(1);
  }
  const flags = parseFlagsOrExit('skiff-controller', FLAGS);
  const tokenFile = flags['prometheus-bearer-token-file'];
  const usageError = flagProblem(flags) ?? (tokenFile ? tokenFileProblem(tokenFile) : undefined);
  if (usageError) {
    console.error(usageError);
    process.exit(2);
  }

  let connection;
  try {
    connection = loadConnection({ path: flags.kubeconfig || undefined });
  } catch (err) {
    if (!(err instanceof KubeConfigError)) throw err;
    log.fatal(err.message);
    process.exit(1);
  }

  const controller = await startController({
    connection,
    namespace: flags.namespace,
    prometheusUrl: flags['prometheus-url'] || undefined,
    prometheusBearerTokenFile: tokenFile || undefined,
    shard: flags.shard || undefined,
    concurrency: flags.concurrency,
    analysisConcurrency: flags['analysis-concurrency'],
    restrictedTenants: flags['restricted-tenants'],
    trackSecrets: flags['track-secrets'],
    leaderElection: flags['leader-elect']
      ? {
          namespace: flags['leader-election-namespace'] || process.env.POD_NAMESPACE || 'skiff-system',
          leaseDurationSeconds: flags['leader-elect-lease-duration-seconds'],
          renewDeadlineMs: flags['leader-elect-renew-deadline-seconds'] * 1000,
          retryPeriodMs: flags['leader-elect-retry-period-seconds'] * 1000,
        }
      : undefined,
    resyncMs: flags['resync-seconds'] * 1000,
    watchBrokenLimitMs: flags['watch-broken-limit-seconds'] * 1000,
    healthPort: flags['health-port'],
    metricsPort: flags['metrics-port'],
    log,
    onLeadershipLost: () => {
      log.fatal('lost the leader lease; exiting');
      process.exit(1);
    },
  });
  log.info(
    { identity: controller.identity, server: connection.server, healthPort: controller.ops.healthPort, metricsPort: controller.ops.metricsPort },
    'controller started',
  );

  const shutdown = (signal: string) => {
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      log.error('shutdown took too long; exiting');
      process.exit(1);
    }, 30_000);
    controller.stop().then(
      () => {
        clearTimeout(timer);
        process.exit(0);
      },
      (err: Error) => {
        log.error({ err: err.message }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  onStopSignals(shutdown, { log, exit: (code) => process.exit(code) });
}

main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
