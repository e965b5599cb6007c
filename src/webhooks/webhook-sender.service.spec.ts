import { Test } from '@nestjs/testing';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EnvironmentVariables } from '../config/env';
import { seal } from '../credentials/secret-box';
import { MetricsService } from '../metrics/metrics.service';
import { WebhookJobs } from '../queue/jobs';
import { WebhookHosts } from '../common/webhook-hosts';
import { newSecret } from './webhook-rules';
import { ATTEMPT_LEASE_SECONDS, WebhookSender } from './webhook-sender.service';
import { InstallationSubject, MessageAttempt, NotificationSubject, WebhooksRepository } from './webhooks.repository';
import { secretContext } from './webhooks.service';

const APP_KEY = Buffer.alloc(32, 7).toString('base64');
const WEBHOOK = '0b6b7c4e-1111-4c6d-8e7f-9a0b1c2d3e4f';
const MESSAGE = '7d0e5f1a-2222-4c6d-8e7f-9a0b1c2d3e4f';
const NOTIFICATION = '6f1c2d3e-3333-4c6d-8e7f-9a0b1c2d3e4f';
const INSTALLATION = '9a8b7c6d-4444-4c6d-8e7f-9a0b1c2d3e4f';

/** One message's row in memory; `status` is what the sender decided. */
class InMemoryMessages implements Pick<
  WebhooksRepository,
  'startAttempt' | 'keepBody' | 'notification' | 'installation' | 'delivered' | 'failed' | 'retryLater'
> {
  status: 'pending' | 'delivered' | 'failed' = 'pending';
  attempts = 0;
  body: string | null = null;
  lastError: string | null = null;
  dueInMs: number | null = null;
  leases: number[] = [];

  constructor(
    private readonly type: string,
    private readonly secret: string,
    private readonly url = 'https://hooks.example.com/push',
  ) {}

  async startAttempt(_id: string, leaseSeconds: number): Promise<MessageAttempt | undefined> {
    if (this.status !== 'pending') return undefined;
    this.attempts++;
    this.leases.push(leaseSeconds);
    return {
      id: MESSAGE,
      type: this.type,
      subject_id: this.type.startsWith('installation') ? INSTALLATION : NOTIFICATION,
      created_at: new Date('2026-11-24T10:00:00.000Z'),
      body: this.body,
      attempts: this.attempts,
      webhook_id: WEBHOOK,
      url: this.url,
      secret_enc: seal(this.secret, secretContext(WEBHOOK), APP_KEY),
    };
  }

  async keepBody(_id: string, body: string): Promise<string> {
    this.body ??= body;
    return this.body;
  }

  async notification(): Promise<NotificationSubject> {
    const at = new Date('2026-11-24T09:00:00.000Z');
    return {
      id: NOTIFICATION,
      app_id: 'app',
      variants: null,
      ab_phase: null,
      ab_due_at: null,
      ab_winner: null,
      ab_decided_at: null,
      title: 'T',
      body: 'B',
      image_url: null,
      action_url: null,
      data: null,
      options: null,
      target_users: 1,
      stat_users: 1,
      stat_installations: 2,
      stat_accepted: 1,
      stat_received: 0,
      stat_displayed: 0,
      stat_opened: 0,
      stat_failed: 1,
      stat_skipped: 0,
      stat_inbox_stored: 0,
      stat_inbox_read: 0,
      created_at: at,
      processing_started_at: at,
      completed_at: new Date('2026-11-24T10:00:00.000Z'),
      send_at: null,
      canceled_at: null,
      failure_reason: null,
      localizations: null,
      fanned_out_at: at,
      fanout_audience: null,
      template: null,
      variables: null,
    };
  }

  async installation(): Promise<InstallationSubject> {
    const at = new Date('2026-11-24T09:00:00.000Z');
    return {
      id: INSTALLATION,
      app_id: 'app',
      installation_id: 'device-1',
      platform: 'ios',
      push_token: 'SECRET-TOKEN',
      web_push_subscription: null,
      device: { locale: 'fr-FR' },
      user_id: 'u1',
      permission: 'granted',
      registered_at: at,
      last_seen_at: at,
      identifier_updated_at: null,
      permission_updated_at: null,
      invalidated_at: new Date('2026-11-24T10:00:00.000Z'),
      invalid_reason: 'Unregistered',
      deleted_at: null,
      tags: [],
      badge: 0,
      properties: {},
      live_activity_start_tokens: {},
      widget_push_token: null,
    };
  }

  async delivered(): Promise<void> {
    this.status = 'delivered';
  }

  async failed(_id: string, error: string): Promise<void> {
    this.status = 'failed';
    this.lastError = error;
  }

  async retryLater(_id: string, error: string, dueInMs: number): Promise<void> {
    this.lastError = error;
    this.dueInMs = dueInMs;
  }
}

