// The preview objects of a blue-green rollout (docs/api.md, "Blue-green"), as pure functions of the
// defaulted App: the Deployment `<app>-preview` running spec's pod template at the stable replica
// count, the Service `<app>-preview` selecting it, and with blueGreen.previewHost an Ingress (with
// spec.ingress) or an HTTPRoute (with spec.route) `<app>-preview` for that host.
import type { KubernetesObject, V1Deployment, V1Ingress, V1Service } from '@kubernetes/client-node';
import type { DefaultedApp } from '../../shared/defaults.js';
import { LABEL_REVISION, objectLabels, ownedName } from '../../shared/labels.js';
import { ownerReference } from '../../shared/owner-reference.js';
import type { PodTemplate } from '../../shared/render/pod-template.js';
import { desiredDeployment, desiredIngress, desiredService } from './render.js';
import { labelsRevision } from './revision-label.js';

export const HTTP_ROUTE_TYPE = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute' } as const;

export interface PreviewObjects {
  deployment: V1Deployment;
  service: V1Service;
  /** With previewHost and spec.ingress. */
  ingress?: V1Ingress;
  /** With previewHost and spec.route. */
  httpRoute?: KubernetesObject;
}

export function renderPreview(app: DefaultedApp, replicas: number, spec: PodTemplate): PreviewObjects {
  const host = app.spec.rollout.blueGreen?.previewHost;
  return {
    deployment: desiredDeployment(app, 'preview', spec, replicas),
    service: previewService(app, spec.revision),
    ingress: host && app.spec.ingress ? previewIngress(app, host) : undefined,
    httpRoute: host && app.spec.route ? previewRoute(app, host) : undefined,
  };
}

/**
 * The preview Service selects the preview's pods of spec's revision only: the preview Deployment
 * takes a new template in place (a change while in Preview), and for as long as it rolls, its
 * track alone selected the old revision's pods beside the new one's: the preview host and the
 * preview's analysis saw both versions while status named the new one. Until the new pods are
 * ready the preview serves nothing, as a preview that is not ready yet.
 */
function previewService(app: DefaultedApp, revision: string): V1Service {
  const service = desiredService(app, 'preview');
  if (!labelsRevision(app)) return service;
  return { ...service, spec: { ...service.spec, selector: { ...service.spec!.selector, [LABEL_REVISION]: revision } } };
}

/** The main Ingress's shape for the preview host, to the preview Service (no TLS: the main host's certificate does not cover it). */
function previewIngress(app: DefaultedApp, host: string): V1Ingress {
  const main = desiredIngress(app);
  const name = ownedName(app.metadata.name!, 'preview');
  const rule = main.spec!.rules![0]!;
  const paths = rule.http!.paths.map((p) => ({ ...p, backend: { service: { name, port: { number: app.spec.service.port } } } }));
  return {
    ...main,
    metadata: { ...main.metadata, name, labels: objectLabels(app, 'preview') },
    spec: { ingressClassName: main.spec!.ingressClassName, rules: [{ host, http: { paths } }] },
  };
}

function previewRoute(app: DefaultedApp, host: string): KubernetesObject {
  const route = app.spec.route!;
  const name = ownedName(app.metadata.name!, 'preview');
  return {
    ...HTTP_ROUTE_TYPE,
    metadata: { name, namespace: app.metadata.namespace, labels: objectLabels(app, 'preview'), ownerReferences: [ownerReference(app)] },
    spec: {
      parentRefs: route.parentRefs.map((p) => ({ ...p })),
      hostnames: [host],
      rules: [{ matches: [{ path: { type: 'PathPrefix', value: route.path } }], backendRefs: [{ name, port: app.spec.service.port, weight: 100 }] }],
    },
  } as KubernetesObject;
}
