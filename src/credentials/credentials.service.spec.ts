import webpush from 'web-push';
import { newTestService, TEST_APP_KEY } from '../../test/support/new-test-service';
import { AppsRepository } from '../apps/apps.repository';
import { AppCredentials } from './app-credentials.entity';
import { CredentialsRepository, SealedRow, UnknownAppError } from './credentials.repository';
import { CredentialsService } from './credentials.service';
import { CredentialsError } from './provider-credentials';
import { open, seal } from './secret-box';

const APP = '3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a98';
const OLD_KEY = Buffer.alloc(32, 3).toString('base64');
const camel = (column: string) => column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** app_credentials rows by app, by column, as the repository writes them; `finds` counts reads. */
class InMemoryCredentials implements Pick<CredentialsRepository, 'find' | 'upsert' | 'clear' | 'resealAll'> {
  rows = new Map<string, Record<string, unknown>>();
  apps = new Set([APP]);
  finds = 0;

  async find(appId: string) {
    this.finds++;
    const row = this.rows.get(appId);
    return row ? (Object.fromEntries(Object.entries(row).map(([column, value]) => [camel(column), value])) as unknown as AppCredentials) : null;
  }
  async upsert(appId: string, values: Map<string, unknown>, keepExisting: Set<string>) {
    if (!this.apps.has(appId)) throw new UnknownAppError();
    const row = this.rows.get(appId) ?? {};
    for (const [column, value] of values) if (!(keepExisting.has(column) && row[column] != null)) row[column] = value;
    this.rows.set(appId, row);
  }
  async clear(appId: string, columns: readonly string[]) {
    const row = this.rows.get(appId);
    for (const column of columns) if (row) row[column] = null;
    return row !== undefined;
  }
  async resealAll(reseal: (row: SealedRow) => Map<string, string>) {
    for (const [appId, row] of this.rows) {
      const sealed = {
        app_id: appId,
        apns_private_key_enc: null,
        fcm_service_account_enc: null,
        vapid_private_key_enc: null,
        hms_client_secret_enc: null,
        ...row,
      } as SealedRow;
      for (const [column, value] of reseal(sealed)) row[column] = value;
    }
  }
}

