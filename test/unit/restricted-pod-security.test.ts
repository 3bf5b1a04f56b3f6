// The restricted Pod Security profile for the fields an App can set (--restricted-tenants): each
// control of the Pod Security Standards with a compliant case and a violating one, including how
// the pod-level and the container-level settings combine.
import { strict as assert } from 'node:assert';
import { withDefaults } from '../../shared/defaults.js';
import { restrictedProfileProblems } from '../../shared/restricted-pod-security.js';
import { validateApp } from '../../shared/validation.js';
import { admit, type Answer, type AdmissionReview } from '../../webhook/admission.js';

type Spec = Record<string, any>;

/** An App that meets the restricted profile, defaulted. */
const compliant = (): { metadata: Spec; spec: Spec } => withDefaults({
  apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: 'shop' },
  spec: {
    image: 'ghcr.io/acme/web:1.4.2',
    podSecurityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
  },
});

const problems = (edit: (s: Spec) => void) => {
  const app = compliant();
  edit(app.spec);
  return validateApp(app, { restrictedPodSecurity: true }).errors.map((e) => `${e.path}: ${e.message}`);
};
const ok = (edit: (s: Spec) => void) => assert.deepEqual(problems(edit), []);
const bad = (edit: (s: Spec) => void, path: string, message: RegExp) => {
  const found = problems(edit);
  assert.ok(found.some((p) => p.startsWith(`${path}: `) && message.test(p) && /\(the restricted Pod Security profile\)/.test(p)), `expected ${path}: ${message} in ${JSON.stringify(found)}`);
};

