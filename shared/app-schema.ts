// The one schema of the App resource. The admission webhook compiles it with ajv; the CRD in
// config/crd/ is generated from it (npm run generate), so `kubectl explain` and validation agree.
//
// Written in the common subset of JSON Schema and Kubernetes' structural OpenAPI v3: no $ref,
// no type inside anyOf/oneOf. `additionalProperties: false` marks objects whose unknown fields
// the webhook rejects; the CRD generator turns it into `x-kubernetes-preserve-unknown-fields`
// so the API server hands those fields to the webhook instead of silently pruning them.
// `x-skiff-message` gives a readable message for a failed `pattern`, int-or-string `anyOf` or `minimum`;
// it never reaches the CRD.

export type JSONSchema = { [key: string]: unknown };

export const DNS1123_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
export const DNS1123_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
export const DNS1035_LABEL = '^[a-z]([-a-z0-9]*[a-z0-9])?$';
export const C_IDENTIFIER = '^[A-Za-z_][A-Za-z0-9_]*$';
export const PAUSE_DURATION = '^[0-9]+(s|m|h)$';
export const HTTP_HEADER_NAME = "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$";
// What Kubernetes takes as a probe's header name (IsHTTPHeaderName): narrower than HTTP's token.
export const PROBE_HEADER_NAME = '^[-A-Za-z0-9]+$';
/** The largest value of a Kubernetes int32 field. */
export const INT32_MAX = 2147483647;
// A Gateway API Kind and Group (gateway.networking.k8s.io's own patterns).
export const GATEWAY_KIND = '^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$';
export const GATEWAY_GROUP = '^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
/**
 * The longest image reference the kubelet takes: a repository name of 255 characters, a tag of
 * 128 and a sha512 digest. A bound the schema sets, so that a longer one is named for its length
 * before the grammar (whose backtracking overflows V8's stack on millions of characters) runs.
 */
export const MAX_IMAGE_REFERENCE_LENGTH = 255 + ':'.length + 128 + '@sha512:'.length + 128;
// The grammar of github.com/distribution/reference: [registry[:port]/]path[:tag][@digest], the
// registry a domain name, an IPv4 address or an IPv6 address in brackets.
export const IMAGE_REFERENCE =
  '^((?:(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?/)?' +
  '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*)*)' +
  '(?::([A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}))?$';

// A key of a ConfigMap or Secret.
export const CONFIG_KEY = '^[-._a-zA-Z0-9]+$';
// The downward-API fields an environment variable can read (Kubernetes' list for env).
export const ENV_FIELD_PATH =
  "^(metadata\\.(name|namespace|uid)|metadata\\.(labels|annotations)\\['[^']+'\\]|spec\\.(nodeName|serviceAccountName)|status\\.(hostIP|hostIPs|podIP|podIPs))$";
export const ENV_RESOURCE = '^(limits|requests)\\.(cpu|memory|ephemeral-storage|hugepages-[0-9A-Za-z]+)$';

// The App's schema holds a quantity as an integer or a string (x-kubernetes-int-or-string): a
// fractional number must be quoted, which the message says.
export const QUANTITY_MESSAGE = 'must be a quantity such as 100m, "0.5" or 128Mi (quote a fractional value)';

const quantity: JSONSchema = {
  description: 'A Kubernetes quantity, such as 100m, "0.5", 128Mi or 1G.',
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  'x-kubernetes-int-or-string': true,
  'x-skiff-message': QUANTITY_MESSAGE,
};

const resourceList = (what: string): JSONSchema => ({
  type: 'object',
  description: `${what}, by resource name (cpu, memory, ephemeral-storage, or an extended resource).`,
  additionalProperties: quantity,
});

// --- Building blocks of the workload fields (api.md "Real workloads"), in the shapes of the
// Kubernetes fields they become. Rules across fields live in validation.ts.

const SUBDOMAIN_MESSAGE = 'must be a DNS-1123 subdomain (lower-case letters, digits, "-" and ".")';

/** The name of an object in the App's namespace (Secret, ConfigMap, ServiceAccount, ...). */
const objectName = (description: string): JSONSchema => ({
  type: 'string',
  maxLength: 253,
  pattern: DNS1123_SUBDOMAIN,
  'x-skiff-message': SUBDOMAIN_MESSAGE,
  description,
});

const intOrString = (description: string, message?: string): JSONSchema => ({
  description,
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  'x-kubernetes-int-or-string': true,
  ...(message ? { 'x-skiff-message': message } : {}),
});

/** Label and annotation maps: their keys are checked in validation.ts (a CRD schema cannot check map keys). */
const stringMap = (description: string, values: string): JSONSchema => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string', description: values },
});

const fileMode = (description: string): JSONSchema => ({ type: 'integer', minimum: 0, maximum: 0o777, description });

const posixId = (description: string): JSONSchema => ({ type: 'integer', format: 'int64', minimum: 0, maximum: 2147483647, description });

const keySelector = (kind: 'Secret' | 'ConfigMap'): JSONSchema => ({
  type: 'object',
  description: `A key of a ${kind} in the App's namespace.`,
  required: ['name', 'key'],
  additionalProperties: false,
  properties: {
    name: objectName(`Name of the ${kind}.`),
    key: {
      type: 'string',
      maxLength: 253,
      pattern: CONFIG_KEY,
      'x-skiff-message': 'must be a key of letters, digits, "-", "_" and "."',
      description: `The key in the ${kind} whose value the variable takes.`,
    },
    optional: { type: 'boolean', description: `true: start the pod even if the ${kind} or the key does not exist (the variable is then unset).` },
  },
});

