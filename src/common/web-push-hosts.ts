import * as ipaddr from 'ipaddr.js';
import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { isIP, LookupFunction } from 'node:net';

/**
 * Which Web Push endpoints the service will talk to. A subscription's endpoint is chosen by
 * whoever registers the installation (an app-embedded token), so without these rules it could
 * point the worker at any address, the service's own network included (SSRF).
 *
 * - At registration (installations DTO) and again at send time: `https` only, no user name or
 *   password, and a host on the allow-list (WEB_PUSH_ALLOWED_HOSTS; exact names, or `.suffix`
 *   for any name under it). IP literals, `localhost`, `*.localhost` and single-label names are
 *   refused unless the operator lists them.
 * - At send time the host is resolved and every address must be public (not private, loopback,
 *   link-local, CGNAT, multicast or otherwise reserved), and the connection goes to exactly the
 *   address that was checked (the check is the socket's own `lookup`), so DNS cannot change in
 *   between. Hosts the operator listed are trusted wherever they resolve (a push service on
 *   their own network, the tests' loopback fake); the built-in default list is checked.
 */

/** The public push services of Chrome/Android, Firefox, Safari/Apple and Edge/Windows. */
export const DEFAULT_WEB_PUSH_HOSTS = [
  'fcm.googleapis.com',
  'android.googleapis.com',
  'updates.push.services.mozilla.com',
  '.push.services.mozilla.com',
  '.push.apple.com',
  '.notify.windows.com',
] as const;

const LABEL = '[a-z0-9](?:[a-z0-9-]*[a-z0-9])?';
/** One WEB_PUSH_ALLOWED_HOSTS entry: a host name (letters, digits, hyphens, dots) or `.suffix`. */
export const ALLOWED_HOST_ENTRY = new RegExp(`^\\.?${LABEL}(?:\\.${LABEL})*$`, 'i');

/** An RFC 3986 path and query (pct-encoded octets included), as the OpenAPI patterns write them. */
export const URL_PATH_AND_QUERY = "(?:/(?:[-A-Za-z0-9._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*)?(?:\\?(?:[-A-Za-z0-9._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*)?";

/** Error code of a connection refused because its host resolved to a non-public address. */
export const PRIVATE_ADDRESS_CODE = 'EPRIVATEADDRESS';

export const ENDPOINT_MESSAGES = {
  https: 'The :attribute field must be an absolute https:// URL.',
  credentials: 'The :attribute field must not contain a user name or password.',
  address: 'The :attribute field must name a public push service, not an IP address, localhost or a private host name.',
  notAllowed: 'The :attribute field must be the URL of a push service this server accepts (WEB_PUSH_ALLOWED_HOSTS).',
} as const;

/** Whether an IP address (v4, v6, v4-mapped v6) is public unicast, i.e. not in any special range. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.range() !== 'unicast') return false;
  // Only the global unicast block 2000::/3 is public IPv6; the rest is unassigned or special.
  return parsed.kind() === 'ipv4' || (parsed as ipaddr.IPv6).match(ipaddr.IPv6.parse('2000::'), 3);
}

/** `[::1]` -> `::1`, and one trailing dot (`host.`) dropped: the name DNS would look up. */
export const bareHost = (hostname: string) =>
  hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();

/** A host that names no public service by itself: an IP literal, `localhost`, `*.localhost` or a single label. */
export function isAddressOrLocalName(host: string): boolean {
  return isIP(host) !== 0 || host === 'localhost' || host.endsWith('.localhost') || !host.includes('.');
}

