import assert from 'node:assert/strict';
import { isDNS1123Subdomain } from '../../shared/field-checks.js';
import { LEASE_NAME, shardLeaseName, shardProblem } from '../../controller/shard.js';

describe('controller shard', () => {
  it('takes any label value as a shard and refuses what a label selector cannot hold', () => {
    for (const ok of ['a', 'team-a', 'Team_A', 'eu.west-1', 'x'.repeat(63)]) assert.equal(shardProblem(ok), undefined, ok);
    for (const bad of ['a,b', 'a=b', '-a', 'a b', 'x'.repeat(64), 'a/b']) assert.match(shardProblem(bad) ?? '', /must be a label value/, bad);
  });

  it('names the Lease after the shard when the name is one a Lease can have', () => {
    assert.equal(shardLeaseName(undefined), LEASE_NAME);
    assert.equal(shardLeaseName('team-a'), 'skiff-controller-leader-team-a');
    assert.equal(shardLeaseName('eu.west-1'), 'skiff-controller-leader-eu.west-1');
  });

  it('gives a shard with upper case or "_" a Lease name the API server takes, apart from similar shards', () => {
    // The API server refuses a Lease named skiff-controller-leader-Team_A, so such a shard never had a leader.
    const names = ['Team_A', 'team-a', 'TEAM-A', 'team_a', '_', 'A'.repeat(63), 'a_.b'].map(shardLeaseName);
    for (const n of names) assert.ok(isDNS1123Subdomain(n), n);
    assert.equal(new Set(names).size, names.length);
    assert.match(shardLeaseName('Team_A'), /^skiff-controller-leader-team-a-[0-9a-f]{8}$/);
    assert.equal(shardLeaseName('Team_A'), shardLeaseName('Team_A'));
  });

  it('never gives two shards one Lease: a shard that looks like a hashed name is hashed too', () => {
    const hashed = shardLeaseName('Team_A').slice(`${LEASE_NAME}-`.length);
    assert.match(hashed, /^team-a-[0-9a-f]{8}$/);
    const shards = ['Team_A', hashed, shardLeaseName('_').slice(`${LEASE_NAME}-`.length), '_', 'team-a', 'deadbeef', 'x-deadbeef', 'x-deadbeef0'];
    const names = shards.map(shardLeaseName);
    for (const n of names) assert.ok(isDNS1123Subdomain(n), n);
    assert.equal(new Set(names).size, names.length, names.join(' '));
    // Only such endings: an ordinary shard keeps the name it has always had.
    assert.equal(shardLeaseName('x-deadbeef0'), 'skiff-controller-leader-x-deadbeef0');
    assert.equal(shardLeaseName('build-2024'), 'skiff-controller-leader-build-2024');
  });
});
