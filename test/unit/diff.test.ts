import { strict as assert } from 'node:assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import { differences } from '../../controller/apply/diff.js';
import { ANNOTATION_CONFIG_HASH, ensureObject, withConfigHash } from '../../controller/apply/apply.js';
import type { ApiClient } from '../../controller/runtime/api-client.js';
import { desiredService, render } from '../../controller/render/render.js';
import { ANNOTATION_POD_TEMPLATE, ANNOTATION_REVISION } from '../../controller/render/pod-template-record.js';
import { removalFor } from '../../controller/apply/removals.js';
import { canaryIngress } from '../../controller/routers/nginx/render.js';
import { defaultedAppFixture } from '../support/app-fixture.js';

const app = defaultedAppFixture({
  metadata: { uid: 'uid-1' },
  spec: {
    replicas: 2,
    env: [{ name: 'A', value: '1' }, { name: 'B' }],
    resources: { requests: { cpu: '0.5', memory: '128Mi' }, limits: { cpu: '1' } },
    readinessPath: '/ready',
  },
});

/** The Deployment as the API server returns it: defaults filled in, status and metadata added. */
function asStored() {
  const d = structuredClone(render(app).deployment) as Record<string, any>;
  d.metadata = { ...d.metadata, uid: 'd-1', resourceVersion: '42', generation: 3, creationTimestamp: new Date(), annotations: { ...d.metadata.annotations, 'deployment.kubernetes.io/revision': '1' } };
  d.spec.revisionHistoryLimit = 10;
  d.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } };
  const pod = d.spec.template.spec;
  Object.assign(pod, { restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30, securityContext: {} });
  Object.assign(pod.containers[0], { imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' });
  pod.containers[0].readinessProbe = { ...pod.containers[0].readinessProbe, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 };
  pod.containers[0].readinessProbe.httpGet.scheme = 'HTTP';
  pod.containers[0].resources.requests.cpu = '500m';
  d.status = { observedGeneration: 3, replicas: 2 };
  return d;
}

describe('semantic diff (desired ⊆ observed)', () => {
  it('finds nothing to do when the API server only added defaults', () => {
    assert.deepEqual(differences(render(app).deployment, asStored()), []);
  });

  it('tolerates Service defaults such as clusterIP and sessionAffinity', () => {
    const desired = render(app).service;
    const stored = structuredClone(desired) as Record<string, any>;
    Object.assign(stored.spec, { clusterIP: '10.0.0.12', clusterIPs: ['10.0.0.12'], sessionAffinity: 'None' });
    assert.deepEqual(differences(desired, stored), []);
  });

  it('reports a scaled Deployment', () => {
    const stored = asStored();
    stored.spec.replicas = 7;
    assert.deepEqual(differences(render(app).deployment, stored), ['spec.replicas']);
  });

  it('reports a changed Service port and selector', () => {
    const desired = render(app).service;
    const stored = structuredClone(desired) as Record<string, any>;
    stored.spec.ports[0].port = 81;
    stored.spec.selector['skiff.dev/track'] = 'canary';
    assert.deepEqual(differences(desired, stored), ['spec.selector.skiff.dev/track', 'spec.ports[http].port']);
  });

  it('matches named list entries by name and allows entries others added', () => {
    const stored = asStored();
    stored.spec.template.spec.containers.push({ name: 'sidecar', image: 'envoy' });
    stored.spec.template.spec.containers[0].env.reverse();
    stored.spec.template.spec.containers[0].env.push({ name: 'EXTRA', value: 'x' });
    stored.metadata.ownerReferences.push({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'other' });
    assert.deepEqual(differences(render(app).deployment, stored), []);
  });

  it('reports a missing or changed named entry', () => {
    const stored = asStored();
    stored.spec.template.spec.containers[0].env = [{ name: 'A', value: '2' }];
    assert.deepEqual(differences(render(app).deployment, stored), [
      'spec.template.spec.containers[app].env[A].value',
      'spec.template.spec.containers[app].env[B]',
    ]);
  });

  it('compares atomic lists (command, args, tls hosts) in full', () => {
    assert.deepEqual(differences({ args: ['a'] }, { args: ['a', 'b'] }), ['args']);
    assert.deepEqual(differences({ args: ['a', 'b'] }, { args: ['b', 'a'] }), ['args[0]', 'args[1]']);
  });

  it('reports a field removed by hand', () => {
    const stored = asStored();
    delete stored.spec.template.spec.containers[0].readinessProbe;
    assert.deepEqual(differences(render(app).deployment, stored), ['spec.template.spec.containers[app].readinessProbe']);
  });

  it('compares resource quantities by value', () => {
    assert.deepEqual(differences({ x: { resources: { limits: { cpu: '1' } } } }, { x: { resources: { limits: { cpu: '1000m' } } } }), []);
    assert.deepEqual(differences({ x: { resources: { limits: { memory: '1Gi' } } } }, { x: { resources: { limits: { memory: '1024Mi' } } } }), []);
    assert.deepEqual(differences({ x: { resources: { limits: { cpu: '2' } } } }, { x: { resources: { limits: { cpu: '1' } } } }), ['x.resources.limits.cpu']);
    // Outside resources, strings are strings.
    assert.deepEqual(differences({ image: '1' }, { image: '1000m' }), ['image']);
  });

  it('finds nothing to do for an emptyDir sizeLimit or env divisor the API server stored in canonical form', () => {
    const scratch = defaultedAppFixture({
      spec: {
        volumes: [{ name: 'scratch', mountPath: '/tmp', emptyDir: { sizeLimit: '1024Mi' } }],
        env: [{ name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: 1 } } }],
      },
    });
    const desired = render(scratch).deployment;
    const stored = structuredClone(desired) as Record<string, any>;
    // The API server parses every quantity and writes it back canonical: 1024Mi is 1Gi, the number 1 the string "1".
    stored.spec.template.spec.volumes[0].emptyDir.sizeLimit = '1Gi';
    stored.spec.template.spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor = '1';
    assert.deepEqual(differences(desired, stored), []);
    stored.spec.template.spec.volumes[0].emptyDir.sizeLimit = '2Gi';
    assert.deepEqual(differences(desired, stored), ['spec.template.spec.volumes[scratch].emptyDir.sizeLimit']);
  });

  it('finds nothing to do for a probe with initialDelaySeconds 0, which the API server leaves out', () => {
    const probed = defaultedAppFixture({ spec: { probes: { liveness: { httpGet: { path: '/live' }, initialDelaySeconds: 0 } } } });
    const desired = render(probed).deployment;
    const stored = structuredClone(desired) as Record<string, any>;
    delete stored.spec.template.spec.containers[0].livenessProbe.initialDelaySeconds;
    assert.deepEqual(differences(desired, stored), []);
    stored.spec.template.spec.containers[0].livenessProbe.initialDelaySeconds = 5;
    assert.deepEqual(differences(desired, stored), ['spec.template.spec.containers[app].livenessProbe.initialDelaySeconds']);
  });

  it('compares requests and limits as the API server stores them, rounded up to thousandths', () => {
    const cpu = (v: string) => ({ x: { resources: { requests: { cpu: v } } } });
    // Kubernetes rounds every resource list value up to milli scale (SetDefaults_ResourceList).
    assert.deepEqual(differences(cpu('0.0001'), cpu('1m')), []);
    assert.deepEqual(differences(cpu('1.5m'), cpu('2m')), []);
    assert.deepEqual(differences(cpu('100u'), cpu('1m')), []);
    assert.deepEqual(differences(cpu('2m'), cpu('1m')), ['x.resources.requests.cpu']);
    assert.deepEqual(differences(cpu('1.5m'), cpu('1m')), ['x.resources.requests.cpu']);
  });

  it('treats empty values we set as equal to absent ones', () => {
    assert.deepEqual(differences({ a: '', b: [], c: {} }, {}), []);
    assert.deepEqual(differences({ a: '' }, { a: 'x' }), ['a']);
  });

  it('sees a changed config hash, so fields dropped from the App get applied (and removed)', () => {
    const withProbe = withConfigHash(render(app).deployment);
    const withoutProbe = withConfigHash(render({ ...app, spec: { ...app.spec, readinessPath: undefined } }).deployment);
    const stored = structuredClone(withProbe) as Record<string, any>;
    assert.deepEqual(differences(withProbe, stored), []);
    // The probe is part of the pod template: its revision and recorded template change too.
    assert.deepEqual(differences(withoutProbe, stored), [
      `metadata.annotations.${ANNOTATION_REVISION}`,
      `metadata.annotations.${ANNOTATION_POD_TEMPLATE}`,
      `metadata.annotations.${ANNOTATION_CONFIG_HASH}`,
    ]);
  });

  it('hashes the same content the same way whatever the key order', () => {
    const a = withConfigHash<KubernetesObject>({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'x', labels: { a: '1', b: '2' } } });
    const b = withConfigHash<KubernetesObject>({ kind: 'Service', apiVersion: 'v1', metadata: { labels: { b: '2', a: '1' }, name: 'x' } });
    assert.equal(a.metadata!.annotations![ANNOTATION_CONFIG_HASH], b.metadata!.annotations![ANNOTATION_CONFIG_HASH]);
  });
});

