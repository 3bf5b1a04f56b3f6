// npm run dev: a local control plane (or an existing cluster with --kubeconfig), the CRD and
// webhook configurations from config/dev, and the webhook and controller processes, with
// readable logs in the foreground until Ctrl-C, which stops everything this started.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseFlagsOrExit } from '../shared/flags.js';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { installDevBundle, removeDevWebhooks } from './install.js';
import { waitForCrdsEstablished } from './crds.js';
import { formatLogLine } from './log-format.js';
import { SIMULATED_NODE, startPodSimulator } from './pod-simulator.js';
import { loadKubeConfig } from '../shared/kubeconfig.js';
import { ensureCerts } from '../certs/write.js';
import { exitReason, stopProcess } from './processes.js';
import { startRouteStatusSimulator } from './route-status.js';
import { startTrafficExporter } from './nginx-traffic.js';
import { startPrometheus } from './prometheus.js';
import { writeAlertRules } from './alert-rules.js';
import { ANNOTATION_ERROR_RATIO, startTrafficSimulator } from './traffic-simulator.js';
import { poll } from './wait.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const run = promisify(execFile);
/** The CRDs of test/fixtures/gateway-api-v1.6.1. */
const GATEWAY_API_CRDS = ['gatewayclasses', 'gateways', 'httproutes', 'referencegrants'].map((plural) => `${plural}.gateway.networking.k8s.io`);

const FLAGS = {
  kubeconfig: { type: 'string', default: '', help: 'use this existing cluster instead of starting a local control plane' },
  'webhook-host': { type: 'string', default: '127.0.0.1', help: 'address the API server uses to reach the webhook (an IP or DNS name of this machine)' },
  'webhook-port': { type: 'port', default: 9443, help: 'HTTPS port of the webhook' },
  'state-dir': { type: 'string', default: '.skiff/dev', help: 'where the control plane data, certificates and kubeconfig are kept' },
  'simulate-pods': { type: 'boolean', default: true, help: 'on the local control plane (no kubelet), bind pods to a simulated Node and mark them Ready' },
  'simulate-traffic': { type: 'boolean', default: true, help: 'on the local control plane, run Prometheus and simulated ingress-nginx traffic for canary analysis' },
  'prometheus-url': { type: 'string', default: '', help: 'Prometheus for canary analysis (default on the local control plane: the one this starts)' },
  'simulate-gateway': { type: 'boolean', default: true, help: 'on the local control plane, install the Gateway API CRDs and report HTTPRoutes Accepted as a Gateway would' },
  'webhook-health-port': { type: 'port', default: 8081, help: 'the webhook\'s /healthz and /readyz' },
  'webhook-metrics-port': { type: 'port', default: 8080, help: 'the webhook\'s /metrics' },
  'controller-health-port': { type: 'port', default: 8083, help: 'the controller\'s /healthz and /readyz' },
  'controller-metrics-port': { type: 'port', default: 8082, help: 'the controller\'s /metrics (scraped by the Prometheus this starts)' },
} as const;

const say = (msg: string) => console.log(`${new Date().toISOString().slice(11, 19)} ----- dev        ${msg}`);

function runProcess(name: string, script: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, [join(root, 'dist', script), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => console.log(formatLogLine(line, name)));
  }
  return child;
}

/** Resolves once `url` answers 200; rejects when the process exits first or after `timeoutMs`. */
async function waitReady(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const exited = () => (exitReason(child) === undefined ? undefined : new Error(`${url}: the process exited`));
  const polled = await poll(() => fetch(url).then((r) => r.ok, () => false), { timeoutMs, giveUp: exited });
  if (!polled.done) throw new Error(`${url} was not ready within ${timeoutMs / 1000} s`);
}

type Flags = ReturnType<typeof parseFlagsOrExit<typeof FLAGS>>;

/** What npm run dev started besides the two processes, in the order they stop. */
interface Started {
  kubeconfigPath: string;
  controlPlane?: ControlPlane;
  /** The stand-ins for the kubelet, a Gateway and ingress-nginx's traffic. */
  standIns: { stop(): Promise<void> }[];
  prometheusUrl?: string;
}