/** Provider credentials (`apps:credentials`, docs/api.md#cli): sealing, the delivery cache, removal and APP_KEY rotation. */
describe('CredentialsService', () => {
  const setup = () => {
    const store = new InMemoryCredentials();
    const built = newTestService(CredentialsService, { providers: [{ provide: CredentialsRepository, useValue: store }] });
    built.mocks.get(AppsRepository).exists.mockImplementation(async (id: string) => store.apps.has(id));
    return { ...built, store };
  };
  const vapid = { subject: 'mailto:ops@example.com' };

  it('generates a VAPID pair when none is given, seals its private key for its app and column, and hands it to delivery', async () => {
    const { sut, store } = setup();
    const summary = await sut.update(APP, { vapid });
    expect(summary).toEqual({ app_id: APP, apns: null, fcm: null, web_push: { subject: 'mailto:ops@example.com', public_key: expect.any(String) }, hms: null });
    const sealed = store.rows.get(APP)!.vapid_private_key_enc as string;
    const delivered = await sut.forDelivery(APP);
    expect(delivered.vapid).toEqual({ subject: 'mailto:ops@example.com', publicKey: summary.web_push!.public_key, privateKey: expect.any(String) });
    expect(sealed).not.toContain(delivered.vapid!.privateKey);
    expect(open(sealed, `app_credentials:${APP}:vapid_private_key_enc`, TEST_APP_KEY)).toBe(delivered.vapid!.privateKey);
    expect(await sut.platforms(APP)).toEqual(['web']);
  });

  it('keeps an existing VAPID pair when none is given again (browser subscriptions are bound to it), replaces it when one is', async () => {
    const { sut } = setup();
    const first = (await sut.update(APP, { vapid })).web_push!.public_key;
    expect((await sut.update(APP, { vapid: { subject: 'https://example.com/contact' } })).web_push).toEqual({
      subject: 'https://example.com/contact',
      public_key: first,
    });
    const pair = webpush.generateVAPIDKeys();
    expect((await sut.update(APP, { vapid: { ...vapid, ...pair } })).web_push!.public_key).toBe(pair.publicKey);
  });

  it('refuses an unknown app (not a uuid, or refused by the foreign key) and a bad input, writing nothing', async () => {
    const { sut, store } = setup();
    const other = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
    await expect(sut.update('nope', { vapid })).rejects.toThrow(new CredentialsError('App nope not found'));
    await expect(sut.update(other, { vapid })).rejects.toThrow(new CredentialsError(`App ${other} not found`));
    await expect(sut.update(other, {})).rejects.toThrow(new CredentialsError(`App ${other} not found`));
    await expect(sut.remove(other, 'web_push')).rejects.toThrow(new CredentialsError(`App ${other} not found`));
    await expect(sut.update(APP, { vapid: { subject: 'ops@example.com' } })).rejects.toThrow('VAPID subject must be a mailto: address or an https: URL');
    expect(store.rows.size).toBe(0);
  });

  it('serves delivery from a per-process cache for about 30 s; its own update and remove are seen at once', async () => {
    const { sut, store } = setup();
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    try {
      await sut.update(APP, { vapid });
      await sut.forDelivery(APP);
      const reads = store.finds;
      await sut.forDelivery(APP);
      now.mockReturnValue(1_000_000 + 29_000);
      await sut.forDelivery(APP);
      expect(store.finds).toBe(reads);
      now.mockReturnValue(1_000_000 + 31_000);
      await sut.forDelivery(APP);
      expect(store.finds).toBe(reads + 1);

      await sut.remove(APP, 'web_push');
      expect((await sut.forDelivery(APP)).vapid).toBeNull();
      expect(await sut.platforms(APP)).toEqual([]);
    } finally {
      now.mockRestore();
    }
  });

  it('does not cache a failed load', async () => {
    const { sut, store } = setup();
    const find = jest.spyOn(store, 'find').mockRejectedValueOnce(new Error('connection refused'));
    await expect(sut.forDelivery(APP)).rejects.toThrow('connection refused');
    expect(await sut.forDelivery(APP)).toEqual({ appId: APP, apns: null, fcm: null, vapid: null, hms: null });
    expect(find).toHaveBeenCalledTimes(2);
  });

  it('rotateAppKey re-seals what opens only under APP_KEY_PREVIOUS, leaves the current ones, and stops at one that opens under neither', async () => {
    const { sut, store, env } = setup();
    const context = `app_credentials:${APP}:vapid_private_key_enc`;
    env.APP_KEY_PREVIOUS = OLD_KEY;
    store.rows.set(APP, { vapid_subject: 'mailto:a@b.c', vapid_public_key: 'P', vapid_private_key_enc: seal('private', context, OLD_KEY) });

    expect(await sut.rotateAppKey()).toEqual({ apps: 1, secrets: 1, resealed: 1, already_current: 0 });
    expect(open(store.rows.get(APP)!.vapid_private_key_enc as string, context, TEST_APP_KEY)).toBe('private');
    expect(await sut.rotateAppKey()).toEqual({ apps: 1, secrets: 1, resealed: 0, already_current: 1 });

    store.rows.get(APP)!.vapid_private_key_enc = seal('private', context, Buffer.alloc(32, 1).toString('base64'));
    await expect(sut.rotateAppKey()).rejects.toThrow(`The vapid_private_key_enc of app ${APP} opens under neither APP_KEY nor APP_KEY_PREVIOUS`);
  });

  it('seals the Huawei client secret for its app and column, summarizes it without the secret, and re-seals it on rotation', async () => {
    const { sut, store, env } = setup();
    const summary = await sut.update(APP, { hms: { appId: '107001234', clientId: '107001234', clientSecret: 's3cret-value' } });
    expect(summary.hms).toEqual({ app_id: '107001234', client_id: '107001234' });
    const context = `app_credentials:${APP}:hms_client_secret_enc`;
    expect(open(store.rows.get(APP)!.hms_client_secret_enc as string, context, TEST_APP_KEY)).toBe('s3cret-value');
    expect((await sut.forDelivery(APP)).hms).toEqual({ appId: '107001234', clientId: '107001234', clientSecret: 's3cret-value' });
    expect(await sut.platforms(APP)).toEqual(['huawei']);

    env.APP_KEY_PREVIOUS = OLD_KEY;
    store.rows.get(APP)!.hms_client_secret_enc = seal('s3cret-value', context, OLD_KEY);
    expect(await sut.rotateAppKey()).toEqual({ apps: 1, secrets: 1, resealed: 1, already_current: 0 });
    expect(open(store.rows.get(APP)!.hms_client_secret_enc as string, context, TEST_APP_KEY)).toBe('s3cret-value');
  });

  it("refuses Huawei credentials that cannot be Huawei's", async () => {
    const { sut } = setup();
    await expect(sut.update(APP, { hms: { appId: 'my app', clientId: '1', clientSecret: 's' } })).rejects.toThrow(CredentialsError);
    await expect(sut.update(APP, { hms: { appId: '1', clientId: '1', clientSecret: 'has space' } })).rejects.toThrow('--hms-client-secret');
  });
});