describe('WebhookSender (docs/api.md#webhooks)', () => {
  const secret = newSecret();
  let fetchMock: jest.SpyInstance;
  let queued: { messageId: string; attempt: number; delayMs?: number }[];
  let metrics: MetricsService;

  const sender = async (
    messages: InMemoryMessages,
    maxAttempts = 3,
    hosts = WebhookHosts.fromSetting(undefined),
    settings: Partial<EnvironmentVariables> = {},
  ) => {
    const config = Object.assign(new EnvironmentVariables(), { APP_KEY, WEBHOOK_MAX_ATTEMPTS: maxAttempts }, settings);
    const moduleRef = await Test.createTestingModule({
      providers: [
        WebhookSender,
        { provide: WebhooksRepository, useValue: messages },
        { provide: WebhookJobs, useValue: { add: async (calls: typeof queued) => void queued.push(...calls) } },
        { provide: MetricsService, useValue: metrics },
        { provide: EnvironmentVariables, useValue: config },
        { provide: WebhookHosts, useValue: hosts },
      ],
    }).compile();
    return moduleRef.get(WebhookSender);
  };
  const answer = (status: number) => fetchMock.mockResolvedValueOnce(new Response(null, { status }));
  const calls = (event: string, outcome: string) =>
    metrics.webhookCalls.get().then((m) => m.values.find((v) => v.labels.event === event && v.labels.outcome === outcome)?.value ?? 0);

  beforeEach(() => {
    queued = [];
    metrics = new MetricsService();
    fetchMock = jest.spyOn(globalThis, 'fetch');
  });
  afterEach(() => fetchMock.mockRestore());

  it('POSTs the signed body once and marks the message delivered on a 2xx', async () => {
    const messages = new InMemoryMessages('notification.completed', secret);
    answer(204);
    await (await sender(messages)).attempt(MESSAGE);

    expect(messages.status).toBe('delivered');
    expect(queued).toEqual([]);
    expect(messages.leases).toEqual([ATTEMPT_LEASE_SECONDS]);
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit & { headers: Record<string, string> }];
    expect(url).toBe('https://hooks.example.com/push');
    expect(init).toMatchObject({ method: 'POST', redirect: 'manual' });
    const sentBody = init.body as string;
    const body = JSON.parse(sentBody);
    expect(body).toMatchObject({ type: 'notification.completed', timestamp: '2026-11-24T10:00:00.000Z', data: { id: NOTIFICATION } });
    expect(body.data.statistics).toEqual({
      users: 1,
      installations: 2,
      accepted: 1,
      received: 0,
      displayed: 0,
      opened: 0,
      failed: 1,
      skipped: 0,
      inbox_stored: 0,
      inbox_read: 0,
    });
    const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update(`${MESSAGE}.${init.headers['webhook-timestamp']}.${sentBody}`)
      .digest('base64');
    expect(init.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': MESSAGE, 'webhook-signature': `v1,${expected}` });
    expect(await calls('notification.completed', 'delivered')).toBe(1);
  });

  it('sends the Installation resource for installation.invalidated, never its token', async () => {
    const messages = new InMemoryMessages('installation.invalidated', secret);
    answer(200);
    await (await sender(messages)).attempt(MESSAGE);
    const body = (fetchMock.mock.calls[0][1] as RequestInit).body as string;
    expect(JSON.parse(body).data).toMatchObject({ id: INSTALLATION, invalid_reason: 'Unregistered', invalidated_at: '2026-11-24T10:00:00.000Z' });
    expect(body).not.toContain('SECRET-TOKEN');
    expect(body).not.toContain('push_token');
  });

  it('waits WEBHOOK_FIRST_RETRY_MS before the first retry, five times that before the second', async () => {
    const messages = new InMemoryMessages('notification.completed', secret);
    const webhooks = await sender(messages, 3, undefined, { WEBHOOK_FIRST_RETRY_MS: 200 });
    answer(500);
    await webhooks.attempt(MESSAGE);
    answer(503);
    await webhooks.attempt(MESSAGE);
    expect(queued.map((job) => job.delayMs)).toEqual([200, 1_000]);
    expect(messages.dueInMs).toBe(1_000 + ATTEMPT_LEASE_SECONDS * 1000);
  });

  it('queues the next attempt after the backoff on a failure, with the same body, until the last attempt gives up', async () => {
    const messages = new InMemoryMessages('notification.canceled', secret);
    const webhooks = await sender(messages, 3);
    answer(500);
    await webhooks.attempt(MESSAGE);
    expect(messages).toMatchObject({ status: 'pending', attempts: 1, lastError: 'HTTP 500', dueInMs: 5_000 + ATTEMPT_LEASE_SECONDS * 1000 });
    expect(queued).toEqual([{ messageId: MESSAGE, attempt: 2, delayMs: 5_000 }]);

    fetchMock.mockRejectedValueOnce(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }));
    await webhooks.attempt(MESSAGE);
    expect(messages).toMatchObject({ status: 'pending', attempts: 2, lastError: 'ECONNREFUSED', dueInMs: 25_000 + ATTEMPT_LEASE_SECONDS * 1000 });
    expect(queued[1]).toEqual({ messageId: MESSAGE, attempt: 3, delayMs: 25_000 });

    fetchMock.mockRejectedValueOnce(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    await webhooks.attempt(MESSAGE);
    expect(messages).toMatchObject({ status: 'failed', attempts: 3, lastError: 'no answer within 10 s' });
    expect(queued).toHaveLength(2);
    const bodies = fetchMock.mock.calls.map(([, init]) => (init as RequestInit).body);
    expect(new Set(bodies).size).toBe(1);
    expect(new Set(fetchMock.mock.calls.map(([, init]) => (init as { headers: Record<string, string> }).headers['webhook-id']))).toEqual(new Set([MESSAGE]));
    expect([await calls('notification.canceled', 'retried'), await calls('notification.canceled', 'failed')]).toEqual([2, 1]);

    // Given up: a stray job for it calls nobody.
    await webhooks.attempt(MESSAGE);
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });

  it('counts a redirect as a failure (it is not followed)', async () => {
    const messages = new InMemoryMessages('notification.completed', secret);
    answer(302);
    await (await sender(messages)).attempt(MESSAGE);
    expect(messages).toMatchObject({ status: 'pending', lastError: 'HTTP 302' });
  });

  describe('egress (issue 26 item 3)', () => {
    it.each([
      'http://127.0.0.1:6379/',
      'http://10.0.0.1/x',
      'http://169.254.169.254/latest/meta-data',
      'http://0x7f000001/',
      'http://[::ffff:7f00:1]/',
      'http://localhost:8080/',
    ])('calls nobody at %s, a stored URL to a non-public address, and says only that it is not allowed', async (url) => {
      const messages = new InMemoryMessages('notification.completed', secret, url);
      await (await sender(messages)).attempt(MESSAGE);
      expect(fetchMock).not.toHaveBeenCalled();
      expect(messages).toMatchObject({ status: 'pending', lastError: 'EndpointNotAllowed' });
    });

    /** A receiver on loopback, and how many calls reached it. */
    const receiver = async () => {
      let calls = 0;
      const server = createServer((_req, res) => {
        calls++;
        res.writeHead(204).end();
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      return { port: (server.address() as AddressInfo).port, calls: () => calls, close: () => new Promise((done) => server.close(done)) };
    };

    it('connects only to the address it checked: a name that resolves to loopback (DNS rebinding) is refused at connection time', async () => {
      fetchMock.mockRestore();
      const loopback = await receiver();
      try {
        const rebinding = WebhookHosts.fromSetting(undefined, (_host, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]));
        const messages = new InMemoryMessages('notification.completed', secret, `http://hooks.example.com:${loopback.port}/push`);
        await (await sender(messages, 3, rebinding)).attempt(MESSAGE);
        expect(loopback.calls()).toBe(0);
        expect(messages).toMatchObject({ status: 'pending', lastError: 'PrivateAddress' });

        // Listed in WEBHOOK_ALLOWED_HOSTS: a receiver inside the operator's network is called.
        const listed = WebhookHosts.fromSetting('hooks.example.com', (_host, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]));
        const allowed = new InMemoryMessages('notification.completed', secret, `http://hooks.example.com:${loopback.port}/push`);
        await (await sender(allowed, 3, listed)).attempt(MESSAGE);
        expect(allowed.status).toBe('delivered');
        expect(loopback.calls()).toBe(1);
      } finally {
        await loopback.close();
      }
    });
  });
});
