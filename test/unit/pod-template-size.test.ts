// The bound that lets the webhook skip rendering small Apps must hold for every App: generated
// Apps near every bound, with templates filled up to and past the cap, never render more than
// templateBytesBound of their JSON size.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { MAX_POD_TEMPLATE_BYTES, podTemplateBytes, podTemplateSizeProblems, templateBytesBound } from '../../shared/pod-template-size.js';
import { appName, filledApp, specNearBounds, templateTarget } from '../support/app-arbitraries.js';

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('the pod-template size bound', () => {
  it('a rendered template never exceeds templateBytesBound of its App\'s JSON size', () => {
    fc.assert(fc.property(appName, specNearBounds, templateTarget, (name, spec, target) => {
      const app = filledApp(name, 'shop', spec, target);
      const bytes = podTemplateBytes(app);
      assert.ok(bytes <= templateBytesBound(jsonBytes(app)), `${bytes} rendered from ${jsonBytes(app)} bytes of App`);
    }), { seed: 25, numRuns: 200 });
  });

  it('with trackConfig, a rendered template (on copies, with its record of them) never exceeds templateBytesBound either', () => {
    fc.assert(fc.property(appName, specNearBounds, templateTarget, (name, spec, target) => {
      const app = filledApp(name, 'shop', { ...spec, rollout: { ...(spec.rollout as object), trackConfig: true } } as typeof spec, target);
      const bytes = podTemplateBytes(app);
      assert.ok(bytes <= templateBytesBound(jsonBytes(app), true), `${bytes} rendered from ${jsonBytes(app)} bytes of App`);
    }), { seed: 26, numRuns: 200 });
  });

  it('measures a trackConfig App on its copies: references that fit under the cap as written can be over it on copies', () => {
    const env = Array.from({ length: 230 }, (_, i) => ({ name: `E${i}`, valueFrom: { configMapKeyRef: { name: `cfg${String(i).padStart(4, '0')}-${'x'.repeat(245)}`, key: 'k' } } }));
    const untracked = { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: 'web', namespace: 'shop' }, spec: { image: 'nginx:1.27', env } } as never;
    const tracked = { ...(untracked as object), spec: { image: 'nginx:1.27', env, rollout: { trackConfig: true } } } as never;
    assert.ok(podTemplateBytes(untracked) <= MAX_POD_TEMPLATE_BYTES, `${podTemplateBytes(untracked)} bytes as written`);
    assert.deepEqual(podTemplateSizeProblems(untracked, jsonBytes(untracked)), []);
    assert.ok(podTemplateBytes(tracked) > MAX_POD_TEMPLATE_BYTES, `${podTemplateBytes(tracked)} bytes on copies`);
    const [problem] = podTemplateSizeProblems(tracked, jsonBytes(tracked));
    assert.match(problem.message, /^the rendered pod template is \d+ KiB; at most 100 KiB .*with trackConfig each reference to a ConfigMap or Secret/);
  });

  it('skips rendering only where the bound is under the cap, and still finds an App over it', () => {
    const small = filledApp('web', 'shop', { image: 'nginx:1.27' } as never, 0);
    assert.deepEqual(podTemplateSizeProblems(small, jsonBytes(small)), []);
    const big = filledApp('web', 'shop', { image: 'nginx:1.27' } as never, MAX_POD_TEMPLATE_BYTES + 1024);
    assert.ok(templateBytesBound(jsonBytes(big)) > MAX_POD_TEMPLATE_BYTES, 'a big App is measured');
    assert.equal(podTemplateSizeProblems(big, jsonBytes(big)).length, 1);
    assert.equal(podTemplateSizeProblems(big).length, 1);
  });
});

describe('the pod-template size of an App whose name is no string', () => {
  it('measures it with the longest name instead of the value (a 100,000-deep array overflowed the stack: a 500 for the caller)', () => {
    let deep: unknown = 'web';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const app = { apiVersion: 'skiff.dev/v1alpha1', kind: 'App', metadata: { name: deep, namespace: 'shop' }, spec: { image: 'nginx:1.27', command: ['x'.repeat(1000)] } } as never;
    assert.deepEqual(podTemplateSizeProblems(app, 300_000), []);
    assert.equal(podTemplateBytes(app), podTemplateBytes({ ...(app as object), metadata: { name: 'x'.repeat(56), namespace: 'shop' } } as never));
  });
});