export type Resolver = (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;
export const systemResolver: Resolver = (hostname, callback) => dnsLookup(hostname, { all: true, verbatim: true }, callback);

/** A comma-separated host list setting (`name,.suffix`), lower-cased; undefined when unset or empty. */
export function parseHostList(setting: string | undefined): string[] | undefined {
  const listed = setting
    ?.split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  return listed && listed.length > 0 ? listed : undefined;
}

/** Whether `hostname` is one of `entries`: exact names, or `.suffix` for any name under it. */
export function hostListAllows(entries: readonly string[], hostname: string): boolean {
  const host = bareHost(hostname);
  return entries.some((entry) => (entry.startsWith('.') ? host.endsWith(entry) && host.length > entry.length : host === entry));
}

/**
 * A `lookup` for net/tls/http2 connections: resolves as usual, but fails with PRIVATE_ADDRESS_CODE
 * when any address of a host that is not `trusted` is not public. The socket then connects to the
 * address this returned, the one that was checked, so DNS cannot change in between.
 */
export function publicAddressLookup(trusted: (hostname: string) => boolean, resolver: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    const isTrusted = trusted(hostname);
    resolver(hostname, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
      const candidates = addresses.filter((a) => !family || a.family === family);
      if (candidates.length === 0) {
        return callback(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      }
      if (!isTrusted && !addresses.every((a) => isPublicAddress(a.address))) {
        const refused = Object.assign(new Error(`${hostname} resolves to a private or reserved address`), { code: PRIVATE_ADDRESS_CODE });
        return callback(refused, '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, candidates);
      callback(null, candidates[0].address, candidates[0].family);
    });
  };
}

export class WebPushHosts {
  /** `setting` is WEB_PUSH_ALLOWED_HOSTS: when given it replaces the default list, and its hosts are trusted. */
  static fromSetting(setting: string | undefined, resolver: Resolver = systemResolver): WebPushHosts {
    const listed = parseHostList(setting);
    return listed ? new WebPushHosts(listed, true, resolver) : new WebPushHosts([...DEFAULT_WEB_PUSH_HOSTS], false, resolver);
  }

  private constructor(
    readonly entries: readonly string[],
    /** True when the operator set the list: its hosts are then trusted wherever they resolve. */
    readonly operatorListed: boolean,
    private readonly resolver: Resolver,
  ) {}

  allows(hostname: string): boolean {
    return hostListAllows(this.entries, hostname);
  }

  /** The message template (`:attribute`) for an endpoint this server will not send to, or null. */
  endpointProblem(endpoint: string): string | null {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      return ENDPOINT_MESSAGES.https;
    }
    return this.urlProblem(url);
  }

  /** endpointProblem for an endpoint already parsed (the worker parses each one once per message). */
  urlProblem(url: URL): string | null {
    if (url.protocol !== 'https:' || !url.hostname) return ENDPOINT_MESSAGES.https;
    if (url.username !== '' || url.password !== '') return ENDPOINT_MESSAGES.credentials;
    if (this.allows(url.hostname)) return null;
    // The URL parser has already turned 0x7f.1, 2130706433 and %31%32%37.0.0.1 into 127.0.0.1.
    if (isAddressOrLocalName(bareHost(url.hostname))) return ENDPOINT_MESSAGES.address;
    return ENDPOINT_MESSAGES.notAllowed;
  }

  /**
   * A `lookup` for net/tls/http2 connections to push services (publicAddressLookup): hosts the
   * operator listed are trusted wherever they resolve; the built-in list is checked.
   */
  readonly lookup: LookupFunction = publicAddressLookup((hostname) => this.operatorListed && this.allows(hostname), this.resolver);

  /**
   * The allow-list as a JSON Schema (ECMA-262) pattern for a whole endpoint URL, for the OpenAPI
   * document: stricter than the check above (lower-case host names only), never looser.
   */
  endpointPattern(): string {
    const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // No "--" in generated labels: "xn--..." would have to be valid punycode.
    const label = '[a-z0-9]+(?:-[a-z0-9]+)*';
    const hosts = this.entries.map((entry) => (entry.startsWith('.') ? `(?:${label}\\.)+${escape(entry.slice(1))}` : escape(entry)));
    const port = '(?::(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?';
    return `^https://(?:${hosts.join('|')})${port}${URL_PATH_AND_QUERY}$`;
  }
}
