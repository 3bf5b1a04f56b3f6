// coordination.k8s.io/v1 Leases for leader election: read, create and replace (a PUT carrying
// the resourceVersion read, so that a write after someone else's fails with 409 Conflict).
import type { V1ObjectMeta } from '@kubernetes/client-node';
import type { SendJson } from './http-api-client.js';

/** A Lease's spec as JSON: its times are MicroTime strings (microTime()). */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec?: LeaseSpec;
}

export interface LeaseClient {
  readNamespacedLease(p: { name: string; namespace: string }): Promise<Lease>;
  createNamespacedLease(p: { namespace: string; body: Lease }): Promise<Lease>;
  replaceNamespacedLease(p: { name: string; namespace: string; body: Lease }): Promise<Lease>;
}

const collection = (namespace: string) => `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;

export function leaseClient(send: SendJson): LeaseClient {
  const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' };
  return {
    readNamespacedLease: async ({ name, namespace }) => (await send('GET', `${collection(namespace)}/${encodeURIComponent(name)}`, '')) as Lease,
    createNamespacedLease: async ({ namespace, body }) => (await send('POST', collection(namespace), '', { ...lease, ...body })) as Lease,
    replaceNamespacedLease: async ({ name, namespace, body }) => (await send('PUT', `${collection(namespace)}/${encodeURIComponent(name)}`, '', { ...lease, ...body })) as Lease,
  };
}

/** A MicroTime as the API server writes it: RFC 3339 with six fractional digits. */
export const microTime = (d: Date): string => d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