const keyToPaths = (kind: 'Secret' | 'ConfigMap'): JSONSchema => ({
  type: 'array',
  maxItems: 256,
  description: `Which keys of the ${kind} to mount, and as which files, at most 256. Absent: every key becomes a file of the same name.`,
  items: {
    type: 'object',
    description: 'One key and the file it becomes.',
    required: ['key', 'path'],
    additionalProperties: false,
    properties: {
      key: { type: 'string', maxLength: 253, pattern: CONFIG_KEY, 'x-skiff-message': 'must be a key of letters, digits, "-", "_" and "."', description: `The key in the ${kind}.` },
      path: { type: 'string', minLength: 1, description: 'File path relative to the mount path, without "..", such as app.yaml or conf/app.yaml.' },
      mode: fileMode('File mode bits of this file, 0..511 (0777 octal). Absent: the volume\'s defaultMode.'),
    },
  },
});

const seccompProfile: JSONSchema = {
  type: 'object',
  description: 'The seccomp profile: RuntimeDefault (the container runtime\'s default, recommended), Localhost (a profile file on the node) or Unconfined.',
  required: ['type'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: ['RuntimeDefault', 'Localhost', 'Unconfined'], description: 'RuntimeDefault, Localhost or Unconfined.' },
    localhostProfile: { type: 'string', minLength: 1, description: 'Path of the profile relative to the kubelet\'s seccomp directory, without "..". Required with type Localhost, and only allowed with it.' },
  },
};

const probePort = intOrString(
  'Port to probe: a number (1..65535) or http, the name of the container\'s one port (spec.port). Defaults to spec.port.',
  'must be a port number or a port name',
);

const probe = (what: string): JSONSchema => ({
  type: 'object',
  description: `${what} A Kubernetes Probe: exactly one of httpGet, tcpSocket or exec, and its timing.`,
  additionalProperties: false,
  properties: {
    httpGet: {
      type: 'object',
      description: 'An HTTP GET; any status from 200 to 399 is a success.',
      additionalProperties: false,
      properties: {
        path: { type: 'string', pattern: '^/', 'x-skiff-message': 'must start with "/"', description: 'HTTP path to request. Must start with "/". Defaults to "/".' },
        port: probePort,
        scheme: { type: 'string', enum: ['HTTP', 'HTTPS'], description: 'HTTP or HTTPS (certificates are not verified). Defaults to HTTP.' },
        httpHeaders: {
          type: 'array',
          maxItems: 32,
          description: 'Extra request headers, at most 32.',
          items: {
            type: 'object',
            description: 'One request header.',
            required: ['name', 'value'],
            additionalProperties: false,
            properties: {
              name: { type: 'string', minLength: 1, pattern: PROBE_HEADER_NAME, 'x-skiff-message': 'must be an HTTP header name of letters, digits and "-"', description: 'Header name: letters, digits and "-".' },
              value: { type: 'string', description: 'Header value.' },
            },
          },
        },
      },
    },
    tcpSocket: {
      type: 'object',
      description: 'A TCP connection; the probe succeeds when the port accepts it.',
      additionalProperties: false,
      properties: { port: probePort },
    },
    exec: {
      type: 'object',
      description: 'A command run in the container; exit status 0 is a success.',
      required: ['command'],
      additionalProperties: false,
      properties: {
        command: { type: 'array', minItems: 1, maxItems: 256, description: 'The command and its arguments (not run in a shell), 1 to 256 words.', items: { type: 'string', description: 'One word of the command.' } },
      },
    },
    initialDelaySeconds: { type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX, description: 'Seconds after the container starts before the first probe, 0..2147483647. Defaults to 0.' },
    periodSeconds: { type: 'integer', format: 'int32', minimum: 1, maximum: INT32_MAX, description: 'Seconds between probes, 1..2147483647. Defaults to 10.' },
    timeoutSeconds: { type: 'integer', format: 'int32', minimum: 1, maximum: INT32_MAX, description: 'Seconds after which a probe times out, 1..2147483647. Defaults to 1.' },
    successThreshold: { type: 'integer', format: 'int32', minimum: 1, maximum: INT32_MAX, description: 'Consecutive successes that count as passing after a failure, 1..2147483647. Must be 1 for liveness and startup probes. Defaults to 1.' },
    failureThreshold: { type: 'integer', format: 'int32', minimum: 1, maximum: INT32_MAX, description: 'Consecutive failures that count as failing, 1..2147483647. Defaults to 3.' },
  },
});

const envVarSource: JSONSchema = {
  type: 'object',
  description: 'Where the value comes from: exactly one of secretKeyRef, configMapKeyRef, fieldRef or resourceFieldRef.',
  additionalProperties: false,
  properties: {
    secretKeyRef: keySelector('Secret'),
    configMapKeyRef: keySelector('ConfigMap'),
    fieldRef: {
      type: 'object',
      description: "A field of the pod (downward API), such as metadata.name, metadata.namespace, metadata.labels['team'], spec.nodeName or status.podIP.",
      required: ['fieldPath'],
      additionalProperties: false,
      properties: {
        fieldPath: {
          type: 'string',
          pattern: ENV_FIELD_PATH,
          'x-skiff-message':
            "must be one of metadata.name, metadata.namespace, metadata.uid, metadata.labels['<key>'], metadata.annotations['<key>'], spec.nodeName, spec.serviceAccountName, status.hostIP, status.hostIPs, status.podIP, status.podIPs",
          description: "Path of the field: metadata.name, metadata.namespace, metadata.uid, metadata.labels['<key>'], metadata.annotations['<key>'], spec.nodeName, spec.serviceAccountName, status.hostIP(s) or status.podIP(s).",
        },
        apiVersion: { type: 'string', enum: ['v1'], description: 'Version of the schema the field path is written in. Only v1.' },
      },
    },
    resourceFieldRef: {
      type: 'object',
      description: "A request or limit of the container, such as limits.memory.",
      required: ['resource'],
      additionalProperties: false,
      properties: {
        resource: {
          type: 'string',
          pattern: ENV_RESOURCE,
          'x-skiff-message': 'must be limits.<resource> or requests.<resource> for cpu, memory, ephemeral-storage or hugepages-<size>',
          description: 'limits.<resource> or requests.<resource> for cpu, memory, ephemeral-storage or hugepages-<size> (hugepages: on Kubernetes 1.21 and later).',
        },
        containerName: { type: 'string', maxLength: 63, pattern: DNS1123_LABEL, 'x-skiff-message': 'must be a DNS-1123 label', description: 'The container whose resource is read; the App has one, named app. Defaults to it.' },
        divisor: { ...quantity, 'x-skiff-message': QUANTITY_MESSAGE, description: 'The value is divided by this quantity and rounded up, such as 1Mi for memory in MiB or 1m for millicores. Defaults to 1.' },
      },
    },
  },
};

