// Prometheus metrics of the webhook (prom-client), one registry per server.
import { Counter, Histogram, Registry } from 'prom-client';

export interface WebhookMetrics {
  requests: Counter<'endpoint' | 'code'>;
  denials: Counter<'endpoint' | 'code'>;
  duration: Histogram<'endpoint'>;
  certificateReloads: Counter<'result'>;
}

export function webhookMetrics(registry: Registry): WebhookMetrics {
  return {
    requests: new Counter({ name: 'skiff_webhook_requests_total', help: 'Admission requests by endpoint and HTTP status code', labelNames: ['endpoint', 'code'], registers: [registry] }),
    denials: new Counter({ name: 'skiff_webhook_denials_total', help: 'AdmissionReviews answered with allowed: false, by the status code of the denial', labelNames: ['endpoint', 'code'], registers: [registry] }),
    duration: new Histogram({
      name: 'skiff_webhook_request_duration_seconds',
      help: 'Time from request to response, body parsing included',
      labelNames: ['endpoint'],
      // Admission calls sit in the API server's request path: resolution below 1 ms matters.
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    certificateReloads: new Counter({ name: 'skiff_webhook_certificate_reloads_total', help: 'Serving certificate reloads from --cert-dir', labelNames: ['result'], registers: [registry] }),
  };
}
