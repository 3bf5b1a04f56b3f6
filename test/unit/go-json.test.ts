// Go's encoding/json form of a value: what the API server writes a ControllerRevision's data as on
// every patch, so what Skiff must send for the bytes to stay the same. The expected text below is
// what Go 1.19's json.Marshal wrote for the same value, decoded from JSON.stringify's text.
import { strict as assert } from 'node:assert';
import { goJson } from '../../shared/go-json.js';

describe('goJson', () => {
  it('sorts every object\'s keys by their UTF-8 bytes and escapes <, >, &, U+2028 and U+2029 as Go does', () => {
    const value = {
      spec: {
        image: 'x', port: 8080,
        env: [{ name: 'A', value: 'a && b <c> \u2028 \u2029 é 😀 \t\n"\\' }],
        podAnnotations: { b: 1, 10: 'a', 9: 'b', a: true, é: null, '\uffff': 1, '😀': 2, Z: [], _x: {} },
      },
      metadata: { name: 'w' },
    };
    assert.equal(goJson(value),
      '{"metadata":{"name":"w"},"spec":{"env":[{"name":"A","value":"a \\u0026\\u0026 b \\u003cc\\u003e \\u2028 \\u2029 é 😀 \\t\\n\\"\\\\"}],"image":"x",'
      + '"podAnnotations":{"10":"a","9":"b","Z":[],"_x":{},"a":true,"b":1,"é":null,"\uffff":1,"😀":2},"port":8080}}');
  });

  it('reads back as the same value, leaving out undefined fields as JSON.stringify does', () => {
    const value = { a: [1, 'x<y', { c: undefined, d: false }], b: undefined, e: 'plain' };
    assert.deepEqual(JSON.parse(goJson(value)!), JSON.parse(JSON.stringify(value)));
    assert.equal(goJson(value), '{"a":[1,"x\\u003cy",{"d":false}],"e":"plain"}');
  });
});
