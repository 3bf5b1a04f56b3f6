// A controller's shard (--shard): the value of the skiff.dev/shard label its Apps carry, and the
// name of the leader Lease its replicas elect with.
import { contentHash } from '../shared/hash.js';
import { isDNS1123Subdomain, isLabelValue } from '../shared/field-checks.js';

export const LEASE_NAME = 'skiff-controller-leader';

/** Why `shard` cannot be a shard (it must be a label value, used in a label selector), or undefined. */
export function shardProblem(shard: string): string | undefined {
  if (isLabelValue(shard)) return undefined;
  return `--shard "${shard}": must be a label value (at most 63 letters, digits, "-", "_" and ".", starting and ending with a letter or digit), as the skiff.dev/shard label of the Apps it reconciles`;
}

/**
 * The Lease of a shard's leader election. A label value may hold upper case and "_", which a
 * Lease's name (a DNS-1123 subdomain) may not: such a shard's name is lower-cased, every run of
 * other characters becomes one "-", and "-" and a hash of the shard itself follow, which keeps
 * shards apart that differ only there (`Team_A` and `team-a`). A shard that already ends the way
 * such a name does (`team-a-b8b3354a`, `Team_A`'s) takes the hashed form too: used as it is, it
 * would share `Team_A`'s Lease, and one of the two shards would never have a leader.
 */
export function shardLeaseName(shard: string | undefined): string {
  if (shard === undefined) return LEASE_NAME;
  const plain = `${LEASE_NAME}-${shard}`;
  if (isDNS1123Subdomain(plain) && !HASHED_ENDING.test(shard)) return plain;
  const cleaned = shard.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return `${LEASE_NAME}-${cleaned ? `${cleaned}-` : ''}${contentHash(shard, HASH_LENGTH)}`;
}

const HASH_LENGTH = 8;
const HASHED_ENDING = new RegExp(`(^|-)[0-9a-f]{${HASH_LENGTH}}$`);
