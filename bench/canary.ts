// npm run bench:canary — the time from an image change to a completed 4-step canary with zero
// pauses (setWeight 25, pause 0s, setWeight 50, pause 0s), on a real control plane with the pod
// simulator, averaged over a few rollouts.
import { execFileSync } from 'node:child_process';
import type { App } from '../shared/app-types.js';
import { appReady, benchControlPlane, otherCpuNote, startNode, stop, watchOtherCpu } from './support.js';
import { eventually } from '../dev/wait.js';

const appsApi = { group: 'skiff.dev', version: 'v1alpha1', plural: 'apps', namespace: 'default', name: 'web' };

export async function benchCanary(rollouts = 3): Promise<number[]> {
  const cluster = await benchControlPlane('canary');
  const { cp, api } = cluster;
  const controller = startNode('controller', ['--health-port=0', '--metrics-port=0'], { KUBECONFIG: cp.kubeconfigPath, SKIFF_LOG_LEVEL: 'error' });
  const get = async () => (await api.custom.getNamespacedCustomObject(appsApi)) as App;
  const times: number[] = [];
  try {
    await api.custom.createNamespacedCustomObject({ ...appsApi, body: { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web' }, spec: {
      image: 'registry.example/web:0', replicas: 4, ingress: { host: 'web.example.com' },
      rollout: { strategy: 'Canary', scaleDownDelaySeconds: 0, steps: [{ setWeight: 25 }, { pause: { duration: '0s' } }, { setWeight: 50 }, { pause: { duration: '0s' } }] },
    } } });
    await eventually(async () => appReady(await get()), { timeoutMs: 60_000, intervalMs: 100, message: 'the first version' });
    for (let i = 1; i <= rollouts; i++) {
      const image = `registry.example/web:${i}`;
      const t0 = Date.now();
      execFileSync('kubectl', ['--kubeconfig', cp.kubeconfigPath, 'patch', 'app', 'web', '--type=merge', '-p', JSON.stringify({ spec: { image } })], { stdio: 'ignore' });
      await eventually(async () => { const a = await get(); return a.status?.stableImage === image && !a.status.canary; }, { timeoutMs: 120_000, intervalMs: 50, message: `the canary of ${image}` });
      times.push((Date.now() - t0) / 1000);
    }
  } finally {
    await stop(controller);
    await cluster.stop();
  }
  return times;
}

export function printCanary(times: number[]): void {
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(`image change -> completed 4-step canary (zero pauses, 4 replicas): ${times.map((t) => t.toFixed(1)).join(' s, ')} s; mean ${mean.toFixed(1)} s`);
}

if (process.argv[1]?.endsWith('bench/canary.js')) {
  const others = watchOtherCpu();
  benchCanary().then((times) => { printCanary(times); console.log(otherCpuNote(others.stop())); }, (err: Error) => { console.error(err); process.exit(1); }).then(() => process.exit(0));
}
