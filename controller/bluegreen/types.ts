// The shapes the blue-green engine works with: what it is asked (the App's rollout fields and
// status, and what is observed of the preview, the stable Deployment and the Service) and what it
// decides. The decision is the canary engine's, with the blue-green objects beside it, so that the
// reconciler, the status and the revision history treat both strategies alike. No code.
import type { BlueGreenStatus, Condition } from '../../shared/app-types.js';
import type { AnalysisInput, CanaryDecision, RevisionsOnRecord } from '../canary/types.js';

export interface BlueGreenInput {
  /** spec.image, for messages and status. */
  image: string;
  /** The revision of the pod template spec renders. */
  revision: string;
  /** The stable Deployment's desired replicas now (spec.replicas, or the autoscaler's count): the preview's size. */
  replicas: number;
  /** spec.autoscaling is set: `replicas` is the autoscaler's count of the Deployment `<app>`. */
  autoscaled?: boolean;
  progressDeadlineSeconds: number;
  /** How long the old pods stay after the switch: the window in which a switch back is instant. */
  scaleDownDelaySeconds: number;
  autoPromote: boolean;
  /** How long the preview must have been available before an automatic switch. */
  autoPromoteAfterMs?: number;
  /** spec.rollout.paused: the rollout holds before the switch. */
  paused: boolean;
  annotations: Record<string, string>;
  /** The revisions the App's history records as once Promoted: only these may skip the preview (skiff.dev/skip-canary). */
  promotedRevisions?: ReadonlySet<string>;
  /** spec.rollout.analysis, when the App has one; a check's weight is 0 for the preview, 100 under full traffic. */
  analysis?: AnalysisInput;
  status: RevisionsOnRecord & {
    blueGreen?: BlueGreenStatus;
    conditions?: Condition[];
    /** The revision of spec's pod template as the last pass recorded it (status.updateRevision). */
    updateRevision?: string;
  };
}

export interface BlueGreenObserved {
  /** The Deployment `<app>`: its revision, whether it rolled out, and whether its pods carry the revision label. */
  stableDeployment?: { revision?: string; available: boolean; labelled: boolean; replicas?: number };
  /** The Deployment `<app>-preview`, when it exists. */
  preview?: { revision?: string; replicas: number; available: boolean; replicaFailure?: string };
  /** The revision the Service `<app>` selects now; undefined when it selects the stable track. */
  serviceRevision?: string;
  /**
   * The revision Skiff's own last write of the Service selected (its annotation
   * skiff.dev/selected-revision); a selector edited by someone since differs from it.
   */
  serviceRevisionWritten?: string;
  /** The revision Skiff's write of an abort's switch back switched the Service back from (ANNOTATION_SWITCHED_BACK_FROM). */
  serviceSwitchedBackFrom?: string;
  /** Whether any preview object (Deployment, Service, Ingress, HTTPRoute) exists. */
  previewObjectsExist: boolean;
  /**
   * The preview's Service, and its Ingress or HTTPRoute with previewHost, that the caches do not
   * show as the App's (`Service shop/web-preview`): not made yet, or the name someone else's.
   */
  previewNotTheApps?: readonly string[];
}

/** The blue-green objects after a decision. */
export interface BlueGreenPlan {
  /** The preview objects to keep or create, at this revision and size. */
  preview?: { revision: string; replicas: number };
  /** Delete the preview objects (only ever when the Service does not send to them). */
  removePreview: boolean;
  /** The revision the Service `<app>` selects; undefined: the stable track (pods without the revision label). */
  activeRevision?: string;
  /** An abort's switch back: the revision it switched back from, written on the Service with its selector (ANNOTATION_SWITCHED_BACK_FROM). */
  switchedBackFrom?: string;
  /**
   * With an autoscaler, which owns the Deployment `<app>`'s count otherwise: the count it is given
   * as it takes the traffic over from the preview (switched back, or the scale-down after the
   * switch). Its idle old pods were scaled down by the autoscaler meanwhile; the preview's count
   * carried the traffic.
   */
  stableReplicas?: number;
}

/** A rollout decision of any strategy: the canary engine's, and the blue-green objects when it is blue-green. */
export type RolloutDecision = Omit<CanaryDecision, 'status' | 'progressing'> & {
  status: CanaryDecision['status'] & { blueGreen?: BlueGreenStatus };
  /** Unknown while paused, as a Deployment's DeploymentPaused. */
  progressing?: { status: 'True' | 'False' | 'Unknown'; reason: string; message: string };
  blueGreen?: BlueGreenPlan;
};
