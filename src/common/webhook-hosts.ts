import type { LookupFunction } from 'node:net';
import {
  bareHost,
  hostListAllows,
  isAddressOrLocalName,
  isPublicAddress,
  parseHostList,
  publicAddressLookup,
  Resolver,
  systemResolver,
} from './web-push-hosts';

/**
 * Where webhooks may call (docs/api.md#webhooks), the Web Push endpoints' policy (web-push-hosts.ts)
 * with an exemption list instead of an allow-list: any public host, never a loopback, private,
 * link-local or otherwise non-public address, unless the host is listed in WEBHOOK_ALLOWED_HOSTS
 * (receivers inside the operator's network). Checked when a webhook is created (IP literals in
 * every notation, `localhost`, single-label names) and again at each call, on the address the
 * socket connects to (DNS rebinding).
 */
export class WebhookHosts {
  static fromSetting(setting: string | undefined, resolver: Resolver = systemResolver): WebhookHosts {
    return new WebhookHosts(parseHostList(setting) ?? [], resolver);
  }

  private constructor(
    readonly listed: readonly string[],
    private readonly resolver: Resolver,
  ) {}

  allows(hostname: string): boolean {
    return hostListAllows(this.listed, hostname);
  }

  /** Whether the service may call `url` (already parsed; http or https). */
  permits(url: URL): boolean {
    if (this.allows(url.hostname)) return true;
    // The URL parser has already turned 0x7f000001, 2130706433 and 0177.0.0.1 into 127.0.0.1.
    const host = bareHost(url.hostname);
    return !isAddressOrLocalName(host) || isPublicAddress(host);
  }

  /** Refuses, at connection time, a host not listed whose address is not public. */
  readonly lookup: LookupFunction = publicAddressLookup((hostname) => this.allows(hostname), this.resolver);
}
