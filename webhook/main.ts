// The webhook process: flags (with SKIFF_* environment equivalents) to the HTTPS admission server
// and the plain-HTTP health and metrics endpoints. It needs no Kubernetes API access.
import { Registry, collectDefaultMetrics } from 'prom-client';
import { parseFlagsOrExit } from '../shared/flags.js';
import { createLogger, logLevelOrExit } from '../shared/logger.js';
import { nodeVersionProblem } from '../shared/node-version.js';
import { startOpsServers } from '../shared/ops-server.js';
import { startWebhookServer } from './server.js';
import { ServingPairError } from './tls-files.js';
import { onStopSignals } from '../shared/stop-signals.js';

const FLAGS = {
  port: { type: 'port', default: 9443, help: 'HTTPS port of /mutate and /validate' },
  'bind-address': { type: 'string', default: '', help: 'address to listen on (default: every address, IPv6 and IPv4)' },
  'cert-dir': { type: 'string', default: '/tmp/k8s-webhook-server/serving-certs', help: 'directory with tls.crt and tls.key (reloaded when they change)' },
  'health-port': { type: 'port', default: 8081, help: 'port of /healthz and /readyz (0: off)' },
  'metrics-port': { type: 'port', default: 8080, help: 'port of /metrics (0: off)' },
  'restricted-tenants': { type: 'boolean', default: false, help: 'also deny Apps whose pods the restricted Pod Security profile forbids' },
  'shutdown-delay-seconds': { type: 'number', default: 5, help: 'on SIGTERM, seconds to go on answering (not ready) until the pod has left the Service\'s endpoints' },
} as const;

async function main(): Promise<void> {
  logLevelOrExit();
  const log = createLogger('webhook');
  // Before anything fails of it further in, on a missing Node API, and says something else.
  const tooOld = nodeVersionProblem('the webhook', process.versions.node, process.execPath);
  if (tooOld) {
    log.fatal(`cannot start: ${tooOld}`);
    process.exit(1);
  }
  const flags = parseFlagsOrExit('skiff-webhook', FLAGS);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let webhook;
  try {
    webhook = await startWebhookServer({ port: flags.port, host: flags['bind-address'] || undefined, certDir: flags['cert-dir'], log, registry, restrictedTenants: flags['restricted-tenants'] });
  } catch (err) {
    // Only a certificate problem points at --cert-dir; a port in use (EADDRINUSE) or an address
    // not on this host is said as such.
    const why = err instanceof ServingPairError
      ? `the serving certificate must be in ${flags['cert-dir']} (tls.crt, tls.key)`
      : `cannot listen on port ${flags.port}${flags['bind-address'] ? ` of ${flags['bind-address']}` : ''}`;
    log.fatal({ err: (err as Error).message }, `cannot start: ${why}`);
    process.exit(1);
  }
  const ops = await startOpsServers({
    healthPort: flags['health-port'],
    metricsPort: flags['metrics-port'],
    registry,
    healthy: () => undefined,
    ready: () => webhook.ready(),
  });
  log.info({ healthPort: ops.healthPort, metricsPort: ops.metricsPort }, 'webhook started');

  const shutdown = (signal: string) => {
    // The API server sends admissions here until the endpoints drop this pod, a moment after it
    // begins terminating: refusing them meanwhile would fail App writes (failurePolicy: Fail).
    // SIGINT is someone at a terminal: no one routes admissions here by endpoints then.
    const delayMs = signal === 'SIGTERM' ? Math.max(0, Math.min(flags['shutdown-delay-seconds'], 300)) * 1000 : 0;
    log.info({ signal, delaySeconds: delayMs / 1000 }, 'shutting down: not ready, still answering until the delay is over');
    webhook.drain();
    setTimeout(() => {
      Promise.all([webhook.close(), ops.close()]).then(() => process.exit(0), () => process.exit(1));
    }, delayMs);
  };
  onStopSignals(shutdown, { log, exit: (code) => process.exit(code) });
}

main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
