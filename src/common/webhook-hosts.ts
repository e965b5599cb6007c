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

/** Where webhooks may call (docs/api.md#webhooks): any public host, or one in WEBHOOK_ALLOWED_HOSTS; checked again at each connection. */
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

  permits(url: URL): boolean {
    if (this.allows(url.hostname)) return true;
    const host = bareHost(url.hostname);
    return !isAddressOrLocalName(host) || isPublicAddress(host);
  }

  readonly lookup: LookupFunction = publicAddressLookup((hostname) => this.allows(hostname), this.resolver);
}
