import { newTestService, TEST_APP_KEY } from '../../test/support/new-test-service';
import { open, seal } from '../credentials/secret-box';
import { userIdHash } from './app-settings';
import { AppSettingsRow, AppsRepository } from './apps.repository';
import { AppsService } from './apps.service';

const APP = '0d6f1c2e-3b4a-4c5d-8e6f-7a8b9c0d1e2f';
const OLD_KEY = Buffer.alloc(32, 9).toString('base64');

const settingsRow = (extra: Partial<AppSettingsRow> = {}): AppSettingsRow => ({
  id: APP,
  name: 'Shop',
  frequency_cap_max: null,
  frequency_cap_hours: null,
  quiet_hours_start: null,
  quiet_hours_end: null,
  identity_verification: false,
  inbox_days: 90,
  identity_secret_enc: null,
  identity_secret_previous_enc: null,
  ...extra,
});

/** App rules (docs/api.md "App settings", "Identity verification"), with the apps table faked. */
describe('AppsService', () => {
  const setup = () => {
    const { sut, mocks, env } = newTestService(AppsService);
    const apps = mocks.get(AppsRepository);
    // The stored row, as changeIdentitySecrets keeps it: the callback decides, the repository writes.
    const row = settingsRow();
    apps.changeIdentitySecrets.mockImplementation(async (_id, next) => {
      const pair = next({ ...row });
      if (pair) Object.assign(row, { identity_secret_enc: pair.current, identity_secret_previous_enc: pair.previous });
      return row;
    });
    apps.settings.mockImplementation(async () => ({ ...row }));
    return { sut, apps, env, row };
  };

  it('answers null for an id that is no uuid, without asking the database', async () => {
    const { sut, apps } = setup();
    expect(await sut.find('nope')).toBeNull();
    expect(await sut.delete('nope')).toBeNull();
    expect(await sut.settings('nope')).toBeNull();
    expect(await sut.updateSettings('nope', { identity_verification: true })).toBeNull();
    expect(await sut.identitySecret('nope', {})).toBeNull();
    expect([apps.find, apps.delete, apps.settings, apps.updateSettings, apps.changeIdentitySecrets].every((fn) => fn.mock.calls.length === 0)).toBe(true);
  });

  it('delete answers the app and what it held; an unknown app is null', async () => {
    const { sut, apps } = setup();
    apps.delete.mockResolvedValueOnce({
      id: APP,
      name: 'Shop',
      created_at: new Date('2026-01-01T00:00:00Z'),
      tokens: 2,
      installations: 3,
      notifications: 4,
      deliveries: 5,
    });
    expect(await sut.delete(APP)).toEqual({
      id: APP,
      name: 'Shop',
      created_at: '2026-01-01T00:00:00.000Z',
      deleted: { tokens: 2, installations: 3, notifications: 4, deliveries: 5 },
    });
    expect(await sut.delete(APP)).toBeNull();
  });

  it('updateSettings passes the API names through as the repository change, and shows the settings', async () => {
    const { sut, apps } = setup();
    apps.updateSettings.mockResolvedValueOnce(settingsRow({ frequency_cap_max: 3, frequency_cap_hours: 24 }));
    const shown = await sut.updateSettings(APP, { frequency_cap: { max: 3, hours: 24 }, quiet_hours: null });
    expect(apps.updateSettings).toHaveBeenCalledWith(APP, {
      frequencyCap: { max: 3, hours: 24 },
      quietHours: null,
      identityVerification: undefined,
      inboxDays: undefined,
    });
    expect(shown!.settings).toEqual({ frequency_cap: { max: 3, hours: 24 }, quiet_hours: null, identity_verification: false, inbox_days: 90 });
  });

  it('identitySecret: made once and sealed under APP_KEY for its slot; the same on later calls', async () => {
    const { sut, row } = setup();
    const { secret } = (await sut.identitySecret(APP, {}))!;
    expect(secret).toMatch(/^idv_[0-9A-Za-z]{43}$/);
    expect(row.identity_secret_enc).not.toContain(secret);
    expect(open(row.identity_secret_enc!, `apps:${APP}:identity_secret_enc`, TEST_APP_KEY)).toBe(secret);
    expect(() => open(row.identity_secret_enc!, `apps:${APP}:identity_secret_previous_enc`, TEST_APP_KEY)).toThrow();
    expect(await sut.identitySecret(APP, {})).toEqual({ secret });
  });

  it('identitySecret: a rotation keeps the old secret as the previous one, until it is revoked', async () => {
    const { sut, row } = setup();
    const first = (await sut.identitySecret(APP, {}))!.secret;
    const second = (await sut.identitySecret(APP, { rotate: true }))!.secret;
    expect(second).not.toBe(first);
    expect(open(row.identity_secret_previous_enc!, `apps:${APP}:identity_secret_previous_enc`, TEST_APP_KEY)).toBe(first);

    expect(await sut.identitySecret(APP, { revokePrevious: true })).toEqual({ secret: second });
    expect(row.identity_secret_previous_enc).toBeNull();
  });

  it('userIdHashProblem: nothing while verification is off; missing or mismatch while on; current and previous secrets both accepted', async () => {
    const { sut, row } = setup();
    expect(await sut.userIdHashProblem(APP, 'ann', undefined)).toBeNull();

    row.identity_verification = true;
    const first = (await sut.identitySecret(APP, {}))!.secret;
    const second = (await sut.identitySecret(APP, { rotate: true }))!.secret;
    expect(await sut.userIdHashProblem(APP, 'ann', undefined)).toBe('missing');
    expect(await sut.userIdHashProblem(APP, 'ann', userIdHash(second, 'ann'))).toBeNull();
    expect(await sut.userIdHashProblem(APP, 'ann', userIdHash(second, 'ann').toUpperCase())).toBeNull();
    expect(await sut.userIdHashProblem(APP, 'ann', userIdHash(first, 'ann'))).toBeNull();
    expect(await sut.userIdHashProblem(APP, 'ann', userIdHash(second, 'bob'))).toBe('mismatch');
  });

  it('opens a secret sealed under APP_KEY_PREVIOUS while the key is being rotated', async () => {
    const { sut, row, env } = setup();
    row.identity_verification = true;
    row.identity_secret_enc = seal('idv_old', `apps:${APP}:identity_secret_enc`, OLD_KEY);
    env.APP_KEY_PREVIOUS = OLD_KEY;
    expect(await sut.userIdHashProblem(APP, 'ann', userIdHash('idv_old', 'ann'))).toBeNull();
    env.APP_KEY_PREVIOUS = undefined;
    await expect(sut.userIdHashProblem(APP, 'ann', userIdHash('idv_old', 'ann'))).rejects.toThrow();
  });
});
