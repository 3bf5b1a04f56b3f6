// npm run bench — every benchmark in turn (webhook, controller with its direct-client baseline,
// the Go peer at 1,000, canary, slow analysis, kubectl skiff start-up, idle footprint), then the figures with the machine they ran on.
import { benchCanary, printCanary } from './canary.js';
import { benchCli, printCli } from './cli.js';
import { benchController, benchSizes, printController, writeControllerSvg } from './controller.js';
import { benchPeer, printPeer, type PeerRow } from './peer.js';
import { benchSlowAnalysis, printSlowAnalysis } from './slow-analysis.js';
import { benchFootprint, printFootprint } from './footprint.js';
import { machine, otherCpuNote, watchOtherCpu } from './support.js';
import { benchWebhook, printWebhook } from './webhook.js';

// One after the other: on a small machine two at once would measure each other.
async function timed<T>(what: string, fn: () => Promise<T>): Promise<[T, string]> {
  console.error(`${what} benchmark...`);
  const t0 = Date.now();
  const others = watchOtherCpu();
  const result = await fn();
  return [result, `${((Date.now() - t0) / 1000).toFixed(0)} s; ${otherCpuNote(others.stop())}`];
}

async function main(): Promise<void> {
  const started = Date.now();
  const sizes = benchSizes();
  const [webhook, webhookS] = await timed('webhook', () => benchWebhook());
  const [controller, controllerS] = await timed('controller', () => benchController(sizes));
  // The Go peer at 1,000 (a few minutes at its 5 requests a second); it needs the Go toolchain
  // that built the control plane, and its absence costs only this section.
  const [peer, peerS] = await timed('Go peer', () => benchPeer([1000]).catch((err: Error) => err));
  const [canary, canaryS] = await timed('canary', () => benchCanary());
  const [analysis, analysisS] = await timed('slow analysis', () => benchSlowAnalysis());
  const [cli, cliS] = await timed('kubectl skiff start-up', () => benchCli());
  const [footprint, footprintS] = await timed('footprint', () => benchFootprint());
  const plot = writeControllerSvg(controller);
  console.log(`\nMachine: ${machine()}\n`);
  console.log(`Webhook (HTTPS keep-alive, autocannon, config/samples/app-full.yaml; servers in turns, medians of 5 rounds; ${webhookS})`);
  printWebhook(webhook);
  console.log(`\nController (real control plane, pod simulator; Apps created 20 at a time, 4 workers, baseline 4 at a time; ${controllerS})`);
  printController(controller);
  console.log(`plot: ${plot}`);
  console.log(`\nBeside client-go's sample-controller (same control plane, N Foos → Deployments against N Apps; ${peerS})`);
  if (peer instanceof Error) console.log(`not run: ${peer.message}`);
  else printPeer(peer as PeerRow[]);
  console.log(`\nCanary (${canaryS})`);
  printCanary(canary);
  console.log(`\nAnalysis outside the reconcile workers (${analysisS})`);
  printSlowAnalysis(analysis);
  console.log(`\nkubectl skiff start-up (a new process per run, through the launcher; ${cliS})`);
  printCli(cli);
  console.log(`\nFixed cost: the controller idle with no Apps, bundle against tsc output; the plugin's --help (${footprintS})`);
  printFootprint(footprint);
  console.log(`\n(total ${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

main().then(() => process.exit(0), (err: Error) => { console.error(err); process.exit(1); });
