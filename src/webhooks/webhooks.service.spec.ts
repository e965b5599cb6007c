import { EnvironmentVariables } from '../config/env';
import { AppsRepository } from '../apps/apps.repository';
import { WebhookHosts } from '../common/webhook-hosts';
import { WebhookError } from './webhook-rules';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

const APP = '0b6b7c4e-1111-4c6d-8e7f-9a0b1c2d3e4f';

describe('WebhooksService.create: where a webhook may point (issue 26 item 3)', () => {
  const inserted: string[] = [];
  const repository = {
    insert: async (id: string, app_id: string, url: string, events: string[]) => {
      inserted.push(url);
      return { id, app_id, url, events, created_at: new Date() };
    },
  } as unknown as WebhooksRepository;
  const service = (setting?: string) =>
    new WebhooksService(
      repository,
      {} as AppsRepository,
      Object.assign(new EnvironmentVariables(), { APP_KEY: Buffer.alloc(32, 1).toString('base64') }),
      WebhookHosts.fromSetting(setting),
    );

  beforeEach(() => (inserted.length = 0));

  it.each([
    'http://127.0.0.1/hook',
    'http://127.0.0.1:6379/',
    'http://10.0.0.1/hook',
    'http://192.168.1.10/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://0x7f000001/hook',
    'http://2130706433/hook',
    'http://0177.0.0.1/hook',
    'http://[::1]/hook',
    'http://[::ffff:7f00:1]/hook',
    'http://[fe80::1]/hook',
    'https://localhost/hook',
    'https://api.localhost/hook',
    'https://intranet/hook',
  ])('refuses %s and stores nothing', async (url) => {
    await expect(service().create(APP, url, 'notification.completed')).rejects.toThrow(
      new WebhookError(
        '--url must name a public host, not a private, loopback or link-local address, localhost or a single-label name (or list it in WEBHOOK_ALLOWED_HOSTS)',
      ),
    );
    expect(inserted).toEqual([]);
  });

  it('accepts public hosts, and the hosts WEBHOOK_ALLOWED_HOSTS lists (receivers inside the operator network)', async () => {
    await service().create(APP, 'https://hooks.example.com/x', 'notification.completed');
    await service().create(APP, 'https://8.8.8.8/x', 'notification.completed');
    await service('127.0.0.1,.internal.example').create(APP, 'http://127.0.0.1:8080/x', 'notification.completed');
    await service('127.0.0.1,.internal.example').create(APP, 'http://hooks.internal.example/x', 'notification.completed');
    expect(inserted).toEqual(['https://hooks.example.com/x', 'https://8.8.8.8/x', 'http://127.0.0.1:8080/x', 'http://hooks.internal.example/x']);
  });
});
