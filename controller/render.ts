// The objects an App should own, as a pure function of the defaulted App (docs/api.md, "Owned
// objects"). Only the fields the controller manages are set: the reconciler compares exactly
// these with what the API server holds and applies them with server-side apply, so everything
// left out here (API-server defaults, fields other controllers set) is never fought over.
//
// The builders take the track, image and replicas as parameters so that a canary rollout renders
// its `-canary` objects with the same code as the stable ones.
import type { V1Container, V1Deployment, V1Ingress, V1OwnerReference, V1Service } from '@kubernetes/client-node';
import { API_VERSION, KIND, type App } from '../shared/app-types.js';
import type { DefaultedApp } from '../shared/defaults.js';
import { ownedLabels, ownedName, podSelector, type Track } from '../shared/labels.js';

export const CONTAINER_NAME = 'app';
export const PORT_NAME = 'http';

export interface StableObjects {
  deployment: V1Deployment;
  service: V1Service;
  /** Absent when the App has no spec.ingress: an owned Ingress must then be deleted. */
  ingress?: V1Ingress;
}

export interface CanaryObjects {
  deployment: V1Deployment;
  service: V1Service;
}

export function ownerReference(app: App): V1OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    name: app.metadata.name!,
    uid: app.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The image of the App's container in a Deployment. */
export function containerImage(d: V1Deployment): string | undefined {
  return d.spec?.template?.spec?.containers?.find((c) => c.name === CONTAINER_NAME)?.image;
}

function objectMeta(app: App, track: Track) {
  return {
    name: ownedName(app.metadata.name!, track),
    namespace: app.metadata.namespace,
    labels: ownedLabels(app.metadata.name!, track),
    ownerReferences: [ownerReference(app)],
  };
}

function container(app: DefaultedApp, image: string): V1Container {
  const { spec } = app;
  const c: V1Container = {
    name: CONTAINER_NAME,
    image,
    // protocol is part of the list-map key of ports; server-side apply wants it set explicitly.
    ports: [{ name: PORT_NAME, containerPort: spec.port, protocol: 'TCP' }],
  };
  if (spec.command?.length) c.command = [...spec.command];
  if (spec.args?.length) c.args = [...spec.args];
  if (spec.env?.length) c.env = spec.env.map((e) => (e.value !== undefined ? { name: e.name, value: e.value } : { name: e.name }));
  const resources: { requests?: Record<string, string>; limits?: Record<string, string> } = {};
  for (const kind of ['requests', 'limits'] as const) {
    const list = spec.resources?.[kind];
    if (list && Object.keys(list).length > 0) {
      resources[kind] = Object.fromEntries(Object.entries(list).map(([k, v]) => [k, String(v)]));
    }
  }
  if (resources.requests || resources.limits) c.resources = resources;
  if (spec.readinessPath) c.readinessProbe = { httpGet: { path: spec.readinessPath, port: spec.port } };
  return c;
}

export function desiredDeployment(app: DefaultedApp, track: Track, image: string, replicas: number): V1Deployment {
  const name = app.metadata.name!;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: objectMeta(app, track),
    spec: {
      replicas,
      selector: { matchLabels: podSelector(name, track) },
      template: {
        metadata: { labels: ownedLabels(name, track) },
        spec: { containers: [container(app, image)] },
      },
      strategy: { type: 'RollingUpdate' },
      progressDeadlineSeconds: app.spec.rollout.progressDeadlineSeconds,
    },
  };
}

export function desiredService(app: DefaultedApp, track: Track): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: objectMeta(app, track),
    spec: {
      // The canary is reached only through the router, whatever type the stable Service has.
      type: track === 'canary' ? 'ClusterIP' : app.spec.service.type,
      selector: podSelector(app.metadata.name!, track),
      ports: [{ name: PORT_NAME, port: app.spec.service.port, targetPort: app.spec.port, protocol: 'TCP' }],
    },
  };
}

/** The Ingress routing spec.ingress's host and path to the stable Service. Requires spec.ingress. */
export function desiredIngress(app: DefaultedApp): V1Ingress {
  const ingress = app.spec.ingress!;
  const out: V1Ingress = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: objectMeta(app, 'stable'),
    spec: {
      ingressClassName: ingress.className,
      rules: [
        {
          host: ingress.host,
          http: {
            paths: [
              {
                path: ingress.path,
                pathType: ingress.pathType,
                backend: { service: { name: ownedName(app.metadata.name!, 'stable'), port: { number: app.spec.service.port } } },
              },
            ],
          },
        },
      ],
    },
  };
  if (ingress.tlsSecretName) out.spec!.tls = [{ hosts: [ingress.host], secretName: ingress.tlsSecretName }];
  return out;
}

/** The stable objects of an App; `stableImage` is what a canary rollout keeps stable on. */
export function render(app: DefaultedApp, stableImage = app.spec.image): StableObjects {
  return {
    deployment: desiredDeployment(app, 'stable', stableImage, app.spec.replicas),
    service: desiredService(app, 'stable'),
    ingress: app.spec.ingress ? desiredIngress(app) : undefined,
  };
}

/** The canary Deployment and Service of a rollout of `image` at `replicas` pods. */
export function renderCanary(app: DefaultedApp, image: string, replicas: number): CanaryObjects {
  return { deployment: desiredDeployment(app, 'canary', image, replicas), service: desiredService(app, 'canary') };
}
