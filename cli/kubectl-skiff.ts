// kubectl skiff status|promote|abort APP [-n NS]: a kubectl plugin for canary rollouts.
import { ApiException, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { parseArgs } from 'node:util';
import type { App } from '../shared/app-types.js';
import { GROUP, PLURAL, VERSION } from '../shared/app-types.js';
import { currentNamespace, KubeConfigError, loadKubeConfig } from '../shared/kubeconfig.js';
import { ANNOTATION_ABORT, ANNOTATION_PROMOTE } from '../shared/labels.js';
import { formatStatus } from './format-status.js';

const USAGE = `usage: kubectl skiff <command> APP [-n NAMESPACE] [--kubeconfig PATH] [--context NAME]

commands:
  status   show the rollout: step, canary weight, time left in a pause, images, conditions
  promote  skip the remaining canary steps and promote the canary (annotates ${ANNOTATION_PROMOTE}=true)
  abort    abort the canary: traffic back to stable, canary removed (annotates ${ANNOTATION_ABORT}=true)
`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = (() => {
    try {
      return parseArgs({
        args: argv,
        allowPositionals: true,
        options: { namespace: { type: 'string', short: 'n' }, kubeconfig: { type: 'string' }, context: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  })();
  if (values.help) { process.stdout.write(USAGE); return 0; }
  const [command, name, ...extra] = positionals;
  if (!command) throw new UsageError('missing command');
  if (!['status', 'promote', 'abort'].includes(command)) throw new UsageError(`unknown command "${command}"`);
  if (!name) throw new UsageError(`${command}: missing APP name`);
  if (extra.length) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);

  const kc = loadKubeConfig({ path: values.kubeconfig, context: values.context });
  const namespace = values.namespace ?? currentNamespace(kc);
  const api = kc.makeApiClient(CustomObjectsApi);
  let app: App;
  try {
    app = (await api.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: PLURAL, name })) as App;
  } catch (err) {
    if (err instanceof ApiException && err.code === 404) {
      throw new Error(`app "${name}" not found in namespace "${namespace}"`);
    }
    throw err;
  }

  if (command === 'status') {
    process.stdout.write(formatStatus(app, new Date()));
    return 0;
  }
  if (app.spec.rollout?.strategy !== 'Canary') {
    throw new Error(`app ${namespace}/${name} does not use the Canary strategy (spec.rollout.strategy is ${app.spec.rollout?.strategy ?? 'RollingUpdate'}); there is nothing to ${command}`);
  }
  if (!app.status?.canary) {
    throw new Error(`app ${namespace}/${name} has no canary rollout in progress; there is nothing to ${command}`);
  }
  const annotation = command === 'promote' ? ANNOTATION_PROMOTE : ANNOTATION_ABORT;
  await api.patchNamespacedCustomObject(
    { group: GROUP, version: VERSION, namespace, plural: PLURAL, name, body: { metadata: { annotations: { [annotation]: 'true' } } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  process.stdout.write(`app ${namespace}/${name}: ${command === 'promote' ? `promoting ${app.status.canary.image}` : `aborting the canary of ${app.status.canary.image}`}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: Error) => {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${USAGE}`);
      process.exit(2);
    }
    const detail = err instanceof ApiException ? `${err.code}: ${String(err.body)}` : err.message;
    process.stderr.write(`error: ${err instanceof KubeConfigError ? err.message : detail}\n`);
    process.exit(1);
  },
);
