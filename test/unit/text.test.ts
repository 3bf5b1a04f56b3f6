import { strict as assert } from 'node:assert';
import { boundedText, CONDITION_MESSAGE_BYTES, MESSAGE_BYTES, OUTSIDE_TEXT_BYTES } from '../../shared/text.js';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('boundedText', () => {
  it('leaves text that fits as it is, up to the last byte', () => {
    assert.equal(boundedText('connection refused'), 'connection refused');
    const exact = 'x'.repeat(OUTSIDE_TEXT_BYTES);
    assert.equal(boundedText(exact), exact);
    assert.equal(boundedText(''), '');
  });

  it('cuts longer text to its beginning, an ellipsis and the original size, within the bound', () => {
    const error = `execution: ${'y'.repeat(900_000)}`;
    for (const max of [OUTSIDE_TEXT_BYTES, MESSAGE_BYTES, CONDITION_MESSAGE_BYTES, 64]) {
      const out = boundedText(error, max);
      assert.ok(bytes(out) <= max, `${bytes(out)} > ${max}`);
      assert.ok(bytes(out) >= max - 4, `uses the room it has: ${bytes(out)} of ${max}`);
      assert.ok(out.startsWith('execution: yyy'));
      assert.ok(out.endsWith(`… (${bytes(error)} bytes in all)`), out.slice(-40));
    }
    assert.equal(boundedText('x'.repeat(OUTSIDE_TEXT_BYTES + 1)).length < OUTSIDE_TEXT_BYTES, true);
  });

  it('counts bytes, not characters, and never splits a character', () => {
    const wide = '€'.repeat(400); // 3 bytes each: 1200 bytes in 400 characters
    const out = boundedText(wide, 512);
    assert.ok(bytes(out) <= 512);
    assert.match(out, /^€+… \(1200 bytes in all\)$/);
    const emoji = '😀'.repeat(300); // surrogate pairs, 4 bytes each
    const cut = boundedText(emoji, 100);
    assert.ok(bytes(cut) <= 100);
    assert.match(cut, /^(😀)+… \(1200 bytes in all\)$/u, 'no half of a pair');
    assert.ok(!cut.includes('\ufffd'));
  });

  it('keeps within a bound too small for the note', () => {
    const out = boundedText('z'.repeat(100), 5);
    assert.ok(out.startsWith('… ('), out);
  });
});
