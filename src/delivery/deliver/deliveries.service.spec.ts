import { Test, TestingModule } from '@nestjs/testing';
import { Platform } from '../../common/platform';
import { EnvironmentVariables } from '../../config/env';
import { CredentialsService } from '../../credentials/credentials.service';
import { ProviderCredentials } from '../../credentials/provider-credentials';
import { MetricsService } from '../../metrics/metrics.service';
import { CompletionReportService } from '../completion-report.service';
import { DeliverJobs } from '../../queue/jobs';
import type { NotificationContentRow } from '../../common/notification';
import { ClaimedRow, DeliveriesRepository, DeliveryRecord, Invalidation, RecordedOutcome } from './deliveries.repository';
import { badgeChange, DeliveriesService } from './deliveries.service';
import { Clock } from '../../common/time';
import { PaceLimiter } from '../../queue/pace-limiter';
import { OutcomeRecorder } from './outcome-recorder';
import { PushContent } from '../providers/payloads';
import { DeliveryOutcome, PUSH_PROVIDERS, PushProvider } from '../providers/push-provider';
import { StoreOutage } from './store-outage';

const NOTIFICATION = '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f';

/** What pg throws when PostgreSQL refuses the connection. */
const unreachable = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

/**
 * The batch's rows in memory: claim hands them out once, recordOutcomes keeps what the service
 * decided. `unreachableFor` calls of either throw as when PostgreSQL is cut off.
 */
class InMemoryDeliveries implements Pick<DeliveriesRepository, 'claim' | 'recordOutcomes' | 'content' | 'cancelLeftovers'> {
  rows: ClaimedRow[] = [];
  localizations: NotificationContentRow['localizations'] = null;
  options: PushContent['options'] = null;
  title = 'T';
  template: NotificationContentRow['template'] = null;
  variables: NotificationContentRow['variables'] = null;
  /** What claim was asked to read for rendering (docs/api.md#liquid). */
  personalizeAsked: boolean[] = [];
  leftoversCanceled: number[] = [];
  recorded = new Map<string, RecordedOutcome>();
  invalidations: Invalidation[] = [];
  /** Whether recordOutcomes answers that these outcomes completed the notification. */
  completes = false;
  writes = 0;
  claims = 0;
  unreachableFor = 0;

  async claim(...args: Parameters<DeliveriesRepository['claim']>): Promise<ClaimedRow[]> {
    this.personalizeAsked.push(args[7] === true);
    this.claims++;
    if (this.unreachableFor > 0 && this.unreachableFor--) throw unreachable();
    const claimed = this.rows.map((row) => ({ ...row, attempts: row.attempts + 1 }));
    this.rows = [];
    return claimed;
  }

  async recordOutcomes(records: readonly DeliveryRecord[]) {
    this.writes++;
    if (this.unreachableFor > 0 && this.unreachableFor--) throw unreachable();
    for (const { installationId, outcome, invalidation } of records) {
      this.recorded.set(installationId, outcome);
      if (invalidation) this.invalidations.push(invalidation);
    }
    return this.completes ? [...new Set(records.map((r) => r.notificationId))] : [];
  }

  async content(notificationId: string): Promise<NotificationContentRow> {
    return {
      id: notificationId,
      app_id: 'app-1',
      processing_started_at: new Date(0),
      variants: null,
      title: this.title,
      body: 'B',
      image_url: null,
      action_url: null,
      data: null,
      options: this.options,
      localizations: this.localizations,
      template: this.template,
      variables: this.variables,
    };
  }

  async cancelLeftovers(_id: string, batch: number) {
    this.leftoversCanceled.push(batch);
  }
}

