// Certificates for the webhook without cert-manager:
//   node_modules/.bin/node dist/certs/main.js --dir ./webhook-certs \
//     --dns skiff-webhook-service.skiff-system.svc,skiff-webhook-service.skiff-system.svc.cluster.local \
//     --secret skiff-system/webhook-server-cert \
//     --mutating-webhook skiff-mutating-webhook-configuration --validating-webhook skiff-validating-webhook-configuration
// The Node.js version is checked before the tool (and client-node with it) is loaded: an older
// Node fails inside a dependency at load, with a message that names neither.
import { nodeVersionProblem } from '../shared/node-version.js';

const tooOld = nodeVersionProblem('the certs tool', process.versions.node, process.execPath);
if (tooOld) {
  console.error(`error: ${tooOld}`);
  process.exit(1);
}
const { runCertsTool } = await import('./run.js');
runCertsTool();
