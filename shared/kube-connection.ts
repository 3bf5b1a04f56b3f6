// Kubeconfig reading of the plugin and the controller: which server, which credentials, which
// namespace, from the files kubectl would read (--kubeconfig, KUBECONFIG, ~/.kube/config) or the
// in-cluster service account. Parsing is pure (`resolveConnection`); reading files is in
// `loadConnection`. What it cannot do itself (an auth-provider) is marked for the lazily loaded
// client-node fallback (kube-auth-fallback.ts), so that neither process loads client-node otherwise.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';
import { execConfig, type ExecConfig } from './exec-credential.js';
import { proxyFromEnvironment } from './proxy-env.js';
import { PROXY_SCHEMES } from './proxy-tunnel.js';

export class KubeConfigError extends Error {}

/** Everything needed to reach the API server, resolved from a kubeconfig. */
export interface Connection {
  server: string;
  namespace: string;
  context: string;
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  token?: string;
  /**
   * Where the token came from when it was read from a file: a process that runs for long reads
   * it again (the in-cluster token is rotated), as client-go does.
   */
  tokenFile?: string;
  username?: string;
  password?: string;
  insecure: boolean;
  /**
   * The kubeconfig's `tls-server-name`: the name the server's certificate is checked against
   * (and sent as SNI) when it differs from the server address's host, as kubectl does.
   */
  serverName?: string;
  /**
   * Who the requests act as (the kubeconfig user's `as`, `as-uid`, `as-groups`, `as-user-extra`,
   * or kubectl's --as flags): sent as Impersonate-* headers, as kubectl sends them, so that the
   * API server authorizes each request as that user, not as the credentials' owner.
   */
  impersonate?: Impersonation;
  /** The cluster's `proxy-url` (http, https or socks5): every connection goes through it. */
  proxy?: string;
  /** The user's exec credential plugin (exec-credential.ts runs it). */
  exec?: ExecConfig;
  /** Set when the user authenticates through what only client-node does (an auth-provider): the reason. */
  fallback?: string;
  /** The kubeconfig files it came from (for the fallback and for messages). */
  files: string[];
}

export interface Impersonation {
  user?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

interface Named<T> { name: string; [key: string]: unknown; value?: T }
type Doc = { path: string; config: Record<string, unknown> };
type Fields = Record<string, unknown>;

export const NO_CONFIG = 'no Kubernetes configuration found: set KUBECONFIG (or pass --kubeconfig), create ~/.kube/config, or run in a cluster with a service account';

/** The entry `name` of a list (clusters, users, contexts) across files: the first file that has it wins, as with kubectl. */
function entry(docs: Doc[], list: string, field: string, name: string): { fields: Fields; dir: string } | undefined {
  for (const doc of docs) {
    const items = (doc.config[list] ?? []) as Named<unknown>[];
    const found = Array.isArray(items) ? items.find((i) => i?.name === name) : undefined;
    if (found) return { fields: (found[field] ?? {}) as Fields, dir: dirname(doc.path) };
  }
  return undefined;
}

type ReadFile = (path: string) => Buffer;

/** A PEM from `<name>-data` (base64) or the file `<name>` (relative to the kubeconfig's folder). */
function material(fields: Fields, name: string, dir: string, read: ReadFile): Buffer | undefined {
  const data = fields[`${name}-data`];
  if (typeof data === 'string' && data) return Buffer.from(data, 'base64');
  const file = fields[name];
  if (typeof file !== 'string' || !file) return undefined;
  const path = isAbsolute(file) ? file : join(dir, file);
  try {
    return read(path);
  } catch (err) {
    throw new KubeConfigError(`cannot read ${name} ${path}: ${(err as Error).message}`);
  }
}

function credentials(user: { fields: Fields; dir: string } | undefined, read: ReadFile): Partial<Connection> {
  if (!user) return {};
  const f = user.fields;
  const cert = material(f, 'client-certificate', user.dir, read);
  // A key without its certificate is no client certificate (client-go's HasCertAuth): left out.
  const out: Partial<Connection> = { cert, key: cert ? material(f, 'client-key', user.dir, read) : undefined };
  const token = typeof f.token === 'string' && f.token ? f.token : undefined;
  if (typeof f.tokenFile === 'string' && f.tokenFile) {
    // As client-go: the file's token wins whenever the file can be read; `token`, when the user
    // has one too, stands in while it cannot (read again each minute).
    out.tokenFile = isAbsolute(f.tokenFile) ? f.tokenFile : join(user.dir, f.tokenFile);
    try {
      out.token = material({ tokenFile: f.tokenFile }, 'tokenFile', user.dir, read)!.toString('utf8').trim();
      if (!out.token) throw new KubeConfigError(`tokenFile ${out.tokenFile} is empty`);
    } catch (err) {
      if (!token) throw err;
      out.token = token;
    }
  } else if (token) out.token = token;
  if (typeof f.username === 'string') out.username = f.username;
  if (typeof f.password === 'string') out.password = f.password;
  // An exec plugin is run by exec-credential.ts (resolveConnection, which knows the cluster).
  if (!f.exec && f['auth-provider']) out.fallback = 'an auth-provider';
  const impersonate = impersonation(f);
  if (impersonate) out.impersonate = impersonate;
  return out;
}

const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : undefined);

