import * as ipaddr from 'ipaddr.js';
import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { isIP, LookupFunction } from 'node:net';

/**
 * Which Web Push endpoints the service talks to (an installation chooses its endpoint: SSRF), docs/operations.md#security:
 * https, no user info, an allow-listed host; at send time every address public, and the socket connects to the one checked.
 */

export const DEFAULT_WEB_PUSH_HOSTS = [
  'fcm.googleapis.com',
  'android.googleapis.com',
  'updates.push.services.mozilla.com',
  '.push.services.mozilla.com',
  '.push.apple.com',
  '.notify.windows.com',
] as const;

const LABEL = '[a-z0-9](?:[a-z0-9-]*[a-z0-9])?';
export const ALLOWED_HOST_ENTRY = new RegExp(`^\\.?${LABEL}(?:\\.${LABEL})*$`, 'i');

export const URL_PATH_AND_QUERY = "(?:/(?:[-A-Za-z0-9._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*)?(?:\\?(?:[-A-Za-z0-9._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*)?";

export const PRIVATE_ADDRESS_CODE = 'EPRIVATEADDRESS';

export const ENDPOINT_MESSAGES = {
  https: 'The :attribute field must be an absolute https:// URL.',
  credentials: 'The :attribute field must not contain a user name or password.',
  address: 'The :attribute field must name a public push service, not an IP address, localhost or a private host name.',
  notAllowed: 'The :attribute field must be the URL of a push service this server accepts (WEB_PUSH_ALLOWED_HOSTS).',
} as const;

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.range() !== 'unicast') return false;
  // Only 2000::/3 is global unicast IPv6.
  return parsed.kind() === 'ipv4' || (parsed as ipaddr.IPv6).match(ipaddr.IPv6.parse('2000::'), 3);
}

export const bareHost = (hostname: string) =>
  hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();

export function isAddressOrLocalName(host: string): boolean {
  return isIP(host) !== 0 || host === 'localhost' || host.endsWith('.localhost') || !host.includes('.');
}

export type Resolver = (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;
export const systemResolver: Resolver = (hostname, callback) => dnsLookup(hostname, { all: true, verbatim: true }, callback);

export function parseHostList(setting: string | undefined): string[] | undefined {
  const listed = setting
    ?.split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  return listed && listed.length > 0 ? listed : undefined;
}

export function hostListAllows(entries: readonly string[], hostname: string): boolean {
  const host = bareHost(hostname);
  return entries.some((entry) => (entry.startsWith('.') ? host.endsWith(entry) && host.length > entry.length : host === entry));
}

/** A `lookup` that fails with PRIVATE_ADDRESS_CODE on a non-public address of an untrusted host; the socket connects to the address checked. */
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
  /** WEB_PUSH_ALLOWED_HOSTS replaces the default list when given, and its hosts are trusted. */
  static fromSetting(setting: string | undefined, resolver: Resolver = systemResolver): WebPushHosts {
    const listed = parseHostList(setting);
    return listed ? new WebPushHosts(listed, true, resolver) : new WebPushHosts([...DEFAULT_WEB_PUSH_HOSTS], false, resolver);
  }

  private constructor(
    readonly entries: readonly string[],
    readonly operatorListed: boolean,
    private readonly resolver: Resolver,
  ) {}

  allows(hostname: string): boolean {
    return hostListAllows(this.entries, hostname);
  }

  endpointProblem(endpoint: string): string | null {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      return ENDPOINT_MESSAGES.https;
    }
    return this.urlProblem(url);
  }

  urlProblem(url: URL): string | null {
    if (url.protocol !== 'https:' || !url.hostname) return ENDPOINT_MESSAGES.https;
    if (url.username !== '' || url.password !== '') return ENDPOINT_MESSAGES.credentials;
    if (this.allows(url.hostname)) return null;
    // The URL parser has already turned 0x7f.1 and 2130706433 into 127.0.0.1.
    if (isAddressOrLocalName(bareHost(url.hostname))) return ENDPOINT_MESSAGES.address;
    return ENDPOINT_MESSAGES.notAllowed;
  }

  readonly lookup: LookupFunction = publicAddressLookup((hostname) => this.operatorListed && this.allows(hostname), this.resolver);

  /** The allow-list as a pattern for the OpenAPI document: stricter than the check (lower case only), never looser. */
  endpointPattern(): string {
    const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // No "--" in generated labels: "xn--..." would have to be valid punycode.
    const label = '[a-z0-9]+(?:-[a-z0-9]+)*';
    const hosts = this.entries.map((entry) => (entry.startsWith('.') ? `(?:${label}\\.)+${escape(entry.slice(1))}` : escape(entry)));
    const port = '(?::(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?';
    return `^https://(?:${hosts.join('|')})${port}${URL_PATH_AND_QUERY}$`;
  }
}
