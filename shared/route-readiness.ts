// Whether a Gateway API HTTPRoute's parents have taken it as it is now, from its status: the
// controller raises a canary's weight only then, and the dashboard shows it. Pure.

const GATEWAY_GROUP = 'gateway.networking.k8s.io';

export interface ParentRef { name: string; namespace?: string; sectionName?: string; group?: string; kind?: string; port?: number }

/** The fields of an HTTPRoute that say whether its parents took it. */
export interface RouteWithStatus {
  metadata?: { namespace?: string; generation?: number };
  spec?: { parentRefs?: ParentRef[] };
  status?: {
    parents?: {
      parentRef: ParentRef;
      controllerName?: string;
      conditions?: { type: string; status: string; observedGeneration?: number; reason?: string; message?: string }[];
    }[];
  };
}

/** Whether a route's parents carry it as it is; when not, whether any may carry an earlier generation. */
export interface RouteReadiness {
  ready: boolean;
  message?: string;
  served?: boolean;
  /** A parent's controller said, of the route's current generation, that it does not take it (Accepted=False). */
  refused?: boolean;
}

/**
 * Whether every parent of the route reports it Accepted and ResolvedRefs for its current
 * generation: only then does the data plane carry what the route says. `parentRefs` are the
 * parents to judge by (default the route's own): the controller passes the App's, since a parent
 * the App has just added is not yet on the stored route, and a weight raised in the pass that
 * adds it would give that parent the raised share before it ever carried the route.
 */
export function routeReadiness(route: RouteWithStatus | undefined, parentRefs = route?.spec?.parentRefs): RouteReadiness {
  if (!route) return { ready: false, served: false, message: 'the HTTPRoute does not exist yet' };
  // Whether some data plane may carry a generation of the route (one accepted it once): if none
  // ever did, the route sends nothing anywhere, whatever it says.
  const served = (route.status?.parents ?? []).some((p) => p.conditions?.some((c) => c.type === 'Accepted' && c.status === 'True'));
  const generation = route.metadata?.generation;
  const namespace = route.metadata?.namespace;
  // A status entry is for the parentRef it repeats, group and kind included (with the Gateway
  // API's defaults): a Gateway and a Service (a mesh parent) may share a name.
  const group = (r: ParentRef) => r.group ?? GATEWAY_GROUP;
  const kind = (r: ParentRef) => r.kind ?? 'Gateway';
  for (const ref of parentRefs ?? []) {
    // Only an entry with an Accepted condition says whether its controller took the route: other
    // controllers (policy controllers such as Kuadrant's) add entries for the same parent with
    // conditions of their own types only, which say nothing of the data plane.
    const entries = (route.status?.parents ?? []).filter((p) => p.parentRef.name === ref.name
      && (p.parentRef.namespace ?? namespace) === (ref.namespace ?? namespace)
      && (p.parentRef.sectionName ?? '') === (ref.sectionName ?? '')
      && group(p.parentRef) === group(ref) && kind(p.parentRef) === kind(ref)
      && p.conditions?.some((c) => c.type === 'Accepted'));
    // Entries are per controller: one that no longer serves the parent (the Gateway's class moved
    // to another implementation) may leave its entry behind at an older generation. The entries
    // that report on the current generation decide, every one of them; without any, the first.
    const current = entries.filter((p) => p.conditions?.some((c) => c.observedGeneration === generation));
    const what = `parent ${kind(ref) === 'Gateway' ? '' : `${kind(ref)} `}${ref.namespace ?? namespace}/${ref.name}${ref.sectionName ? `/${ref.sectionName}` : ''}`;
    for (const parent of current.length ? current : [entries[0]]) {
      for (const type of ['Accepted', 'ResolvedRefs']) {
        const c = parent?.conditions?.find((x) => x.type === type);
        if (c?.status !== 'True' || c.observedGeneration !== generation) {
          // What it did report, and for which generation when an earlier one (True there says nothing of this one).
          const said = c && `${c.status}${c.reason ? `, ${c.reason}` : ''}${c.observedGeneration !== generation ? ` for generation ${c.observedGeneration ?? 'unknown'}` : ''}`;
          const refused = type === 'Accepted' && c?.status === 'False' && c.observedGeneration === generation;
          return { ready: false, served, message: `${what} has not reported ${type}=True for generation ${generation}${said ? ` (${said})` : ''}`, ...(refused && { refused }) };
        }
      }
    }
  }
  return { ready: true };
}
