import type { Client } from 'pg';

/**
 * The tag the seeding gives to exactly the installations the audiences scenario's three-condition
 * filter selects (android, app_version >= 4.2, a French locale), in SQL on the seed's n; checked
 * before use. Given by a later UPDATE, it would move those rows together into the table's last
 * pages, and a tag send would read 1,238 pages where the filter's matches lie on thousands
 * (bench/HISTORY.md "Audiences").
 */
export const SELECTED_TAG = 'selected';
const SELECTED_BY_N = `n % 20 BETWEEN 10 AND 16 AND n / 3 % 12 IN (2, 3) AND n % 2 = 1 AND n / 7 % 13 >= 2`;

/**
 * `count` installations of `appId` with realistic properties (bench/scenarios/audiences.ts): half
 * iOS, 35% Android, 15% web; app versions 3.0 to 4.12; 12 languages; last seen over 90 days; tags
 * beta (5%) and vip (1%); properties plan (free 70%, pro 25%, team 5%), purchases,
 * last_purchase_at, city. Installation n is `inst-<n>` of user `user-<n / 2>`; push tokens are
 * hex, so the fakes answer them but nothing checks them. `first` numbers them from there.
 */
export async function seedAudience(client: Client, appId: string, count: number, first = 1): Promise<void> {
  await client.query(
    `INSERT INTO installations (app_id, installation_id, platform, push_token, user_id, permission, registered_at, last_seen_at, device, tags, properties)
     SELECT $1, 'inst-' || n, CASE WHEN n % 20 < 10 THEN 'ios' WHEN n % 20 < 17 THEN 'android' ELSE 'web' END,
       md5(n::text) || md5((-n)::text), 'user-' || (n / 2), CASE WHEN n % 50 = 0 THEN 'denied' ELSE 'granted' END,
       now() - (n % 700) * interval '1 day', now() - (hashint4(n) & 65535) * interval '2 minutes',
       jsonb_build_object('app_version', (3 + n % 2)::text || '.' || (n / 7 % 13)::text || '.' || (n % 5)::text,
         'locale', (ARRAY['en_US','en_GB','fr_FR','fr_CA','de_DE','es_ES','it_IT','pt_BR','nl_NL','ja_JP','zh_CN','pl_PL'])[1 + n / 3 % 12],
         'timezone', 'Europe/Paris'),
       CASE WHEN n % 100 = 0 THEN '{beta,vip}'::text[] WHEN n % 20 = 1 THEN '{beta}'::text[] ELSE '{}'::text[] END
         || CASE WHEN ${SELECTED_BY_N} THEN ARRAY['${SELECTED_TAG}'] ELSE '{}'::text[] END,
       jsonb_build_object('plan', CASE WHEN n % 20 = 3 THEN 'team' WHEN n % 4 = 0 THEN 'pro' ELSE 'free' END,
         'purchases', n % 17, 'last_purchase_at', 1764115200 - (hashint4(n + 7) & 8388607), 'city', 'city-' || (n % 300))
     FROM generate_series($3::int, $3::int + $2::int - 1) AS n`,
    [appId, count, first],
  );
}
