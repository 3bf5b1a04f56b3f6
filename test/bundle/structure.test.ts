// Structural checks on the kustomize bundles: what `kubectl kustomize config/default` gives is
// what users apply to their clusters.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { kustomize, kustomizeText, repoRoot, type K8sObject } from '../support/bundle.js';

/** The cluster-wide RBAC of the controller: every ClusterRole and binding but the aggregated roles of people. */
const controllerClusterRbac = (objects: K8sObject[]) => objects
  .filter((o) => (o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding') && !Object.keys(o.metadata.labels ?? {}).some((k) => k.startsWith('rbac.authorization.k8s.io/aggregate-to-')))
  .map((o) => `${o.kind}/${o.metadata.name}`);
const CLUSTER_SCOPED = new Set(['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);
type Container = { name: string; image: string; command?: string[]; args?: string[]; securityContext?: Record<string, unknown>; livenessProbe?: unknown; readinessProbe?: unknown; resources?: { requests?: unknown; limits?: unknown }; volumeMounts?: { mountPath: string; readOnly?: boolean; name: string }[] };
type AffinityTerm = { weight: number; podAffinityTerm: { topologyKey: string; labelSelector?: { matchLabels: Record<string, string> } } };
type PodSpec = { affinity?: { podAntiAffinity?: { preferredDuringSchedulingIgnoredDuringExecution?: AffinityTerm[] } }; containers: Container[]; securityContext?: Record<string, unknown>; volumes?: { name: string; secret?: { secretName: string } }[]; serviceAccountName?: string; automountServiceAccountToken?: boolean };
type Webhook = { name: string; clientConfig: { service?: { name: string; namespace: string; port?: number; path: string }; url?: string }; failurePolicy: string; sideEffects: string; admissionReviewVersions: string[]; timeoutSeconds: number; namespaceSelector?: { matchExpressions: { key: string; operator: string; values: string[] }[] } };

describe('the cluster bundle (config/default)', function () {
  this.timeout(30_000);
  let objects: K8sObject[];
  const find = (kind: string, name?: string) => objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  const one = (kind: string, name?: string) => {
    const found = find(kind, name);
    assert.equal(found.length, 1, `one ${kind}${name ? ` ${name}` : ''}`);
    return found[0];
  };

  before(() => {
    objects = kustomize('config/default');
  });

  it('builds the same from the repository root (kubectl kustomize .)', () => {
    assert.equal(kustomizeText('.'), kustomizeText('config/default'));
  });

  it('namespaces every namespaced object in skiff-system and prefixes names with skiff-', () => {
    for (const o of objects) {
      if (CLUSTER_SCOPED.has(o.kind)) {
        assert.equal(o.metadata.namespace, undefined, `${o.kind} ${o.metadata.name} is cluster-scoped`);
      } else {
        assert.equal(o.metadata.namespace, 'skiff-system', `${o.kind} ${o.metadata.name}`);
      }
      if (o.kind !== 'CustomResourceDefinition') assert.match(o.metadata.name, /^skiff-/, `${o.kind} ${o.metadata.name}`);
    }
    assert.equal(one('Namespace').metadata.name, 'skiff-system');
    one('CustomResourceDefinition', 'apps.skiff.dev');
  });

  it('wires cert-manager: inject-ca-from names the serving Certificate, whose dnsNames are the webhook Service, signed by a CA of its own', () => {
    type Certificate = K8sObject & { spec: { dnsNames?: string[]; secretName: string; isCA?: boolean; issuerRef: { name: string } } };
    type Issuer = K8sObject & { spec: { selfSigned?: object; ca?: { secretName: string } } };
    const certificate = one('Certificate', 'skiff-serving-cert') as Certificate;
    const service = one('Service', 'skiff-webhook-service') as K8sObject & { spec: { ports: { port: number; targetPort: number }[] } };
    // Serving certificate <- CA Issuer <- the CA's Secret <- CA Certificate <- self-signed Issuer:
    // the Secret's ca.crt (what is injected) is the CA, the same across renewals of the serving certificate.
    const issuer = one('Issuer', certificate.spec.issuerRef.name) as Issuer;
    const ca = objects.find((o) => o.kind === 'Certificate' && (o as Certificate).spec.secretName === issuer.spec.ca?.secretName) as Certificate;
    assert.ok(ca, 'the serving certificate\'s Issuer signs with the Secret of a Certificate of the bundle');
    assert.equal(ca.spec.isCA, true);
    assert.equal(ca.spec.dnsNames, undefined);
    assert.ok((one('Issuer', ca.spec.issuerRef.name) as Issuer).spec.selfSigned, 'the CA signs itself');
    assert.notEqual(certificate.spec.secretName, ca.spec.secretName);
    assert.deepEqual(certificate.spec.dnsNames, [`${service.metadata.name}.${service.metadata.namespace}.svc`, `${service.metadata.name}.${service.metadata.namespace}.svc.cluster.local`]);
    assert.deepEqual(service.spec.ports.map((p) => [p.port, p.targetPort]), [[443, 9443]]);
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
      const config = one(kind) as K8sObject & { webhooks: Webhook[] };
      assert.equal(config.metadata.annotations?.['cert-manager.io/inject-ca-from'], `${certificate.metadata.namespace}/${certificate.metadata.name}`);
      for (const hook of config.webhooks) {
        assert.equal(hook.clientConfig.service?.name, service.metadata.name);
        assert.equal(hook.clientConfig.service?.namespace, service.metadata.namespace);
        assert.equal(hook.clientConfig.service?.port, 443);
        assert.equal(hook.failurePolicy, 'Fail');
        assert.equal(hook.sideEffects, 'None');
        assert.deepEqual(hook.admissionReviewVersions, ['v1']);
        assert.ok(hook.timeoutSeconds <= 10);
        assert.deepEqual(hook.namespaceSelector?.matchExpressions, [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system', 'skiff-system'] }]);
      }
    }
    // The webhook mounts the Secret the Certificate writes.
    const webhook = one('Deployment', 'skiff-webhook') as K8sObject & { spec: { template: { spec: PodSpec } } };
    assert.ok(webhook.spec.template.spec.volumes?.some((v) => v.secret?.secretName === certificate.spec.secretName));
  });

  it('gives people App rights through Kubernetes\' own roles: editing to admin and edit (never the status), reading to view; bound to nobody', () => {
    const aggregated = (o: K8sObject) => Object.keys(o.metadata.labels ?? {}).filter((k) => k.startsWith('rbac.authorization.k8s.io/aggregate-to-')).sort();
    const editor = one('ClusterRole', 'skiff-app-editor-role') as K8sObject & { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };
    const viewer = one('ClusterRole', 'skiff-app-viewer-role') as K8sObject & { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };
    assert.deepEqual(aggregated(editor), ['rbac.authorization.k8s.io/aggregate-to-admin', 'rbac.authorization.k8s.io/aggregate-to-edit']);
    assert.deepEqual(aggregated(viewer), ['rbac.authorization.k8s.io/aggregate-to-view']);
    assert.deepEqual(editor.rules.filter((r) => r.resources.includes('apps/status')).flatMap((r) => r.verbs), ['get'], 'the status is the controller\'s');
    assert.ok(editor.rules.some((r) => r.resources.includes('apps') && ['create', 'patch', 'delete'].every((v) => r.verbs.includes(v))));
    assert.deepEqual(viewer.rules.flatMap((r) => r.verbs).sort(), ['get', 'list', 'watch']);
    assert.deepEqual(find('ClusterRole').filter((r) => aggregated(r).length > 0).map((r) => r.metadata.name).sort(), ['skiff-app-editor-role', 'skiff-app-viewer-role']);
  });

  it('grants RBAC without wildcards and without Secrets; the webhook gets no API access', () => {
    for (const role of [...find('ClusterRole'), ...find('Role')] as (K8sObject & { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] })[]) {
      for (const rule of role.rules) {
        for (const field of [rule.apiGroups, rule.resources, rule.verbs]) assert.ok(!field.includes('*'), `${role.metadata.name}: no wildcard`);
        assert.ok(!rule.resources.includes('secrets'), `${role.metadata.name}: no secrets`);
      }
    }
    const bindings = [...find('ClusterRoleBinding'), ...find('RoleBinding')] as (K8sObject & { subjects: { name: string }[] })[];
    assert.ok(bindings.every((b) => b.subjects.every((s) => s.name === 'skiff-controller')), 'only the controller is bound to roles');
    const webhookAccount = one('ServiceAccount', 'skiff-webhook') as K8sObject & { automountServiceAccountToken?: boolean };
    assert.equal(webhookAccount.automountServiceAccountToken, false);
    const lease = one('Role') as K8sObject & { rules: { apiGroups: string[]; resources: string[] }[] };
    assert.deepEqual(lease.rules.map((r) => [r.apiGroups, r.resources]), [[['coordination.k8s.io'], ['leases']]]);
    const controllerRole = one('ClusterRole', 'skiff-controller-role') as K8sObject & { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };
    // blockOwnerDeletion on owned objects needs update on apps/finalizers where OwnerReferencesPermissionEnforcement is on.
    assert.ok(controllerRole.rules.some((r) => r.apiGroups.includes('skiff.dev') && r.resources.includes('apps/finalizers') && r.verbs.includes('update')));
    // The Apps' revision histories: watched, created, their outcomes patched, pruned.
    const history = controllerRole.rules.find((r) => r.apiGroups.includes('apps') && r.resources.includes('controllerrevisions'));
    assert.deepEqual(history?.verbs, ['get', 'list', 'watch', 'create', 'patch', 'delete'], 'the controller may read and write ControllerRevisions');
    // Its writes are server-side apply and merge patches (patch), creates and deletes: never a
    // whole-object update, except the owner's finalizers the API server asks for above.
    assert.deepEqual(controllerRole.rules.filter((r) => r.verbs.includes('update')).map((r) => r.resources), [['apps/finalizers']]);
  });

  it('runs both processes hardened, probed and resourced, from the image set in config/default', () => {
    for (const name of ['skiff-webhook', 'skiff-controller']) {
      const deployment = one('Deployment', name) as K8sObject & { spec: { replicas: number; template: { spec: PodSpec } } };
      const pod = deployment.spec.template.spec;
      assert.equal(pod.securityContext?.runAsNonRoot, true);
      assert.deepEqual(pod.securityContext?.seccompProfile, { type: 'RuntimeDefault' });
      for (const c of pod.containers) {
        assert.equal(c.image, 'ghcr.io/skiff-dev/skiff:0.1.0');
        assert.equal(c.securityContext?.readOnlyRootFilesystem, true);
        assert.equal(c.securityContext?.allowPrivilegeEscalation, false);
        assert.equal(c.securityContext?.runAsNonRoot, true);
        assert.deepEqual(c.securityContext?.capabilities, { drop: ['ALL'] });
        assert.ok(c.livenessProbe && c.readinessProbe, `${name}: probes`);
        assert.ok(c.resources?.requests && c.resources?.limits, `${name}: resources`);
      }
    }
    const controller = one('Deployment', 'skiff-controller') as K8sObject & { spec: { template: { spec: PodSpec } } };
    assert.ok(controller.spec.template.spec.containers[0].args?.includes('--leader-elect'));
    const webhook = one('Deployment', 'skiff-webhook') as K8sObject & { spec: { replicas: number; template: { spec: PodSpec } } };
    assert.equal(webhook.spec.replicas, 2);
    assert.ok(webhook.spec.template.spec.containers[0].volumeMounts?.some((m) => m.mountPath === '/tmp/k8s-webhook-server/serving-certs' && m.readOnly));
    // Drains leave a webhook serving and take one controller replica at a time; replicas spread over nodes.
    assert.equal((one('PodDisruptionBudget', 'skiff-webhook') as K8sObject & { spec: { minAvailable: number } }).spec.minAvailable, 1);
    assert.equal((one('PodDisruptionBudget', 'skiff-controller') as K8sObject & { spec: { maxUnavailable: number } }).spec.maxUnavailable, 1);
    assert.equal(find('PodDisruptionBudget').length, 2);
    for (const d of [controller, webhook] as (K8sObject & { spec: { template: { spec: PodSpec & { affinity?: { podAntiAffinity?: unknown } } } } })[]) {
      assert.ok(d.spec.template.spec.affinity?.podAntiAffinity, `${d.metadata.name}: replicas spread over nodes`);
    }
  });

  it('sizes the controller\'s heap inside its memory limit: an old space of at most 3/4 of it, small young semispaces', () => {
    const controller = one('Deployment', 'skiff-controller') as K8sObject & { spec: { template: { spec: PodSpec } } };
    const c = controller.spec.template.spec.containers[0];
    const flag = (name: string) => Number(c.command?.find((a) => a.startsWith(`--${name}=`))?.split('=')[1]);
    assert.deepEqual([c.command?.[0], c.command?.at(-1)], ['node', 'dist/bundle/controller.mjs']);
    assert.ok(c.command?.includes('--enable-source-maps'), 'stack traces through the bundle\'s source map');
    const limit = /^(\d+)Mi$/.exec(String((c.resources?.limits as { memory?: string } | undefined)?.memory))?.[1];
    assert.ok(limit, 'a memory limit in Mi');
    // Past --max-old-space-size V8 stops the process; below the limit, room for code and buffers.
    assert.ok(flag('max-old-space-size') > 0 && flag('max-old-space-size') <= Number(limit) * 0.75, `old space ${flag('max-old-space-size')} MiB for a ${limit}Mi limit`);
    assert.ok(flag('max-semi-space-size') >= 1 && flag('max-semi-space-size') <= 8, 'young semispaces of a few MiB');
  });
});

describe('the other overlays', function () {
  this.timeout(30_000);

  it('config/dev: the CRD and the webhook configurations by URL, no Deployments and no Service', () => {
    const objects = kustomize('config/dev');
    assert.deepEqual(objects.map((o) => o.kind).sort(), ['CustomResourceDefinition', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);
    for (const o of objects.filter((x) => x.kind.endsWith('WebhookConfiguration')) as (K8sObject & { webhooks: Webhook[] })[]) {
      assert.match(o.metadata.name, /^skiff-(mutating|validating)-webhook-configuration$/);
      for (const hook of o.webhooks) {
        assert.match(hook.clientConfig.url ?? '', /^https:\/\/127\.0\.0\.1:9443\/(mutate|validate)$/);
        assert.equal(hook.clientConfig.service, undefined);
        assert.deepEqual(hook.namespaceSelector?.matchExpressions, [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }]);
      }
    }
  });

  it('config/selfsigned: config/default without cert-manager objects or annotations', () => {
    const objects = kustomize('config/selfsigned');
    const withCertManager = kustomize('config/default');
    assert.equal(objects.filter((o) => o.apiVersion.startsWith('cert-manager.io/')).length, 0);
    assert.ok(objects.every((o) => !o.metadata.annotations?.['cert-manager.io/inject-ca-from']));
    const names = (list: K8sObject[]) => list.filter((o) => !o.apiVersion.startsWith('cert-manager.io/')).map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort();
    assert.deepEqual(names(objects), names(withCertManager));
  });

  it('config/sharding: the default bundle plus a controller for shard a, the same but for --shard and its own pod labels', () => {
    const objects = kustomize('config/sharding');
    type Deployment = K8sObject & { spec: { selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: PodSpec } } };
    const main = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'skiff-controller') as Deployment;
    const shard = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'skiff-controller-shard-a') as Deployment;
    assert.ok(main && shard);
    assert.equal(shard.metadata.namespace, 'skiff-system');
    const [m, c] = [main.spec.template.spec, shard.spec.template.spec];
    assert.deepEqual(c.containers[0].args, [...m.containers[0].args!.slice(0, 1), '--shard=a', ...m.containers[0].args!.slice(1)]);
    assert.equal(c.containers[0].image, m.containers[0].image);
    assert.deepEqual(c.containers[0].command, m.containers[0].command, 'the same Node flags');
    assert.deepEqual(c.containers[0].resources, m.containers[0].resources);
    assert.equal(c.serviceAccountName, m.serviceAccountName);
    assert.deepEqual(c.containers[0].securityContext, m.containers[0].securityContext);
    // Selectors that do not overlap: neither Deployment claims the other's pods.
    const selects = (sel: Record<string, string>, labels: Record<string, string>) => Object.entries(sel).every(([k, v]) => labels[k] === v);
    assert.ok(!selects(main.spec.selector.matchLabels, shard.spec.template.metadata.labels));
    assert.ok(!selects(shard.spec.selector.matchLabels, main.spec.template.metadata.labels));
    // Highly available as the default controller: its standby on another node, and node drains
    // taking one of its replicas at a time (the default's anti-affinity and PDB select only
    // the default controller's pods).
    const affinity = (spec: PodSpec) => (spec.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => ({ ...t, podAffinityTerm: { ...t.podAffinityTerm, labelSelector: undefined } }));
    assert.deepEqual(affinity(c), affinity(m));
    assert.deepEqual(c.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.[0]?.podAffinityTerm.labelSelector?.matchLabels, shard.spec.selector.matchLabels);
    type PDB = K8sObject & { spec: { maxUnavailable?: number; selector: { matchLabels: Record<string, string> } } };
    const pdbOf = (d: Deployment) => objects.filter((o): o is PDB => o.kind === 'PodDisruptionBudget' && selects((o as PDB).spec.selector.matchLabels, d.spec.template.metadata.labels));
    assert.equal(pdbOf(shard).length, 1, 'a PodDisruptionBudget for the shard\'s pods');
    assert.deepEqual(pdbOf(shard)[0].spec.maxUnavailable, pdbOf(main)[0].spec.maxUnavailable);
    assert.equal(pdbOf(shard)[0].metadata.namespace, 'skiff-system');
    // Labelled as the bundle's own objects are, so that a selection by it finds the shards too.
    for (const o of [shard, pdbOf(shard)[0]]) assert.equal(o.metadata.labels?.['app.kubernetes.io/part-of'], 'skiff', `${o.kind} ${o.metadata.name}`);
    // Everything else is the default bundle.
    const rest = (list: K8sObject[]) => list.filter((o) => !o.metadata.name.startsWith('skiff-controller-shard-a')).map((o) => `${o.kind}/${o.metadata.name}`).sort();
    assert.deepEqual(rest(objects), rest(kustomize('config/default')));
  });

  it('config/sharding follows the image, namespace and name prefix set in config/default (as the README says to change them)', () => {
    // A copy of config/ with config/default edited as the README suggests: the shard's controller
    // must run the same image as the others, in their namespace, as their ServiceAccount.
    const copy = mkdtempSync(join(tmpdir(), 'skiff-sharding-'));
    try {
      cpSync(join(repoRoot, 'config'), join(copy, 'config'), { recursive: true });
      const file = join(copy, 'config/default/kustomization.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/^namespace: skiff-system$/m, 'namespace: ops').replace(/^namePrefix: skiff-$/m, 'namePrefix: acme-').replace(/newTag: 0\.1\.0/, 'newTag: 0.2.0'));
      const objects = parseAllDocuments(execFileSync('kubectl', ['kustomize', join(copy, 'config/sharding')], { encoding: 'utf8', maxBuffer: 64 << 20 })).map((d) => d.toJS() as K8sObject).filter(Boolean);
      type Deployment = K8sObject & { spec: { template: { spec: PodSpec } } };
      const main = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'acme-controller') as Deployment;
      const shard = objects.find((o) => o.kind === 'Deployment' && o.metadata.labels?.['skiff.dev/shard'] === 'a') as Deployment;
      assert.ok(main && shard);
      assert.equal(main.metadata.namespace, 'ops');
      assert.equal(shard.spec.template.spec.containers[0].image, 'ghcr.io/skiff-dev/skiff:0.2.0', 'the shard runs the image of the other controller');
      assert.equal(shard.spec.template.spec.serviceAccountName, 'acme-controller', 'the shard runs as the ServiceAccount the ClusterRole is bound to');
      const shardObjects = objects.filter((o) => o.metadata.name.includes('shard-a'));
      assert.deepEqual(shardObjects.map((o) => `${o.kind}/${o.metadata.namespace}`).sort(), ['Deployment/ops', 'PodDisruptionBudget/ops']);
      // The rest stays where config/default put it: the webhook's certificate names its Service there.
      assert.ok(objects.filter((o) => !CLUSTER_SCOPED.has(o.kind)).every((o) => o.metadata.namespace === 'ops'));
      // Every object takes the prefix, the shard's too: no object is left with the old one.
      assert.deepEqual(shardObjects.map((o) => `${o.kind}/${o.metadata.name}`).sort(), ['Deployment/acme-controller-shard-a', 'PodDisruptionBudget/acme-controller-shard-a']);
      assert.deepEqual(objects.filter((o) => o.kind !== 'CustomResourceDefinition' && !o.metadata.name.startsWith('acme-') && o.metadata.name !== 'ops').map((o) => `${o.kind}/${o.metadata.name}`), []);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('config/namespaced binds its Role to the controller\'s ServiceAccount wherever config/default\'s namespace and name prefix put it', () => {
    const copy = mkdtempSync(join(tmpdir(), 'skiff-namespaced-'));
    try {
      cpSync(join(repoRoot, 'config'), join(copy, 'config'), { recursive: true });
      const file = join(copy, 'config/default/kustomization.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/^namespace: skiff-system$/m, 'namespace: ops').replace(/^namePrefix: skiff-$/m, 'namePrefix: acme-'));
      const objects = parseAllDocuments(execFileSync('kubectl', ['kustomize', join(copy, 'config/namespaced')], { encoding: 'utf8', maxBuffer: 64 << 20 })).map((d) => d.toJS() as K8sObject).filter(Boolean);
      assert.deepEqual(controllerClusterRbac(objects), [], 'the controller\'s ClusterRole and its binding are gone');
      const controller = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'acme-controller') as K8sObject & { spec: { template: { spec: PodSpec } } };
      assert.ok(controller.spec.template.spec.containers[0].args?.includes('--namespace=apps'));
      const account = `${controller.metadata.namespace}/${controller.spec.template.spec.serviceAccountName}`;
      assert.equal(account, 'ops/acme-controller');
      assert.ok(objects.some((o) => o.kind === 'ServiceAccount' && `${o.metadata.namespace}/${o.metadata.name}` === account));
      const binding = objects.find((o) => o.kind === 'RoleBinding' && o.metadata.namespace === 'apps') as K8sObject & { roleRef: { kind: string; name: string }; subjects: { name: string; namespace: string }[] };
      assert.deepEqual(binding.subjects.map((s) => `${s.namespace}/${s.name}`), [account], 'the Role in apps is granted to the controller that runs');
      // The Role and its binding in apps take the prefix too, and the binding names the Role by its new name.
      const role = objects.find((o) => o.kind === 'Role' && o.metadata.namespace === 'apps');
      assert.equal(role?.metadata.name, 'acme-controller-role');
      assert.equal(binding.metadata.name, 'acme-controller-rolebinding');
      assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'acme-controller-role' });
      assert.deepEqual(objects.filter((o) => o.kind !== 'CustomResourceDefinition' && !o.metadata.name.startsWith('acme-') && o.metadata.name !== 'ops').map((o) => `${o.kind}/${o.metadata.name}`), []);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('config/namespaced: a Role in the watched namespace instead of the ClusterRole, and --namespace', () => {
    const objects = kustomize('config/namespaced');
    assert.deepEqual(controllerClusterRbac(objects), [], 'the controller\'s ClusterRole and its binding are gone');
    assert.deepEqual(objects.filter((o) => o.kind === 'ClusterRole').map((o) => o.metadata.name).sort(), ['skiff-app-editor-role', 'skiff-app-viewer-role'], 'the roles of people stay');
    const role = objects.find((o) => o.kind === 'Role' && o.metadata.name === 'skiff-controller-role');
    assert.equal(role?.metadata.namespace, 'apps');
    const controller = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'skiff-controller') as K8sObject & { spec: { template: { spec: PodSpec } } };
    assert.ok(controller.spec.template.spec.containers[0].args?.includes('--namespace=apps'));
    // The same rules as the cluster-wide variant, only scoped to the namespace.
    const clusterRole = kustomize('config/default').find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'skiff-controller-role');
    assert.deepEqual(role?.rules, clusterRole?.rules);
    const binding = objects.find((o) => o.kind === 'RoleBinding' && o.metadata.name === 'skiff-controller-rolebinding') as K8sObject & { roleRef: { kind: string; name: string }; subjects: { name: string; namespace: string }[] };
    assert.equal(binding.metadata.namespace, 'apps');
    assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'skiff-controller-role' });
    assert.deepEqual(binding.subjects.map((x) => `${x.namespace}/${x.name}`), ['skiff-system/skiff-controller']);
  });

  it('gives the processes no variable of a Service in their namespace that is also a flag\'s (the skiff-metrics Service\'s SKIFF_METRICS_PORT)', () => {
    // The kubelet gives every container, unless its pod sets enableServiceLinks: false, the
    // Docker-link variables of each Service of the pod's namespace (kubelet's envvars.FromServices):
    // the Service skiff-metrics makes SKIFF_METRICS_PORT=tcp://<cluster IP>:8080, which is also
    // --metrics-port's variable and no port number, so the process would exit 2 without the flag.
    type Service = K8sObject & { spec: { clusterIP?: string; ports: { name?: string; port: number; protocol?: string }[] } };
    const linkVariables = (services: Service[]) => services.filter((s) => s.spec.clusterIP !== 'None').flatMap((s) => {
      const prefix = s.metadata.name.toUpperCase().replace(/-/g, '_');
      return [`${prefix}_SERVICE_HOST`, `${prefix}_SERVICE_PORT`, `${prefix}_PORT`, ...s.spec.ports.flatMap((p) => {
        const port = `${prefix}_PORT_${p.port}_${p.protocol ?? 'TCP'}`;
        return [...(p.name ? [`${prefix}_SERVICE_PORT_${p.name.toUpperCase().replace(/-/g, '_')}`] : []), port, `${port}_PROTO`, `${port}_PORT`, `${port}_ADDR`];
      })];
    });
    const flagVariables = (main: string) => new Set([...spawnSync(process.execPath, [join(repoRoot, main), '--help'], { encoding: 'utf8' }).stderr.matchAll(/env (SKIFF_[A-Z0-9_]+)/g)].map((m) => m[1]));
    type Deployment = K8sObject & { spec: { template: { spec: PodSpec & { enableServiceLinks?: boolean } } } };
    for (const bundle of ['config/default', 'config/sharding']) {
      const objects = kustomize(bundle);
      for (const d of objects.filter((o) => o.kind === 'Deployment') as Deployment[]) {
        const pod = d.spec.template.spec;
        const links = pod.enableServiceLinks === false ? [] : linkVariables(objects.filter((o) => o.kind === 'Service' && o.metadata.namespace === d.metadata.namespace) as Service[]);
        for (const c of pod.containers) {
          const flags = flagVariables(c.command!.at(-1)!);
          assert.ok(flags.size > 5, `${c.command!.at(-1)} --help lists its variables`);
          assert.deepEqual(links.filter((v) => flags.has(v)), [], `${bundle}: ${d.metadata.name}`);
        }
      }
    }
  });
});

describe('the optional components', function () {
  this.timeout(30_000);
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'skiff-components-'));
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  /** The objects of a bundle with a component, built as a user's overlay in a directory of its own. */
  function withComponent(bundle: string, component: string): K8sObject[] {
    const overlay = mkdtempSync(join(dir, 'overlay-'));
    const from = (p: string) => relative(overlay, join(repoRoot, p));
    writeFileSync(join(overlay, 'kustomization.yaml'), stringify({
      apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: [from(bundle)], components: [from(component)],
    }));
    return kustomize(relative(repoRoot, overlay));
  }

  for (const bundle of ['config/default', 'config/selfsigned']) {
    it(`config/components/restricted-tenants builds on ${bundle}: the webhook and the controller get --restricted-tenants, nothing else changes`, () => {
      const objects = withComponent(bundle, 'config/components/restricted-tenants');
      const plain = kustomize(bundle);
      type Deployment = K8sObject & { spec: { template: { spec: PodSpec } } };
      const deployment = (list: K8sObject[], name: string) => list.find((o) => o.kind === 'Deployment' && o.metadata.name === name) as Deployment;
      for (const [name, main] of [['skiff-webhook', 'dist/bundle/webhook.mjs'], ['skiff-controller', 'dist/bundle/controller.mjs']]) {
        const args = deployment(objects, name).spec.template.spec.containers[0].args;
        assert.deepEqual(args, [...deployment(plain, name).spec.template.spec.containers[0].args!, '--restricted-tenants'], name);
        // A flag the process takes (its --help lists it).
        const help = spawnSync(process.execPath, [join(repoRoot, main), '--help'], { encoding: 'utf8' });
        assert.equal(help.status, 0);
        assert.match(help.stderr, /--restricted-tenants .*env SKIFF_RESTRICTED_TENANTS/, name);
      }
      const others = (list: K8sObject[]) => list.filter((o) => o !== deployment(list, 'skiff-webhook') && o !== deployment(list, 'skiff-controller'));
      assert.deepEqual(others(objects), others(plain));
    });
  }

  it('the components reach a shard\'s controller too (config/sharding): each controller Deployment gets the flags', () => {
    type Deployment = K8sObject & { spec: { template: { spec: PodSpec } } };
    for (const [component, flag] of [['config/components/restricted-tenants', '--restricted-tenants'], ['config/components/track-secrets', '--track-secrets']]) {
      const objects = withComponent('config/sharding', component);
      const controllers = objects.filter((o) => o.kind === 'Deployment' && o.metadata.name.startsWith('skiff-controller')) as Deployment[];
      assert.deepEqual(controllers.map((d) => d.metadata.name).sort(), ['skiff-controller', 'skiff-controller-shard-a']);
      for (const d of controllers) assert.ok(d.spec.template.spec.containers[0].args?.includes(flag), `${d.metadata.name} gets ${flag}`);
    }
  });

  it('the README\'s patch that sets SKIFF_PROMETHEUS_URL reaches every controller, a shard\'s too', () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    const block = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes('SKIFF_PROMETHEUS_URL'));
    assert.ok(block, 'the README shows the patch');
    type Deployment = K8sObject & { spec: { template: { spec: PodSpec & { containers: { env?: { name: string; value?: string }[] }[] } } } };
    for (const bundle of ['config/default', 'config/sharding']) {
      const overlay = mkdtempSync(join(dir, 'readme-'));
      writeFileSync(join(overlay, 'kustomization.yaml'), stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: [relative(overlay, join(repoRoot, bundle))], ...parse(block!) }));
      const controllers = kustomize(relative(repoRoot, overlay)).filter((o) => o.kind === 'Deployment' && o.metadata.name.startsWith('skiff-controller')) as Deployment[];
      assert.equal(controllers.length, bundle === 'config/sharding' ? 2 : 1);
      for (const d of controllers) assert.ok(d.spec.template.spec.containers[0].env?.some((e) => e.name === 'SKIFF_PROMETHEUS_URL'), `${bundle}: ${d.metadata.name}`);
    }
  });

  type Role = K8sObject & { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };
  const controllerRole = (list: K8sObject[]) => list.find((o) => (o.kind === 'ClusterRole' || o.kind === 'Role') && o.metadata.name === 'skiff-controller-role') as Role;
  const rulesFor = (role: Role, resource: string) => role.rules.filter((r) => r.apiGroups.includes('') && r.resources.includes(resource));

  it('grants the controller exactly the ConfigMap verbs trackConfig needs (no update or patch: copies are immutable), and no Secret verb', () => {
    for (const bundle of ['config/default', 'config/namespaced']) {
      const role = controllerRole(kustomize(bundle));
      assert.deepEqual(rulesFor(role, 'configmaps').map((r) => r.verbs), [['get', 'list', 'watch', 'create', 'patch', 'delete']], bundle);
      assert.deepEqual(rulesFor(role, 'secrets'), [], bundle);
    }
  });

  for (const bundle of ['config/default', 'config/namespaced']) {
    it(`config/components/track-secrets builds on ${bundle}: the controller gets --track-secrets and exactly the Secret verbs it needs, nothing else changes`, () => {
      const objects = withComponent(bundle, 'config/components/track-secrets');
      const plain = kustomize(bundle);
      type Deployment = K8sObject & { spec: { template: { spec: PodSpec } } };
      const controller = (list: K8sObject[]) => list.find((o) => o.kind === 'Deployment' && o.metadata.name === 'skiff-controller') as Deployment;
      assert.deepEqual(controller(objects).spec.template.spec.containers[0].args, [...controller(plain).spec.template.spec.containers[0].args!, '--track-secrets']);
      const help = spawnSync(process.execPath, [join(repoRoot, 'dist/bundle/controller.mjs'), '--help'], { encoding: 'utf8' });
      assert.match(help.stderr, /--track-secrets .*env SKIFF_TRACK_SECRETS/);
      const role = controllerRole(objects);
      assert.deepEqual(rulesFor(role, 'secrets'), [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] }]);
      assert.deepEqual(role.rules.filter((r) => !r.resources.includes('secrets')), controllerRole(plain).rules, 'the other rules as they were');
      // Only the controller's role gets the Secrets: the leader-election Role does not.
      for (const r of [...objects.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role')] as Role[]) {
        if (r !== role) assert.ok(r.rules.every((rule) => !rule.resources.includes('secrets')), r.metadata.name);
      }
      const others = (list: K8sObject[]) => list.filter((o) => o !== controller(list) && o !== controllerRole(list));
      assert.deepEqual(others(objects), others(plain));
    });
  }

  it('config/components/track-secrets reaches the controller\'s role and every controller under another name prefix set in config/default (as the README allows)', () => {
    const copy = mkdtempSync(join(dir, 'prefix-'));
    cpSync(join(repoRoot, 'config'), join(copy, 'config'), { recursive: true });
    const file = join(copy, 'config/default/kustomization.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^namespace: skiff-system$/m, 'namespace: ops').replace(/^namePrefix: skiff-$/m, 'namePrefix: acme-'));
    type Deployment = K8sObject & { spec: { template: { spec: PodSpec } } };
    for (const [bundle, controllers] of [['config/default', ['acme-controller']], ['config/namespaced', ['acme-controller']], ['config/sharding', ['acme-controller', 'acme-controller-shard-a']]] as const) {
      const overlay = join(copy, `overlay-${bundle.split('/')[1]}`);
      mkdirSync(overlay);
      writeFileSync(join(overlay, 'kustomization.yaml'), stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: [`../${bundle}`], components: ['../config/components/track-secrets'] }));
      const objects = parseAllDocuments(execFileSync('kubectl', ['kustomize', overlay], { encoding: 'utf8', maxBuffer: 64 << 20 })).map((d) => d.toJS() as K8sObject).filter(Boolean);
      const role = objects.find((o) => (o.kind === 'ClusterRole' || o.kind === 'Role') && o.metadata.name === 'acme-controller-role') as Role;
      assert.ok(role, `${bundle}: the controller's role, prefixed`);
      assert.equal(rulesFor(role, 'secrets').length, 1, `${bundle}: the Secret verbs are granted to ${role.kind} ${role.metadata.name}`);
      const deployments = objects.filter((o) => o.kind === 'Deployment' && o.metadata.labels?.['app.kubernetes.io/component'] === 'controller') as Deployment[];
      assert.deepEqual(deployments.map((d) => d.metadata.name).sort(), controllers);
      for (const d of deployments) assert.ok(d.spec.template.spec.containers[0].args?.includes('--track-secrets'), `${bundle}: ${d.metadata.name}`);
    }
  });

  it('the README names the Secret verbs config/components/track-secrets grants', () => {
    const verbs = rulesFor(controllerRole(withComponent('config/default', 'config/components/track-secrets')), 'secrets')[0].verbs;
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const named = /Secret verbs it then needs \(([^)]*)\)/.exec(readme)?.[1].split(', ');
    assert.deepEqual(named, verbs);
  });

  it('config/prometheus builds on config/default: a ServiceMonitor of the metrics Service (its labels win) and the PrometheusRule, nothing else changes', () => {
    const objects = withComponent('config/default', 'config/prometheus');
    const plain = kustomize('config/default');
    const added = objects.filter((o) => !plain.some((p) => p.kind === o.kind && p.metadata.name === o.metadata.name));
    assert.deepEqual(added.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`).sort(), ['PrometheusRule/skiff-system/skiff-rollouts', 'ServiceMonitor/skiff-system/skiff-metrics']);
    assert.deepEqual(objects.filter((o) => !added.includes(o)), plain);
    type Monitor = K8sObject & { spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; honorLabels?: boolean }[] } };
    type Service = K8sObject & { metadata: { labels?: Record<string, string> }; spec: { ports: { name: string }[] } };
    const monitor = added.find((o) => o.kind === 'ServiceMonitor') as Monitor;
    const selected = plain.filter((o) => o.kind === 'Service' && o.metadata.namespace === 'skiff-system'
      && Object.entries(monitor.spec.selector.matchLabels).every(([k, v]) => (o as Service).metadata.labels?.[k] === v)) as Service[];
    assert.deepEqual(selected.map((o) => o.metadata.name), ['skiff-metrics'], 'the ServiceMonitor selects the metrics Service only');
    assert.ok(selected[0].spec.ports.some((p) => p.name === monitor.spec.endpoints[0].port), 'the port it scrapes is the Service\'s');
    assert.equal(monitor.spec.endpoints[0].honorLabels, true, 'the App\'s namespace label is kept, not renamed exported_namespace');
  });

  it('config/prometheus follows the namespace and name prefix set in config/default (as the README allows): the ServiceMonitor still selects the metrics Service', () => {
    const copy = mkdtempSync(join(dir, 'prometheus-'));
    cpSync(join(repoRoot, 'config'), join(copy, 'config'), { recursive: true });
    const file = join(copy, 'config/default/kustomization.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^namespace: skiff-system$/m, 'namespace: ops').replace(/^namePrefix: skiff-$/m, 'namePrefix: acme-'));
    for (const bundle of ['config/default', 'config/selfsigned', 'config/sharding']) {
      if (bundle === 'config/selfsigned') {
        const self = join(copy, 'config/selfsigned/kustomization.yaml');
        writeFileSync(self, readFileSync(self, 'utf8').replace(/^namespace: skiff-system$/m, 'namespace: ops').replace(/^namePrefix: skiff-$/m, 'namePrefix: acme-'));
      }
      const overlay = join(copy, `overlay-${bundle.split('/')[1]}`);
      mkdirSync(overlay);
      writeFileSync(join(overlay, 'kustomization.yaml'), stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: [`../${bundle}`], components: ['../config/prometheus'] }));
      const objects = parseAllDocuments(execFileSync('kubectl', ['kustomize', overlay], { encoding: 'utf8', maxBuffer: 64 << 20 })).map((d) => d.toJS() as K8sObject).filter(Boolean);
      const monitoring = objects.filter((o) => o.apiVersion.startsWith('monitoring.coreos.com/'));
      assert.deepEqual(monitoring.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`).sort(), ['PrometheusRule/ops/acme-rollouts', 'ServiceMonitor/ops/acme-metrics'], bundle);
      // A ServiceMonitor without namespaceSelector selects Services of its own namespace only.
      type Monitor = K8sObject & { spec: { namespaceSelector?: unknown; selector: { matchLabels: Record<string, string> } } };
      const monitor = monitoring.find((o) => o.kind === 'ServiceMonitor') as Monitor;
      const namespaces = monitor.spec.namespaceSelector === undefined ? [monitor.metadata.namespace] : (monitor.spec.namespaceSelector as { matchNames?: string[] }).matchNames;
      const selected = objects.filter((o) => o.kind === 'Service' && namespaces?.includes(o.metadata.namespace!)
        && Object.entries(monitor.spec.selector.matchLabels).every(([k, v]) => o.metadata.labels?.[k] === v));
      assert.deepEqual(selected.map((o) => `${o.metadata.namespace}/${o.metadata.name}`), ['ops/acme-metrics'], `${bundle}: the ServiceMonitor selects the metrics Service`);
      assert.ok(!JSON.stringify(monitoring).includes('skiff-system'), `${bundle}: nothing of config/prometheus names skiff-system`);
    }
  });
});
