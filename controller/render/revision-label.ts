// The pods of a blue-green App carry their pod-template revision as a label, so that the Service
// `<app>` can select one revision: the switch is one write of its selector. The label is added to
// the Deployment's template after the revision is hashed (it never changes the revision), and only
// for BlueGreen Apps: the pods of Canary and RollingUpdate Apps stay as they were, so an upgrade of
// Skiff rolls none of them. Pure.
import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import type { DefaultedApp } from '../../shared/defaults.js';
import { LABEL_APP, LABEL_REVISION } from '../../shared/labels.js';

export const labelsRevision = (app: DefaultedApp) => app.spec.rollout.strategy === 'BlueGreen';

export function withRevisionLabel(template: V1PodTemplateSpec, app: DefaultedApp, revision: string): V1PodTemplateSpec {
  if (!labelsRevision(app)) return template;
  return { ...template, metadata: { ...template.metadata, labels: { ...template.metadata?.labels, [LABEL_REVISION]: revision } } };
}

/** The selector of the pods of one revision of the App, whichever Deployment runs them. */
export const revisionSelector = (appName: string, revision: string) => ({ [LABEL_APP]: appName, [LABEL_REVISION]: revision });

/** The revision a pod template's label names, when it has one. */
export const labelledRevision = (template: V1PodTemplateSpec | undefined) => template?.metadata?.labels?.[LABEL_REVISION];
