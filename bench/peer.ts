// npm run bench:peer [-- --sizes 1000] — Skiff beside its Go peer on one control plane: client-go's
// sample-controller (from the same Debian kubernetes source tree as the control plane, built once
// by hack/build-sample-controller.sh) converging N Foos into N Deployments, and Skiff converging
// N Apps into a Deployment, a Service and a status each. For both: wall time until every object
// exists and until every one is available, peak RSS over idle, CPU seconds, API writes (audit log),
// printed against the goals with their ratios. The sample-controller uses client-go's default 5
// requests per second; Skiff's client is not rate-limited.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeClients } from '../dev/kube-clients.js';
import { forEachLimited } from '../dev/concurrency.js';
import type { ControlPlane } from '../dev/control-plane.js';
import { APP_CRD, benchSizes, controllerRun, PEAK_RSS_GOAL_MIB, type ControllerRow } from './controller.js';
import { mark, otherCpuNote, processUsage, root, stop, table, watchOtherCpu, withBenchCluster } from './support.js';
import { eventually } from '../dev/wait.js';

const FOOS = { group: 'samplecontroller.k8s.io', version: 'v1alpha1', plural: 'foos' };

export interface PeerRow {
  n: number;
  go: { objectsS: number; readyS: number; rssGrowthMiB: number; peakRssMiB: number; cpuS: number; writes: number };
  skiff: ControllerRow;
}

function sampleController(): string {
  const out = execFileSync('bash', [join(root, 'hack', 'build-sample-controller.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return out.trim().split('\n').pop()!;
}

function sampleControllerCrd(): string {
  const cache = process.env.SKIFF_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? '', '.cache'), 'skiff');
  const tree = execFileSync('bash', ['-c', `ls -d "${cache}"/src/kubernetes-*/ | head -1`], { encoding: 'utf8' }).trim();
  return join(tree, 'staging/src/k8s.io/sample-controller/artifacts/examples/crd-status-subresource.yaml');
}

const writesBy = (cp: ControlPlane, agent: string, namespace: string) =>
  readFileSync(cp.auditLogPath!, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    .filter((e) => e.stage === 'ResponseComplete' && String(e.userAgent).startsWith(agent) && e.objectRef?.namespace === namespace && ['create', 'update', 'patch', 'delete'].includes(e.verb)).length;

async function goRun(cp: ControlPlane, api: KubeClients, bin: string, n: number): Promise<PeerRow['go']> {
  const namespace = `bench-go-${n}`;
  await api.core.createNamespace({ body: { metadata: { name: namespace } } });
  const child = spawn(bin, [`-kubeconfig=${cp.kubeconfigPath}`], { stdio: 'ignore' });
  try {
    // Its informers list Foos and Deployments at start; give it that before measuring idle.
    await new Promise((r) => setTimeout(r, 3_000));
    const idle = processUsage(child.pid!);
    const t0 = Date.now();
    await forEachLimited(Array.from({ length: n }, (_, i) => `foo-${i}`), 20, (name) => api.custom.createNamespacedCustomObject({
      ...FOOS, namespace, body: { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name }, spec: { deploymentName: name, replicas: 1 } },
    }));
    // Converged: every Foo's Deployment exists, and is available (the pod simulator's part).
    let objectsS = 0;
    await eventually(async () => {
      const deployments = (await api.apps.listNamespacedDeployment({ namespace })).items;
      if (!objectsS && deployments.length === n) objectsS = (Date.now() - t0) / 1000;
      return deployments.filter((d) => d.status?.availableReplicas === 1).length === n;
    }, { timeoutMs: 3_600_000, intervalMs: 1_000, message: `${n} Deployments of Foos available` });
    const readyS = (Date.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 2_000));
    const used = processUsage(child.pid!);
    return { objectsS, readyS, rssGrowthMiB: used.peakRssMiB - idle.rssMiB, peakRssMiB: used.peakRssMiB, cpuS: used.cpuS - idle.cpuS, writes: writesBy(cp, 'sample-controller', namespace) };
  } finally {
    await stop(child);
  }
}

