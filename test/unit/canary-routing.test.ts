// The canary's share of traffic and the objects it is sent to: the weight rises only towards a
// canary whose Deployment and Service both exist.
import { strict as assert } from 'node:assert';
import type { V1Deployment } from '@kubernetes/client-node';
import { apiError } from '../support/fake-cluster.js';
import { NS, markAvailable, setup, weightOf } from '../support/reconciler.js';

describe('canary routing', () => {
  /** A Canary App stable on web:1, with web:2 asked for. */
  async function canaryAsked() {
    const t = setup({ image: 'web:1', ingress: { host: 'web.example.com' }, rollout: { strategy: 'Canary', canaryHeader: 'X-Canary' } });
    await t.run();
    markAvailable(t.cluster, 'web');
    await t.run();
    t.setSpec((s) => ({ ...s, image: 'web:2' }));
    return t;
  }

  /** canaryAsked() with web:2's canary available and at its first weight, 20%. */
  async function canaryAt20() {
    const t = await canaryAsked();
    await t.run();
    markAvailable(t.cluster, 'web-canary');
    await t.run();
    assert.equal(weightOf(t.cluster), '20');
    return t;
  }

  it('sends no weight to a canary whose Service could not be created (a quota): its share would get 503s', async () => {
    const { cluster, run } = await canaryAsked();
    cluster.beforeWrite = (w) => {
      if (w.kind === 'Service' && w.name === 'web-canary') throw apiError(403, 'services "web-canary" is forbidden: exceeded quota: svc, requested: services=1, used: services=1, limited: services=1');
    };
    await assert.rejects(run());
    assert.ok(cluster.get('Deployment', NS, 'web-canary'), 'the canary Deployment was created');
    assert.equal(cluster.get('Service', NS, 'web-canary'), undefined);
    markAvailable(cluster, 'web-canary');
    await assert.rejects(run());
    await assert.rejects(run());
    assert.notEqual(weightOf(cluster), '20', 'no share of the traffic goes to a Service that does not exist');
    assert.equal(cluster.get('Ingress', NS, 'web-canary'), undefined, 'nor the requests with the canary header');

    cluster.beforeWrite = () => {};
    await run();
    assert.ok(cluster.get('Service', NS, 'web-canary'));
    await run();
    assert.equal(weightOf(cluster), '20', 'once the Service exists the step goes on');
  });

  it('names the image whose pods the weight is for: a new template mid-canary drains the earlier canary, not the new one', async () => {
    const { cluster, run, setSpec } = await canaryAt20();
    setSpec((s) => ({ ...s, image: 'web:3' }));
    const from = cluster.events.length;
    await run();
    assert.equal(weightOf(cluster), '0');
    const weights = cluster.events.slice(from).filter((e) => e.reason === 'CanaryWeight').map((e) => e.message);
    assert.deepEqual(weights, ['Canary web:2 receives 0% of the traffic'], 'web:3 runs nowhere yet: the pods that lost their share run web:2');
  });

  it('a routing write that keeps the weight (canaryHeader removed, then added back) is no CanaryWeight Event: no share of traffic moved', async () => {
    const { cluster, run, setSpec } = await canaryAt20();
    const from = cluster.events.length;
    setSpec((s) => ({ ...s, rollout: { ...s.rollout!, canaryHeader: undefined } }));
    await run();
    setSpec((s) => ({ ...s, rollout: { ...s.rollout!, canaryHeader: 'X-Canary' } }));
    await run();
    assert.equal(weightOf(cluster), '20');
    const said = cluster.events.slice(from).filter((e) => e.reason === 'CanaryWeight' || e.reason === 'Updated').map((e) => `${e.reason}: ${e.message}`);
    assert.deepEqual(said, ['Updated: Updated the canary routing of web:2 (its weight stays 20%)', 'Updated: Updated the canary routing of web:2 (its weight stays 20%)']);
  });

  it('a canary-weight-total written by hand on the canary Ingress (20 out of 20: all traffic) is put back to 100', async () => {
    const { cluster, run } = await canaryAt20();
    const ingress = cluster.get('Ingress', NS, 'web-canary')!;
    cluster.put({ ...ingress, metadata: { ...ingress.metadata, annotations: { ...ingress.metadata!.annotations, 'nginx.ingress.kubernetes.io/canary-weight-total': '20' } } });
    await run();
    const annotations = cluster.get('Ingress', NS, 'web-canary')!.metadata!.annotations!;
    assert.deepEqual([annotations['nginx.ingress.kubernetes.io/canary-weight'], annotations['nginx.ingress.kubernetes.io/canary-weight-total']], ['20', '100']);
  });

  it('sends the requests carrying canaryHeader to the canary only once it has a ready pod (before, each would get a 503)', async () => {
    const { cluster, run } = await canaryAsked();
    const header = () => cluster.get('Ingress', NS, 'web-canary')?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-by-header'];
    await run();
    assert.ok(cluster.get('Deployment', NS, 'web-canary'), 'the canary Deployment exists');
    await run();
    assert.equal(header(), undefined, 'no ready pod: no header routing');
    assert.ok([undefined, '0'].includes(weightOf(cluster)), 'nor weight');
    markAvailable(cluster, 'web-canary');
    await run();
    assert.equal(header(), 'X-Canary', 'a ready pod: the header routes to it');
    // Its pods lost: the header's requests go back to stable until one is ready again.
    const d = cluster.get('Deployment', NS, 'web-canary')!;
    cluster.put({ ...d, status: { ...(d as { status?: object }).status, readyReplicas: 0, availableReplicas: 0 } } as typeof d);
    await run();
    assert.equal(header(), undefined);
  });

  it('sends no canaryHeader request to the pods of an aborted canary that a new template takes over: only a ready pod of the new template counts', async () => {
    const { cluster, run, app, setSpec, later } = await canaryAt20();
    const header = () => cluster.get('Ingress', NS, 'web-canary')?.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-by-header'];
    // Every state the canary Ingress passes through: as it is before each write and after each pass.
    const headerWrites: (string | undefined)[] = [];
    cluster.beforeWrite = () => void headerWrites.push(header());
    cluster.put({ ...app(), metadata: { ...app().metadata, annotations: { 'skiff.dev/abort': 'true' } } });
    await run();
    await run();
    assert.equal(cluster.get('Ingress', NS, 'web-canary'), undefined, 'the aborted canary lost its split');
    assert.ok(cluster.get('Deployment', NS, 'web-canary'), 'its pods stay for the delay, ready');
    headerWrites.length = 0;
    // Within the delay a new template comes: the aborted pods wait it out (web:2's still), then the
    // new template takes the canary Deployment over, its pods still web:2's for a while.
    setSpec((s) => ({ ...s, image: 'web:3' }));
    for (let i = 0; i < 2; i++) {
      await run();
      headerWrites.push(header());
    }
    assert.equal((cluster.get('Deployment', NS, 'web-canary') as V1Deployment).spec!.template.spec!.containers[0].image, 'web:2', 'within their delay');
    later(30_000);
    for (let i = 0; i < 2; i++) {
      await run();
      headerWrites.push(header());
    }
    const d = cluster.get('Deployment', NS, 'web-canary') as V1Deployment;
    assert.equal(d.spec!.template.spec!.containers[0].image, 'web:3', 'the new template took the canary Deployment over');
    assert.ok((d.status?.readyReplicas ?? 0) > 0, "the aborted canary's pods are still ready");
    assert.deepEqual(headerWrites.filter((h) => h !== undefined), [], 'no routing written sent the header to them');
    markAvailable(cluster, 'web-canary');
    await run();
    assert.equal(header(), 'X-Canary', 'a ready pod of web:3: the header routes to it');
  });

  it('says so in an Event when the canary traffic split is removed, also when the pods stay for scaleDownDelaySeconds', async () => {
    const { cluster, run, app } = await canaryAsked();
    assert.equal(app().spec.rollout?.scaleDownDelaySeconds ?? 30, 30);
    await run();
    markAvailable(cluster, 'web-canary');
    await run();
    assert.equal(weightOf(cluster), '20');
    cluster.put({ ...app(), metadata: { ...app().metadata, annotations: { 'skiff.dev/abort': 'true' } } });
    await run();
    assert.equal(weightOf(cluster), '0');
    const from = cluster.events.length;
    await run();
    assert.equal(cluster.get('Ingress', NS, 'web-canary'), undefined, 'the split is removed');
    assert.ok(cluster.get('Deployment', NS, 'web-canary'), 'the pods stay for the delay');
    assert.ok(cluster.events.slice(from).some((e) => e.reason === 'Deleted' && /canary traffic split/.test(e.message)), 'an Event says the canary Ingress was removed');
  });
});
