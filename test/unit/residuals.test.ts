// What applies left different (a mutating admission webhook's changes), remembered so that an
// object left as applied is not applied again for nothing.
import { strict as assert } from 'node:assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import { Residuals } from '../../controller/apply/residuals.js';

const deployment = (image: string, replicas = 2, annotations: Record<string, string> = {}): KubernetesObject =>
  ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop', annotations }, spec: { replicas, template: { spec: { containers: [{ name: 'app', image }] } } } }) as KubernetesObject;

describe('Residuals', () => {
  const paths = ['spec.template.spec.containers[app].image'];

  it('knows an object left as the last apply of the same desired object left it, and nothing else', () => {
    const r = new Residuals();
    r.record('Deployment/shop/web', 'h1', paths, deployment('mirror/web:1'));
    assert.equal(r.leftAsApplied('Deployment/shop/web', 'h1', paths, deployment('mirror/web:1')), true);
    assert.equal(r.leftAsApplied('Deployment/shop/web', 'h2', paths, deployment('mirror/web:1')), false, 'another desired object');
    assert.equal(r.leftAsApplied('Deployment/shop/web', 'h1', paths, deployment('mirror/web:1', 7)), false, 'edited since');
    assert.equal(r.leftAsApplied('Deployment/shop/web', 'h1', paths, deployment('mirror/web:1', 2, { note: 'x' })), false, 'annotated since');
    assert.equal(r.leftAsApplied('Deployment/shop/web', 'h1', [...paths, 'spec.replicas'], deployment('mirror/web:1')), false, 'other differences');
    assert.equal(r.leftAsApplied('Deployment/shop/other', 'h1', paths, deployment('mirror/web:1')), false, 'another object');
  });

  it('forgets an object an apply left as desired, and the oldest beyond its bound', () => {
    const r = new Residuals(2);
    r.record('a', 'h', paths, deployment('m/1'));
    r.record('a', 'h', [], deployment('m/1'));
    assert.equal(r.size, 0);
    for (const ref of ['a', 'b', 'c']) r.record(ref, 'h', paths, deployment('m/1'));
    assert.equal(r.size, 2);
    assert.equal(r.leftAsApplied('a', 'h', paths, deployment('m/1')), false);
    assert.equal(r.leftAsApplied('c', 'h', paths, deployment('m/1')), true);
  });
});