export function benchPeer(sizes: number[]): Promise<PeerRow[]> {
  const bin = sampleController();
  return withBenchCluster('peer', [APP_CRD, { file: sampleControllerCrd(), name: 'foos.samplecontroller.k8s.io' }], async (cp, api) => {
    const rows: PeerRow[] = [];
    for (const n of sizes) {
      const go = await goRun(cp, api, bin, n);
      console.error(`  N=${n}: sample-controller ${go.readyS.toFixed(1)} s`);
      const skiff = await controllerRun(cp, api, n);
      console.error(`  N=${n}: Skiff ${skiff.readyS.toFixed(1)} s`);
      rows.push({ n, go, skiff: { ...skiff, baselineCreateS: NaN, baselineReadyS: NaN } });
    }
    return rows;
  });
}

export function printPeer(rows: PeerRow[]): void {
  for (const { n, go, skiff } of rows) {
    const growth = skiff.peakRssMiB - skiff.idleRssMiB;
    const cpuMsPerApp = (skiff.cpuS * 1000) / n;
    console.log(`N=${n}`);
    console.log(table(['', 'Go sample-controller', 'Skiff', 'Skiff / Go'], [
      ['objects exist (s)', go.objectsS.toFixed(1), skiff.observedS.toFixed(1), (skiff.observedS / go.objectsS).toFixed(2)],
      ['all available (s)', go.readyS.toFixed(1), skiff.readyS.toFixed(1), (skiff.readyS / go.readyS).toFixed(2)],
      ['peak RSS (MiB)', go.peakRssMiB.toFixed(0), skiff.peakRssMiB.toFixed(0), (skiff.peakRssMiB / go.peakRssMiB).toFixed(2)],
      ['RSS growth over idle (MiB)', go.rssGrowthMiB.toFixed(0), growth.toFixed(0), (growth / Math.max(go.rssGrowthMiB, 1)).toFixed(2)],
      ['CPU (s)', go.cpuS.toFixed(1), skiff.cpuS.toFixed(1), (skiff.cpuS / go.cpuS).toFixed(2)],
      ['API writes per object', (go.writes / n).toFixed(1), skiff.writesPerApp.toFixed(2), (skiff.writesPerApp / (go.writes / n)).toFixed(2)],
    ]));
    console.log(`goals: RSS growth <= 60 MiB per 1,000 Apps: ${(growth * 1000 / n).toFixed(0)} MiB ${mark(growth * 1000 / n <= 60)}; CPU <= 10 ms per App: ${cpuMsPerApp.toFixed(1)} ms ${mark(cpuMsPerApp <= 10)}; ` +
      `<= 7 writes per App: ${skiff.writesPerApp.toFixed(2)} ${mark(skiff.writesPerApp <= 7)}; no-op resync writes 0: ${mark(skiff.resyncWrites === 0)}`);
    console.log(`goal: CPU per converged App <= the Go peer's in the same run: ${cpuMsPerApp.toFixed(2)} ms against ${(go.cpuS * 1000 / n).toFixed(2)} ms ${mark(skiff.cpuS <= go.cpuS)}` +
      (n === 1000 ? `; peak RSS at 1,000 Apps <= ${PEAK_RSS_GOAL_MIB} MiB: ${skiff.peakRssMiB.toFixed(0)} MiB ${mark(skiff.peakRssMiB <= PEAK_RSS_GOAL_MIB)}` : ''));
  }
}

if (process.argv[1]?.endsWith('bench/peer.js')) {
  const others = watchOtherCpu();
  const sizes = process.argv.includes('--sizes') ? benchSizes() : [1000];
  benchPeer(sizes).then((rows) => { printPeer(rows); console.log(otherCpuNote(others.stop())); }, (err: Error) => { console.error(err); process.exit(1); }).then(() => process.exit(0));
}
