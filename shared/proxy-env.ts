// The proxy of the environment, as client-go (Go's http.ProxyFromEnvironment) picks it when the
// kubeconfig's cluster sets no proxy-url: HTTPS_PROXY for an https server, HTTP_PROXY for an http
// one (upper case first, then lower), unless NO_PROXY names the server. localhost and loopback
// addresses never go through a proxy. Pure.
// BlockList is a lazy export of node:net: read when used, not at load (hack/builtins-as-require.mjs).
import net, { isIP } from 'node:net';
import { bareHost } from './proxy-tunnel.js';

type Env = Record<string, string | undefined>;

const first = (env: Env, name: string) => env[name] || env[name.toLowerCase()] || undefined;

/** The proxy URL for requests to `server` (a URL), or undefined when they go direct. */
export function proxyFromEnvironment(server: string, env: Env): string | undefined {
  const url = new URL(server);
  const raw = first(env, url.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY');
  if (!raw) return undefined;
  const host = bareHost(url.hostname).toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (host === 'localhost' || isLoopback(host)) return undefined;
  if (noProxy(first(env, 'NO_PROXY') ?? '', host, port)) return undefined;
  // As Go: a value without a scheme is an http proxy's address.
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
}

function isLoopback(host: string): boolean {
  const family = isIP(host);
  if (family === 4) return host.startsWith('127.');
  if (family === 6) return host === '::1' || /^::ffff:127\./.test(host);
  return false;
}

/**
 * Whether NO_PROXY names `host:port`. Its entries, comma-separated: `*` (nothing is proxied), an
 * IP address or a CIDR block, a domain name (that name and every subdomain; with a leading "."
 * subdomains only, as Go reads it), each of the last optionally with `:port`.
 */
export function noProxy(list: string, host: string, port: string): boolean {
  for (const item of list.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean)) {
    if (item === '*') return true;
    if (item.includes('/')) {
      if (inCidr(item, host)) return true;
      continue;
    }
    const { name, entryPort } = splitPort(item);
    if (entryPort && entryPort !== port) continue;
    if (isIP(name)) {
      if (isIP(host) && sameAddress(name, host)) return true;
      continue;
    }
    if (name.startsWith('.')) {
      if (host.endsWith(name)) return true;
    } else if (name.startsWith('*.')) {
      if (host.endsWith(name.slice(1))) return true;
    } else if (host === name || host.endsWith(`.${name}`)) {
      return true;
    }
  }
  return false;
}

function splitPort(item: string): { name: string; entryPort?: string } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(item);
  if (bracketed) return { name: bracketed[1], entryPort: bracketed[2] };
  if (isIP(item)) return { name: item };
  const m = /^(.*):(\d+)$/.exec(item);
  return m ? { name: m[1], entryPort: m[2] } : { name: item };
}

function sameAddress(a: string, b: string): boolean {
  const list = new net.BlockList();
  list.addAddress(a, isIP(a) === 6 ? 'ipv6' : 'ipv4');
  return list.check(b, isIP(b) === 6 ? 'ipv6' : 'ipv4');
}

function inCidr(cidr: string, host: string): boolean {
  const [network, bits] = cidr.split('/');
  const family = isIP(network);
  const prefix = Number(bits);
  if (!family || !isIP(host) || isIP(host) !== family || !Number.isInteger(prefix)) return false;
  const type = family === 6 ? 'ipv6' : 'ipv4';
  const list = new net.BlockList();
  try {
    list.addSubnet(network, prefix, type);
  } catch {
    return false;
  }
  return list.check(host, type);
}