/** A provider that answers each installation with the outcome the test gives it (delivery never asks `check`). */
class ScriptedProvider implements Omit<PushProvider, 'check'> {
  readonly answers = new Map<string, DeliveryOutcome>();
  readonly titles = new Map<string, string>();
  /** The `pushProvider` each target came with (docs/api.md#push-provider). */
  readonly pushProviders = new Map<string, string | undefined>();
  /** As the real ones: only FCM validates a dry run's message. */
  readonly validatesDryRun: boolean;
  constructor(readonly platform: Platform) {
    this.validatesDryRun = platform === 'android';
  }
  configured(credentials: ProviderCredentials): boolean {
    return this.platform === 'ios' ? credentials.apns !== null : this.platform === 'android' ? credentials.fcm !== null : credentials.vapid !== null;
  }
  async send(_c: ProviderCredentials, content: PushContent, target: { installationId: string; pushProvider?: string }): Promise<DeliveryOutcome> {
    this.titles.set(target.installationId, content.title ?? '');
    this.pushProviders.set(target.installationId, target.pushProvider);
    return this.answers.get(target.installationId) ?? { kind: 'accepted' };
  }
}

const row = (id: string, extra: Partial<ClaimedRow> = {}): ClaimedRow => ({
  variant: null,
  installation_id: id,
  attempts: 0,
  platform: 'ios',
  push_token: `token-${id}`,
  web_push_subscription: null,
  deleted_at: null,
  invalidated_at: null,
  locale: null,
  badge: null,
  start_token: null,
  widget_token: null,
  personal: null,
  ...extra,
});

