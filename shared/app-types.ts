// TypeScript shape of the App custom resource (skiff.dev/v1alpha1). The JSON schema in
// app-schema.ts describes the same fields for the API server and for validation.

export const GROUP = 'skiff.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = 'App';
export const PLURAL = 'apps';

export type ServiceType = 'ClusterIP' | 'NodePort' | 'LoadBalancer';
export type PathType = 'Prefix' | 'Exact' | 'ImplementationSpecific';
export type RolloutStrategy = 'RollingUpdate' | 'Canary' | 'BlueGreen';

// The pod-level fields below have the names and shapes of the Kubernetes fields they become,
// so that a block can be copied from a Deployment manifest.

export interface KeySelector {
  name: string;
  key: string;
  optional?: boolean;
}

export interface EnvVarSource {
  secretKeyRef?: KeySelector;
  configMapKeyRef?: KeySelector;
  fieldRef?: { fieldPath: string; apiVersion?: string };
  resourceFieldRef?: { resource: string; containerName?: string; divisor?: string | number };
}

export interface EnvVar {
  name: string;
  /** Exactly one of value and valueFrom. */
  value?: string;
  valueFrom?: EnvVarSource;
}

export interface EnvFromSource {
  prefix?: string;
  secretRef?: { name: string; optional?: boolean };
  configMapRef?: { name: string; optional?: boolean };
}

export interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

/** A pod volume and its mount in the App's container: exactly one of configMap, secret, emptyDir. */
export interface Volume {
  name: string;
  mountPath: string;
  subPath?: string;
  /** configMap and secret volumes are always read-only; emptyDir ones may set false. */
  readOnly?: boolean;
  configMap?: { name: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  secret?: { secretName: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  emptyDir?: { medium?: string; sizeLimit?: string | number };
}

/** corev1.Probe; a port left out means spec.port. */
export interface Probe {
  httpGet?: { path?: string; port?: number | string; scheme?: 'HTTP' | 'HTTPS'; httpHeaders?: { name: string; value: string }[] };
  tcpSocket?: { port?: number | string };
  exec?: { command: string[] };
  initialDelaySeconds?: number;
  periodSeconds?: number;
  timeoutSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
}

export interface Probes {
  readiness?: Probe;
  liveness?: Probe;
  startup?: Probe;
}

export interface SeccompProfile {
  type: 'RuntimeDefault' | 'Localhost' | 'Unconfined';
  localhostProfile?: string;
}

export interface PodSecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  fsGroup?: number;
  fsGroupChangePolicy?: 'OnRootMismatch' | 'Always';
  supplementalGroups?: number[];
  seccompProfile?: SeccompProfile;
}

export interface SecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  /** true is refused. */
  privileged?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: SeccompProfile;
}

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  tolerationSeconds?: number;
}

/** The owned PodDisruptionBudget: one of maxUnavailable and minAvailable (an integer or "N%"). */
export interface DisruptionSpec {
  maxUnavailable?: number | string;
  minAvailable?: number | string;
}

/** The owned HorizontalPodAutoscaler. */
export interface AutoscalingSpec {
  minReplicas?: number;
  maxReplicas: number;
  targetCPUUtilizationPercentage?: number;
  targetMemoryUtilizationPercentage?: number;
}

export interface ResourceRequirements {
  requests?: Record<string, string | number>;
  limits?: Record<string, string | number>;
}

export interface ServiceSpec {
  type?: ServiceType;
  port?: number;
}

export interface IngressSpec {
  host: string;
  path?: string;
  pathType?: PathType;
  className?: string;
  tlsSecretName?: string;
}

/** A Gateway API parentReference: the Gateway (or listener) the route attaches to. */
export interface ParentReference {
  name: string;
  namespace?: string;
  sectionName?: string;
  group?: string;
  kind?: string;
  port?: number;
}

/** An HTTPRoute (gateway.networking.k8s.io/v1) instead of an Ingress. */
export interface RouteSpec {
  parentRefs: ParentReference[];
  hostnames?: string[];
  path?: string;
  /** Only the scheme of status.url: TLS ends at the Gateway's listener. */
  tls?: boolean;
}

export interface CanaryStep {
  setWeight?: number;
  pause?: { duration?: string };
}

export type NoDataPolicy = 'Wait' | 'Fail' | 'Pass';

export type LatencyPercentile = 50 | 90 | 95 | 99;

