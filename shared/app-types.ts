// TypeScript shape of the App custom resource (skiff.dev/v1alpha1). The JSON schema in
// app-schema.ts describes the same fields for the API server and for validation.

export const GROUP = 'skiff.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = 'App';
export const PLURAL = 'apps';

export type ServiceType = 'ClusterIP' | 'NodePort' | 'LoadBalancer';
export type PathType = 'Prefix' | 'Exact' | 'ImplementationSpecific';
export type RolloutStrategy = 'RollingUpdate' | 'Canary';

export interface EnvVar {
  name: string;
  value?: string;
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

export interface CanaryStep {
  setWeight?: number;
  pause?: { duration?: string };
}

export interface RolloutSpec {
  strategy?: RolloutStrategy;
  canaryHeader?: string;
  progressDeadlineSeconds?: number;
  steps?: CanaryStep[];
}

export interface AppSpec {
  image: string;
  replicas?: number;
  port?: number;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  resources?: ResourceRequirements;
  readinessPath?: string;
  service?: ServiceSpec;
  ingress?: IngressSpec;
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

export interface CanaryStatus {
  image: string;
  weight: number;
  stepIndex: number;
  stepStartedAt: string;
}

export interface AppStatus {
  observedGeneration?: number;
  replicas?: number;
  readyReplicas?: number;
  ready?: string;
  url?: string;
  stableImage?: string;
  canary?: CanaryStatus;
  abortedImage?: string;
  conditions?: Condition[];
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
  port: number;
  service: Required<ServiceSpec>;
  ingress?: IngressSpec & Required<Pick<IngressSpec, 'path' | 'pathType' | 'className'>>;
  rollout: RolloutSpec & Required<Pick<RolloutSpec, 'strategy' | 'progressDeadlineSeconds'>>;
}