/** The delivery rules (outcome finalisation, retries, invalidation, skips), with storage and queue in memory. */
describe('DeliveriesService', () => {
  let service: DeliveriesService;
  let store: InMemoryDeliveries;
  let ios: ScriptedProvider;
  let android: ScriptedProvider;
  let web: ScriptedProvider;
  let retries: { notificationId: string; batch: number; attempt: number; delayMs: number }[];
  let metrics: MetricsService;
  let reported: string[];
  let moduleRef: TestingModule;
  const config = { DELIVERY_CONCURRENCY: 4, DELIVERY_MAX_ATTEMPTS: 3, DELIVERY_RETRY_BASE_MS: 1000, DELIVERY_RETRY_MAX_MS: 60_000 };
  const credentials: ProviderCredentials = {
    appId: 'app-1',
    apns: { keyId: 'K', teamId: 'T', topic: 'com.example', production: false, privateKey: '' },
    fcm: null,
    vapid: null,
    hms: null,
  };

  beforeEach(async () => {
    store = new InMemoryDeliveries();
    ios = new ScriptedProvider('ios');
    android = new ScriptedProvider('android');
    web = new ScriptedProvider('web');
    retries = [];
    reported = [];
    moduleRef = await Test.createTestingModule({
      providers: [
        DeliveriesService,
        OutcomeRecorder,
        StoreOutage,
        MetricsService,
        { provide: DeliveriesRepository, useValue: store },
        {
          provide: DeliverJobs,
          useValue: {
            addRetry: async (notificationId: string, batch: number, attempt: number, delayMs: number) =>
              retries.push({ notificationId, batch, attempt, delayMs }),
          },
        },
        { provide: CredentialsService, useValue: { forDelivery: async () => credentials } },
        { provide: PUSH_PROVIDERS, useValue: [ios, android, web] },
        { provide: EnvironmentVariables, useValue: config },
        { provide: CompletionReportService, useValue: { completed: async (ids: string[]) => reported.push(...ids) } },
        Clock,
        // Only throttled sends use it (test/integration/pacing.int-spec.ts, on Redis); none here.
        { provide: PaceLimiter, useValue: {} },
      ],
    }).compile();
    service = moduleRef.get(DeliveriesService);
    metrics = moduleRef.get(MetricsService);
  });

  it('a dry run asks only FCM, whose valid answer is skipped DryRun and whose invalid one fails without invalidating (docs/api.md#dry-runs)', async () => {
    store.options = { dry_run: true };
    const withFcm: ProviderCredentials = { ...credentials, fcm: { projectId: 'p', clientEmail: 'e', privateKeyId: 'k', privateKey: '' } };
    moduleRef.get(CredentialsService).forDelivery = async () => withFcm;
    store.rows = [row('ios'), row('valid', { platform: 'android' }), row('unknown', { platform: 'android' }), row('busy', { platform: 'android' })];
    android.answers.set('unknown', { kind: 'invalid', reason: 'UNREGISTERED' });
    android.answers.set('busy', { kind: 'retry', reason: 'UNAVAILABLE' });

    await service.deliverBatch(NOTIFICATION, 0);

    expect(ios.titles.size).toBe(0);
    expect([...android.titles.keys()].sort()).toEqual(['busy', 'unknown', 'valid']);
    expect(Object.fromEntries([...store.recorded].map(([id, o]) => [id, [o.status, o.reason]]))).toEqual({
      ios: ['skipped', 'DryRun'],
      valid: ['skipped', 'DryRun'],
      unknown: ['failed', 'UNREGISTERED'],
      busy: ['pending', 'UNAVAILABLE'],
    });
    expect(store.invalidations).toEqual([]);
  });

  const deliveryCount = async (outcome: string) =>
    (await metrics.deliveries.get()).values.find((v) => v.labels.provider === 'apns' && v.labels.outcome === outcome)?.value ?? 0;

  it('records accepted, failed and invalid answers; an invalid one invalidates the token that was used', async () => {
    store.rows = [row('a'), row('b'), row('c')];
    ios.answers.set('a', { kind: 'accepted', providerMessageId: 'apns-id-a' });
    ios.answers.set('b', { kind: 'failed', reason: 'PayloadTooLarge' });
    ios.answers.set('c', { kind: 'invalid', reason: 'BadDeviceToken' });

    expect(await service.deliverBatch(NOTIFICATION, 0)).toEqual({ sent: 3 });

    expect(Object.fromEntries(store.recorded)).toEqual({
      // The provider's id of the message goes with the outcome (docs/api.md#provider-message-ids).
      a: { status: 'accepted', reason: null, nextAttemptAt: null, providerMessageId: 'apns-id-a' },
      b: { status: 'failed', reason: 'PayloadTooLarge', nextAttemptAt: null },
      c: { status: 'failed', reason: 'BadDeviceToken', nextAttemptAt: null },
    });
    expect(store.invalidations).toEqual([{ installationId: 'c', reason: 'BadDeviceToken', token: 'token-c' }]);
    expect(retries).toEqual([]);
    expect([await deliveryCount('accepted'), await deliveryCount('failed'), await deliveryCount('invalidated')]).toEqual([1, 1, 1]);
  });

  it('a widget push goes to the widget token; without one it is skipped as NoWidgetToken; a refused one invalidates nothing (docs/api.md#widgets)', async () => {
    store.options = { widgets: true };
    const targets: (string | null)[] = [];
    const send = ios.send.bind(ios);
    ios.send = async (c, content, target) => {
      targets.push((target as unknown as { pushToken: string | null }).pushToken);
      return send(c, content, target);
    };
    store.rows = [row('w', { widget_token: 'widget-w' }), row('n'), row('x', { widget_token: 'widget-x' })];
    ios.answers.set('x', { kind: 'invalid', reason: 'BadDeviceToken' });

    expect(await service.deliverBatch(NOTIFICATION, 0)).toEqual({ sent: 3 });

    expect(targets.sort()).toEqual(['widget-w', 'widget-x']);
    expect(Object.fromEntries(store.recorded)).toEqual({
      w: { status: 'accepted', reason: null, nextAttemptAt: null, providerMessageId: null },
      n: { status: 'skipped', reason: 'NoWidgetToken', nextAttemptAt: null },
      x: { status: 'failed', reason: 'BadDeviceToken', nextAttemptAt: null },
    });
    expect(store.invalidations).toEqual([]);
  });

  it('puts a retryable answer back to pending with backoff (Retry-After when longer) and queues the batch again', async () => {
    store.rows = [row('a'), row('b', { attempts: 1 })];
    ios.answers.set('a', { kind: 'retry', reason: 'ServiceUnavailable' });
    ios.answers.set('b', { kind: 'retry', reason: 'TooManyRequests', retryAfterMs: 30_000 });
    const before = Date.now();

    await service.deliverBatch(NOTIFICATION, 7);

    const a = store.recorded.get('a')!;
    const b = store.recorded.get('b')!;
    expect([a.status, a.reason, b.status, b.reason]).toEqual(['pending', 'ServiceUnavailable', 'pending', 'TooManyRequests']);
    // Attempt 1: 1000 ms +-20%; attempt 2 asked for 30 s.
    expect(a.nextAttemptAt!.getTime() - before).toBeGreaterThanOrEqual(800);
    expect(a.nextAttemptAt!.getTime() - before).toBeLessThanOrEqual(1200 + 1000);
    expect(b.nextAttemptAt!.getTime() - before).toBeGreaterThanOrEqual(30_000);
    // One job for the batch, after its latest row is due, named after the highest attempt.
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ notificationId: NOTIFICATION, batch: 7, attempt: 2 });
    expect(retries[0].delayMs).toBeGreaterThan(28_000);
    expect(await deliveryCount('retried')).toBe(2);
  });

  it('fails a retryable answer once DELIVERY_MAX_ATTEMPTS is used up', async () => {
    store.rows = [row('a', { attempts: config.DELIVERY_MAX_ATTEMPTS - 1 })];
    ios.answers.set('a', { kind: 'retry', reason: 'ServiceUnavailable' });

    await service.deliverBatch(NOTIFICATION, 0);

    expect(store.recorded.get('a')).toEqual({ status: 'failed', reason: 'ServiceUnavailable', nextAttemptAt: null });
    expect(retries).toEqual([]);
  });

  it('skips, without asking a provider, what changed since the fan-out or cannot be sent', async () => {
    store.rows = [
      row('deleted', { deleted_at: new Date() }),
      row('invalidated', { invalidated_at: new Date() }),
      row('no-token', { push_token: null }),
      row('no-credentials', { platform: 'android' }),
      row('no-provider', {
        platform: 'web',
        push_token: null,
        web_push_subscription: { endpoint: 'https://push.example/1', keys: { p256dh: 'k', auth: 'a' } },
      }),
    ];
    ios.send = () => Promise.reject(new Error('no provider may be called'));

    await service.deliverBatch(NOTIFICATION, 0);

    expect([...store.recorded].map(([id, outcome]) => [id, outcome.status, outcome.reason])).toEqual([
      ['deleted', 'skipped', 'Deleted'],
      ['invalidated', 'skipped', 'Invalidated'],
      ['no-token', 'skipped', 'NoToken'],
      ['no-credentials', 'skipped', 'NoCredentials'],
      ['no-provider', 'skipped', 'NoCredentials'],
    ]);
    const skips = (await metrics.deliveriesSkipped.get()).values.map((v) => [v.labels.provider, v.labels.reason, v.value]);
    expect(skips).toEqual([
      ['apns', 'Deleted', 1],
      ['apns', 'Invalidated', 1],
      ['apns', 'NoToken', 1],
      ['fcm', 'NoCredentials', 1],
      ['web_push', 'NoCredentials', 1],
    ]);
  });

  it('sends an Android installation holding a subscription through the Web Push provider as UnifiedPush, with the VAPID pair (docs/api.md#unifiedpush)', async () => {
    const vapidOnly: ProviderCredentials = { ...credentials, apns: null, vapid: { subject: 'mailto:a@example.com', publicKey: 'P', privateKey: 'K' } };
    moduleRef.get(CredentialsService).forDelivery = async () => vapidOnly;
    const subscription = { endpoint: 'https://ntfy.example/up/1', keys: { p256dh: 'k', auth: 'a' } };
    store.rows = [
      row('up', { platform: 'android', push_token: null, web_push_subscription: subscription }),
      row('fcm', { platform: 'android' }),
      row('browser', { platform: 'web', push_token: null, web_push_subscription: subscription }),
    ];
    android.send = () => Promise.reject(new Error('FCM has no credentials here'));

    await service.deliverBatch(NOTIFICATION, 0);

    expect(Object.fromEntries([...store.recorded].map(([id, outcome]) => [id, [outcome.status, outcome.reason]]))).toEqual({
      up: ['accepted', null],
      fcm: ['skipped', 'NoCredentials'],
      browser: ['accepted', null],
    });
    expect(Object.fromEntries(web.pushProviders)).toEqual({ up: 'unifiedpush', browser: 'web_push' });
    const accepted = (await metrics.deliveries.get()).values.map((v) => [v.labels.provider, v.labels.outcome, v.value]);
    expect(accepted).toEqual([['web_push', 'accepted', 2]]);
  });

  it('reports the notification once its outcomes complete it, and not before', async () => {
    store.rows = [row('a')];
    await service.deliverBatch(NOTIFICATION, 0);
    expect(reported).toEqual([]);
    store.rows = [row('b')];
    store.completes = true;
    await service.deliverBatch(NOTIFICATION, 1);
    expect(reported).toEqual([NOTIFICATION]);
  });

  it('sends each installation the localized variant of its device.locale (docs/api.md#localization)', async () => {
    store.localizations = { fr: { title: 'Bonjour' }, 'pt-BR': { title: 'Olá' } };
    store.rows = [row('fr', { locale: 'fr_CA' }), row('pt', { locale: 'pt-PT' }), row('de', { locale: 'de' }), row('none')];
    await service.deliverBatch(NOTIFICATION, 0);
    expect(Object.fromEntries(ios.titles)).toEqual({ fr: 'Bonjour', pt: 'Olá', de: 'T', none: 'T' });
  });

  it('renders a template send per installation after localizing it, skipping RenderFailed and PayloadTooLarge (docs/api.md#liquid)', async () => {
    store.template = { key: 'welcome', version: 1 };
    store.variables = { greeting: 'Hi', big: 'x'.repeat(5000) };
    store.title = '{{ vars.greeting }} {{ properties.first_name | default: user_id }}';
    store.localizations = { fr: { title: 'Bonjour {{ properties.first_name }} ({{ language }}, {{ platform }}, {{ app_version }})' } };
    const personal = (first_name: string | null, user_id = 'u1') => ({ user_id, app_version: '2.1', properties: first_name ? { first_name } : {} });
    store.rows = [
      row('en', { personal: personal('Ann') }),
      row('fr', { locale: 'fr_CA', personal: personal('Zoé') }),
      row('anon', { personal: personal(null, 'user-9') }),
    ];
    await service.deliverBatch(NOTIFICATION, 0);
    expect(store.personalizeAsked).toEqual([true]);
    expect(Object.fromEntries(ios.titles)).toEqual({ en: 'Hi Ann', fr: 'Bonjour Zoé (fr, ios, 2.1)', anon: 'Hi user-9' });

    // A rendering past a limit, or one whose result is too large, skips that installation only.
    store.localizations = { de: { title: '{% for i in (1..100000000) %}x{% endfor %}' }, es: { title: '{{ vars.big }}' } };
    store.rows = [
      row('loop', { locale: 'de', personal: personal('A') }),
      row('big', { locale: 'es', personal: personal('B') }),
      row('ok', { personal: personal('C') }),
    ];
    ios.titles.clear();
    await service.deliverBatch('7f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f', 0);
    expect(store.recorded.get('loop')).toEqual({ status: 'skipped', reason: 'RenderFailed', nextAttemptAt: null });
    expect(store.recorded.get('big')).toEqual({ status: 'skipped', reason: 'PayloadTooLarge', nextAttemptAt: null });
    expect(Object.fromEntries(ios.titles)).toEqual({ ok: 'Hi C' });
  });

  it('leaves a send without a template or options.personalize as it is: {{ is plain text and nothing extra is read', async () => {
    store.title = 'Hi {{ vars.name }}';
    store.rows = [row('a', { personal: null })];
    await service.deliverBatch(NOTIFICATION, 0);
    expect(store.personalizeAsked).toEqual([false]);
    expect(ios.titles.get('a')).toBe('Hi {{ vars.name }}');
  });

  it('does nothing when the batch has nothing to claim (a duplicate job), but skips what a cancel left', async () => {
    expect(await service.deliverBatch(NOTIFICATION, 0)).toEqual({ sent: 0 });
    expect(store.recorded.size).toBe(0);
    // The statement skips rows only of a cancelled notification (docs/api.md#scheduling).
    expect(store.leftoversCanceled).toEqual([0]);
  });

  it('writes outcomes while the batch is still being sent, not once at its end', async () => {
    store.rows = [row('fast'), row('slow')];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const send = ios.send.bind(ios);
    ios.send = async (c, content, target) => {
      if (target.installationId === 'slow') await held;
      return send(c, content, target);
    };

    const delivered = service.deliverBatch(NOTIFICATION, 0);
    await until(() => store.recorded.has('fast'));
    expect(store.recorded.has('slow')).toBe(false);
    release();
    await delivered;
    expect([...store.recorded.keys()].sort()).toEqual(['fast', 'slow']);
  });

  it('waits out an unreachable database: keeps its claim and outcomes, sends nothing meanwhile, writes them once it answers', async () => {
    store.rows = ['a', 'b', 'c', 'd'].map((id) => row(id));
    const outage = moduleRef.get(StoreOutage);
    const sentDuringOutage: string[] = [];
    const send = ios.send.bind(ios);
    ios.send = async (c, content, target) => {
      if (outage.active) sentDuringOutage.push(target.installationId);
      // "b" is answered only once the write of "a" has failed: the outage begins mid-batch.
      if (target.installationId === 'b') await until(() => outage.active);
      return send(c, content, target);
    };
    // The claim fails once; then the first writes fail too.
    store.unreachableFor = 1;
    const claimed = store.claim.bind(store);
    store.claim = async (...args) => {
      const rows = await claimed(...args);
      store.unreachableFor = 3;
      return rows;
    };
    config.DELIVERY_CONCURRENCY = 1;
    try {
      expect(await service.deliverBatch(NOTIFICATION, 0)).toEqual({ sent: 4 });
    } finally {
      config.DELIVERY_CONCURRENCY = 4;
    }

    expect(store.claims).toBe(2);
    expect(store.writes).toBeGreaterThanOrEqual(4);
    expect([...store.recorded].map(([id, outcome]) => [id, outcome.status])).toEqual(['a', 'b', 'c', 'd'].map((id) => [id, 'accepted']));
    expect(sentDuringOutage).toEqual([]);
    expect(outage.active).toBe(false);
  });

  it('fails the job on any other storage error, as before', async () => {
    store.rows = [row('a')];
    store.recordOutcomes = async () => {
      throw new Error('column "nope" does not exist');
    };
    await expect(service.deliverBatch(NOTIFICATION, 0)).rejects.toThrow('column "nope" does not exist');
  });
});