export interface CustomMetric {
  name: string;
  /** PromQL evaluated to one number; placeholders {{namespace}}, {{app}}, ... are filled in. */
  query: string;
  min?: number;
  max?: number;
}

/** Health analysis of a canary against Prometheus. */
export interface AnalysisSpec {
  interval?: string;
  failureLimit?: number;
  minRequests?: number;
  noData?: NoDataPolicy;
  successRate?: { min?: number; maxDropFromStable?: number };
  /** The mean response time, or with `percentile` that percentile, held to maxMs. */
  latency?: { maxMs: number; percentile?: LatencyPercentile };
  metrics?: CustomMetric[];
}

/** The BlueGreen strategy's settings: a full-size preview, then one switch of the Service. */
export interface BlueGreenSpec {
  /** Switch once the preview is ready (and passed its check); false: wait for promotion. Defaults to true. */
  autoPromote?: boolean;
  /** How long the preview must have been ready before an automatic switch. */
  autoPromoteAfter?: string;
  /** A host (Ingress) or hostname (HTTPRoute) that reaches the preview before the switch. */
  previewHost?: string;
}

export interface RolloutSpec {
  strategy?: RolloutStrategy;
  blueGreen?: BlueGreenSpec;
  canaryHeader?: string;
  progressDeadlineSeconds?: number;
  /** Seconds a finished canary's pods keep running after its traffic went back to stable. */
  scaleDownDelaySeconds?: number;
  /** Holds rollouts (a canary keeps its weight and step; a new pod template waits). */
  paused?: boolean;
  steps?: CanaryStep[];
  analysis?: AnalysisSpec;
  /** Copy the referenced ConfigMaps (and Secrets with --track-secrets) into owned copies named by their data's hash. */
  trackConfig?: boolean;
}

