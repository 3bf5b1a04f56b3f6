// The one schema of the App resource. The admission webhook compiles it with ajv; the CRD in
// config/crd/ is generated from it (npm run generate), so `kubectl explain` and validation agree.
//
// Written in the common subset of JSON Schema and Kubernetes' structural OpenAPI v3: no $ref,
// no type inside anyOf/oneOf. `additionalProperties: false` marks objects whose unknown fields
// the webhook rejects; the CRD generator turns it into `x-kubernetes-preserve-unknown-fields`
// so the API server hands those fields to the webhook instead of silently pruning them.
// `x-skiff-message` gives a readable message for a failed `pattern`; it never reaches the CRD.

export type JSONSchema = { [key: string]: unknown };

export const DNS1123_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
export const DNS1035_LABEL = '^[a-z]([-a-z0-9]*[a-z0-9])?$';
export const C_IDENTIFIER = '^[A-Za-z_][A-Za-z0-9_]*$';
export const PAUSE_DURATION = '^[0-9]+(s|m|h)$';
export const HTTP_HEADER_NAME = "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$";
// The grammar of github.com/distribution/reference: [registry[:port]/]path[:tag][@digest].
export const IMAGE_REFERENCE =
  '^((?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::[0-9]+)?/)?' +
  '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*)*)' +
  '(?::([A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}))?$';

const quantity: JSONSchema = {
  description: 'A Kubernetes quantity, such as 100m, 0.5, 128Mi or 1G.',
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  'x-kubernetes-int-or-string': true,
};

const resourceList = (what: string): JSONSchema => ({
  type: 'object',
  description: `${what}, by resource name (cpu, memory, ephemeral-storage, or an extended resource).`,
  additionalProperties: quantity,
});

const canaryStep: JSONSchema = {
  type: 'object',
  description: 'One step of a canary rollout: exactly one of setWeight or pause.',
  additionalProperties: false,
  properties: {
    setWeight: {
      type: 'integer',
      minimum: 0,
      maximum: 100,
      description: 'Share of traffic (percent, 0..100) sent to the canary. The step is done when the canary Deployment is available at this weight.',
    },
    pause: {
      type: 'object',
      description: 'Wait before the next step: for a duration, or until the App is promoted (annotate skiff.dev/promote=true) when no duration is given.',
      additionalProperties: false,
      properties: {
        duration: {
          type: 'string',
          pattern: PAUSE_DURATION,
          'x-skiff-message': 'must be a duration such as 30s, 5m or 1h',
          description: 'How long to wait, as a whole number of seconds, minutes or hours: 30s, 5m, 1h. Absent: wait for promotion.',
        },
      },
    },
  },
};

