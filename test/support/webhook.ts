// The real admission webhook for a test control plane: certificates from certs/, served over
// HTTPS on loopback, and config/dev installed so that the API server calls it by URL.
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { ensureCerts } from '../../certs/write.js';
import { installDevBundle } from '../../dev/install.js';
import { startWebhookServer, type WebhookServer } from '../../webhook/server.js';
import { testLogger } from './apps.js';

export async function startTestWebhook(kubeconfigPath: string, dir: string): Promise<WebhookServer> {
  const certDir = join(dir, 'certs');
  const certs = await ensureCerts(certDir, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const webhook = await startWebhookServer({ port: 0, host: '127.0.0.1', certDir, log: testLogger('webhook'), registry: new Registry() });
  await installDevBundle({ kubeconfigPath, caPem: certs.caPem, webhookUrlBase: `https://127.0.0.1:${webhook.port}` });
  return webhook;
}
