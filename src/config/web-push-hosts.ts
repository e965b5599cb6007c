import { WebPushHosts } from '../common/web-push-hosts';
import { env } from './env';

let configured: { setting: string | undefined; hosts: WebPushHosts } | undefined;

export function webPushHosts(): WebPushHosts {
  const setting = env().WEB_PUSH_ALLOWED_HOSTS;
  if (!configured || configured.setting !== setting) configured = { setting, hosts: WebPushHosts.fromSetting(setting) };
  return configured.hosts;
}