const volume: JSONSchema = {
  type: 'object',
  description: 'A pod volume and where the container mounts it: exactly one of configMap, secret or emptyDir.',
  required: ['name', 'mountPath'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 63, pattern: DNS1123_LABEL, 'x-skiff-message': 'must be a DNS-1123 label (lower-case letters, digits and "-", at most 63 characters)', description: 'Volume name, a DNS-1123 label unique among the volumes.' },
    mountPath: { type: 'string', pattern: '^/', 'x-skiff-message': 'must be an absolute path (start with "/")', description: 'Where the volume appears in the container, an absolute path unique among the volumes.' },
    subPath: { type: 'string', description: 'Mount only this path inside the volume (relative, without ".."). Defaults to the whole volume.' },
    readOnly: { type: 'boolean', description: 'Mount read-only. configMap and secret volumes are always read-only (false is refused); emptyDir volumes are writable unless true.' },
    configMap: {
      type: 'object',
      description: 'The keys of a ConfigMap, as files.',
      required: ['name'],
      additionalProperties: false,
      properties: {
        name: objectName('Name of the ConfigMap in the App\'s namespace.'),
        items: keyToPaths('ConfigMap'),
        defaultMode: fileMode('File mode bits of the files, 0..511 (0777 octal). Defaults to 420 (0644).'),
        optional: { type: 'boolean', description: 'true: start the pod even if the ConfigMap does not exist (the volume is empty).' },
      },
    },
    secret: {
      type: 'object',
      description: 'The keys of a Secret, as files.',
      required: ['secretName'],
      additionalProperties: false,
      properties: {
        secretName: objectName('Name of the Secret in the App\'s namespace.'),
        items: keyToPaths('Secret'),
        defaultMode: fileMode('File mode bits of the files, 0..511 (0777 octal). Defaults to 420 (0644).'),
        optional: { type: 'boolean', description: 'true: start the pod even if the Secret does not exist (the volume is empty).' },
      },
    },
    emptyDir: {
      type: 'object',
      description: 'An empty directory that lives as long as the pod, such as scratch space under a read-only root filesystem.',
      additionalProperties: false,
      properties: {
        medium: { type: 'string', enum: ['', 'Memory'], description: '"" (the node\'s disk, the default) or Memory (a tmpfs, counted against the memory limit).' },
        sizeLimit: { ...quantity, 'x-skiff-message': QUANTITY_MESSAGE, description: 'Most the directory may hold, a quantity such as 64Mi; the pod is evicted beyond it. Defaults to no limit.' },
      },
    },
  },
};

const toleration: JSONSchema = {
  type: 'object',
  description: 'Lets the pods run on nodes with a matching taint.',
  additionalProperties: false,
  properties: {
    key: { type: 'string', description: 'Taint key to match (a label key). Empty with operator Exists: every taint.' },
    operator: { type: 'string', enum: ['Exists', 'Equal', ''], description: 'Equal (the taint value must equal value) or Exists (any value; value must be empty). Empty or absent: Equal.' },
    value: { type: 'string', description: 'Taint value to match with operator Equal (a label value).' },
    effect: { type: 'string', enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute', ''], description: 'Taint effect to match: NoSchedule, PreferNoSchedule or NoExecute. Empty: every effect.' },
    tolerationSeconds: { type: 'integer', format: 'int64', minimum: 0, maximum: INT32_MAX, description: 'With effect NoExecute only: how long the pod stays on a node after the taint appears, 0..2147483647 seconds. Absent: forever.' },
  },
};

const PERCENT_OR_COUNT = 'must be an integer or a percentage such as 25%';

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
          description: 'How long to wait, as a whole number of seconds, minutes or hours: 30s, 5m, 1h; at most 24h. Absent: wait for promotion.',
        },
      },
    },
  },
};

const bound = (what: string): JSONSchema => ({ type: 'number', description: what });