/** npm run dev: a cluster (local, or the one --kubeconfig names), then the webhook and the controller. */
async function main() {
  keepGoingWithoutOutput();
  const flags = parseFlagsOrExit('npm run dev --', FLAGS, process.argv.slice(2), {});
  const stateDir = resolve(root, flags['state-dir']);
  mkdirSync(stateDir, { recursive: true });
  let started: Started;
  if (flags.kubeconfig) {
    started = { kubeconfigPath: resolve(flags.kubeconfig), standIns: [] };
    say(`using the cluster in ${started.kubeconfigPath}`);
  } else {
    started = await localCluster(flags, stateDir);
  }
  const children: ChildProcess[] = [];
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping');
    await Promise.all(children.map((c) => stopProcess(c)));
    for (const s of started.standIns) await s.stop();
    if (flags.kubeconfig) {
      // A failurePolicy: Fail webhook pointing at a stopped process would block every App write.
      await removeDevWebhooks(started.kubeconfigPath).then(() => say('removed the dev webhook configurations'), (err: Error) => say(`could not remove the webhook configurations: ${err.message}`));
    }
    await started.controlPlane?.stop();
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  // Whatever fails, what was installed in the cluster is taken away before the process ends.
  process.on('uncaughtException', (err) => {
    say(`failed: ${err.stack ?? err.message}`);
    void shutdown(1);
  });
  try {
    await startProcesses(flags, stateDir, started, children, () => stopping, shutdown);
  } catch (err) {
    say(`failed: ${(err as Error).message}`);
    await shutdown(1);
  }
}

/**
 * Output whose reader has gone (`npm run dev | tee dev.log`, and Ctrl-C ends tee with the rest)
 * fails every later write with EPIPE, which Node throws as an uncaught error: the stop would end
 * there, leaving the webhook configurations in the cluster, where they refuse every App write.
 * Without a reader, the logs are dropped and the stop goes on.
 */
function keepGoingWithoutOutput(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
}

/** The local control plane and, as flags say, the stand-ins for the kubelet, a Gateway and traffic with Prometheus. */
async function localCluster(flags: Flags, stateDir: string): Promise<Started> {
  // The control plane is verbose; its output goes to a file, except what the installer reports.
  const clusterLog = join(stateDir, 'cluster.log');
  writeFileSync(clusterLog, '');
  say(`starting the local control plane (etcd, kube-apiserver, kube-controller-manager); its logs: ${clusterLog}`);
  const controlPlane = await startControlPlane({
    dir: join(stateDir, 'cluster'),
    log: (line) => (line.startsWith('[control-plane]') ? console.log(formatLogLine(line, 'cluster')) : appendFileSync(clusterLog, `${line}\n`)),
  });
  const kubeconfigPath = join(stateDir, 'kubeconfig');
  copyFileSync(controlPlane.kubeconfigPath, kubeconfigPath);
  const started: Started = { kubeconfigPath, controlPlane, standIns: [] };
  if (flags['simulate-pods']) {
    started.standIns.push(await startPodSimulator(loadKubeConfig({ path: kubeconfigPath })));
    say(`no kubelet here: pods are bound to the simulated Node ${SIMULATED_NODE} and marked Ready (--simulate-pods=false to turn off)`);
  }
  if (flags['simulate-gateway']) {
    // The 1.20 server cannot parse the CRDs' CEL rules and kubectl refuses to send them
    // (--validate=false); server-side apply cannot type them either, hence a client-side apply.
    try {
      await run('kubectl', ['--kubeconfig', kubeconfigPath, 'apply', '--validate=false', '-f', join(root, 'test', 'fixtures', 'gateway-api-v1.6.1')], { maxBuffer: 16 << 20 });
      // Served before the controller starts: its first discovery decides whether HTTPRoutes exist,
      // and an App with spec.route applied then would report RouteAPIUnavailable until the next one.
      await waitForCrdsEstablished(kubeconfigPath, GATEWAY_API_CRDS);
      started.standIns.push(startRouteStatusSimulator(loadKubeConfig({ path: kubeconfigPath })));
      say('installed the Gateway API v1.6.1 CRDs; a simulated Gateway reports HTTPRoutes Accepted (--simulate-gateway=false to turn off)');
    } catch (err) {
      say(`could not install the Gateway API CRDs (Apps with spec.route will report RouteAPIUnavailable): ${(err as { stderr?: string }).stderr ?? (err as Error).message}`);
    }
  }
  if (flags['simulate-traffic']) {
    const exporter = await startTrafficExporter();
    // It also scrapes the controller (its metrics port below) and loads the rollout alerts of config/prometheus.
    const prometheus = await startPrometheus({
      dir: join(stateDir, 'prometheus'),
      targets: [`127.0.0.1:${exporter.port}`, `127.0.0.1:${flags['controller-metrics-port']}`],
      scrapeIntervalSeconds: 1,
      ruleFiles: [writeAlertRules(join(stateDir, 'prometheus'))],
      log: (line) => appendFileSync(clusterLog, `${line}\n`),
    });
    // Stopped in this order: the simulator, then what it feeds.
    started.standIns.push(startTrafficSimulator(loadKubeConfig({ path: kubeconfigPath }), exporter), exporter, prometheus);
    started.prometheusUrl = prometheus.url;
    say(`Prometheus at ${prometheus.url}, scraping simulated ingress-nginx traffic for every App with an ingress or a route (--simulate-traffic=false to turn off);` +
      ` make a canary fail: kubectl annotate app NAME ${ANNOTATION_ERROR_RATIO}=0.3; the rollout alerts of config/prometheus are loaded (${prometheus.url}/alerts)`);
  }
  return started;
}