describe('removals server-side apply cannot do', () => {
  const stored = (mutate: (d: Record<string, any>) => void) => {
    const d = structuredClone(render(app).deployment) as Record<string, any>;
    mutate(d);
    return d as KubernetesObject;
  };

  it('nothing to remove when the object matches', () => {
    assert.equal(removalFor(render(app).deployment, stored(() => {})), undefined);
    assert.equal(removalFor(render(app).service, structuredClone(render(app).service)), undefined);
  });

  it('removes a readiness probe the App no longer has', () => {
    const desired = render({ ...app, spec: { ...app.spec, readinessPath: undefined } }).deployment;
    const r = removalFor(desired, stored(() => {}));
    assert.deepEqual(r, {
      patch: { spec: { template: { spec: { containers: [{ name: 'app', readinessProbe: null }] } } } },
      paths: ['spec.template.spec.containers[app].readinessProbe'],
    });
  });

  it('removes liveness and startup probes the App no longer has (the API server leaves their defaulted fields, a probe without a handler)', () => {
    const withProbes = { ...app, spec: { ...app.spec, probes: { liveness: { httpGet: { path: '/live' } }, startup: { tcpSocket: {}, failureThreshold: 30 } } } };
    const running = structuredClone(render(withProbes as typeof app).deployment) as Record<string, any>;
    const desired = render(app).deployment;
    const r = removalFor(desired, running as KubernetesObject);
    assert.deepEqual(r?.patch, { spec: { template: { spec: { containers: [{ name: 'app', livenessProbe: null, startupProbe: null }] } } } });
    assert.deepEqual(r?.paths, ['spec.template.spec.containers[app].livenessProbe', 'spec.template.spec.containers[app].startupProbe']);
  });

  it('removes the old handler of a probe whose handler changed (httpGet\'s defaulted scheme would stay beside the new one)', () => {
    const probed = (readiness: Record<string, unknown>) => ({ ...app, spec: { ...app.spec, readinessPath: undefined, probes: { readiness } } }) as typeof app;
    const running = structuredClone(render(probed({ httpGet: { path: '/ready' } })).deployment) as Record<string, any>;
    running.spec.template.spec.containers[0].readinessProbe.httpGet.scheme = 'HTTP';
    const r = removalFor(render(probed({ tcpSocket: {} })).deployment, running as KubernetesObject);
    assert.deepEqual(r, {
      patch: { spec: { template: { spec: { containers: [{ name: 'app', readinessProbe: { httpGet: null, tcpSocket: { port: 8080 } } }] } } } },
      paths: ['spec.template.spec.containers[app].readinessProbe.httpGet'],
    });
    assert.equal(removalFor(render(probed({ httpGet: { path: '/other' } })).deployment, running as KubernetesObject), undefined, 'same handler: apply alone');
  });

  it('removes the old source of a volume whose source changed (a configMap\'s defaulted defaultMode would stay beside the new one)', () => {
    const mounted = (volume: Record<string, unknown>) => defaultedAppFixture({ spec: { volumes: [{ name: 'config', mountPath: '/etc/web', ...volume }] } });
    const running = structuredClone(render(mounted({ configMap: { name: 'web-cfg' } })).deployment) as Record<string, any>;
    running.spec.template.spec.volumes[0].configMap.defaultMode = 420;
    const r = removalFor(render(mounted({ secret: { secretName: 'web-tls' } })).deployment, running as KubernetesObject);
    assert.deepEqual(r, {
      patch: { spec: { template: { spec: { volumes: [{ name: 'config', configMap: null, secret: { secretName: 'web-tls' } }] } } } },
      paths: ['spec.template.spec.volumes[config].configMap'],
    });
    assert.equal(removalFor(render(mounted({ configMap: { name: 'other' } })).deployment, running as KubernetesObject), undefined, 'same source: apply alone');
  });

  it('removes the old source of an env var that no longer reads a pod field (fieldRef\'s defaulted apiVersion would stay behind)', () => {
    const withEnv = (env: Record<string, unknown>) => defaultedAppFixture({ spec: { env: [{ name: 'POD', ...env }] } });
    const running = structuredClone(render(withEnv({ valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } })).deployment) as Record<string, any>;
    running.spec.template.spec.containers[0].env[0].valueFrom.fieldRef.apiVersion = 'v1';
    assert.deepEqual(removalFor(render(withEnv({ value: 'web' })).deployment, running as KubernetesObject), {
      patch: { spec: { template: { spec: { containers: [{ name: 'app', env: [{ name: 'POD', valueFrom: null }] }] } } } },
      paths: ['spec.template.spec.containers[app].env[POD].valueFrom'],
    });
    const secret = { secretKeyRef: { name: 'web', key: 'pod' } };
    assert.deepEqual(removalFor(render(withEnv({ valueFrom: secret })).deployment, running as KubernetesObject), {
      patch: { spec: { template: { spec: { containers: [{ name: 'app', env: [{ name: 'POD', valueFrom: { fieldRef: null, ...secret } }] }] } } } },
      paths: ['spec.template.spec.containers[app].env[POD].valueFrom.fieldRef'],
    });
    assert.equal(removalFor(render(withEnv({ valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } })).deployment, running as KubernetesObject), undefined, 'same source: apply alone');
  });

  it('removes a serviceAccountName the App no longer has, with its deprecated alias serviceAccount (from which the API server would restore it)', () => {
    const withAccount = defaultedAppFixture({ spec: { serviceAccountName: 'web' } });
    const running = structuredClone(render(withAccount).deployment) as Record<string, any>;
    // The API server mirrors serviceAccountName into the deprecated serviceAccount, and fills an
    // empty serviceAccountName from it: dropping the first alone changes nothing.
    running.spec.template.spec.serviceAccount = 'web';
    const desired = render(defaultedAppFixture({})).deployment;
    assert.deepEqual(removalFor(desired, running as KubernetesObject), {
      patch: { spec: { template: { spec: { serviceAccountName: null, serviceAccount: null } } } },
      paths: ['spec.template.spec.serviceAccountName'],
    });
    assert.equal(removalFor(render(withAccount).deployment, running as KubernetesObject), undefined, 'still wanted: nothing to remove');
    assert.equal(removalFor(render(defaultedAppFixture({ spec: { serviceAccountName: 'other' } })).deployment, running as KubernetesObject), undefined, 'another account: apply alone');
    // An account set by someone else on a Deployment already as the App wants it (same content
    // hash): not Skiff's to remove, or every pass would take it and roll the pods.
    assert.equal(removalFor(desired, running as KubernetesObject, false), undefined, 'unchanged since applied: left alone');
  });

  it('leaves alone, in ensureObject, an account another manager set on a Deployment unchanged since Skiff applied it', async () => {
    const desired = withConfigHash(render(defaultedAppFixture({})).deployment);
    const running = structuredClone(desired) as Record<string, any>;
    running.spec.template.spec.serviceAccountName = 'mutated';
    running.spec.template.spec.serviceAccount = 'mutated';
    const writes: string[] = [];
    const api = {
      apply: async (o: KubernetesObject) => { writes.push('apply'); return o; },
      patch: async () => { writes.push('patch'); return {}; },
    } as unknown as ApiClient;
    const owner = running.metadata.ownerReferences[0].uid as string;
    const result = await ensureObject({ api }, owner, render(defaultedAppFixture({})).deployment, running as KubernetesObject);
    assert.equal(result.outcome, 'unchanged');
    assert.deepEqual(writes, []);
  });

  it('deletes container ports edited or added by hand', () => {
    const r = removalFor(render(app).deployment, stored((d) => {
      d.spec.template.spec.containers[0].ports = [{ name: 'http', containerPort: 9999, protocol: 'TCP' }];
    }));
    assert.deepEqual(r!.patch, { spec: { template: { spec: { containers: [{ name: 'app', ports: [{ containerPort: 9999, $patch: 'delete' }] }] } } } });
  });

  it('replaces Service ports edited by hand with the App port in one patch (a Service needs a port)', () => {
    const desired = render(app).service;
    const s = structuredClone(desired) as Record<string, any>;
    s.spec.ports = [{ name: 'http', port: 81, targetPort: 8080, protocol: 'TCP' }, { name: 'extra', port: 9000, protocol: 'TCP' }];
    const r = removalFor(desired, s as KubernetesObject);
    assert.deepEqual(r!.patch, {
      spec: { ports: [{ port: 81, $patch: 'delete' }, { port: 9000, $patch: 'delete' }, { name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }] },
    });
    assert.deepEqual(r!.paths, ['spec.ports[81/TCP]', 'spec.ports[9000/TCP]']);
  });

  it('deletes keys added by hand to a Service selector (one more key selects no pod at all)', () => {
    const desired = render(app).service;
    const s = structuredClone(desired) as Record<string, any>;
    s.spec.selector = { ...s.spec.selector, oops: 'x' };
    const r = removalFor(desired, s as KubernetesObject);
    assert.deepEqual(r!.patch, { spec: { selector: { ...desired.spec!.selector, oops: null } } });
    assert.deepEqual(r!.paths, ['spec.selector.oops']);
    // A key of the App's own selector changed by hand is the apply's to put back: nothing to delete.
    s.spec.selector = { ...desired.spec!.selector, 'skiff.dev/app': 'other' };
    assert.equal(removalFor(desired, s as KubernetesObject), undefined);
  });

  it('a selector key swapped for another (a strategy change: the track for the revision) goes out and in with one patch, never leaving a selector of fewer keys that would pick every pod of the App', () => {
    const desired = desiredService(app, 'stable', 'abc');
    const observed = render(app).service;
    assert.deepEqual(observed.spec!.selector, { 'skiff.dev/app': 'web', 'skiff.dev/track': 'stable' });
    const r = removalFor(desired, observed);
    // The revision selected goes in with the selector (a revision selected without it is taken for a hand edit).
    assert.deepEqual(r!.patch, { spec: { selector: { 'skiff.dev/app': 'web', 'skiff.dev/revision': 'abc', 'skiff.dev/track': null } }, metadata: { annotations: { 'skiff.dev/selected-revision': 'abc' } } });
    assert.deepEqual(r!.paths, ['spec.selector.skiff.dev/track']);
    // And back (the strategy no longer BlueGreen): the annotation goes out with the revision key.
    const back = removalFor(observed, desired);
    assert.deepEqual(back!.patch, { spec: { selector: { 'skiff.dev/app': 'web', 'skiff.dev/track': 'stable', 'skiff.dev/revision': null } }, metadata: { annotations: { 'skiff.dev/selected-revision': null } } });
    // A key added by hand to a revision selector: the revision selected stays as it is, and is not written.
    const edited = structuredClone(desired) as Record<string, any>;
    edited.spec.selector = { ...edited.spec.selector, oops: 'x' };
    assert.equal(removalFor(desired, edited as KubernetesObject)!.patch.metadata, undefined);
    // An abort's switch back to the track (stable's pods not all labelled yet) says what it switched back from, in the same patch.
    const switchedBack = desiredService(app, 'stable', undefined, 'abc');
    assert.deepEqual(removalFor(switchedBack, desired)!.patch.metadata, { annotations: { 'skiff.dev/selected-revision': null, 'skiff.dev/switched-back-from': 'abc' } });
  });

  it('deletes ingress-nginx canary annotations someone else added to an owned Ingress, and nothing else', () => {
    const desired = canaryIngress(render({ ...app, spec: { ...app.spec, ingress: { host: 'web.example.com', path: '/', pathType: 'Prefix', className: 'nginx' } } }).ingress!, 'web', 20);
    const observed = structuredClone(desired) as Record<string, any>;
    observed.metadata.annotations = {
      ...observed.metadata.annotations,
      'nginx.ingress.kubernetes.io/canary-by-cookie': 'beta',
      'nginx.ingress.kubernetes.io/canary-by-header': 'X-Beta',
      'nginx.ingress.kubernetes.io/canary-weight': '90',
      'nginx.ingress.kubernetes.io/canaryish': 'not one of them',
      'nginx.ingress.kubernetes.io/proxy-body-size': '8m',
      'example.com/owner': 'team-a',
    };
    const r = removalFor(desired, observed as KubernetesObject);
    // The weight changed by hand is the apply's to put back; the others are deleted.
    assert.deepEqual(r, {
      patch: { metadata: { annotations: { 'nginx.ingress.kubernetes.io/canary-by-cookie': null, 'nginx.ingress.kubernetes.io/canary-by-header': null } } },
      paths: ['metadata.annotations.nginx.ingress.kubernetes.io/canary-by-cookie', 'metadata.annotations.nginx.ingress.kubernetes.io/canary-by-header'],
    });
    // The App's own canaryHeader is its to keep.
    const withHeader = canaryIngress(render({ ...app, spec: { ...app.spec, ingress: { host: 'web.example.com', path: '/', pathType: 'Prefix', className: 'nginx' } } }).ingress!, 'web', 20, 'X-Beta');
    assert.deepEqual(removalFor(withHeader, observed as KubernetesObject)!.paths, ['metadata.annotations.nginx.ingress.kubernetes.io/canary-by-cookie']);
    assert.equal(removalFor(desired, structuredClone(desired)), undefined);
  });
});
