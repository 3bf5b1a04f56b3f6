// npm run bench — every benchmark in turn, then the figures with the machine they ran on.
import { cpus, totalmem } from 'node:os';
import { benchCanary, printCanary } from './canary.js';
import { benchController, benchSizes, printController } from './controller.js';
import { benchWebhook, printWebhook } from './webhook.js';

async function main(): Promise<void> {
  const started = Date.now();
  console.error('webhook benchmark...');
  const webhook = await benchWebhook();
  console.error('controller benchmark...');
  const controller = await benchController(benchSizes());
  console.error('canary benchmark...');
  const canary = await benchCanary();
  console.log(`\nMachine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, Kubernetes 1.20.2 control plane on loopback\n`);
  console.log('Webhook (HTTPS keep-alive, autocannon, config/samples/app-full.yaml)');
  printWebhook(webhook);
  console.log('\nController (real control plane, pod simulator; Apps created 20 at a time, 4 workers, baseline 4 at a time)');
  printController(controller);
  console.log('\nCanary');
  printCanary(canary);
  console.log(`\n(total ${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

main().then(() => process.exit(0), (err: Error) => { console.error(err); process.exit(1); });
