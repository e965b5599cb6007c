import { randomBytes } from 'node:crypto';
import type { Stack } from './stack';

export interface Seeded {
  /** Distinct user ids, in order. */
  userIds: string[];
  /** APNs device tokens of the iOS installations. */
  iosTokens: string[];
  /** The user of each iOS installation, in the order of iosTokens. */
  iosUserIds: string[];
  /** Client installation ids (what PATCH addresses). */
  installationIds: string[];
  count: number;
}

/** Rows per INSERT: keeps each statement's parameter arrays a few MB. */
const CHUNK = 20_000;

/**
 * `count` installations for `users` users (installation n belongs to user floor(n * users / count)),
 * half iOS, a quarter Android, a quarter Web, all granted, inserted straight into PostgreSQL
 * (registering a million through the API would be its own benchmark). Web subscriptions are
 * created by the fake, so it can decrypt what it receives.
 */
export async function seedInstallations(stack: Stack, count: number, users: number, prefix = 'u'): Promise<Seeded> {
  const seeded: Seeded = { userIds: [], iosTokens: [], iosUserIds: [], installationIds: [], count };
  for (let u = 0; u < users; u++) seeded.userIds.push(`${prefix}-${u}`);
  for (let start = 0; start < count; start += CHUNK) {
    const ids: string[] = [];
    const userIds: string[] = [];
    const platforms: string[] = [];
    const tokens: (string | null)[] = [];
    const subscriptions: (string | null)[] = [];
    for (let n = start; n < Math.min(count, start + CHUNK); n++) {
      const platform = n % 4 < 2 ? 'ios' : n % 4 === 2 ? 'android' : 'web';
      const id = `${prefix}-inst-${n}`;
      ids.push(id);
      const userId = seeded.userIds[Math.floor((n * users) / count)];
      userIds.push(userId);
      platforms.push(platform);
      if (platform === 'web') {
        const s = stack.web.createSubscription();
        tokens.push(null);
        subscriptions.push(JSON.stringify({ endpoint: s.endpoint, keys: s.keys }));
      } else {
        const token = platform === 'ios' ? randomBytes(32).toString('hex') : `fcm-${randomBytes(24).toString('base64url')}`;
        if (platform === 'ios') {
          seeded.iosTokens.push(token);
          seeded.iosUserIds.push(userId);
        }
        tokens.push(token);
        subscriptions.push(null);
      }
    }
    seeded.installationIds.push(...ids);
    await stack.db.query(
      `INSERT INTO installations (app_id, installation_id, platform, push_token, web_push_subscription, user_id, permission,
         registered_at, last_seen_at)
       SELECT $1, u.id, u.platform, u.token, u.subscription::jsonb, u.user_id, 'granted', now(), now()
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS u(id, user_id, platform, token, subscription)`,
      [stack.appId, ids, userIds, platforms, tokens, subscriptions],
    );
  }
  await stack.db.query('ANALYZE installations');
  return seeded;
}
