// API discovery: which group/versions the API server serves (GET /apis), so that objects whose
// API version moved across Kubernetes releases are written in a version the cluster has.
import type { Clients } from './clients.js';

/** Every served "group/version" of the named API groups (the core group is always v1). */
export async function servedGroupVersions(clients: Pick<Clients, 'apiGroups'>): Promise<Set<string>> {
  const groups = await clients.apiGroups();
  return new Set(groups.groups.flatMap((g) => g.versions.map((v) => v.groupVersion)));
}

/** The names of the resources a served group/version has (`httproutes`, `httproutes/status`). */
export async function servedResources(clients: Pick<Clients, 'apiResources'>, groupVersion: string): Promise<Set<string>> {
  const list = await clients.apiResources(groupVersion);
  return new Set((list.resources ?? []).map((r) => r.name));
}
