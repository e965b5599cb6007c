import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import webpush from 'web-push';
import { firebaseInstallationId } from '../../src/transfer/import-formats';
import { assertBuilt, runCli, RunResult, TEST_APP_KEY } from '../support/processes';
import { createTestDatabase, dropTestDatabase } from '../support/test-database';

jest.setTimeout(120_000);

/**
 * `pns import` and `pns export` (docs/api.md#import, #export), run as built on real files against
 * the real database: OneSignal's export, a Firebase-style CSV and our own CSV; malformed lines,
 * a re-run that changes nothing, a dry run, and an export imported into another app.
 */
describe('pns import and pns export', () => {
  let url: string;
  let name: string;
  let sql: Client;
  let dir: string;
  const cli = (...args: string[]) => runCli(args, { env: { DATABASE_URL: url, APP_KEY: TEST_APP_KEY, NODE_ENV: 'test' } });
  const json = (result: RunResult): any => {
    if (result.code !== 0) throw new Error(`command failed (${result.code}):\n${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  const file = (fileName: string, text: string) => {
    const path = join(dir, fileName);
    writeFileSync(path, text);
    return path;
  };
  const newApp = async () => json(await cli('apps:create', '--name', 'Moving in')).id as string;
  const installations = async (appId: string) =>
    (
      await sql.query(
        `SELECT i.installation_id, i.platform, i.push_token, i.web_push_subscription, i.widget_push_token, i.device, i.user_id, i.permission, i.tags,
           i.properties, i.registered_at, i.last_seen_at, b.badge, i.xmin::text AS version
         FROM installations i LEFT JOIN installation_badges b ON b.installation_id = i.id
         WHERE i.app_id = $1 AND i.deleted_at IS NULL ORDER BY i.installation_id`,
        [appId],
      )
    ).rows;

  beforeAll(async () => {
    assertBuilt();
    ({ name, url } = await createTestDatabase());
    sql = new Client({ connectionString: url });
    await sql.connect();
    dir = mkdtempSync(join(tmpdir(), 'pns-import-'));
  });
  afterAll(async () => {
    await sql?.end();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (name) await dropTestDatabase(name);
  });

  const APNS = 'a'.repeat(64);
  const WIDGET = 'c'.repeat(64);
  const p256dh = webpush.generateVAPIDKeys().publicKey;
  const auth = randomBytes(16).toString('base64url');
  const ONESIGNAL_HEADER =
    'id,identifier,session_count,language,timezone,game_version,device_os,device_type,device_model,ad_id,tags,last_active,playtime,amount_spent,created_at,invalid_identifier,badge_count,external_user_id,web_auth,web_p256';
  const oneSignal = [
    ONESIGNAL_HEADER,
    // 2: iOS, tags with a key to normalise and a number
    `os-ios-1,${APNS},12,en,-28800,1.4.0,17.2,0,"iPhone14,2",,"{""Level"":""5"",""plan"":""pro""}",2026-10-01 10:00:00,100,0,2025-01-02 03:04:05,f,3,user-1,,`,
    // 3: Android
    `os-android-1,fcm-token-1,3,de,3600,2.0,14,1,Pixel 8,,,2026-10-02 10:00:00,0,0,2025-02-01 00:00:00,f,0,user-2,,`,
    // 4: Chrome web push with its keys
    `os-web-1,https://fcm.googleapis.com/fcm/send/abc123,1,fr,0,,120,5,Linux x86_64,,,2026-10-03 10:00:00,0,0,2025-03-01 00:00:00,f,0,,${auth},${p256dh}`,
    // 5: a web subscription without keys
    `os-web-2,https://fcm.googleapis.com/fcm/send/def456,1,fr,0,,120,5,Linux x86_64,,,2026-10-03 10:00:00,0,0,2025-03-01 00:00:00,f,0,,,`,
    // 6: email, not a push channel
    `os-email-1,someone@example.com,1,en,0,,,11,,,,2026-10-03 10:00:00,0,0,2025-03-01 00:00:00,f,0,,,`,
    // 7: unsubscribed
    `os-ios-2,${'b'.repeat(64)},1,en,0,,,0,,,,2026-10-03 10:00:00,0,0,2025-03-01 00:00:00,t,0,,,`,
    // 8: an iOS identifier that is not an APNs token (the installations' own rule)
    `os-ios-3,not-hex,1,en,0,,,0,,,,2026-10-03 10:00:00,0,0,2025-03-01 00:00:00,f,0,,,`,
    // 9: too few columns
    `os-ios-4,${APNS},1,en`,
    // 10: Huawei
    `os-huawei-1,hms-token-1,1,zh,28800,,12,13,,,,2026-10-03 10:00:00,0,0,2025-03-01 00:00:00,f,0,,,`,
  ].join('\n');

  it('imports a OneSignal export: each line whole or skipped with its reason; a re-run changes nothing', async () => {
    const app = await newApp();
    const path = file('onesignal.csv', `${oneSignal}\n`);
    const first = await cli('import', '--app', app, '--from', 'onesignal', path);
    expect(first.stderr).toBe('');
    expect(json(first)).toEqual({
      read: 9,
      created: 4,
      updated: 0,
      unchanged: 0,
      skipped: [
        { line: 5, reason: 'a web subscription without keys (export with the extra fields web_auth and web_p256)' },
        { line: 6, reason: 'device_type 11 (email) is not a push channel this service sends to' },
        { line: 7, reason: 'unsubscribed in OneSignal (invalid_identifier = t)' },
        { line: 8, reason: 'The push_token field must be an APNs device token (64 to 200 hexadecimal characters).' },
        { line: 9, reason: 'expected 20 columns as in the header, found 4' },
      ],
      skipped_count: 5,
      dry_run: false,
    });
    const stored = await installations(app);
    expect(stored.map(({ version: _version, ...row }) => row)).toEqual([
      expect.objectContaining({ installation_id: 'os-android-1', platform: 'android', push_token: 'fcm-token-1', user_id: 'user-2', badge: null }),
      expect.objectContaining({ installation_id: 'os-huawei-1', platform: 'huawei', device: { locale: 'zh', os_version: '12', timezone: 'Etc/GMT-8' } }),
      {
        installation_id: 'os-ios-1',
        platform: 'ios',
        push_token: APNS,
        web_push_subscription: null,
        widget_push_token: null,
        device: { app_version: '1.4.0', os_version: '17.2', model: 'iPhone14,2', locale: 'en', timezone: 'Etc/GMT+8' },
        user_id: 'user-1',
        permission: 'granted',
        tags: [],
        properties: { level: 5, plan: 'pro' },
        registered_at: new Date('2025-01-02T03:04:05Z'),
        last_seen_at: new Date('2026-10-01T10:00:00Z'),
        badge: 3,
      },
      expect.objectContaining({
        installation_id: 'os-web-1',
        platform: 'web',
        push_token: null,
        web_push_subscription: { endpoint: 'https://fcm.googleapis.com/fcm/send/abc123', keys: { p256dh, auth } },
      }),
    ]);

    const again = json(await cli('import', '--app', app, '--from', 'onesignal', path));
    expect(again).toMatchObject({ read: 9, created: 0, updated: 0, unchanged: 4, skipped_count: 5 });
    expect(await installations(app)).toEqual(stored);

    // A changed line updates its installation, and only it.
    const changed = oneSignal.replace('os-android-1,fcm-token-1', 'os-android-1,fcm-token-2');
    const update = json(await cli('import', '--app', app, '--from', 'onesignal', file('changed.csv', changed)));
    expect(update).toMatchObject({ created: 0, updated: 1, unchanged: 3 });
    expect((await installations(app)).find((row) => row.installation_id === 'os-android-1').push_token).toBe('fcm-token-2');
  });

  it('writes nothing on a dry run, yet counts what it would do', async () => {
    const app = await newApp();
    const path = file('dry.csv', oneSignal);
    const summary = json(await cli('import', '--app', app, '--from', 'onesignal', '--dry-run', path));
    expect(summary).toMatchObject({ read: 9, created: 4, updated: 0, skipped_count: 5, dry_run: true });
    expect(await installations(app)).toEqual([]);
  });

  it('imports a Firebase-style token,platform[,user_id] CSV, header or not', async () => {
    const app = await newApp();
    const rows = ['token,platform,user_id', 'fcm-a,android,user-1', `${APNS},ios,`, 'fcm-b,ANDROID', 'fcm-c,ios,user-3', 'fcm-d,web', '"unclosed,android'];
    const summary = json(await cli('import', '--app', app, '--from', 'firebase', file('firebase.csv', rows.join('\n'))));
    expect(summary).toMatchObject({ read: 6, created: 3, updated: 0, skipped_count: 3 });
    expect(summary.skipped.map((skip: { line: number }) => skip.line)).toEqual([5, 6, 7]);
    expect(summary.skipped[0].reason).toMatch(/APNs device token/);
    expect(summary.skipped[1].reason).toBe('platform "web" is neither android nor ios');
    expect(summary.skipped[2].reason).toMatch(/^not CSV: /);
    const stored = await installations(app);
    expect(stored.map((row) => [row.installation_id, row.platform, row.user_id]).sort()).toEqual(
      [
        [firebaseInstallationId('fcm-a'), 'android', 'user-1'],
        [firebaseInstallationId(APNS), 'ios', null],
        [firebaseInstallationId('fcm-b'), 'android', null],
      ].sort(),
    );
    const headless = json(await cli('import', '--app', app, '--from', 'firebase', file('headless.csv', 'fcm-a,android,user-1\n')));
    expect(headless).toMatchObject({ read: 1, created: 0, updated: 0, unchanged: 1 });
  });

  it('refuses an installation whose stored platform differs, re-creates a deleted one, and refuses a file not of its format', async () => {
    const app = await newApp();
    json(await cli('import', '--app', app, '--from', 'onesignal', file('one.csv', oneSignal)));
    const ours = ['installation_id,platform,push_token', `os-android-1,ios,${APNS}`].join('\n');
    const summary = json(await cli('import', '--app', app, '--from', 'csv', file('ours.csv', ours)));
    expect(summary.skipped).toEqual([{ line: 2, reason: 'the installation exists as android; its platform cannot change' }]);

    // A deleted installation is created anew by its line.
    await sql.query(`UPDATE installations SET deleted_at = now(), push_token = NULL WHERE app_id = $1 AND installation_id = 'os-ios-1'`, [app]);
    const revived = json(await cli('import', '--app', app, '--from', 'onesignal', file('one.csv', oneSignal)));
    expect(revived).toMatchObject({ created: 1, updated: 0, unchanged: 3 });
    expect((await installations(app)).find((row) => row.installation_id === 'os-ios-1')).toMatchObject({ push_token: APNS, badge: 3 });

    const wrong = await cli('import', '--app', app, '--from', 'onesignal', file('wrong.csv', 'token,platform\nfcm-a,android\n'));
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toMatch(/not a OneSignal export file: the header lacks id, identifier, device_type/);
  });

  it('exports our CSV, tokens only with --with-tokens, and imports it into another app as it was', async () => {
    const from = await newApp();
    json(await cli('import', '--app', from, '--from', 'onesignal', file('source.csv', oneSignal)));
    await sql.query(`UPDATE installations SET tags = '{beta,vip}' WHERE app_id = $1 AND installation_id = 'os-android-1'`, [from]);
    // A widget token (docs/api.md#widgets), and an Android installation on UnifiedPush (docs/api.md#unifiedpush).
    await sql.query(`UPDATE installations SET widget_push_token = $2 WHERE app_id = $1 AND installation_id = 'os-ios-1'`, [from, WIDGET]);
    await sql.query(`UPDATE installations SET push_token = NULL, web_push_subscription = $2 WHERE app_id = $1 AND installation_id = 'os-android-1'`, [
      from,
      { endpoint: 'https://fcm.googleapis.com/fcm/send/up-1', keys: { p256dh, auth } },
    ]);

    const bare = await cli('export', '--app', from);
    expect(bare.code).toBe(0);
    expect(bare.stderr).toBe('4 installations exported.\n');
    expect(bare.stdout).not.toContain(APNS);
    expect(bare.stdout).not.toContain(p256dh);
    expect(bare.stdout.split('\n')[0]).toBe(
      'installation_id,platform,push_provider,push_token,web_push_endpoint,web_push_p256dh,web_push_auth,widget_push_token,user_id,permission,app_version,os_version,model,locale,timezone,tags,properties,badge,live_activity_start_tokens,registered_at,last_seen_at,identifier_updated_at,permission_updated_at,invalidated_at,invalid_reason',
    );

    expect(bare.stdout).not.toContain(WIDGET);
    const full = await cli('export', '--app', from, '--with-tokens');
    expect(full.stdout).toContain(APNS);
    expect(full.stdout).toContain(WIDGET);
    const to = await newApp();
    const moved = json(await cli('import', '--app', to, '--from', 'csv', file('export.csv', full.stdout)));
    expect(moved).toMatchObject({ read: 4, created: 4, skipped_count: 0 });
    const strip = (rows: Record<string, unknown>[]) => rows.map(({ version: _version, ...row }) => row);
    expect(strip(await installations(to))).toEqual(strip(await installations(from)));
    expect(json(await cli('import', '--app', to, '--from', 'csv', file('export.csv', full.stdout)))).toMatchObject({ created: 0, updated: 0, unchanged: 4 });

    // Without tokens the file reads, but cannot create installations.
    const other = await newApp();
    const tokenless = json(await cli('import', '--app', other, '--from', 'csv', file('bare.csv', bare.stdout)));
    expect(tokenless).toMatchObject({ read: 4, created: 0, skipped_count: 4 });
  });
});