/** The webhook (with its certificates and the dev bundle installed) and the controller, until both are ready. */
async function startProcesses(flags: Flags, stateDir: string, started: Started, children: ChildProcess[], stopping: () => boolean, shutdown: (code: number) => Promise<void>): Promise<void> {
  const host = flags['webhook-host'];
  const isIP = /^[0-9.]+$|:/.test(host);
  const certDir = join(stateDir, 'certs');
  const certs = await ensureCerts(certDir, { dnsNames: isIP ? ['localhost'] : [host, 'localhost'], ipAddresses: isIP ? [host] : ['127.0.0.1'] });

  const { kubeconfigPath } = started;
  const env = { ...process.env, KUBECONFIG: kubeconfigPath, SKIFF_LOG_LEVEL: process.env.SKIFF_LOG_LEVEL ?? 'info' };
  const webhook = runProcess('webhook', 'webhook/main.js', ['--port', String(flags['webhook-port']), '--bind-address', isIP ? host : '0.0.0.0', '--cert-dir', certDir, '--health-port', String(flags['webhook-health-port']), '--metrics-port', String(flags['webhook-metrics-port'])], env);
  children.push(webhook);

  say('installing the CRD and webhook configurations from config/dev');
  await installDevBundle({ kubeconfigPath, caPem: certs.caPem, webhookUrlBase: `https://${isIP && host.includes(':') ? `[${host}]` : host}:${flags['webhook-port']}` });

  const prometheusUrl = flags['prometheus-url'] || started.prometheusUrl;
  const controller = runProcess('controller', 'controller/main.js', ['--health-port', String(flags['controller-health-port']), '--metrics-port', String(flags['controller-metrics-port']), ...(prometheusUrl ? ['--prometheus-url', prometheusUrl] : [])], env);
  children.push(controller);
  for (const [name, child] of [['webhook', webhook], ['controller', controller]] as const) {
    child.once('exit', (code, signal) => {
      if (stopping()) return;
      say(`${name} exited (${signal ?? `code ${code}`}); stopping everything`);
      void shutdown(1);
    });
  }

  await Promise.all([waitReady(`http://127.0.0.1:${flags['webhook-health-port']}/readyz`, webhook), waitReady(`http://127.0.0.1:${flags['controller-health-port']}/readyz`, controller)]);
  console.log('');
  say(`ready. In another terminal:\n\n    export KUBECONFIG=${kubeconfigPath}\n    kubectl apply -f config/samples/app.yaml\n\n` +
    `webhook https://${host}:${flags['webhook-port']} (health :${flags['webhook-health-port']}, metrics :${flags['webhook-metrics-port']}), ` +
    `controller (health :${flags['controller-health-port']}, metrics :${flags['controller-metrics-port']}). Ctrl-C stops everything.\n`);
}

void main();
