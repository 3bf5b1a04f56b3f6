// The set-up most integration suites share: a real control plane with the App CRD, the pod
// simulator standing in for the kubelet, and controllers running in this process, started once
// for the suite and stopped after it (controllers first, the cluster last).
import { connectionOf } from '../../dev/connection-of.js';
import { strict as assert } from 'node:assert';
import type { KubeConfig } from '@kubernetes/client-node';
import { startController, type Controller, type ControllerOptions } from '../../controller/controller.js';
import type { KubeClients } from '../../dev/kube-clients.js';
import type { ControlPlane, ControlPlaneOptions } from '../../dev/control-plane.js';
import { startPodSimulator, type PodSimulator } from '../../dev/pod-simulator.js';
import { until } from '../../dev/wait.js';
import { startTestCluster, type TestCluster } from './cluster.js';

/** A controller's options but its kubeconfig, which is the cluster's. */
export type ControllerSettings = Omit<ControllerOptions, 'connection'>;

export interface ControllerClusterOptions {
  /** How the control plane runs: the controller-manager, an audit log. */
  cluster?: Omit<ControlPlaneOptions, 'dir'>;
  /** Run the pod simulator (default true); without a controller-manager there are no pods anyway. */
  pods?: boolean;
  /** What the controllers need before they start: CRDs, a webhook, a stand-in Prometheus. */
  prepare?: (cluster: TestCluster) => Promise<void>;
  /** Stops what `prepare` or the tests started: after the controllers, before the pod simulator and the cluster. */
  cleanup?: () => Promise<void> | void;
  /** One entry per controller, read once `prepare` is done; none for a suite that runs its own. */
  controllers?: () => ControllerSettings[];
  /** How long the controllers may take to be ready together (default 30 s), and what that wait is called. */
  ready?: { timeoutMs?: number; message?: string };
  /** Timeouts of the before() and after() hooks (default 180 s and 60 s). */
  hookTimeoutMs?: { start?: number; stop?: number };
}

export interface ControllerCluster {
  readonly cluster: TestCluster;
  readonly cp: ControlPlane;
  readonly kc: KubeConfig;
  /** KubeClients with the user agent "skiff-test", told apart from the controllers' in the audit log. */
  readonly api: KubeClients;
  /** The first controller; reading it while it is stopped is a mistake in the test. */
  readonly controller: Controller;
  /** Every controller running, in the order of `controllers`. */
  readonly controllers: readonly Controller[];
  /** Stops the first controller, for a test that restarts it or that leaves the cluster to processes of its own. */
  stopController(): Promise<void>;
  /** Starts the first controller again with its settings and `changes` over them; resolves once started, not ready. */
  startController(changes?: Partial<ControllerSettings>): Promise<Controller>;
}

/** Registers the suite's before() and after() hooks; call it inside describe(). */
export function useControllerCluster(name: string, opts: ControllerClusterOptions): ControllerCluster {
  let cluster: TestCluster | undefined;
  let pods: PodSimulator | undefined;
  let settings: ControllerSettings[] = [];
  const running: (Controller | undefined)[] = [];
  const started = (): TestCluster => {
    if (!cluster) throw new Error(`the ${name} cluster is not running`);
    return cluster;
  };

  before(async function () {
    this.timeout(opts.hookTimeoutMs?.start ?? 180_000);
    cluster = await startTestCluster(name, opts.cluster);
    if (opts.pods ?? true) pods = await startPodSimulator(cluster.kc);
    await opts.prepare?.(cluster);
    settings = opts.controllers?.() ?? [];
    for (const s of settings) running.push(await startController({ ...s, connection: connectionOf(cluster.kc) }));
    if (running.length > 0) {
      await until(() => running.forEach((c) => assert.equal(c!.ready(), undefined)), {
        timeoutMs: opts.ready?.timeoutMs ?? 30_000,
        message: opts.ready?.message ?? (running.length > 1 ? 'controllers ready' : 'controller ready'),
      });
    }
  });

  after(async function () {
    this.timeout(opts.hookTimeoutMs?.stop ?? 60_000);
    await Promise.all(running.map((c) => c?.stop()));
    await opts.cleanup?.();
    await pods?.stop();
    await cluster?.stop();
  });

  return {
    get cluster() {
      return started();
    },
    get cp() {
      return started().cp;
    },
    get kc() {
      return started().kc;
    },
    get api() {
      return started().api;
    },
    get controller() {
      if (!running[0]) throw new Error('the controller is stopped');
      return running[0];
    },
    get controllers() {
      return running.filter((c): c is Controller => c !== undefined);
    },
    async stopController() {
      const c = running[0];
      running[0] = undefined;
      await c?.stop();
    },
    async startController(changes = {}) {
      if (running[0]) throw new Error('the controller is running: stop it first');
      running[0] = await startController({ ...settings[0], ...changes, connection: connectionOf(started().kc) });
      return running[0];
    },
  };
}
