// An image reference as the kubelet reads it: distribution/reference's ParseNormalizedNamed, which
// checks more than the grammar of IMAGE_REFERENCE (the schema's pattern). The API server checks
// nothing of the image, so a reference the kubelet refuses is stored, and every pod of it stops
// at InvalidImageName. Pure.
import { IMAGE_REFERENCE } from './app-schema.js';

export const IMAGE_REFERENCE_RE = new RegExp(IMAGE_REFERENCE);
/** distribution/reference's NameTotalLengthMax: the repository name once normalized (docker.io/library/...). */
const MAX_IMAGE_NAME_LENGTH = 255;
// go-digest's algorithms the kubelet has (it links crypto/sha256 and crypto/sha512), each with
// the length of its lower-case hex encoding.
const DIGEST_LENGTHS: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };
const IMAGE_ID = /^[a-f0-9]{64}$/;
const DEFAULT_DOMAIN = 'docker.io';

/**
 * The repository name as distribution/reference normalizes it (splitDockerDomain): a first path
 * component that is no registry (no "." or ":", not localhost, lower case) means Docker Hub, and a
 * Docker Hub name of one component is an official image under library/.
 */
export function normalizedRepository(repository: string): string {
  const i = repository.indexOf('/');
  const first = i === -1 ? '' : repository.slice(0, i);
  let domain: string;
  let rest: string;
  if (i === -1 || (!/[.:]/.test(first) && first !== 'localhost' && first.toLowerCase() === first)) [domain, rest] = [DEFAULT_DOMAIN, repository];
  else [domain, rest] = [first === 'index.docker.io' ? DEFAULT_DOMAIN : first, repository.slice(i + 1)];
  if (domain === DEFAULT_DOMAIN && !rest.includes('/')) rest = `library/${rest}`;
  return `${domain}/${rest}`;
}

/**
 * What the kubelet would refuse in an image reference, in words; empty when nothing, and for a
 * reference outside IMAGE_REFERENCE's grammar (the schema says that). The pattern runs only for a
 * digest or a long name: most references never pay for it.
 */
export function imageReferenceProblems(image: string): string[] {
  if (IMAGE_ID.test(image)) {
    return [`"${image}" is an image ID, which the kubelet does not take as a reference: name the repository, with the ID as its digest (<repository>@sha256:${image.slice(0, 12)}...)`];
  }
  const long = image.length > MAX_IMAGE_NAME_LENGTH - `${DEFAULT_DOMAIN}/library/`.length;
  if (!long && !image.includes('@')) return [];
  const m = IMAGE_REFERENCE_RE.exec(image);
  if (!m) return [];
  const out: string[] = [];
  const [repository, , digest] = [m[1], m[2], m[3]];
  if (digest !== undefined) {
    const colon = digest.indexOf(':');
    const [algorithm, encoded] = [digest.slice(0, colon), digest.slice(colon + 1)];
    // Own keys only: "constructor" or "toString" is no algorithm, whatever every object has.
    const length = Object.hasOwn(DIGEST_LENGTHS, algorithm) ? DIGEST_LENGTHS[algorithm] : undefined;
    if (length === undefined) out.push(`the digest's algorithm "${algorithm}" is not one the kubelet takes: sha256, sha384 or sha512`);
    else if (encoded.length !== length || !/^[a-f0-9]*$/.test(encoded)) {
      out.push(`a ${algorithm} digest is ${length} lower-case hex digits (this one has ${encoded.length}${/[A-F]/.test(encoded) ? ', some upper-case' : ''}): the kubelet refuses any other`);
    }
  }
  const normalized = normalizedRepository(repository);
  if (repository.length > MAX_IMAGE_NAME_LENGTH) {
    out.push(`the repository name (registry and path, before the tag or digest) must be at most ${MAX_IMAGE_NAME_LENGTH} characters (it has ${repository.length}): no registry or kubelet takes a longer one`);
  } else if (normalized.length > MAX_IMAGE_NAME_LENGTH) {
    // Longer only by what Docker Hub's normalizing puts before it.
    out.push(`the repository name must be at most ${MAX_IMAGE_NAME_LENGTH} characters with the "${normalized.slice(0, normalized.length - repository.length)}" the kubelet puts before it (it has ${normalized.length}): no kubelet takes a longer one`);
  }
  return out;
}