const analysisSchema: JSONSchema = {
  type: 'object',
  description: 'Health analysis of a canary against the Prometheus the controller is configured with (--prometheus-url): checks run every interval while the canary gets traffic; a setWeight step completes only after a passing check at its weight; more than failureLimit failed checks abort the rollout.',
  additionalProperties: false,
  properties: {
    interval: {
      type: 'string', pattern: PAUSE_DURATION, 'x-skiff-message': 'must be a duration such as 30s, 1m or 1h',
      description: 'How often checks run, and the rate window of the built-in checks: 30s, 1m, 1h; from 10s to 24h. Defaults to 1m.',
    },
    failureLimit: { type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX, description: 'Failed checks tolerated, 0..2147483647; the next failed one aborts the rollout. Defaults to 1.' },
    minRequests: { type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX, description: 'A check where the canary served fewer requests than this in the window is inconclusive, 0..2147483647. Defaults to 10.' },
    noData: {
      type: 'string', enum: ['Wait', 'Fail', 'Pass'],
      description: 'What an inconclusive check (no data, too few requests, Prometheus unreachable) counts as: Wait holds the step until the progress deadline, then aborts (AnalysisInconclusive); Fail counts it as failed; Pass as passed. Defaults to Wait.',
    },
    successRate: {
      type: 'object',
      description: "Built-in: percent of the canary's requests that were not 5xx, from ingress-nginx's metrics for the App's Ingress.",
      additionalProperties: false,
      properties: {
        min: { ...bound('Lowest acceptable success rate, percent (0..100).'), minimum: 0, maximum: 100 },
        maxDropFromStable: { ...bound("Fail when the canary's success rate is more than this many points below stable's in the same window."), minimum: 0, maximum: 100 },
      },
    },
    latency: {
      type: 'object',
      description: "Built-in: response time of the canary's requests, from ingress-nginx's metrics: the mean, or a percentile.",
      required: ['maxMs'],
      additionalProperties: false,
      properties: {
        // Above 0: JSON Schema's exclusiveMinimum is a number and OpenAPI v3.0's a boolean, so the
        // schema says >= 0, validation.ts refuses 0, and the message says > 0 for both.
        maxMs: { ...bound('Highest acceptable response time (the mean, or the percentile), milliseconds, above 0.'), minimum: 0, 'x-skiff-message': 'must be > 0' },
        percentile: {
          type: 'integer',
          enum: [50, 90, 95, 99],
          description: "Hold this percentile of the requests' durations to maxMs (histogram_quantile over ingress-nginx's request duration histogram) instead of the mean.",
        },
      },
    },
    metrics: {
      type: 'array',
      maxItems: 10,
      description: 'Custom checks: PromQL evaluated to one number and held to min and/or max. At most 10.',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        description: 'One custom metric.',
        required: ['name', 'query'],
        additionalProperties: false,
        properties: {
          name: {
            type: 'string', maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
            'x-skiff-message': 'must be a DNS-1123 label (lower-case letters, digits and "-")',
            description: 'Name of the metric, unique; successRate, latency and requests are the built-ins\' names.',
          },
          query: {
            type: 'string', minLength: 1, maxLength: 4096,
            description: 'PromQL giving one number, at most 4096 characters. Placeholders: {{namespace}}, {{app}}, {{canaryService}}, {{stableService}}, {{ingress}}, {{interval}}.',
          },
          min: bound('Lowest acceptable value.'),
          max: bound('Highest acceptable value.'),
        },
      },
    },
  },
};

