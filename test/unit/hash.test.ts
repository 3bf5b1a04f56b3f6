import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { contentHash, stableJson } from '../../shared/hash.js';

/** stableJson as first written: its text is what every stored hash was taken of. */
const reference = (v: unknown): string => {
  if (Array.isArray(v)) return `[${v.map(reference).join(',')}]`;
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${reference(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
};

describe('stableJson and contentHash', () => {
  it('gives the same text as the declarative form for any value (fast-check, seeded)', () => {
    const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'a"b', 'x\\y', 'tab\t', 'é', 'app.kubernetes.io/name', ''));
    const leaf = fc.oneof(fc.jsonValue(), fc.constant(undefined), fc.double(), fc.date({ noInvalidDate: true }));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node')), fc.dictionary(key, tie('node'))),
    })).node;
    fc.assert(fc.property(value, (v) => assert.equal(stableJson(v), reference(v))), { seed: 4242, numRuns: 3000 });
  });

  it('ignores key order and undefined members', () => {
    assert.equal(stableJson({ b: 1, a: { d: [1, { z: 1, y: undefined }], c: 'x' } }), '{"a":{"c":"x","d":[1,{"z":1}]},"b":1}');
    assert.equal(contentHash({ a: 1, b: 2 }), contentHash({ b: 2, a: 1, c: undefined }));
  });

  it('keeps a known hash: the text of stored revisions does not change', () => {
    // Taken before stableJson was rewritten as loops.
    assert.equal(contentHash({ spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } }, 10), 'fdcba6d64b');
    assert.equal(stableJson({ spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } }), '{"spec":{"containers":[{"image":"nginx:1.27","name":"app"}]}}');
  });
});
