import { strict as assert } from 'node:assert';
import { FlagError, parseFlags } from '../../shared/flags.js';

const SPEC = {
  'simulate-pods': { type: 'boolean', default: true, help: 'h' },
  port: { type: 'number', default: 9443, help: 'h' },
  'cert-dir': { type: 'string', default: '/tmp', help: 'h' },
} as const;

describe('flags', () => {
  it('takes defaults, then environment variables, then flags', () => {
    assert.deepEqual(parseFlags(SPEC, [], {}), { 'simulate-pods': true, port: 9443, 'cert-dir': '/tmp' });
    assert.deepEqual(parseFlags(SPEC, [], { SKIFF_PORT: '8443', SKIFF_SIMULATE_PODS: 'false' }), { 'simulate-pods': false, port: 8443, 'cert-dir': '/tmp' });
    assert.deepEqual(parseFlags(SPEC, ['--port', '7443', '--cert-dir=/x'], { SKIFF_PORT: '8443' }), { 'simulate-pods': true, port: 7443, 'cert-dir': '/x' });
  });

  it('turns a boolean off with --flag=false, as the README writes it, and on with --flag or --flag=true', () => {
    assert.equal(parseFlags(SPEC, ['--simulate-pods=false'], {})['simulate-pods'], false);
    assert.equal(parseFlags(SPEC, ['--simulate-pods=true'], { SKIFF_SIMULATE_PODS: 'false' })['simulate-pods'], true, 'the flag wins over its variable');
    assert.equal(parseFlags(SPEC, ['--simulate-pods'], { SKIFF_SIMULATE_PODS: 'false' })['simulate-pods'], true);
  });

  it('rejects what it cannot read, naming the flag', () => {
    assert.throws(() => parseFlags(SPEC, ['--simulate-pods=maybe'], {}), (e: Error) => e instanceof FlagError && /--simulate-pods: expected true or false, got "maybe"/.test(e.message));
    assert.throws(() => parseFlags(SPEC, ['--port=-1'], {}), (e: Error) => e instanceof FlagError && /--port: expected a non-negative integer/.test(e.message));
    // Number() reads blanks as 0: a variable of spaces turned the health server off, and the
    // kubelet's liveness probe then restarted the process without a word about why.
    for (const raw of [' ', '\t', '1e3', '0x1F90', '+5', '8080 ']) {
      assert.throws(() => parseFlags(SPEC, [], { SKIFF_PORT: raw }), (e: Error) => e instanceof FlagError && e.message.startsWith('--port: expected a non-negative integer'), JSON.stringify(raw));
    }
    const ports = { port: { type: 'port', default: 9443, help: 'a port' } } as const;
    assert.throws(() => parseFlags(ports, [], { SKIFF_PORT: ' ' }), (e: Error) => e instanceof FlagError && e.message === '--port: expected a port from 0 to 65535, got " "');
    assert.throws(() => parseFlags(ports, ['--port=65536'], {}), (e: Error) => e instanceof FlagError && e.message === '--port: expected a port from 0 to 65535, got "65536"');
    assert.throws(() => parseFlags(ports, [], { SKIFF_PORT: '-1' }), (e: Error) => e instanceof FlagError && e.message === '--port: expected a port from 0 to 65535, got "-1"');
    assert.equal(parseFlags(ports, ['--port=65535'], {}).port, 65535);
    assert.throws(() => parseFlags(SPEC, ['--nope=false'], {}), FlagError);
    assert.throws(() => parseFlags(SPEC, ['--help'], {}), (e: Error) => e.message === 'help');
  });

  it('an empty value on the command line counts as not given, unless the flag refuses it; an empty variable always counts as not given', () => {
    assert.equal(parseFlags(SPEC, ['--cert-dir='], {})['cert-dir'], '/tmp');
    const shard = { shard: { type: 'string', default: '', help: 'h', emptyRefused: 'leave it out' } } as const;
    assert.throws(() => parseFlags(shard, ['--shard='], {}), (e: Error) => e instanceof FlagError && e.message === '--shard: empty: leave it out');
    assert.throws(() => parseFlags(shard, ['--shard', ''], {}), FlagError);
    assert.equal(parseFlags(shard, [], { SKIFF_SHARD: '' }).shard, '');
    assert.equal(parseFlags(shard, ['--shard=a'], {}).shard, 'a');
  });
});