export const appSpecSchema: JSONSchema = {
  type: 'object',
  description: 'The desired state of a web workload: what to run, how to expose it and how to roll out changes. The pod template it renders is at most 100 KiB (as JSON).',
  required: ['image'],
  additionalProperties: false,
  properties: {
    image: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_IMAGE_REFERENCE_LENGTH,
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
    revisionHistoryLimit: {
      type: 'integer',
      minimum: 0,
      maximum: 1000,
      description: 'Pod-template revisions kept in the history (ControllerRevisions named <app>-<number>) besides the stable one and the one rolling out (the newest is kept even at 0), 0..1000. Defaults to 10.',
    },
    port: {
      type: 'integer',
      minimum: 1,
      maximum: 65535,
      description: 'The port the container listens on, 1..65535. Defaults to 8080.',
    },
    command: {
      type: 'array',
      maxItems: 256,
      description: "Overrides the image's entrypoint. At most 256 words.",
      items: { type: 'string', description: 'One word of the command.' },
    },
    args: {
      type: 'array',
      maxItems: 1024,
      description: "Arguments to the entrypoint (overrides the image's CMD). At most 1024.",
      items: { type: 'string', description: 'One argument.' },
    },
    env: {
      type: 'array',
      maxItems: 512,
      description: 'Environment variables of the container: a value, or a value from a Secret, a ConfigMap or the pod. Names are unique C identifiers. At most 512.',
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
          value: { type: 'string', description: 'Variable value. Set value or valueFrom, not both; with neither, the value is the empty string.' },
          valueFrom: envVarSource,
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
      description: 'HTTP path of a readiness probe (GET on the container port). No probe when absent. A shorthand for probes.readiness; set one or the other.',
    },
    imagePullSecrets: {
      type: 'array',
      maxItems: 16,
      description: 'Secrets of type kubernetes.io/dockerconfigjson used to pull the image from a private registry, each named once. At most 16.',
      items: {
        type: 'object',
        description: 'A Secret in the App\'s namespace.',
        required: ['name'],
        additionalProperties: false,
        properties: { name: objectName('Name of the Secret.') },
      },
    },
    serviceAccountName: objectName('The ServiceAccount the pods run as. Defaults to the namespace\'s default ServiceAccount.'),
    envFrom: {
      type: 'array',
      maxItems: 64,
      description: 'Every key of a Secret or ConfigMap as an environment variable. Variables in env win over these. At most 64.',
      items: {
        type: 'object',
        description: 'One source: exactly one of secretRef or configMapRef.',
        additionalProperties: false,
        properties: {
          prefix: { type: 'string', description: 'Prepended to every key, such as CFG_: letters, digits, "_", "-" and ".", not starting with a digit, not "." nor starting with "..".' },
          secretRef: {
            type: 'object',
            description: 'A Secret in the App\'s namespace.',
            required: ['name'],
            additionalProperties: false,
            properties: {
              name: objectName('Name of the Secret.'),
              optional: { type: 'boolean', description: 'true: start the pod even if the Secret does not exist.' },
            },
          },
          configMapRef: {
            type: 'object',
            description: 'A ConfigMap in the App\'s namespace.',
            required: ['name'],
            additionalProperties: false,
            properties: {
              name: objectName('Name of the ConfigMap.'),
              optional: { type: 'boolean', description: 'true: start the pod even if the ConfigMap does not exist.' },
            },
          },
        },
      },
    },
    volumes: {
      type: 'array',
      maxItems: 64,
      description: 'Volumes of the pod, each mounted in the container. Names and mount paths are unique. At most 64.',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: volume,
    },
    probes: {
      type: 'object',
      description: 'Health probes of the container, in the shape of Kubernetes Probes. A probe port left out means spec.port.',
      additionalProperties: false,
      properties: {
        readiness: probe('Whether a pod gets traffic. Replaces readinessPath (set one or the other).'),
        liveness: probe('Whether the container is restarted.'),
        startup: probe('Holds off the other probes until the container has started, for slow starters.'),
      },
    },
    podAnnotations: stringMap(
      'Annotations added to the pods (not to the Deployment), such as prometheus.io/scrape. Kubernetes\' seccomp, tolerations and mirror-pod annotations are refused (use the fields); AppArmor\'s only for the container app.',
      'Annotation value.',
    ),
    podLabels: stringMap(
      'Labels added to the pods. May not set skiff.dev/* nor app.kubernetes.io/name or app.kubernetes.io/managed-by, which Skiff sets.',
      'Label value: at most 63 letters, digits, "-", "_" and ".", starting and ending with a letter or digit.',
    ),
    podSecurityContext: {
      type: 'object',
      description: 'Security settings of the pod (its securityContext).',
      additionalProperties: false,
      properties: {
        runAsUser: posixId('User ID the containers run as. Defaults to the image\'s user.'),
        runAsGroup: posixId('Group ID the containers run as. Defaults to the image\'s group.'),
        runAsNonRoot: { type: 'boolean', description: 'true: refuse to start a container that would run as root (user ID 0).' },
        fsGroup: posixId('Group that owns the volumes and is added to the containers\' groups.'),
        fsGroupChangePolicy: { type: 'string', enum: ['OnRootMismatch', 'Always'], description: 'When volume ownership is changed to fsGroup: OnRootMismatch or Always (the default).' },
        supplementalGroups: { type: 'array', maxItems: 64, description: 'More group IDs of the containers\' processes, at most 64.', items: posixId('A group ID.') },
        seccompProfile,
      },
    },
    securityContext: {
      type: 'object',
      description: "Security settings of the App's container (its securityContext). Privileged containers are refused.",
      additionalProperties: false,
      properties: {
        runAsUser: posixId('User ID the container runs as. Wins over podSecurityContext.runAsUser.'),
        runAsGroup: posixId('Group ID the container runs as. Wins over podSecurityContext.runAsGroup.'),
        runAsNonRoot: { type: 'boolean', description: 'true: refuse to start the container if it would run as root (user ID 0).' },
        readOnlyRootFilesystem: { type: 'boolean', description: 'true: the root filesystem is read-only; mount an emptyDir volume where the program writes.' },
        allowPrivilegeEscalation: { type: 'boolean', description: 'false: a process cannot gain more privileges than its parent (no setuid).' },
        privileged: { type: 'boolean', description: 'Only false is accepted: Skiff does not run privileged containers.' },
        capabilities: {
          type: 'object',
          description: 'Linux capabilities to add and drop, such as drop: [ALL].',
          additionalProperties: false,
          properties: {
            add: { type: 'array', maxItems: 64, description: 'Capabilities to add, such as NET_BIND_SERVICE; at most 64. CAP_SYS_ADMIN is refused with allowPrivilegeEscalation false.', items: { type: 'string', minLength: 1, description: 'A capability name.' } },
            drop: { type: 'array', maxItems: 64, description: 'Capabilities to drop, such as ALL; at most 64.', items: { type: 'string', minLength: 1, description: 'A capability name.' } },
          },
        },
        seccompProfile,
      },
    },
    nodeSelector: stringMap('The pods run only on nodes with all these labels, such as kubernetes.io/arch: amd64.', 'Label value the node must have.'),
    tolerations: { type: 'array', maxItems: 64, description: 'Taints the pods tolerate, at most 64.', items: toleration },
    priorityClassName: objectName('PriorityClass of the pods. Defaults to the cluster\'s default priority.'),
    terminationGracePeriodSeconds: {
      type: 'integer',
      format: 'int64',
      minimum: 0,
      maximum: 86400,
      description: 'Seconds a pod has to shut down after SIGTERM before it is killed, 0..86400 (24 hours). Defaults to 30.',
    },
    disruption: {
      type: 'object',
      description: 'The PodDisruptionBudget Skiff keeps while the App has 2 or more pods: exactly one of maxUnavailable or minAvailable. Absent: maxUnavailable 1.',
      additionalProperties: false,
      properties: {
        maxUnavailable: intOrString('Pods that may be down at once during voluntary disruptions (node drains): an integer 0..2147483647 or a percentage such as 25%.', PERCENT_OR_COUNT),
        minAvailable: intOrString('Pods that must stay available during voluntary disruptions: an integer 0..2147483647 or a percentage such as 75%.', PERCENT_OR_COUNT),
      },
    },
    autoscaling: {
      type: 'object',
      description: 'A HorizontalPodAutoscaler for the stable Deployment. With it, spec.replicas is only the starting count. At least one target.',
      required: ['maxReplicas'],
      additionalProperties: false,
      properties: {
        minReplicas: { type: 'integer', format: 'int32', minimum: 1, maximum: 1000, description: 'Fewest pods, 1..1000, at most maxReplicas. Defaults to 1.' },
        maxReplicas: { type: 'integer', format: 'int32', minimum: 1, maximum: 1000, description: 'Most pods, 1..1000.' },
        targetCPUUtilizationPercentage: {
          type: 'integer',
          format: 'int32',
          minimum: 1,
          maximum: INT32_MAX,
          description: 'Average CPU use to aim for, in percent of the CPU request (can exceed 100), 1..2147483647. Requires resources.requests.cpu.',
        },
        targetMemoryUtilizationPercentage: {
          type: 'integer',
          format: 'int32',
          minimum: 1,
          maximum: INT32_MAX,
          description: 'Average memory use to aim for, in percent of the memory request (can exceed 100), 1..2147483647. Requires resources.requests.memory.',
        },
      },
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
    route: {
      type: 'object',
      description: 'A Gateway API HTTPRoute (gateway.networking.k8s.io/v1) routing hostnames and a path to the Service, instead of spec.ingress (one or the other). During a canary the route splits traffic by backend weights.',
      required: ['parentRefs'],
      additionalProperties: false,
      properties: {
        parentRefs: {
          type: 'array',
          minItems: 1,
          maxItems: 32,
          description: 'The Gateways (or their listeners) the route attaches to, as Gateway API parentReferences: 1 to 32. Two references to one Gateway each need a sectionName, and different ones.',
          items: {
            type: 'object',
            description: 'A parentReference: a Gateway by name, optionally in another namespace and to one listener (sectionName).',
            required: ['name'],
            additionalProperties: false,
            properties: {
              name: { type: 'string', minLength: 1, maxLength: 253, description: 'Name of the Gateway.' },
              namespace: {
                type: 'string', maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
                'x-skiff-message': 'must be a DNS-1123 label (a namespace name)',
                description: "Namespace of the Gateway. Defaults to the App's namespace.",
              },
              sectionName: {
                type: 'string', maxLength: 253, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
                'x-skiff-message': 'must be a DNS-1123 subdomain (a listener name)',
                description: 'Name of a listener of the Gateway (such as https). All listeners when absent.',
              },
              group: {
                type: 'string', maxLength: 253, pattern: GATEWAY_GROUP, 'x-skiff-message': 'must be empty or a DNS-1123 subdomain (an API group)',
                description: 'API group of the parent, a DNS-1123 subdomain (or empty for the core group). Defaults to gateway.networking.k8s.io.',
              },
              kind: {
                type: 'string', minLength: 1, maxLength: 63, pattern: GATEWAY_KIND, 'x-skiff-message': 'must be a kind such as Gateway (letters, digits and "-", starting with a letter)',
                description: 'Kind of the parent, at most 63 characters. Defaults to Gateway.',
              },
              port: { type: 'integer', format: 'int32', minimum: 1, maximum: 65535, description: 'Port of the parent to attach to.' },
            },
          },
        },
        hostnames: {
          type: 'array',
          maxItems: 16,
          description: 'Host names the route serves, at most 16 DNS-1123 subdomains (not IP addresses). The first one makes status.url. All the Gateway\'s hosts when absent.',
          items: {
            type: 'string', maxLength: 253, pattern: DNS1123_SUBDOMAIN,
            'x-skiff-message': 'must be a DNS-1123 subdomain (lower-case letters, digits, "-" and ".")',
            description: 'A host name such as web.example.com.',
          },
        },
        path: {
          type: 'string', maxLength: 1024, pattern: '^/', 'x-skiff-message': 'must start with "/"',
          description: 'HTTP path prefix served (a PathPrefix match), at most 1024 characters. Must start with "/"; letters, digits, -/._~!$&\'()*+,;=:@ and %-escapes, without "//", "/./", "/../", "%2F", "#", nor a final "/." or "/..". Defaults to "/".',
        },
        tls: {
          type: 'boolean',
          description: 'Whether the Gateway serves the hostnames over HTTPS. Only the scheme of status.url: TLS ends at the Gateway\'s listener, which the route cannot see. Defaults to false.',
        },
      },
    },
    ingress: {
      type: 'object',
      description: 'An Ingress (networking.k8s.io/v1) routing a host and path to the Service. No Ingress when absent. The Canary strategy needs an ingress or a route (spec.route), where it splits traffic; one of the two at most.',
      required: ['host'],
      additionalProperties: false,
      properties: {
        host: {
          type: 'string',
          maxLength: 253,
          pattern: DNS1123_SUBDOMAIN,
          'x-skiff-message': 'must be a DNS-1123 subdomain (lower-case letters, digits, "-" and ".")',
          description: 'Host name served, a DNS-1123 subdomain such as web.shop.example.com (not an IP address).',
        },
        path: {
          type: 'string',
          // Copied into every Ingress of the App (and so into ingress-nginx's configuration, which
          // every tenant's reload carries) and into status.url: bounded, as spec.route.path is.
          maxLength: 1024,
          pattern: '^/',
          'x-skiff-message': 'must start with "/"',
          description: 'HTTP path served, at most 1024 characters. Must start with "/"; with pathType Prefix or Exact it may not contain "//", "/./", "/../" or "%2F", nor end with "/." or "/..". Defaults to "/".',
        },
        pathType: {
          type: 'string',
          enum: ['Prefix', 'Exact', 'ImplementationSpecific'],
          description: 'How the path is matched: Prefix, Exact or ImplementationSpecific. Defaults to Prefix.',
        },
        className: {
          type: 'string',
          minLength: 1,
          maxLength: 253,
          pattern: DNS1123_SUBDOMAIN,
          'x-skiff-message': 'must be a DNS-1123 subdomain (an IngressClass name)',
          description: 'IngressClass name, a DNS-1123 subdomain. Defaults to nginx (canary rollouts use NGINX Ingress canary annotations).',
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
      description: 'How a change of the pod template (image, env, probes, ...) reaches the pods.',
      additionalProperties: false,
      properties: {
        strategy: {
          type: 'string',
          enum: ['RollingUpdate', 'Canary', 'BlueGreen'],
          description: 'RollingUpdate (the Deployment rolls pods over), Canary (a canary Deployment takes a growing share of traffic at the Ingress or HTTPRoute, step by step) or BlueGreen (a full-size preview Deployment, then the Service switches to it in one write). Defaults to RollingUpdate.',
        },
        blueGreen: {
          type: 'object',
          description: 'Settings of the BlueGreen strategy (only with strategy BlueGreen): a preview Deployment <app>-preview at the stable replica count and a Service <app>-preview; the Service <app> switches to the new revision once the preview is available, passed its analysis check and is promoted.',
          additionalProperties: false,
          properties: {
            autoPromote: { type: 'boolean', description: 'Switch as soon as the preview is ready (after autoPromoteAfter); false: wait for promotion (kubectl skiff promote, or annotate skiff.dev/promote=true). Defaults to true.' },
            autoPromoteAfter: {
              type: 'string',
              pattern: PAUSE_DURATION,
              'x-skiff-message': 'must be a duration such as 30s, 5m or 1h',
              description: 'How long the preview must have been available before an automatic switch: 30s, 5m, 1h; at most 24h. Absent: at once.',
            },
            previewHost: {
              type: 'string',
              maxLength: 253,
              pattern: DNS1123_SUBDOMAIN,
              'x-skiff-message': 'must be a DNS-1123 subdomain',
              description: 'A host that reaches the preview before the switch: an Ingress <app>-preview (with spec.ingress) or an HTTPRoute <app>-preview (with spec.route) for it. Requires spec.ingress or spec.route; not spec.ingress.host nor one of spec.route.hostnames.',
            },
          },
        },
        canaryHeader: {
          type: 'string',
          maxLength: 256,
          pattern: HTTP_HEADER_NAME,
          'x-skiff-message': 'must be an HTTP header name',
          description: 'Name of a request header that routes to the canary: requests with "<header>: always" go to the canary, "never" to stable (through an Ingress or an HTTPRoute).',
        },
        progressDeadlineSeconds: {
          type: 'integer',
          format: 'int32',
          minimum: 1,
          maximum: 86400,
          description: 'Seconds a rollout may take to make progress (the canary Deployment to become available) before it is aborted, 1..86400 (24 hours). Defaults to 600.',
        },
        scaleDownDelaySeconds: {
          type: 'integer',
          minimum: 0,
          maximum: 3600,
          description: 'Seconds the pods of a finished canary (promoted, aborted or cancelled) keep running after its traffic went back to stable (with canaryHeader, once the canary\'s part of the routing, which sends the requests carrying the header to it at any weight, is gone), so that requests already routed to them finish and routers that apply changes late never send to a pod that is gone; then its Deployment and Service are deleted. 0..3600; defaults to 30.',
        },
        paused: {
          type: 'boolean',
          description: 'Holds rollouts, as a Deployment\'s spec.paused: a canary keeps its weight and step (pause timers and the progress deadline stop; analysis checks still run and can still abort), a change of the pod template waits to start (no rollout of it has begun: skiff.dev/abort has nothing to act on, and is removed with a Warning AbortIgnored), and with RollingUpdate the Deployment is paused. Defaults to false.',
        },
        steps: {
          type: 'array',
          minItems: 1,
          maxItems: 64,
          description: 'Canary steps, run in order, 1 to 64. Defaults to setWeight 20, pause 60s, setWeight 50, pause (until promoted).',
          items: canaryStep,
        },
        analysis: analysisSchema,
        trackConfig: {
          type: 'boolean',
          description: 'Roll out changes of the ConfigMaps the pod template references (env, envFrom, volumes) like pod-template changes: the controller copies each into an immutable owned copy named <name>-<hash of its data> and the pods reference the copies, so a change of a source makes a new revision. Secrets too when the controller runs with --track-secrets. Defaults to false.',
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

/** One metric of a check: in the last check (with its message) and in the history of checks. */
const metricProperties: Record<string, JSONSchema> = {
  name: { type: 'string', description: 'successRate, latency, requests or a custom metric.' },
  value: { type: 'number', description: 'The measured value; absent when there was none.' },
  min: { type: 'number', description: 'The lower bound it was held to.' },
  max: { type: 'number', description: 'The upper bound it was held to.' },
  result: { type: 'string', description: 'Passed, Failed or Inconclusive.' },
};

const analysisStatusSchema: JSONSchema = {
  type: 'object',
  description: 'The metric analysis of this canary: every check so far and the last one.',
  properties: {
    checks: { type: 'integer', description: 'Checks run.' },
    failures: { type: 'integer', description: 'Checks that counted as failed.' },
    lastCheckAt: { type: 'string', format: 'date-time', description: 'When the last check ran: the time it was started at lastWeight, which its queries are evaluated at (the end of the window it measured), even when it then waited for a slot (--analysis-concurrency). The next check is due interval later.' },
    lastResult: { type: 'string', description: 'Passed, Failed or Inconclusive.' },
    lastWeight: { type: 'integer', description: 'The canary weight the last check ran at.' },
    message: { type: 'string', description: 'What the last check found.' },
    inconclusive: { type: 'integer', description: 'Checks whose result was Inconclusive.' },
    history: {
      type: 'array',
      maxItems: 30,
      description: 'The last 30 checks of this rollout, oldest first: when, at which weight, the result and each metric (for charts).',
      items: {
        type: 'object',
        description: 'One past check.',
        properties: {
          at: { type: 'string', format: 'date-time', description: 'When the check ran.' },
          weight: { type: 'integer', description: 'The weight it ran at.' },
          result: { type: 'string', description: 'Passed, Failed or Inconclusive.' },
          metrics: {
            type: 'array',
            description: 'Each metric: name, value, bounds, result.',
            items: {
              type: 'object',
              description: 'One metric of the check.',
              properties: metricProperties,
            },
          },
        },
      },
    },
    metrics: {
      type: 'array',
      description: "Each metric of the last check: its value, bounds and result.",
      items: {
        type: 'object',
        description: 'One metric of the last check.',
        properties: { ...metricProperties, message: { type: 'string', description: 'Why.' } },
      },
    },
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
    url: { type: 'string', description: 'Where the App is served: from spec.ingress (https with tlsSecretName) or the first hostname of spec.route (https with tls). Absent without either.' },
    stableImage: { type: 'string', description: 'The image the stable Deployment runs.' },
    abortedImage: { type: 'string', description: 'The image of the last aborted canary; no new canary starts until the pod template changes (see abortedRevision).' },
    stableRevision: { type: 'string', description: 'A short hash of the pod template the stable Deployment runs.' },
    updateRevision: { type: 'string', description: 'The short hash of the pod template spec asks for (as a StatefulSet\'s updateRevision): equal to stableRevision once that template is rolled out, different while it rolls out or waits (spec.rollout.paused).' },
    abortedRevision: { type: 'string', description: 'The pod template revision of the last aborted canary; no new canary starts for it again.' },
    scaleDown: {
      type: 'object',
      description: 'The pods of a finished canary, kept for spec.rollout.scaleDownDelaySeconds after its traffic went back to stable. Absent when there are none.',
      properties: {
        revision: { type: 'string', description: 'The pod template revision those pods run.' },
        deleteAt: { type: 'string', format: 'date-time', description: 'When their Deployment and Service are deleted.' },
      },
    },
    blueGreen: {
      type: 'object',
      description: 'The blue-green rollout under way. Absent when there is none.',
      properties: {
        previewRevision: { type: 'string', description: 'The pod template revision of the preview Deployment.' },
        activeRevision: { type: 'string', description: 'The revision the Service <app> selects: stable\'s before the switch, the preview\'s after it.' },
        phase: { type: 'string', description: 'Preview (the preview runs, stable serves), Switched (the Service selects the new revision; the old pods stay for scaleDownDelaySeconds) or ScalingDown (the Deployment <app> takes the new template; then the preview goes).' },
        image: { type: 'string', description: 'The image of the preview.' },
        changes: { type: 'array', description: 'What the preview changes against stable, in App field names, such as image, env MODE or configMap web-cfg; kept as at the start of the rollout through the scale-down.', items: { type: 'string', description: 'One change.' } },
        startedAt: { type: 'string', format: 'date-time', description: 'When this rollout started; the preview must be available within spec.rollout.progressDeadlineSeconds of it.' },
        previewReadyAt: { type: 'string', format: 'date-time', description: 'When the preview was first available; autoPromoteAfter counts from here.' },
        previewVerdict: {
          type: 'object',
          description: 'The last check of the ready preview that passed or failed (an inconclusive one leaves it, as does one under noData Wait): the switch needs Passed. Absent until one counted, and once the preview is lost.',
          properties: {
            result: { type: 'string', description: 'Passed or Failed, as the check counted under spec.rollout.analysis.noData.' },
            at: { type: 'string', format: 'date-time', description: 'When that check was taken; after a Failed one the next passing check is due within progressDeadlineSeconds of it.' },
          },
        },
        pausedAt: { type: 'string', format: 'date-time', description: 'When spec.rollout.paused held this rollout before the switch; absent while it runs (on resume, startedAt, previewReadyAt and previewVerdict.at move forward by the time paused).' },
        switchedAt: { type: 'string', format: 'date-time', description: 'When the Service switched (or switched back).' },
        scaleDownAt: { type: 'string', format: 'date-time', description: 'When the pods that no longer get traffic go.' },
        analysis: { ...analysisStatusSchema, description: 'The analysis checks of this rollout, as status.canary.analysis has them; lastWeight 0: a check of the preview (traffic from previewHost), 100: a check under full traffic after the switch.' },
      },
    },
    canary: {
      type: 'object',
      description: 'The canary rollout under way. Absent when there is none.',
      properties: {
        image: { type: 'string', description: 'The image under test.' },
        revision: { type: 'string', description: 'A short hash of the pod template under test.' },
        changes: { type: 'array', description: 'What the canary changes against stable, in App field names, such as image or env MODE.', items: { type: 'string', description: 'One change.' } },
        weight: { type: 'integer', description: 'Share of traffic (percent) sent to the canary now.' },
        weightChangedAt: { type: 'string', format: 'date-time', description: 'When the router began carrying the weight (absent while a new weight is not carried yet); analysis checks wait until the canary has had its weight for a full interval.' },
        stepIndex: { type: 'integer', description: 'Index of the current step in spec.rollout.steps.' },
        stepStartedAt: { type: 'string', format: 'date-time', description: 'When the current step started (moved forward by the time the rollout was paused).' },
        step: { type: 'string', description: 'The step at stepIndex when it started, in words (setWeight 50%, pause 1h, promotion): when an edit of spec.rollout.steps puts another step at the index, that step starts then.' },
        pausedAt: { type: 'string', format: 'date-time', description: 'When spec.rollout.paused held this canary; absent while it runs.' },
        unavailableSince: { type: 'string', format: 'date-time', description: 'When the canary Deployment was first seen unavailable while the canary had traffic (moved forward by the time the rollout was paused); the canary is aborted (ProgressDeadlineExceeded) once it has been unavailable for progressDeadlineSeconds. Absent while it is available.' },
        heldFromWeight: { type: 'integer', description: 'The weight the canary had when a controller without a Prometheus held it at 0 (its analysis cannot run): a pause held so gets the weight of the setWeight step before it back once checks can. Absent otherwise.' },
        analysis: analysisStatusSchema,
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
  description: 'App describes a web workload: a Deployment, a Service, an optional Ingress or Gateway API HTTPRoute, a PodDisruptionBudget and a HorizontalPodAutoscaler when asked for, with rolling, canary or blue-green rollouts.',
  required: ['spec'],
  properties: {
    apiVersion: { type: 'string', description: 'skiff.dev/v1alpha1' },
    kind: { type: 'string', description: 'App' },
    metadata: { type: 'object' },
    spec: appSpecSchema,
    status: appStatusSchema,
  },
};
