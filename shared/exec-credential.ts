// Exec credential plugins (client.authentication.k8s.io: `aws eks get-token`,
// gke-gcloud-auth-plugin, kubelogin, ...), run as client-go runs them: the plugin's stderr is the
// user's (a device code to enter, a browser to open, an install hint), its stdin the user's
// terminal when it may ask (interactiveMode), KUBERNETES_EXEC_INFO tells it the cluster when it
// asks for it (provideClusterInfo), and the credential is kept until it expires.
import { spawn, type StdioOptions } from 'node:child_process';
import { isAbsolute, resolve, sep } from 'node:path';

export interface ExecConfig {
  command: string;
  args: string[];
  env: { name: string; value: string }[];
  apiVersion: string;
  /** Never, IfAvailable (the default) or Always. */
  interactiveMode: string;
  provideClusterInfo: boolean;
  installHint?: string;
  /** What KUBERNETES_EXEC_INFO says of the cluster when provideClusterInfo is set. */
  cluster: Record<string, unknown>;
}

export interface ExecCredential {
  token?: string;
  cert?: string;
  key?: string;
}

/**
 * An exec plugin's command as client-go runs it (clientcmd's ResolveLocalPaths): a path with a
 * separator in it is relative to the folder of the kubeconfig that names it; a bare name
 * (`aws`) is looked up on PATH.
 */
export function execCommandPath(command: string, kubeconfigDir: string): string {
  if (!command.includes(sep) || isAbsolute(command)) return command;
  return resolve(kubeconfigDir, command);
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * The exec settings of a kubeconfig user (`fields.exec`), its command resolved against the
 * folder of the kubeconfig that names it; `cluster` the cluster's kubeconfig fields.
 */
export function execConfig(exec: Record<string, unknown>, dir: string, cluster: Record<string, unknown>, ca: Buffer | undefined): ExecConfig {
  const command = typeof exec.command === 'string' ? exec.command : '';
  const env = Array.isArray(exec.env)
    ? exec.env.filter((e): e is { name: string; value: string } => typeof e?.name === 'string' && typeof e?.value === 'string')
    : [];
  const extension = Array.isArray(cluster.extensions)
    ? (cluster.extensions as { name?: string; extension?: unknown }[]).find((e) => e?.name === 'client.authentication.k8s.io/exec')?.extension
    : undefined;
  return {
    command: command && execCommandPath(command, dir),
    args: strings(exec.args),
    env,
    apiVersion: typeof exec.apiVersion === 'string' ? exec.apiVersion : '',
    interactiveMode: typeof exec.interactiveMode === 'string' && exec.interactiveMode ? exec.interactiveMode : 'IfAvailable',
    provideClusterInfo: exec.provideClusterInfo === true,
    ...(typeof exec.installHint === 'string' && exec.installHint ? { installHint: exec.installHint } : {}),
    // The fields of client.authentication.k8s.io's Cluster, from the kubeconfig's cluster.
    cluster: {
      server: cluster.server,
      ...(typeof cluster['tls-server-name'] === 'string' ? { 'tls-server-name': cluster['tls-server-name'] } : {}),
      ...(cluster['insecure-skip-tls-verify'] === true ? { 'insecure-skip-tls-verify': true } : {}),
      ...(ca ? { 'certificate-authority-data': ca.toString('base64') } : {}),
      ...(typeof cluster['proxy-url'] === 'string' ? { 'proxy-url': cluster['proxy-url'] } : {}),
      ...(extension !== undefined ? { config: extension } : {}),
    },
  };
}

const API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];

/** Why the settings cannot run, or undefined. */
function problem(c: ExecConfig, terminal: boolean): string | undefined {
  if (!c.command) return 'its exec section has no command';
  if (!API_VERSIONS.includes(c.apiVersion)) return `its exec apiVersion "${c.apiVersion}" is none of ${API_VERSIONS.join(', ')}`;
  if (!['Never', 'IfAvailable', 'Always'].includes(c.interactiveMode)) return `its exec interactiveMode "${c.interactiveMode}" is none of Never, IfAvailable, Always`;
  if (c.interactiveMode === 'Always' && !terminal) return 'its exec plugin needs a terminal to ask on (interactiveMode: Always), and standard input is not one';
  return undefined;
}