describe('the restricted Pod Security profile (--restricted-tenants)', () => {
  it('accepts a compliant App, and names every control a bare App misses', () => {
    ok(() => {});
    const bare = withDefaults({ metadata: { name: 'web' }, spec: { image: 'nginx:1.27' } });
    assert.deepEqual(validateApp(bare).errors, [], 'without the option the same App is valid');
    assert.deepEqual(restrictedProfileProblems((bare as { spec: Spec }).spec).map((p) => p.path), [
      'spec.securityContext.allowPrivilegeEscalation', 'spec.securityContext.capabilities.drop',
      'spec.podSecurityContext.runAsNonRoot', 'spec.podSecurityContext.seccompProfile',
    ]);
  });

  it('privilege escalation: the container must set allowPrivilegeEscalation false', () => {
    bad((s) => (s.securityContext.allowPrivilegeEscalation = true), 'spec.securityContext.allowPrivilegeEscalation', /must be false/);
    bad((s) => delete s.securityContext.allowPrivilegeEscalation, 'spec.securityContext.allowPrivilegeEscalation', /must be false/);
  });

  it('capabilities: drop ALL, add at most NET_BIND_SERVICE', () => {
    ok((s) => (s.securityContext.capabilities.add = ['NET_BIND_SERVICE']));
    ok((s) => (s.securityContext.capabilities.drop = ['NET_RAW', 'ALL']));
    bad((s) => (s.securityContext.capabilities.drop = ['NET_RAW']), 'spec.securityContext.capabilities.drop', /must include ALL/);
    bad((s) => (s.securityContext.capabilities.add = ['NET_BIND_SERVICE', 'CHOWN']), 'spec.securityContext.capabilities.add[1]', /may only be NET_BIND_SERVICE/);
    // The profile compares names as written.
    bad((s) => (s.securityContext.capabilities.add = ['CAP_NET_BIND_SERVICE']), 'spec.securityContext.capabilities.add[0]', /may only be NET_BIND_SERVICE/);
  });

  it('running as non-root: true on the pod and not false on the container, or true on the container', () => {
    ok((s) => { delete s.podSecurityContext.runAsNonRoot; s.securityContext.runAsNonRoot = true; });
    ok((s) => (s.securityContext.runAsNonRoot = true));
    bad((s) => (s.securityContext.runAsNonRoot = false), 'spec.securityContext.runAsNonRoot', /must not be false/);
    bad((s) => (s.podSecurityContext.runAsNonRoot = false), 'spec.podSecurityContext.runAsNonRoot', /must be true, here or in spec\.securityContext\.runAsNonRoot/);
    bad((s) => delete s.podSecurityContext.runAsNonRoot, 'spec.podSecurityContext.runAsNonRoot', /must be true/);
    // The profile refuses an explicit false anywhere, even when the container says true.
    bad((s) => { s.podSecurityContext.runAsNonRoot = false; s.securityContext.runAsNonRoot = true; }, 'spec.podSecurityContext.runAsNonRoot', /must not be false/);
  });

  it('running as a non-root user: no user ID 0 on the pod or the container', () => {
    ok((s) => { s.podSecurityContext.runAsUser = 1000; s.securityContext.runAsUser = 1001; });
    bad((s) => (s.podSecurityContext.runAsUser = 0), 'spec.podSecurityContext.runAsUser', /must not be 0/);
    bad((s) => (s.securityContext.runAsUser = 0), 'spec.securityContext.runAsUser', /must not be 0/);
  });

  it('seccomp: RuntimeDefault or Localhost on the pod or the container, Unconfined nowhere', () => {
    ok((s) => { delete s.podSecurityContext.seccompProfile; s.securityContext.seccompProfile = { type: 'RuntimeDefault' }; });
    ok((s) => (s.podSecurityContext.seccompProfile = { type: 'Localhost', localhostProfile: 'profiles/web.json' }));
    bad((s) => delete s.podSecurityContext.seccompProfile, 'spec.podSecurityContext.seccompProfile', /must be set to RuntimeDefault or Localhost/);
    bad((s) => (s.podSecurityContext.seccompProfile = { type: 'Unconfined' }), 'spec.podSecurityContext.seccompProfile.type', /must be RuntimeDefault or Localhost/);
    bad((s) => { s.podSecurityContext.seccompProfile = { type: 'Unconfined' }; s.securityContext.seccompProfile = { type: 'RuntimeDefault' }; }, 'spec.podSecurityContext.seccompProfile.type', /must be RuntimeDefault or Localhost/);
    bad((s) => (s.securityContext.seccompProfile = { type: 'Unconfined' }), 'spec.securityContext.seccompProfile.type', /must be RuntimeDefault or Localhost/);
  });

  it('AppArmor (a baseline control): never unconfined', () => {
    ok((s) => (s.podAnnotations = { 'container.apparmor.security.beta.kubernetes.io/app': 'runtime/default' }));
    ok((s) => (s.podAnnotations = { 'container.apparmor.security.beta.kubernetes.io/app': 'localhost/web' }));
    bad((s) => (s.podAnnotations = { 'container.apparmor.security.beta.kubernetes.io/app': 'unconfined' }), 'spec.podAnnotations["container.apparmor.security.beta.kubernetes.io/app"]', /not unconfined/);
  });

  it('the webhook applies it on both endpoints only when asked', () => {
    const review = (object: unknown) => ({
      apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
      request: { uid: 'u-1', kind: { group: 'skiff.dev', version: 'v1alpha1', kind: 'App' }, operation: 'CREATE', object },
    });
    const response = (a: Answer): AdmissionReview['response'] => (a as Extract<Answer, { httpStatus: 200 }>).review.response;
    const bare = { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web' }, spec: { image: 'nginx:1.27' } };
    for (const endpoint of ['mutate', 'validate'] as const) {
      assert.equal(response(admit(endpoint, review(withDefaults(bare)))).allowed, true);
      const denied = response(admit(endpoint, review(withDefaults(bare)), { restrictedTenants: true }));
      assert.equal(denied.allowed, false);
      assert.match(denied.status!.message, /spec\.securityContext\.allowPrivilegeEscalation: must be false \(the restricted Pod Security profile\)/);
      assert.equal(response(admit(endpoint, review(compliant()), { restrictedTenants: true })).allowed, true);
    }
  });
});