/** Polls `condition` (every 5 ms, up to 5 s) until it holds. */
async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 5_000) throw new Error('condition never held');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('badgeChange (docs/api.md#badge-arithmetic)', () => {
  const content = (options: PushContent['options'], title: string | null = 'T'): PushContent => ({
    id: 'n',
    title,
    body: title,
    image_url: null,
    action_url: null,
    data: null,
    options,
  });
  it('sets with badge, adds with badge_increment, nothing otherwise or for a silent send', () => {
    expect(badgeChange(content({ badge: 4 }))).toEqual({ set: 4, add: 0 });
    expect(badgeChange(content({ badge_increment: -2 }))).toEqual({ set: null, add: -2 });
    expect(badgeChange(content(null))).toEqual({ set: null, add: 0 });
    expect(badgeChange(content({ ttl: 1 }))).toEqual({ set: null, add: 0 });
    expect(badgeChange(content({ badge_increment: 1, content_available: true }, null))).toEqual({ set: null, add: 0 });
  });
  it('moves no count for a dry run, which shows nothing (docs/api.md#dry-runs)', () => {
    expect(badgeChange(content({ badge: 4, dry_run: true }))).toEqual({ set: null, add: 0 });
    expect(badgeChange(content({ badge_increment: 1, dry_run: true }))).toEqual({ set: null, add: 0 });
  });
});
