import { isIPv4 } from 'node:net';

export function hostName(header: string | undefined): string {
  const host = (header ?? '').trim().toLowerCase();
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']') === -1 ? undefined : host.indexOf(']'));
  return host.replace(/:\d*$/, '').replace(/\.$/, '');
}

/** localhost, 127.0.0.0/8, ::1, or one of `allowed`: no other name, which a page could rebind to loopback (docs/testing.md#the-sandbox-api). */
export function isAllowedHost(header: string | undefined, allowed: readonly string[]): boolean {
  const name = hostName(header);
  if (name === '') return false;
  if (name === 'localhost' || name === '::1' || (isIPv4(name) && name.startsWith('127.'))) return true;
  return allowed.some((host) => hostName(host) === name);
}

/** POST and PUT always carry JSON; any other method only when it has a body. */
export function isJsonRequest(method: string | undefined, contentType: string | undefined, size: number): boolean {
  if (size === 0 && method !== 'POST' && method !== 'PUT') return true;
  const media = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return media === 'application/json';
}