export interface AppSpec {
  image: string;
  replicas?: number;
  /** Revisions kept in the history besides the stable one and the one rolling out (the newest is kept even at 0). */
  revisionHistoryLimit?: number;
  port?: number;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  resources?: ResourceRequirements;
  readinessPath?: string;
  imagePullSecrets?: { name: string }[];
  serviceAccountName?: string;
  envFrom?: EnvFromSource[];
  volumes?: Volume[];
  probes?: Probes;
  podAnnotations?: Record<string, string>;
  podLabels?: Record<string, string>;
  podSecurityContext?: PodSecurityContext;
  securityContext?: SecurityContext;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  priorityClassName?: string;
  terminationGracePeriodSeconds?: number;
  disruption?: DisruptionSpec;
  autoscaling?: AutoscalingSpec;
  service?: ServiceSpec;
  ingress?: IngressSpec;
  route?: RouteSpec;
  rollout?: RolloutSpec;
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** metav1.Condition */
export interface Condition {
  type: string;
  status: ConditionStatus;
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export type MetricVerdict = 'Passed' | 'Failed' | 'Inconclusive';

/** One metric of the last check. */
export interface MetricStatus {
  name: string;
  value?: number;
  min?: number;
  max?: number;
  result: MetricVerdict;
  message: string;
}

/** The analysis of the canary under way: every check so far and the last one's metrics. */
export interface AnalysisStatus {
  /** Checks run. */
  checks: number;
  /** Checks that counted as failed (noData: Fail counts inconclusive ones). */
  failures: number;
  /** When the last check was started at lastWeight: its queries' evaluation time, before any wait for a slot. */
  lastCheckAt?: string;
  /** The last check's result and the canary weight it ran at. */
  lastResult?: MetricVerdict;
  lastWeight?: number;
  message?: string;
  metrics?: MetricStatus[];
  /** Checks whose result was Inconclusive (no data, a query error, too few requests). */
  inconclusive?: number;
  /** The last 30 checks of this rollout, oldest first, for charts. */
  history?: CheckRecord[];
}

/** One past check: when, at which weight, its result and each metric's value and bounds. */
export interface CheckRecord {
  at: string;
  weight: number;
  result: MetricVerdict;
  metrics: Omit<MetricStatus, 'message'>[];
}

export interface CanaryStatus {
  image: string;
  /** Short hash of the canary's pod template. */
  revision?: string;
  /** What the canary changes against stable, in App field names: "image", "env MODE", ... */
  changes?: string[];
  analysis?: AnalysisStatus;
  weight: number;
  /** When `weight` last changed: a check measures only time at the current weight. */
  weightChangedAt?: string;
  stepIndex: number;
  stepStartedAt: string;
  /**
   * The step at stepIndex when it started, in words ("setWeight 50%", "pause 1h", "promotion"): an
   * edit of spec.rollout.steps that puts another step at this index starts that step's clock anew.
   */
  step?: string;
  /** When spec.rollout.paused held the canary; cleared (and stepStartedAt moved forward) on resume. */
  pausedAt?: string;
  /**
   * When the canary Deployment was first seen unavailable while the canary had traffic (a weight
   * above 0): kept across passes and restarts, so that progressDeadlineSeconds counts from here;
   * cleared once it is available again.
   */
  unavailableSince?: string;
  /**
   * The weight the canary had when a controller without a Prometheus held it at 0 (its analysis
   * cannot run): a pause held so gets its weight back once checks can. Absent otherwise: a pause
   * at 0 for any other reason (a setWeight 0 before it, edited since) stays at 0.
   */
  heldFromWeight?: number;
}

export type BlueGreenPhase = 'Preview' | 'Switched' | 'ScalingDown';

/** A blue-green rollout under way (or its preview pods still going after a switch back). */
export interface BlueGreenStatus {
  /** The revision of the preview Deployment (spec's pod template). */
  previewRevision: string;
  /** The revision the Service selects: stable's before the switch, the preview's after it. */
  activeRevision: string;
  phase: BlueGreenPhase;
  /** The preview's image. */
  image?: string;
  /**
   * What the preview changes against stable, in App field names ("image", "configMap web-cfg"),
   * as at the rollout's start: kept once the Deployment `<app>` takes the new template.
   */
  changes?: string[];
  /** When this rollout started (the progress deadline counts from here until the preview is ready). */
  startedAt?: string;
  /** When the preview Deployment was first seen available (autoPromoteAfter counts from here). */
  previewReadyAt?: string;
  /**
   * The last check of the ready preview that passed or failed (an inconclusive one leaves it): the
   * switch needs Passed. Cleared when the preview is lost.
   */
  previewVerdict?: { result: 'Passed' | 'Failed'; at: string };
  /** When spec.rollout.paused held this rollout before the switch; cleared (and the times above moved forward) on resume. */
  pausedAt?: string;
  /** When the Service switched to the preview's revision (or back). */
  switchedAt?: string;
  /** When the pods that no longer get traffic go (switchedAt + scaleDownDelaySeconds). */
  scaleDownAt?: string;
  /** The analysis of this rollout: the preview's check before the switch, then checks under full traffic. */
  analysis?: AnalysisStatus;
}

export interface AppStatus {
  observedGeneration?: number;
  replicas?: number;
  readyReplicas?: number;
  ready?: string;
  url?: string;
  stableImage?: string;
  /** Short hash of the pod template the stable Deployment runs. */
  stableRevision?: string;
  /** Short hash of the pod template spec asks for; equal to stableRevision once it is rolled out. */
  updateRevision?: string;
  canary?: CanaryStatus;
  blueGreen?: BlueGreenStatus;
  abortedImage?: string;
  /** The pod template revision of the last aborted canary; no canary starts for it again. */
  abortedRevision?: string;
  /** A finished canary's pods, kept until `deleteAt` (spec.rollout.scaleDownDelaySeconds). */
  scaleDown?: ScaleDownStatus;
  conditions?: Condition[];
}

export interface ScaleDownStatus {
  revision: string;
  deleteAt: string;
}

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string | Date;
  deletionTimestamp?: string | Date;
  [key: string]: unknown;
}

export interface App {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: AppSpec;
  status?: AppStatus;
}

/** An App after the webhook's defaults: every defaulted field is present. */
export interface DefaultedAppSpec extends AppSpec {
  replicas: number;
  revisionHistoryLimit: number;
  port: number;
  service: Required<ServiceSpec>;
  ingress?: IngressSpec & Required<Pick<IngressSpec, 'path' | 'pathType' | 'className'>>;
  route?: RouteSpec & Required<Pick<RouteSpec, 'path' | 'tls'>>;
  rollout: RolloutSpec & Required<Pick<RolloutSpec, 'strategy' | 'progressDeadlineSeconds' | 'scaleDownDelaySeconds' | 'paused' | 'trackConfig'>> & {
    analysis?: AnalysisSpec & Required<Pick<AnalysisSpec, 'interval' | 'failureLimit' | 'minRequests' | 'noData'>>;
  };
}