export interface ExecOptions {
  /** Whether standard input is a terminal the plugin may ask on. */
  terminal?: boolean;
  nowMs?: () => number;
}

/**
 * The credential of an exec plugin: run at the first call, then again once it has expired (its
 * expirationTimestamp; none: kept until forget(), which a refusal by the API server calls). Calls at the same time share one run. Rejects with what went
 * wrong (the plugin missing, failing, or printing no credential), in words.
 */
export function execCredentials(c: ExecConfig, opts: ExecOptions = {}): (() => Promise<ExecCredential>) & { forget(): void } {
  const terminal = opts.terminal ?? process.stdin.isTTY === true;
  const nowMs = opts.nowMs ?? Date.now;
  let held: { credential: ExecCredential; expiresAtMs: number } | undefined;
  let running: Promise<ExecCredential> | undefined;
  const get = async () => {
    if (held && nowMs() < held.expiresAtMs) return held.credential;
    running ??= run(c, terminal).then(
      ({ credential, expiresAtMs }) => {
        held = { credential, expiresAtMs };
        return credential;
      },
    ).finally(() => { running = undefined; });
    return running;
  };
  /** The credential was refused (401): the next call runs the plugin again, as client-go does. */
  const forget = () => { held = undefined; };
  return Object.assign(get, { forget });
}

async function run(c: ExecConfig, terminal: boolean): Promise<{ credential: ExecCredential; expiresAtMs: number }> {
  const refused = problem(c, terminal);
  if (refused) throw new Error(refused);
  const interactive = c.interactiveMode !== 'Never' && terminal;
  const info = { kind: 'ExecCredential', apiVersion: c.apiVersion, spec: { interactive, ...(c.provideClusterInfo ? { cluster: c.cluster } : {}) } };
  const env = { ...process.env, ...Object.fromEntries(c.env.map((e) => [e.name, e.value])), KUBERNETES_EXEC_INFO: JSON.stringify(info) };
  // stderr is the user's, as with kubectl: what the plugin says there (a code to enter) must be seen.
  const stdio: StdioOptions = [interactive ? 'inherit' : 'ignore', 'pipe', 'inherit'];
  const stdout = await new Promise<string>((done, fail) => {
    const child = spawn(c.command, c.args, { env, stdio });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => { out += d; });
    child.on('error', (err: NodeJS.ErrnoException) => fail(new Error(err.code === 'ENOENT'
      ? `executable ${c.command} not found${c.installHint ? `\n\n${c.installHint}` : ''}`
      : `executable ${c.command} could not be run: ${err.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) done(out);
      else fail(new Error(`executable ${c.command} failed with ${signal ? `signal ${signal}` : `exit code ${code}`}`));
    });
  });
  let parsed: { apiVersion?: unknown; kind?: unknown; status?: { token?: unknown; clientCertificateData?: unknown; clientKeyData?: unknown; expirationTimestamp?: unknown } };
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new Error(`executable ${c.command} printed no ExecCredential (not JSON)`);
  }
  if (parsed?.apiVersion !== c.apiVersion || parsed.kind !== 'ExecCredential') {
    throw new Error(`executable ${c.command} printed an ExecCredential of ${JSON.stringify(parsed?.apiVersion)}, not the ${c.apiVersion} the kubeconfig asks for`);
  }
  const s = parsed.status ?? {};
  const credential: ExecCredential = {
    ...(typeof s.token === 'string' && s.token ? { token: s.token } : {}),
    ...(typeof s.clientCertificateData === 'string' && s.clientCertificateData ? { cert: s.clientCertificateData } : {}),
    ...(typeof s.clientKeyData === 'string' && s.clientKeyData ? { key: s.clientKeyData } : {}),
  };
  if (!credential.token && !(credential.cert && credential.key)) throw new Error(`executable ${c.command} printed an ExecCredential with neither a token nor a client certificate and key`);
  if (Boolean(credential.cert) !== Boolean(credential.key)) throw new Error(`executable ${c.command} printed a client certificate without its key, or a key without its certificate`);
  const expires = typeof s.expirationTimestamp === 'string' ? Date.parse(s.expirationTimestamp) : Number.NaN;
  return { credential, expiresAtMs: Number.isNaN(expires) ? Number.POSITIVE_INFINITY : expires };
}
