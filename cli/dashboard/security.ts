// Who may talk to the dashboard. It acts with the user's own credentials, so a request it serves
// is a request the user makes: another web page open in the same browser must not be able to
// make one (cross-site requests, DNS rebinding) nor read what it answers. Pure: a request's
// method, path and headers in, a refusal (status and reason) or none out.
import { timingSafeEqual } from 'node:crypto';
import { networkInterfaces } from 'node:os';

export interface Served {
  /** The address it listens on, as given (127.0.0.1, ::1, 0.0.0.0, a name). */
  address: string;
  port: number;
  token: string;
}

export interface RequestFacts {
  method: string;
  /** The path without its query. */
  path: string;
  host?: string;
  origin?: string;
  /** The token sent in the X-Skiff-Token header. */
  headerToken?: string;
  /** The token of the query string: only for the event stream, since EventSource sends no headers. */
  queryToken?: string;
}

export interface Refusal { status: number; reason: string }

export const TOKEN_HEADER = 'x-skiff-token';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * A host as a browser writes it in Host and Origin (WHATWG URL host parsing): in lower case, an
 * IPv6 address in its short form (FD00:0:0::A is fd00::a), an IPv4 address in its dotted four
 * parts (127.1 and 2130706433 are 127.0.0.1). `--address` takes any of these forms (the system's
 * resolver reads them all), and the Host check compares strings: an address kept as given
 * refused every request, the printed URL's included.
 */
function canonicalHost(host: string): string {
  try {
    const h = new URL(`http://${host.includes(':') ? `[${host}]` : host}`).hostname;
    return h.startsWith('[') ? h.slice(1, -1) : h;
  } catch {
    return host.toLowerCase();
  }
}

/** `host:port` as a browser writes it in Host and Origin ([::1]:3100 for IPv6). */
const hostPort = (host: string, port: number) => {
  const h = canonicalHost(host);
  return `${h.includes(':') ? `[${h}]` : h}:${port}`;
};

const ANY = new Set(['0.0.0.0', '::']);

/** The machine's own IP addresses (for a dashboard bound to every interface). */
export const localAddresses = (): string[] => Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));

/**
 * The Host values the dashboard answers to: its own address and port; on loopback `localhost`,
 * `127.0.0.1` and `[::1]` with that port as well (names no other site can point at it); bound to
 * every interface (0.0.0.0, ::), each address of the machine. Never another name: a name that
 * points here now may be a stranger's site rebound to this address (DNS rebinding).
 */
export function allowedHosts(s: Served, interfaces: () => string[] = localAddresses): Set<string> {
  const hosts = new Set([hostPort(s.address, s.port)]);
  const address = canonicalHost(s.address);
  const own = ANY.has(address) ? [...interfaces(), ...LOOPBACK] : LOOPBACK.has(address) ? [...LOOPBACK] : [];
  for (const h of own) hosts.add(hostPort(h, s.port));
  // On port 80, HTTP's own, a browser writes Host and Origin without the port.
  if (s.port === 80) for (const h of [...hosts]) hosts.add(h.slice(0, -':80'.length));
  return hosts;
}

/** Whether the address reaches only this machine, in whichever form it is written (127.1, LOCALHOST, ::ffff:127.0.0.1). */
export const isLoopback = (address: string) => {
  const h = canonicalHost(address);
  return LOOPBACK.has(h) || h.startsWith('127.') || h.startsWith('::ffff:7f');
};

/**
 * The host (and port) of the URL to print for an address: a wildcard (0.0.0.0, ::) is no address
 * a browser can open (Windows refuses it; browsers block pages from reaching 0.0.0.0), so its
 * loopback counterpart, which the wildcard covers; otherwise the address itself, bracketed when IPv6.
 */
export const urlHost = (address: string, port: number): string => {
  const h = canonicalHost(address);
  return hostPort(h === '0.0.0.0' ? '127.0.0.1' : h === '::' ? '::1' : h, port);
};

export function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Static assets: the page holds no data and no secret; it reads the token from its own URL. */
const PUBLIC_PATHS = new Set(['/', '/index.html', '/app.js', '/style.css', '/favicon.svg', '/favicon.ico']);
export const STREAM_PATH = '/api/stream';

/** Why the request is refused, or undefined when it may go on. */
export function refusal(s: Served, r: RequestFacts): Refusal | undefined {
  if (!r.host || !allowedHosts(s).has(r.host.toLowerCase())) return { status: 421, reason: `Host "${r.host ?? ''}" is not this dashboard's address` };
  const state = !['GET', 'HEAD'].includes(r.method);
  if (state && r.origin !== `http://${r.host.toLowerCase()}`) return { status: 403, reason: `Origin "${r.origin ?? '(none)'}" is not this dashboard` };
  // A cross-origin GET may carry an Origin too (fetch); the dashboard's own pages never send another.
  if (r.origin !== undefined && r.origin !== `http://${r.host.toLowerCase()}`) return { status: 403, reason: `Origin "${r.origin}" is not this dashboard` };
  if (!state && PUBLIC_PATHS.has(r.path)) return undefined;
  const token = r.path === STREAM_PATH && r.headerToken === undefined ? r.queryToken : r.headerToken;
  if (!sameToken(token, s.token)) return { status: 401, reason: 'missing or wrong token: open the URL kubectl skiff dashboard printed' };
  return undefined;
}

/** Headers of every answer: nothing cached, nothing framed, scripts and styles only from the dashboard itself. */
export const SECURITY_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
};
