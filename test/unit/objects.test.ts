import { strict as assert } from 'node:assert';
import { isDeepStrictEqual } from 'node:util';
import { cloneJson, jsonEqual } from '../../shared/objects.js';

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

describe('jsonEqual', () => {
  it('judges JSON values as isDeepStrictEqual does', () => {
    const cases: [unknown, unknown][] = [
      [{ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }],
      [{ a: 1 }, { a: 1, b: 2 }],
      [{ a: 1, b: undefined }, { a: 1, c: undefined }],
      [{ a: undefined }, {}],
      [[1, 2], [2, 1]],
      [[1, 2], { 0: 1, 1: 2 }],
      [[], {}],
      [null, {}],
      [null, null],
      [undefined, null],
      ['1', 1],
      [0, -0],
      [new Date(5), new Date(5)],
      [new Date(5), new Date(6)],
      [new Date(5), {}],
      [JSON.parse('{"__proto__": {"x": 1}}'), JSON.parse('{"__proto__": {"x": 1}}')],
      [JSON.parse('{"__proto__": {"x": 1}}'), JSON.parse('{"__proto__": {"x": 2}}')],
      [JSON.parse('{"__proto__": {"x": 1}}'), {}],
    ];
    for (const [a, b] of cases) {
      assert.equal(jsonEqual(a, b), isDeepStrictEqual(a, b), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
      assert.equal(jsonEqual(b, a), isDeepStrictEqual(b, a), `${JSON.stringify(b)} vs ${JSON.stringify(a)}`);
    }
  });

  it('compares values nested deeper than the API server allows without overflowing the stack', () => {
    const nested = (depth: number, end: unknown) => {
      let v: unknown = end;
      for (let i = 0; i < depth; i++) v = i % 2 ? { x: v } : [v];
      return v;
    };
    assert.equal(jsonEqual(nested(20_000, 'a'), nested(20_000, 'a')), true);
    assert.equal(jsonEqual(nested(20_000, 'a'), nested(20_000, 'b')), false);
    assert.equal(jsonEqual(nested(20_000, 'a'), nested(19_999, 'a')), false);
  });
});
