// Small building blocks of the App's rule sets (api-server-rules.ts, restricted-pod-security.ts):
// reading parts of an unchecked App, naming fields by path, and the syntax rules of
// k8s.io/apimachinery/pkg/util/validation that the API server applies to what Skiff renders.
import { DNS1123_SUBDOMAIN } from './app-schema.js';
import { isObject } from './objects.js';

/** One problem of an App, named by its field path (the shape of validation.ts's FieldError). */
export interface Problem {
  path: string;
  message: string;
}

export type Obj = Record<string, unknown>;
/** A rule over the App's spec: appends what it finds. */
export type SpecCheck = (spec: Obj, out: Problem[]) => void;

export const objectAt = (v: unknown): Obj | undefined => (isObject(v) ? v : undefined);
export const stringAt = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The object entries of a list with their indexes (other entries are type errors, the schema's to report). */
export function itemsOf(v: unknown): [number, Obj][] {
  const out: [number, Obj][] = [];
  // A loop rather than flatMap: several checks of every admission walk the same lists.
  if (Array.isArray(v)) for (let i = 0; i < v.length; i++) if (isObject(v[i])) out.push([i, v[i] as Obj]);
  return out;
}

/** `base.key`, or `base["key"]` for a key that is not an identifier (as validation.ts's fieldPath writes them). */
export const keyPath = (base: string, key: string) => (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`);

const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const SUBDOMAIN = new RegExp(DNS1123_SUBDOMAIN);

export const isDNS1123Subdomain = (s: string) => s.length <= 253 && SUBDOMAIN.test(s);
/** A DNS-1123 label, such as a namespace's name. */
export const isDNS1123Label = (s: string) => s.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(s);

/** A label or annotation key ([prefix/]name), as IsQualifiedName. */
export function isQualifiedName(key: string): boolean {
  const parts = key.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1]!;
  if (name.length > 63 || !NAME_PART.test(name)) return false;
  return parts.length === 1 || isDNS1123Subdomain(parts[0]!);
}

/** A label value, as IsValidLabelValue: empty, or at most 63 characters of the name syntax. */
export const isLabelValue = (v: string) => v === '' || (v.length <= 63 && NAME_PART.test(v));

/**
 * "." and ".." name directories, and the kubelet's atomic writer keeps its own files under "..":
 * Kubernetes refuses such config keys and environment variable names (hasChDirPrefix).
 */
export const isChDirName = (s: string) => s === '.' || s.startsWith('..');

/** IsEnvVarName of Kubernetes before 1.30 (which relaxed it): what every supported server accepts. */
export const isEnvVarName = (s: string) => /^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(s) && !isChDirName(s);

/** What Go's net.ParseIP takes for an IPv4 address, leading zeros included (older Go accepted them). */
export const isIPv4 = (s: string) => {
  const m = IPV4.exec(s);
  return m !== null && Number(m[1]) <= 255 && Number(m[2]) <= 255 && Number(m[3]) <= 255 && Number(m[4]) <= 255;
};
// Any number of digits: the API server parses IPs as Go 1.16 did (netutils.ParseIPSloppy), which
// takes leading zeros of any length, so "0010.0.0.1" is 10.0.0.1 to it and refused as a host.
const IPV4 = /^([0-9]+)\.([0-9]+)\.([0-9]+)\.([0-9]+)$/;

/** A path inside a volume or the node's seccomp directory: relative, never climbing out with "..". */
export const isLocalDescendingPath = (p: string) => !p.startsWith('/') && !p.split('/').includes('..');
