// A real Kubernetes control plane on loopback for tests and `npm run dev`: etcd,
// kube-apiserver and (optionally) kube-controller-manager, the way controller-runtime's envtest
// runs them. Binaries come from hack/install-control-plane.sh (KUBEBUILDER_ASSETS, PATH, or a
// one-time build from Debian's kubernetes source package, cached outside the repository).
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { request } from 'node:https';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { isFree, stablePorts } from './free-port.js';
import { lastWords, startProcess, stopProcess, waitFor, type Proc } from './processes.js';
import { startReadinessGate, type ReadinessGate } from './readiness-gate.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ControlPlaneOptions {
  /** State directory: etcd data, keys, certificates, kubeconfig. Reused when it already exists. */
  dir: string;
  /** Receives every output line of the three processes and of the binary installer. */
  log?: (line: string) => void;
  /** Run kube-controller-manager (garbage collector, Deployment and ReplicaSet controllers). Default true. */
  controllerManager?: boolean;
  /** Write a JSON audit log of every write request (to count the requests a client makes). */
  auditPolicy?: boolean;
  /** Milliseconds to wait for the API server to become ready. */
  startTimeoutMs?: number;
}

export interface ControlPlane {
  kubeconfigPath: string;
  server: string;
  token: string;
  auditLogPath?: string;
  /** Stops every process (SIGTERM, then SIGKILL); the state directory stays. */
  stop(): Promise<void>;
  /** Stops only the API server, as a crash or an upgrade would. */
  stopApiServer(): Promise<void>;
  /**
   * Starts the API server again on the same address, behind a readiness gate there: clients reach
   * it once it is ready, as through a load balancer.
   */
  startApiServer(): Promise<void>;
}

