import { strict as assert } from 'node:assert';
import { cloneJson } from '../../shared/objects.js';

describe('cloneJson', () => {
  it('copies deeply: changing the copy leaves the original as it was', () => {
    const original = { a: [1, { b: 'x' }], c: { d: null, e: true, f: undefined }, when: new Date('2026-01-02T03:04:05Z') };
    const copy = cloneJson(original);
    assert.deepEqual(copy, original);
    (copy.a[1] as { b: string }).b = 'changed';
    copy.c.e = false;
    copy.when.setFullYear(2000);
    assert.equal((original.a[1] as { b: string }).b, 'x');
    assert.equal(original.c.e, true);
    assert.equal(original.when.toISOString(), '2026-01-02T03:04:05.000Z');
    assert.ok('f' in copy.c, 'keys with undefined values are kept, as structuredClone keeps them');
  });

  it('keeps a "__proto__" key from JSON as data, without changing the prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, unknown>;
    const copy = cloneJson(parsed);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.equal((copy as { polluted?: boolean }).polluted, undefined);
    assert.deepEqual(Object.keys(copy), ['__proto__', 'x']);
    assert.deepEqual(copy['__proto__'], { polluted: true });
  });

  it('returns primitives as they are', () => {
    for (const v of [0, 'text', false, null, undefined]) assert.equal(cloneJson(v), v);
  });
});
