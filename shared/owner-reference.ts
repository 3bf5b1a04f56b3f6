// The ownerReference of the objects an App owns. Here rather than with the rest of ownership
// (controller/state/ownership.ts) because rendering, which the webhook also runs to measure a pod
// template, sets it.
import type { V1OwnerReference } from '@kubernetes/client-node';
import { API_VERSION, KIND, type App } from './app-types.js';

/** The reference every owned object carries: the App controls it, and blocks its own deletion on it. */
export function ownerReference(app: App): V1OwnerReference {
  return { apiVersion: API_VERSION, kind: KIND, name: app.metadata.name!, uid: app.metadata.uid!, controller: true, blockOwnerDeletion: true };
}
