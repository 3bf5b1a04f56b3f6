import { strict as assert } from 'node:assert';
import { formatLogLine } from '../../dev/log-format.js';

describe('dev log format', () => {
  it('formats a pino record as time, level, source, message and fields', () => {
    const line = JSON.stringify({ level: 30, time: '2026-11-22T10:11:12.345Z', pid: 1, component: 'controller', msg: 'reconciled', app: 'shop/web', writes: 2 });
    assert.equal(formatLogLine(line, 'controller'), '10:11:12 INFO  controller reconciled  app=shop/web writes=2');
  });
  it('passes through lines that are not JSON', () => {
    assert.equal(formatLogLine('plain text', 'webhook'), 'webhook    plain text');
    assert.equal(formatLogLine('42', 'webhook'), 'webhook    42');
  });
});