/** The directory holding etcd, kube-apiserver and kube-controller-manager, installing them if needed. */
export function controlPlaneBinaries(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn('bash', [join(root, 'hack', 'install-control-plane.sh')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    createInterface({ input: child.stderr }).on('line', log);
    child.on('error', fail);
    child.on('exit', (code) => {
      const dir = stdout.trim().split('\n').pop() ?? '';
      if (code === 0 && dir) done(dir);
      else fail(new Error(`hack/install-control-plane.sh failed (exit ${code}); see its output above`));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** GET a path of the API server; resolves with the status code, or 0 when it does not answer. */
function probe(url: string, token: string, ca: string | undefined): Promise<number> {
  return new Promise((done) => {
    const req = request(url, { headers: { authorization: `Bearer ${token}` }, ca, rejectUnauthorized: ca !== undefined, timeout: 2_000 }, (res) => {
      res.resume();
      done(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => done(0));
    req.end();
  });
}

/**
 * Ports are kept in the state directory so that a reused etcd keeps its peer address. New ones are
 * below the ephemeral range, where no client connection takes one while its server is down.
 */
async function choosePorts(dir: string): Promise<Ports> {
  const file = join(dir, 'ports.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<Ports>;
    const values = PORT_NAMES.map((name) => saved[name]);
    if (values.every((p) => typeof p === 'number') && (await Promise.all(values.map((p) => isFree(p!)))).every(Boolean)) return saved as Ports;
  }
  const chosen = await stablePorts(PORT_NAMES.length);
  const ports = Object.fromEntries(PORT_NAMES.map((name, i) => [name, chosen[i]])) as unknown as Ports;
  writeFileSync(file, JSON.stringify(ports));
  return ports;
}

const PORT_NAMES = ['etcdClient', 'etcdPeer', 'apiserver', 'apiserverBehindGate'] as const;
/** Where each part listens; `apiserverBehindGate` is the API server's own once it runs behind the gate. */
type Ports = Record<(typeof PORT_NAMES)[number], number>;

const AUDIT_POLICY = {
  apiVersion: 'audit.k8s.io/v1',
  kind: 'Policy',
  omitStages: ['RequestReceived'],
  // Reads are left out: the log exists to count and inspect writes.
  rules: [{ level: 'None', verbs: ['get', 'list', 'watch'] }, { level: 'Metadata' }],
};

/**
 * The control plane, step by step: credentials, etcd, kube-apiserver (which can be stopped and
 * started again, behind a readiness gate), the kubeconfig, and kube-controller-manager.
 */
export async function startControlPlane(opts: ControlPlaneOptions): Promise<ControlPlane> {
  const log = opts.log ?? (() => {});
  const startTimeoutMs = opts.startTimeoutMs ?? 90_000;
  const dir = resolve(opts.dir);
  for (const sub of ['etcd', 'pki', 'apiserver-certs']) mkdirSync(join(dir, sub), { recursive: true });

  const bin = await controlPlaneBinaries(log);
  const ports = await choosePorts(dir);
  const server = `https://127.0.0.1:${ports.apiserver}`;
  const credentials = writeCredentials(dir);
  const audit = opts.auditPolicy ? auditLog(dir) : { args: [] as string[], path: undefined };

  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    const etcdUrl = await startEtcd(bin, dir, ports, stops, startTimeoutMs, log);
    const apiserver = apiServer({ bin, dir, ports, etcdUrl, credentials, auditArgs: audit.args, startTimeoutMs, log });
    stops.push(apiserver.stopForGood);
    await apiserver.start();
    // The self-signed serving certificate file holds its CA too, so it verifies the server.
    const kubeconfigPath = join(dir, 'kubeconfig');
    writeKubeconfig(kubeconfigPath, server, readFileSync(apiserver.caFile, 'utf8'), credentials.token);
    if (opts.controllerManager !== false) await startControllerManager(bin, kubeconfigPath, stops, log);
    return {
      kubeconfigPath,
      server,
      token: credentials.token,
      auditLogPath: audit.path,
      stop: stopAll,
      stopApiServer: apiserver.stop,
      startApiServer: apiserver.start,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

interface Credentials {
  saKey: string;
  saPub: string;
  token: string;
  tokenFile: string;
}

/** The service-account signing key (kept across starts) and a new admin token for this start. */
function writeCredentials(dir: string): Credentials {
  const saKey = join(dir, 'pki', 'sa.key');
  const saPub = join(dir, 'pki', 'sa.pub');
  if (!existsSync(saKey)) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(saPub, publicKey.export({ type: 'spki', format: 'pem' }));
    writeFileSync(saKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  }
  const token = randomBytes(24).toString('hex');
  const tokenFile = join(dir, 'pki', 'tokens.csv');
  writeFileSync(tokenFile, `${token},admin,admin-uid,"system:masters"\n`, { mode: 0o600 });
  return { saKey, saPub, token, tokenFile };
}

/** The audit policy file and the API server's flags for a log of every write. */
function auditLog(dir: string): { args: string[]; path: string } {
  const path = join(dir, 'audit.log');
  writeFileSync(join(dir, 'audit-policy.yaml'), stringify(AUDIT_POLICY));
  // One file, never rotated: readers count every write in it, and the API server's log writer
  // otherwise starts a new file at 100 MB, which 10,000 Apps (npm run bench:scale) pass.
  return { path, args: [`--audit-policy-file=${join(dir, 'audit-policy.yaml')}`, `--audit-log-path=${path}`, '--audit-log-format=json', '--audit-log-mode=blocking', '--audit-log-maxsize=1000000'] };
}

/** etcd on loopback, healthy; resolves with its client URL. */
async function startEtcd(bin: string, dir: string, ports: Ports, stops: (() => Promise<void>)[], startTimeoutMs: number, log: (line: string) => void): Promise<string> {
  const etcdUrl = `http://127.0.0.1:${ports.etcdClient}`;
  const peerUrl = `http://127.0.0.1:${ports.etcdPeer}`;
  const etcd = startProcess('etcd', join(bin, 'etcd'), [
    `--data-dir=${join(dir, 'etcd')}`, '--name=skiff',
    `--listen-client-urls=${etcdUrl}`, `--advertise-client-urls=${etcdUrl}`,
    `--listen-peer-urls=${peerUrl}`, `--initial-advertise-peer-urls=${peerUrl}`, `--initial-cluster=skiff=${peerUrl}`,
    '--log-level=warn', '--logger=zap',
  ], log);
  stops.push(() => stopProcess(etcd.child));
  await waitFor('etcd', etcd, async () => (await httpStatus(`${etcdUrl}/health`)) === 200, startTimeoutMs);
  return etcdUrl;
}

interface ApiServerOptions {
  bin: string;
  dir: string;
  ports: Ports;
  etcdUrl: string;
  credentials: Credentials;
  auditArgs: string[];
  startTimeoutMs: number;
  log: (line: string) => void;
}

/**
 * kube-apiserver: started, stopped and started again. Once stopped, it starts again behind a
 * readiness gate on its address, and clients reach it only once it is ready, as through a load
 * balancer checking /readyz. Without it a client creating Services while it starts crashes it:
 * before it is ready it already serves, while its Service IP repair runs, and a Service created
 * meanwhile makes the repair's update conflict, which 1.20 (and 1.29, kubernetes#130377) treats
 * as fatal, on every start again.
 */
function apiServer(o: ApiServerOptions) {
  const { credentials: c } = o;
  const caFile = join(o.dir, 'apiserver-certs', 'apiserver.crt');
  const args = (port: number) => [
    `--etcd-servers=${o.etcdUrl}`, `--secure-port=${port}`, '--bind-address=127.0.0.1', '--advertise-address=127.0.0.1',
    `--cert-dir=${join(o.dir, 'apiserver-certs')}`, `--token-auth-file=${c.tokenFile}`, '--authorization-mode=RBAC',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local', `--service-account-key-file=${c.saPub}`,
    `--service-account-signing-key-file=${c.saKey}`, '--service-cluster-ip-range=10.96.0.0/12',
    '--disable-admission-plugins=ServiceAccount', '--allow-privileged=true', ...o.auditArgs,
  ];
  let proc: Proc | undefined;
  let gate: ReadinessGate | undefined;
  const launch = async (port: number) => {
    proc = startProcess('kube-apiserver', join(o.bin, 'kube-apiserver'), args(port), o.log);
    const url = `https://127.0.0.1:${port}/readyz`;
    await waitFor('kube-apiserver', proc, async () => existsSync(caFile) && (await probe(url, c.token, readFileSync(caFile, 'utf8'))) === 200, o.startTimeoutMs);
  };
  return {
    caFile,
    start: async () => {
      if (!gate) return launch(o.ports.apiserver);
      await launch(o.ports.apiserverBehindGate);
      gate.open();
    },
    stop: async () => {
      gate?.shut();
      await stopProcess(proc?.child);
      gate ??= await startReadinessGate(o.ports.apiserver, o.ports.apiserverBehindGate);
    },
    stopForGood: async () => {
      await gate?.stop();
      await stopProcess(proc?.child);
    },
  };
}

/** kube-controller-manager with the controllers a cluster without kubelets can run. */
async function startControllerManager(bin: string, kubeconfigPath: string, stops: (() => Promise<void>)[], log: (line: string) => void): Promise<void> {
  const kcm = startProcess('kube-controller-manager', join(bin, 'kube-controller-manager'), [
    `--kubeconfig=${kubeconfigPath}`, '--leader-elect=false', '--port=0', '--secure-port=0',
    // No kubelets: the token controller needs a root CA, node IPAM a pod CIDR, and the node
    // lifecycle controller would evict the pod simulator's pods from its heartbeat-less Node.
    '--controllers=*,-serviceaccount-token,-nodeipam,-nodelifecycle',
    '--concurrent-gc-syncs=5',
    // Its client defaults to 20 requests per second, which paces every Deployment and
    // ReplicaSet on a busy test cluster far more than the machine does.
    '--kube-api-qps=200', '--kube-api-burst=400',
  ], log);
  stops.push(() => stopProcess(kcm.child));
  // It has no health port here; give it a moment and make sure it did not die on its flags.
  await sleep(500);
  if (kcm.child.exitCode !== null) throw new Error(`kube-controller-manager exited:\n${lastWords(kcm)}`);
}

function httpStatus(url: string): Promise<number> {
  return new Promise((done) => {
    const req = httpGet(url, { timeout: 2_000 }, (res) => {
      res.resume();
      done(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => done(0));
  });
}

function writeKubeconfig(path: string, server: string, caPem: string, token: string): void {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'skiff-local', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    users: [{ name: 'skiff-admin', user: { token } }],
    contexts: [{ name: 'skiff-local', context: { cluster: 'skiff-local', user: 'skiff-admin', namespace: 'default' } }],
    'current-context': 'skiff-local',
  };
  writeFileSync(path, stringify(config), { mode: 0o600 });
}
