import { strict as assert } from 'node:assert';
import { render } from '../../controller/render/render.js';
import { canaryIngress, ingressWeight } from '../../controller/routers/nginx/render.js';
import { defaultedAppFixture } from '../support/app-fixture.js';

const app = defaultedAppFixture({
  metadata: { uid: 'uid-1' },
  spec: { service: { type: 'ClusterIP', port: 8000 }, ingress: { host: 'web.example.com', path: '/app', pathType: 'Exact', className: 'public', tlsSecretName: 'web-tls' } },
});
const stable = render(app).ingress!;

describe('NGINX canary Ingress', () => {
  it('mirrors the main Ingress (class, host, path) and sends it to the canary Service', () => {
    const c = canaryIngress(stable, 'web', 20);
    assert.equal(c.metadata!.name, 'web-canary');
    assert.equal(c.metadata!.namespace, 'shop');
    assert.equal(c.metadata!.labels!['skiff.dev/track'], 'canary');
    assert.equal(c.metadata!.labels!['skiff.dev/app'], 'web');
    assert.deepEqual(c.metadata!.ownerReferences, stable.metadata!.ownerReferences);
    assert.deepEqual(c.spec!.ingressClassName, 'public');
    assert.deepEqual(c.spec!.rules, [
      { host: 'web.example.com', http: { paths: [{ path: '/app', pathType: 'Exact', backend: { service: { name: 'web-canary', port: { number: 8000 } } } }] } },
    ]);
  });

  it('carries the canary and weight annotations, and the header only when asked', () => {
    assert.deepEqual(canaryIngress(stable, 'web', 20).metadata!.annotations, {
      'nginx.ingress.kubernetes.io/canary': 'true',
      'nginx.ingress.kubernetes.io/canary-weight': '20',
      // ingress-nginx's default, owned: a total written by hand at the weight would send it all traffic.
      'nginx.ingress.kubernetes.io/canary-weight-total': '100',
    });
    assert.equal(canaryIngress(stable, 'web', 0, 'X-Canary').metadata!.annotations!['nginx.ingress.kubernetes.io/canary-by-header'], 'X-Canary');
  });

  it('leaves TLS to the main Ingress and does not modify it', () => {
    const before = structuredClone(stable);
    const c = canaryIngress(stable, 'web', 50);
    assert.equal(c.spec!.tls, undefined);
    assert.deepEqual(stable, before);
    assert.equal(stable.spec!.tls![0].secretName, 'web-tls');
  });

  it('reads the weight back, and nothing from a missing or malformed annotation', () => {
    assert.equal(ingressWeight(canaryIngress(stable, 'web', 50)), 50);
    assert.equal(ingressWeight(canaryIngress(stable, 'web', 0)), 0);
    assert.equal(ingressWeight(undefined), undefined);
    assert.equal(ingressWeight(stable), undefined);
    const odd = canaryIngress(stable, 'web', 5);
    odd.metadata!.annotations!['nginx.ingress.kubernetes.io/canary-weight'] = '5%';
    assert.equal(ingressWeight(odd), undefined);
  });

  it('reads a weight written above 100 by hand as 100: ingress-nginx sends all traffic to the canary, and no more', () => {
    const high = canaryIngress(stable, 'web', 5);
    high.metadata!.annotations!['nginx.ingress.kubernetes.io/canary-weight'] = '1000';
    assert.equal(ingressWeight(high), 100);
  });

  it('reads the share against a canary-weight-total written by hand: 20 out of 20 is all traffic', () => {
    const total = canaryIngress(stable, 'web', 20);
    total.metadata!.annotations!['nginx.ingress.kubernetes.io/canary-weight-total'] = '20';
    assert.equal(ingressWeight(total), 100);
    total.metadata!.annotations!['nginx.ingress.kubernetes.io/canary-weight-total'] = '1000';
    assert.equal(ingressWeight(total), 2);
  });
});
