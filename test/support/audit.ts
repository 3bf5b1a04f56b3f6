// Writes recorded in the API server's audit log (a control plane started with auditPolicy),
// told apart by User-Agent: how a test counts what the controller wrote.
import { readFileSync } from 'node:fs';

export interface AuditedWrite {
  verb: string;
  /** resource, or resource/subresource (apps/status). */
  resource: string;
  name: string;
  at: string;
}

/** Writes (create, update, patch, delete) by clients whose User-Agent starts with `agent`, in a namespace, since a time. */
export function auditedWrites(auditLogPath: string, opts: { agent: string; namespace: string; sinceMs: number }): AuditedWrite[] {
  return readFileSync(auditLogPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.stage === 'ResponseComplete' && String(e.userAgent).startsWith(opts.agent))
    .filter((e) => ['create', 'update', 'patch', 'delete'].includes(e.verb) && e.objectRef?.namespace === opts.namespace)
    .filter((e) => Date.parse(e.requestReceivedTimestamp) >= opts.sinceMs)
    .map((e) => ({ verb: e.verb, resource: [e.objectRef?.resource, e.objectRef?.subresource].filter(Boolean).join('/'), name: e.objectRef?.name, at: e.requestReceivedTimestamp }));
}
