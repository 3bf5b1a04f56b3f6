// Whose rights the dashboard's requests carry: said on its first line and on the page.
import type { Impersonation } from '../../shared/kube-connection.js';

/** Whose rights the dashboard's requests carry, for its first line: an impersonated user (--as, or the kubeconfig's `as`) is named. */
export function actingAs(impersonate: Impersonation | undefined): string {
  if (!impersonate?.user) return "acting with your kubeconfig's credentials";
  const groups = impersonate.groups?.length ? ` in groups ${impersonate.groups.join(', ')}` : '';
  return `acting as ${impersonate.user}${groups} (impersonated with your kubeconfig's credentials)`;
}
