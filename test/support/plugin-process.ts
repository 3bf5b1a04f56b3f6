// `kubectl skiff` run as a user runs it (cli/kubectl-skiff, a process of its own), against a
// stand-in API server on loopback whose answers a test gives, with a kubeconfig of its own.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './bundle.js';

export interface PluginRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface StandIn {
  /** The plugin with `args` and the stand-in's kubeconfig (namespace shop). */
  run(args: string[]): Promise<PluginRun>;
  close(): void;
}

export async function pluginAgainst(answer: RequestListener): Promise<StandIn> {
  const server: Server = createServer(answer);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const dir = mkdtempSync(join(tmpdir(), 'skiff-plugin-'));
  const kubeconfig = join(dir, 'config');
  writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: k, namespace: shop}}]\nclusters: [{name: k, cluster: {server: "http://127.0.0.1:${(server.address() as AddressInfo).port}"}}]\n`);
  return {
    run: (args) => new Promise((done) => {
      const child = spawn(join(repoRoot, 'cli', 'kubectl-skiff'), [...args, '--kubeconfig', kubeconfig], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
      child.on('close', (code) => done({ code, stdout, stderr }));
    }),
    close: () => {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