/** The user's `as`, `as-uid`, `as-groups` and `as-user-extra`, when it sets any. */
function impersonation(f: Fields): Impersonation | undefined {
  const out: Impersonation = {};
  if (typeof f.as === 'string' && f.as) out.user = f.as;
  if (typeof f['as-uid'] === 'string' && f['as-uid']) out.uid = f['as-uid'];
  const groups = strings(f['as-groups']);
  if (groups?.length) out.groups = groups;
  const extra = f['as-user-extra'];
  if (extra && typeof extra === 'object' && !Array.isArray(extra)) {
    const entries = Object.entries(extra).map(([k, v]) => [k, strings(v) ?? []] as const).filter(([, v]) => v.length > 0);
    if (entries.length) out.extra = Object.fromEntries(entries);
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * The Impersonate-* headers of an impersonation, as client-go's round tripper writes them: an
 * extra's key escaped where a header name cannot hold the byte (and "%" itself).
 */
export function impersonationHeaders(imp: Impersonation | undefined): Record<string, string | string[]> {
  if (!imp) return {};
  const headers: Record<string, string | string[]> = { 'impersonate-user': imp.user ?? '' };
  if (imp.uid) headers['impersonate-uid'] = imp.uid;
  if (imp.groups?.length) headers['impersonate-group'] = imp.groups;
  for (const [key, values] of Object.entries(imp.extra ?? {})) {
    const escaped = [...Buffer.from(key, 'utf8')].map((b) => (isTokenByte(b) && b !== 0x25 ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
    headers[`impersonate-extra-${escaped}`] = values;
  }
  return headers;
}

/** A byte a header name (an RFC 7230 token) may hold. */
const isTokenByte = (b: number) => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || "!#$%&'*+-.^_`|~".includes(String.fromCharCode(b));

/** A proxy's URL (`subject` says whose), checked as client-go checks it: said at once rather than found out as a connection that never comes. */
function proxyUrl(value: unknown, subject: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || !url.hostname) throw new KubeConfigError(`${subject} ${JSON.stringify(value)}, which is not a URL such as http://proxy.example:3128`);
  if (!(PROXY_SCHEMES as readonly string[]).includes(url.protocol)) {
    throw new KubeConfigError(`${subject} ${JSON.stringify(value)}, whose scheme "${url.protocol.replace(/:$/, '')}" is none of http, https and socks5`);
  }
  return url.href;
}

/** The connection of `context` (default: current-context) in parsed kubeconfig documents. Pure but for reading referenced files. */
export function resolveConnection(docs: Doc[], opts: { context?: string; impersonate?: Impersonation } = {}, read: ReadFile = (p) => readFileSync(p)): Connection {
  const current = docs.map((d) => d.config['current-context']).find((c) => typeof c === 'string' && c);
  const contextName = opts.context ?? (current as string | undefined);
  if (!contextName) throw new KubeConfigError(`the kubeconfig (${docs.map((d) => d.path).join(delimiter)}) has no current-context: pass --context`);
  const context = entry(docs, 'contexts', 'context', contextName);
  if (!context) throw new KubeConfigError(`context "${contextName}" not found in the kubeconfig (${docs.map((d) => d.path).join(delimiter)})`);
  const clusterName = String(context.fields.cluster ?? '');
  const cluster = entry(docs, 'clusters', 'cluster', clusterName);
  if (!cluster) throw new KubeConfigError(`context "${contextName}" names cluster "${clusterName}", which is not in the kubeconfig`);
  const server = cluster.fields.server;
  if (typeof server !== 'string' || !server) throw new KubeConfigError(`cluster "${clusterName}" has no server in the kubeconfig`);
  const proxy = proxyUrl(cluster.fields['proxy-url'], `cluster "${clusterName}" has proxy-url`);
  const userName = context.fields.user;
  const user = typeof userName === 'string' ? entry(docs, 'users', 'user', userName) : undefined;
  if (typeof userName === 'string' && userName && !user) throw new KubeConfigError(`context "${contextName}" names user "${userName}", which is not in the kubeconfig`);
  const ca = material(cluster.fields, 'certificate-authority', cluster.dir, read);
  const insecure = cluster.fields['insecure-skip-tls-verify'] === true;
  // What kubectl's validation refuses, refused alike (client-go's clientcmd validation).
  const given = (fields: Fields, name: string) => Boolean(fields[name]);
  if (insecure && ca) throw new KubeConfigError(`cluster "${clusterName}": specifying a root certificates file with the insecure flag is not allowed`);
  if (given(cluster.fields, 'certificate-authority') && given(cluster.fields, 'certificate-authority-data')) {
    throw new KubeConfigError(`cluster "${clusterName}": certificate-authority-data and certificate-authority are both specified`);
  }
  if (user) {
    const cert = given(user.fields, 'client-certificate') || given(user.fields, 'client-certificate-data');
    const key = given(user.fields, 'client-key') || given(user.fields, 'client-key-data');
    if (cert && !key) throw new KubeConfigError(`user "${userName}": client-key-data or client-key must be specified to use the clientCert authentication method`);
  }
  const serverName = typeof cluster.fields['tls-server-name'] === 'string' && cluster.fields['tls-server-name'] ? cluster.fields['tls-server-name'] : undefined;
  const creds = credentials(user, read);
  const exec = user?.fields.exec;
  if (exec && typeof exec === 'object') creds.exec = execConfig(exec as Fields, user.dir, cluster.fields, ca);
  // As client-go's DefaultServerURL: https when there is TLS to set up, else http.
  const url = serverUrl(server, Boolean(ca || (creds.cert && creds.key) || insecure || serverName));
  if (!url) throw new KubeConfigError(`cluster "${clusterName}" has server "${server}", which is not an http or https URL`);
  return {
    server: url,
    namespace: typeof context.fields.namespace === 'string' && context.fields.namespace ? context.fields.namespace : 'default',
    context: contextName,
    ca,
    insecure,
    ...(serverName ? { serverName } : {}),
    ...(proxy ? { proxy } : {}),
    ...creds,
    ...impersonating(creds.impersonate, opts.impersonate),
    files: docs.map((d) => d.path),
  };
}

/**
 * The kubeconfig's impersonation with kubectl's --as, --as-group and --as-uid over it, field by
 * field as kubectl merges them; refused, as kubectl refuses it, when it names groups, a uid or
 * extras and no user to act as.
 */
function impersonating(kubeconfig: Impersonation | undefined, flags: Impersonation | undefined): { impersonate?: Impersonation } {
  const merged: Impersonation = { ...kubeconfig };
  for (const [k, v] of Object.entries(flags ?? {}) as [keyof Impersonation, never][]) if (v !== undefined) merged[k] = v;
  if (Object.keys(merged).length === 0) return {};
  if (!merged.user) throw new KubeConfigError('requesting uid, groups or user-extra without impersonating a user: set the user to act as (--as, or the kubeconfig user\'s "as")');
  return { impersonate: merged };
}

/**
 * The kubeconfig's server as a URL without a trailing "/", or undefined when it is none Skiff can
 * reach. A server without a scheme (`10.0.0.1:6443`) is taken as kubectl takes it: https when the
 * cluster or the user has TLS settings (a CA, a client certificate, insecure-skip-tls-verify,
 * tls-server-name),
 * else http. It used to reach the transport as it was, where `new URL` refused it (a stack trace)
 * or read `localhost:6443` as a scheme of its own (every request failing).
 */
export function serverUrl(server: string, tls: boolean): string | undefined {
  const full = /^[a-z][a-z0-9+.-]*:\/\//i.test(server) ? server : `${tls ? 'https' : 'http'}://${server}`;
  let url: URL;
  try {
    url = new URL(full);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname) return undefined;
  return full.replace(/\/+$/, '');
}

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

function inCluster(env: NodeJS.ProcessEnv, serviceAccount: string): Connection | undefined {
  const host = env.KUBERNETES_SERVICE_HOST;
  if (!host || !existsSync(join(serviceAccount, 'token'))) return undefined;
  const read = (f: string) => readFileSync(join(serviceAccount, f), 'utf8');
  return {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${env.KUBERNETES_SERVICE_PORT ?? '443'}`,
    namespace: existsSync(join(serviceAccount, 'namespace')) ? read('namespace').trim() : 'default',
    context: 'in-cluster',
    ca: read('ca.crt'),
    token: read('token').trim(),
    tokenFile: join(serviceAccount, 'token'),
    insecure: false,
    files: [],
  };
}

/** The kubeconfig files kubectl would read: --kubeconfig, else every existing file of KUBECONFIG, else ~/.kube/config. */
export function kubeconfigFiles(path: string | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  if (path) return [path];
  if (env.KUBECONFIG) return env.KUBECONFIG.split(delimiter).filter((p) => p && existsSync(p));
  const home = join(env.HOME ?? homedir(), '.kube', 'config');
  return existsSync(home) ? [home] : [];
}

/** The connection for --kubeconfig / --context, as kubectl would choose it. */
export function loadConnection(opts: { path?: string; context?: string; impersonate?: Impersonation }, env: NodeJS.ProcessEnv = process.env, serviceAccount = SERVICE_ACCOUNT): Connection {
  const files = kubeconfigFiles(opts.path, env);
  // A cluster without proxy-url goes through the environment's proxy, as client-go's does.
  // (The kubeconfig's own was checked as it was read.)
  const withProxy = (c: Connection): Connection => {
    const proxy = c.proxy ? undefined : proxyFromEnvironment(c.server, env);
    return proxy ? { ...c, proxy: proxyUrl(proxy, `the environment's ${c.server.startsWith('https:') ? 'HTTPS_PROXY' : 'HTTP_PROXY'} is`) } : c;
  };
  const withImpersonation = (c: Connection): Connection => withProxy({ ...c, ...impersonating(undefined, opts.impersonate) });
  if (files.length === 0) {
    const cluster = opts.context ? undefined : inCluster(env, serviceAccount);
    if (cluster) return withImpersonation(cluster);
    throw new KubeConfigError(NO_CONFIG);
  }
  const docs = files.map((path) => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new KubeConfigError(`cannot read kubeconfig ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
    let config: unknown;
    try {
      config = parse(text);
    } catch (err) {
      // The parser's first line ends with ":" before a snippet of the file, which is left out.
      throw new KubeConfigError(`kubeconfig ${path} is not valid YAML: ${(err as Error).message.split('\n')[0].replace(/:$/, '')}`);
    }
    return { path, config: (config && typeof config === 'object' ? config : {}) as Record<string, unknown> };
  });
  // Files that choose no context (empty ones) make an empty config for client-go's deferred
  // loading, which then takes the service account when in a pod (DeferredLoadingClientConfig).
  const chosen = opts.context || docs.some((d) => typeof d.config['current-context'] === 'string' && d.config['current-context']);
  const cluster = chosen ? undefined : inCluster(env, serviceAccount);
  if (cluster) return withImpersonation(cluster);
  return withProxy(resolveConnection(docs, opts));
}
