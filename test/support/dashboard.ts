// `kubectl skiff dashboard` as a user runs it, for the dashboard's tests: the built plugin as a
// child process with a kubeconfig, resolving once it printed its URL; plain HTTP requests with
// any Host and Origin (fetch may not set Host); and a read-only user of the test control plane.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { killOnExit, stopProcess } from '../../dev/processes.js';
import type { KubeClients } from '../../dev/kube-clients.js';
import { kubectl } from './kube.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const PLUGIN = join(root, 'cli', 'kubectl-skiff');

export interface RunningDashboard {
  url: string;
  token: string;
  port: number;
  /** http://127.0.0.1:PORT */
  origin: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts the dashboard; resolves once it printed its URL (rejects with its output when it exits first). */
export function startDashboardProcess(kubeconfigPath: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunningDashboard> {
  const child = spawn(PLUGIN, ['dashboard', ...args, '--kubeconfig', kubeconfigPath], { env: { ...process.env, KUBECONFIG: '/nonexistent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  killOnExit(child);
  let out = '';
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`the dashboard printed no URL in 20 s:\n${out}`)), 20_000);
    const seen = () => {
      const m = /(http:\/\/[^\s]+:(\d+)\/\?token=([A-Za-z0-9_-]+))/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      const url = new URL(m[1]);
      done({ url: m[1], token: m[3], port: Number(m[2]), origin: url.origin, child, output: () => out, stop: () => stopProcess(child) });
    };
    child.stdout!.on('data', (d: Buffer) => { out += d.toString(); seen(); });
    child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
    child.once('exit', (code) => { clearTimeout(timer); fail(new Error(`the dashboard exited (${code}):\n${out}`)); });
  });
}

export interface HttpAnswer { status: number; headers: Record<string, string | string[] | undefined>; body: string }

/** One HTTP request to 127.0.0.1:port with exactly the headers given (Host included). */
export function httpRequest(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<HttpAnswer> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

const READ_ONLY_RULES = [
  { apiGroups: ['skiff.dev'], resources: ['apps'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['apps'], resources: ['deployments', 'controllerrevisions'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [''], resources: ['services', 'events'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['gateway.networking.k8s.io'], resources: ['httproutes'], verbs: ['get', 'list', 'watch'] },
];

/**
 * A kubeconfig of a user who may read everything the dashboard shows and write nothing: a
 * ServiceAccount bound to a read-only ClusterRole, with a token from the TokenRequest API.
 */
export async function readOnlyKubeconfig(api: KubeClients, adminKubeconfig: string, dir: string, namespace: string): Promise<string> {
  const name = 'dashboard-viewer';
  await api.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  await kubectl(adminKubeconfig, ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1', kind: 'List', items: [
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules: READ_ONLY_RULES },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name }, subjects: [{ kind: 'ServiceAccount', name, namespace }] },
    ],
  }));
  const token = await api.core.createNamespacedServiceAccountToken({ namespace, name, body: { spec: { audiences: [], expirationSeconds: 3600 } } });
  const admin = JSON.parse(await kubectl(adminKubeconfig, ['config', 'view', '--raw', '-o', 'json'])) as { clusters: { name: string; cluster: Record<string, unknown> }[] };
  const path = join(dir, 'viewer.kubeconfig');
  writeFileSync(path, stringify({
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: 'local', cluster: admin.clusters[0].cluster }],
    users: [{ name, user: { token: token.status!.token } }],
    contexts: [{ name: 'viewer', context: { cluster: 'local', user: name, namespace } }],
    'current-context': 'viewer',
  }), { mode: 0o600 });
  return path;
}
