// The "restricted" profile of the Kubernetes Pod Security Standards
// (kubernetes.io/docs/concepts/security/pod-security-standards), applied to the fields an App can
// set. The webhook adds these rules with --restricted-tenants (config/components/restricted-tenants).
//
// An App renders one container, so "the pod or every container" below is podSecurityContext or
// securityContext. What an App cannot express at all is left out: host namespaces, host ports,
// hostPath and other volume types than configMap, secret and emptyDir, privileged containers
// (always refused), SELinux options, /proc mount types, sysctls and Windows host processes. Pure.
import { keyPath, objectAt, type Obj, type Problem } from './field-checks.js';

const WHY = '(the restricted Pod Security profile)';
const ALLOWED_SECCOMP = ['RuntimeDefault', 'Localhost'];
const APPARMOR_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

export function restrictedProfileProblems(spec: Obj): Problem[] {
  const out: Problem[] = [];
  const pod = objectAt(spec.podSecurityContext) ?? {};
  const container = objectAt(spec.securityContext) ?? {};

  // Privilege escalation: the container must say false (no setuid binaries, no file capabilities).
  if (container.allowPrivilegeEscalation !== false) {
    out.push({ path: 'spec.securityContext.allowPrivilegeEscalation', message: `must be false ${WHY}` });
  }

  // Capabilities: drop ALL; add nothing but NET_BIND_SERVICE.
  const capabilities = objectAt(container.capabilities) ?? {};
  const drop = Array.isArray(capabilities.drop) ? capabilities.drop : [];
  if (!drop.includes('ALL')) out.push({ path: 'spec.securityContext.capabilities.drop', message: `must include ALL ${WHY}` });
  (Array.isArray(capabilities.add) ? capabilities.add : []).forEach((c, i) => {
    if (c !== 'NET_BIND_SERVICE') out.push({ path: `spec.securityContext.capabilities.add[${i}]`, message: `may only be NET_BIND_SERVICE ${WHY}` });
  });

  // Running as non-root: true on the pod (and not false on the container), or true on the container.
  if (container.runAsNonRoot === false) {
    out.push({ path: 'spec.securityContext.runAsNonRoot', message: `must not be false ${WHY}` });
  } else if (pod.runAsNonRoot !== true && container.runAsNonRoot !== true) {
    out.push({ path: 'spec.podSecurityContext.runAsNonRoot', message: `must be true, here or in spec.securityContext.runAsNonRoot ${WHY}` });
  } else if (pod.runAsNonRoot === false) {
    // The profile refuses an explicit false anywhere, even where the container's true wins over it.
    out.push({ path: 'spec.podSecurityContext.runAsNonRoot', message: `must not be false ${WHY}` });
  }
  // Running as a non-root user: no user ID 0 at either level.
  for (const [field, ctx] of [['podSecurityContext', pod], ['securityContext', container]] as const) {
    if (ctx.runAsUser === 0) out.push({ path: `spec.${field}.runAsUser`, message: `must not be 0 (root) ${WHY}` });
  }

  // Seccomp: RuntimeDefault or Localhost, set on the pod or on the container; Unconfined nowhere.
  const podType = objectAt(pod.seccompProfile)?.type;
  const containerType = objectAt(container.seccompProfile)?.type;
  for (const [field, type] of [['podSecurityContext', podType], ['securityContext', containerType]] as const) {
    if (type !== undefined && !ALLOWED_SECCOMP.includes(String(type))) {
      out.push({ path: `spec.${field}.seccompProfile.type`, message: `must be RuntimeDefault or Localhost ${WHY}` });
    }
  }
  if (podType === undefined && containerType === undefined) {
    out.push({ path: 'spec.podSecurityContext.seccompProfile', message: `must be set to RuntimeDefault or Localhost, here or in spec.securityContext.seccompProfile ${WHY}` });
  }

  // AppArmor (a baseline rule, so restricted too): never unconfined. Pods take it from annotations.
  for (const [key, value] of Object.entries(objectAt(spec.podAnnotations) ?? {})) {
    if (key.startsWith(APPARMOR_PREFIX) && value === 'unconfined') {
      out.push({ path: keyPath('spec.podAnnotations', key), message: `must be runtime/default or localhost/<profile>, not unconfined ${WHY}` });
    }
  }
  return out;
}