export const appSpecSchema: JSONSchema = {
  type: 'object',
  description: 'The desired state of a web workload: what to run, how to expose it and how to roll out changes.',
  required: ['image'],
  additionalProperties: false,
  properties: {
    image: {
      type: 'string',
      minLength: 1,
      pattern: IMAGE_REFERENCE,
      'x-skiff-message': 'must be a valid image reference such as ghcr.io/acme/web:1.4.2',
      description: 'The container image to run, an OCI image reference such as ghcr.io/acme/web:1.4.2. With the Canary strategy a change of image starts a canary rollout.',
    },
    replicas: {
      type: 'integer',
      minimum: 0,
      maximum: 1000,
      description: 'Number of pods of the stable Deployment, 0..1000. Defaults to 1.',
    },
    port: {
      type: 'integer',
      minimum: 1,
      maximum: 65535,
      description: 'The port the container listens on, 1..65535. Defaults to 8080.',
    },
    command: {
      type: 'array',
      description: "Overrides the image's entrypoint.",
      items: { type: 'string', description: 'One word of the command.' },
    },
    args: {
      type: 'array',
      description: "Arguments to the entrypoint (overrides the image's CMD).",
      items: { type: 'string', description: 'One argument.' },
    },
    env: {
      type: 'array',
      description: 'Environment variables of the container. Names are unique C identifiers.',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        description: 'One environment variable.',
        required: ['name'],
        additionalProperties: false,
        properties: {
          name: {
            type: 'string',
            pattern: C_IDENTIFIER,
            'x-skiff-message': 'must be a C identifier (letters, digits and _, not starting with a digit)',
            description: 'Variable name, a C identifier such as LOG_LEVEL.',
          },
          value: { type: 'string', description: 'Variable value. Defaults to the empty string.' },
        },
      },
    },
    resources: {
      type: 'object',
      description: 'Compute resources of the container. Each request must be no greater than its limit.',
      additionalProperties: false,
      properties: {
        requests: resourceList('Minimum resources the container is scheduled with'),
        limits: resourceList('Maximum resources the container may use'),
      },
    },
    readinessPath: {
      type: 'string',
      pattern: '^/',
      'x-skiff-message': 'must start with "/"',
      description: 'HTTP path of a readiness probe (GET on the container port). No probe when absent.',
    },
    service: {
      type: 'object',
      description: 'The Service in front of the stable pods.',
      additionalProperties: false,
      properties: {
        type: {
          type: 'string',
          enum: ['ClusterIP', 'NodePort', 'LoadBalancer'],
          description: 'Service type: ClusterIP, NodePort or LoadBalancer. Defaults to ClusterIP.',
        },
        port: {
          type: 'integer',
          minimum: 1,
          maximum: 65535,
          description: 'Port the Service listens on, forwarded to the container port. Defaults to 80.',
        },
      },
    },
    ingress: {
      type: 'object',
      description: 'An Ingress (networking.k8s.io/v1) routing a host and path to the Service. No Ingress when absent. Required by the Canary strategy, which splits traffic at the ingress.',
      required: ['host'],
      additionalProperties: false,
      properties: {
        host: {
          type: 'string',
          maxLength: 253,
          pattern: DNS1123_SUBDOMAIN,
          'x-skiff-message': 'must be a DNS-1123 subdomain (lower-case letters, digits, "-" and ".")',
          description: 'Host name served, a DNS-1123 subdomain such as web.shop.example.com.',
        },
        path: {
          type: 'string',
          pattern: '^/',
          'x-skiff-message': 'must start with "/"',
          description: 'HTTP path served. Must start with "/". Defaults to "/".',
        },
        pathType: {
          type: 'string',
          enum: ['Prefix', 'Exact', 'ImplementationSpecific'],
          description: 'How the path is matched: Prefix, Exact or ImplementationSpecific. Defaults to Prefix.',
        },
        className: {
          type: 'string',
          minLength: 1,
          description: 'IngressClass name. Defaults to nginx (canary rollouts use NGINX Ingress canary annotations).',
        },
        tlsSecretName: {
          type: 'string',
          maxLength: 253,
          pattern: DNS1123_SUBDOMAIN,
          'x-skiff-message': 'must be a DNS-1123 subdomain (a Secret name)',
          description: 'Name of a kubernetes.io/tls Secret in the same namespace; serves the host over HTTPS when set.',
        },
      },
    },
    rollout: {
      type: 'object',
      description: 'How a change of spec.image reaches the pods.',
      additionalProperties: false,
      properties: {
        strategy: {
          type: 'string',
          enum: ['RollingUpdate', 'Canary'],
          description: 'RollingUpdate (the Deployment rolls pods over) or Canary (a canary Deployment takes a growing share of traffic at the ingress, step by step). Defaults to RollingUpdate.',
        },
        canaryHeader: {
          type: 'string',
          maxLength: 256,
          pattern: HTTP_HEADER_NAME,
          'x-skiff-message': 'must be an HTTP header name',
          description: 'Name of a request header that routes to the canary: requests with "<header>: always" go to the canary, "never" to stable.',
        },
        progressDeadlineSeconds: {
          type: 'integer',
          minimum: 1,
          description: 'Seconds a rollout may take to make progress (the canary Deployment to become available) before it is aborted. Defaults to 600.',
        },
        steps: {
          type: 'array',
          minItems: 1,
          description: 'Canary steps, run in order. Defaults to setWeight 20, pause 60s, setWeight 50, pause (until promoted).',
          items: canaryStep,
        },
      },
    },
  },
};

const condition: JSONSchema = {
  type: 'object',
  description: 'A metav1.Condition.',
  required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  properties: {
    type: { type: 'string', description: 'Ready, Progressing or Degraded.' },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'], description: 'True, False or Unknown.' },
    observedGeneration: { type: 'integer', format: 'int64', description: 'The App generation this condition was set for.' },
    lastTransitionTime: { type: 'string', format: 'date-time', description: 'When status last changed.' },
    reason: { type: 'string', description: 'A CamelCase reason for the condition.' },
    message: { type: 'string', description: 'A human-readable explanation.' },
  },
};

export const appStatusSchema: JSONSchema = {
  type: 'object',
  description: 'The observed state of the App, written by the controller.',
  properties: {
    observedGeneration: { type: 'integer', format: 'int64', description: 'The generation of the App last reconciled.' },
    replicas: { type: 'integer', description: 'Pods of the stable Deployment.' },
    readyReplicas: { type: 'integer', description: 'Ready pods of the stable Deployment.' },
    ready: { type: 'string', description: 'readyReplicas/replicas, for display.' },
    url: { type: 'string', description: 'Where the App is served (http, or https with tlsSecretName). Absent without an ingress.' },
    stableImage: { type: 'string', description: 'The image the stable Deployment runs.' },
    abortedImage: { type: 'string', description: 'The image of the last aborted canary; no new canary starts for it until spec.image changes.' },
    canary: {
      type: 'object',
      description: 'The canary rollout under way. Absent when there is none.',
      properties: {
        image: { type: 'string', description: 'The image under test.' },
        weight: { type: 'integer', description: 'Share of traffic (percent) sent to the canary now.' },
        stepIndex: { type: 'integer', description: 'Index of the current step in spec.rollout.steps.' },
        stepStartedAt: { type: 'string', format: 'date-time', description: 'When the current step started.' },
      },
    },
    conditions: {
      type: 'array',
      description: 'Ready, Progressing and Degraded.',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      items: condition,
    },
  },
};

/** The whole resource as the webhook validates it (metadata is checked by the API server). */
export const appSchema: JSONSchema = {
  type: 'object',
  description: 'App describes a web workload: a Deployment, a Service and an optional Ingress, with rolling or canary rollouts.',
  required: ['spec'],
  properties: {
    apiVersion: { type: 'string', description: 'skiff.dev/v1alpha1' },
    kind: { type: 'string', description: 'App' },
    metadata: { type: 'object' },
    spec: appSpecSchema,
    status: appStatusSchema,
  },
};
