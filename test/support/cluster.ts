// A real control plane for one test file, with the App CRD installed and established.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { makeKubeClients, type KubeClients } from '../../dev/kube-clients.js';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from '../../dev/control-plane.js';
import { waitForCrdsEstablished } from '../../dev/crds.js';
import { loadKubeConfig } from '../../shared/kubeconfig.js';
import { repoRoot } from './bundle.js';
import { kubectl } from './kube.js';

export interface TestCluster {
  cp: ControlPlane;
  kc: KubeConfig;
  /** KubeClients with the user agent "skiff-test", told apart from the controller's in the audit log. */
  api: KubeClients;
  dir: string;
  stop(): Promise<void>;
}

export async function startTestCluster(name: string, opts: Omit<ControlPlaneOptions, 'dir'> = {}): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), `skiff-${name}-`));
  const cp = await startControlPlane({ dir, ...opts });
  await kubectl(cp.kubeconfigPath, ['apply', '-f', join(repoRoot, 'config/crd/bases/skiff.dev_apps.yaml')]);
  await waitForCrdsEstablished(cp.kubeconfigPath, ['apps.skiff.dev']);
  const kc = loadKubeConfig({ path: cp.kubeconfigPath });
  return {
    cp, kc, dir,
    api: makeKubeClients(kc, 'skiff-test'),
    stop: async () => {
      await cp.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
