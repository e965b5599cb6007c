import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../../src/common/time';
import { EnvironmentVariables } from '../../src/config/env';
import { AdminService } from '../../src/admin/admin.service';
import { AppsRepository } from '../../src/apps/apps.repository';
import { AppsService } from '../../src/apps/apps.service';
import { CredentialsService } from '../../src/credentials/credentials.service';
import { DeliveriesRepository } from '../../src/delivery/deliver/deliveries.repository';
import { DeliveriesService } from '../../src/delivery/deliver/deliveries.service';
import { OutcomeRecorder } from '../../src/delivery/deliver/outcome-recorder';
import { StoreOutage } from '../../src/delivery/deliver/store-outage';
import { FanOutService } from '../../src/delivery/fan-out/fan-out.service';
import { MetricsService } from '../../src/metrics/metrics.service';
import { NotificationsService } from '../../src/notifications/notifications.service';
import { PUSH_PROVIDERS } from '../../src/delivery/providers/push-provider';
import { newTestService } from './new-test-service';
import { TestClock } from './test-clock';

@Injectable()
class NeedsAName {
  constructor(@Inject('UNKNOWN_TOKEN') readonly value: { call: () => void }) {}
}

/** The unit tier's service builder: what it fakes, what it keeps real, what it refuses. */
describe('newTestService', () => {
  it('fakes each repository method with a jest.fn the spec can script and inspect', async () => {
    const { sut, mocks } = newTestService(AppsService);
    const created = new Date('2026-01-02T03:04:05.000Z');
    mocks.get(AppsRepository).insert.mockResolvedValue({ id: 'a1', name: 'Shop', created_at: created });

    expect(await sut.create('Shop')).toEqual({ id: 'a1', name: 'Shop', created_at: '2026-01-02T03:04:05.000Z' });
    expect(mocks.get(AppsRepository).insert).toHaveBeenCalledWith('Shop');
    // A fake answers undefined until told otherwise.
    expect(await mocks.get(AppsRepository).list()).toBeUndefined();
  });

  it('gives real configuration (class defaults plus overrides), a TestClock and a real MetricsService', () => {
    const { mocks, env, clock } = newTestService(DeliveriesService, { env: { DELIVERY_MAX_ATTEMPTS: 2 } });
    expect(env).toBeInstanceOf(EnvironmentVariables);
    expect(env.DELIVERY_MAX_ATTEMPTS).toBe(2);
    expect(env.DELIVERY_BATCH_SIZE).toBe(new EnvironmentVariables().DELIVERY_BATCH_SIZE);
    expect(mocks.get(EnvironmentVariables)).toBe(env);
    expect(mocks.get(Clock)).toBe(clock);
    expect(clock).toBeInstanceOf(TestClock);
    expect(mocks.get(MetricsService)).toBeInstanceOf(MetricsService);
    // An injected array (the push providers) is empty unless overridden.
    expect(mocks.get(PUSH_PROVIDERS)).toEqual([]);
  });

  it('builds listed collaborators for real, sharing one fake of what they and the service both use', async () => {
    const store = { content: jest.fn(), claim: jest.fn().mockResolvedValue([]), cancelLeftovers: jest.fn() };
    store.content.mockResolvedValue({ id: 'n1', app_id: 'app-1', processing_started_at: new Date(0), options: null });
    const { sut, mocks } = newTestService(DeliveriesService, {
      real: [OutcomeRecorder, StoreOutage],
      providers: [{ provide: DeliveriesRepository, useValue: store }],
    });
    expect(mocks.get(OutcomeRecorder)).toBeInstanceOf(OutcomeRecorder);
    expect(mocks.get(DeliveriesRepository)).toBe(store);

    expect(await sut.deliverBatch('n1', 3)).toEqual({ sent: 0 });
    expect(store.cancelLeftovers).toHaveBeenCalledWith('n1', 3);
  });

  it('builds every service of the tree without an override', () => {
    for (const Service of [AdminService, CredentialsService, FanOutService, NotificationsService]) {
      expect(newTestService(Service as never).sut).toBeInstanceOf(Service);
    }
  });

  it('refuses a token it cannot fake, and a mock the service did not ask for', () => {
    expect(() => newTestService(NeedsAName)).toThrow('NeedsAName: give UNKNOWN_TOKEN as { provide, useValue } in overrides.providers');
    const call = jest.fn();
    expect(newTestService(NeedsAName, { providers: [{ provide: 'UNKNOWN_TOKEN', useValue: { call } }] }).sut.value.call).toBe(call);
    expect(() => newTestService(AppsService).mocks.get(DeliveriesRepository)).toThrow('does not depend on DeliveriesRepository');
  });
});
