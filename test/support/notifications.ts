import type { TestContext } from './create-test-app';
import { bearer } from './factories';
import { waitFor } from './wait-for';

/** The notification resource (docs/api.md#notification-resource), read through the API; fails unless 200. */
export async function readNotification(ctx: TestContext, token: string, id: string): Promise<Record<string, any>> {
  return (await ctx.http().get(`/api/v1/notifications/${id}`).set(bearer(token)).expect(200)).body.data;
}

/** A notification's trace (docs/api.md#delivery-trace), each delivery by its installation id; fails unless 200. */
export async function traceByInstallation(ctx: TestContext, token: string, id: string): Promise<Record<string, Record<string, any>>> {
  const deliveries: Record<string, any>[] = (await ctx.http().get(`/api/v1/notifications/${id}/deliveries`).set(bearer(token)).expect(200)).body.data;
  return Object.fromEntries(deliveries.map((d) => [d.installation_id, d]));
}

/** Each installation's [status, reason] in a notification's trace. */
export async function outcomesByInstallation(ctx: TestContext, token: string, id: string): Promise<Record<string, [string, string | null]>> {
  const trace = await traceByInstallation(ctx, token, id);
  return Object.fromEntries(Object.entries(trace).map(([installation, d]) => [installation, [d.status, d.reason]]));
}

/** Polls the notification until it has `completed_at` and returns it. */
export function notificationCompleted(ctx: TestContext, token: string, id: string, timeoutMs?: number, everyMs?: number): Promise<Record<string, any>> {
  return waitFor(
    async () => {
      const n = await readNotification(ctx, token, id);
      return n.completed_at ? n : null;
    },
    `notification ${id} to complete`,
    timeoutMs,
    everyMs,
  );
}

/** POST /api/v1/notifications to these users, answered 202; the new notification's id. */
export async function sendToUsers(ctx: TestContext, token: string, userIds: string[], notification: { title: string; body: string }): Promise<string> {
  const res = await ctx
    .http()
    .post('/api/v1/notifications')
    .set(bearer(token))
    .send({ recipients: { user_ids: userIds }, notification })
    .expect(202);
  return res.body.data.id;
}

/**
 * Polls the `notifications` row itself until it has `completed_at` and returns it: for a send delivered by
 * another process, or while the API may not answer.
 */
export function notificationRowCompleted(
  ctx: TestContext,
  id: string,
  what = `notification ${id} to complete`,
  timeoutMs?: number,
  everyMs?: number,
): Promise<Record<string, any>> {
  return waitFor(
    async () => {
      const [row] = await ctx.db.query(`SELECT * FROM notifications WHERE id = $1 AND completed_at IS NOT NULL`, [id]);
      return row;
    },
    what,
    timeoutMs,
    everyMs,
  );
}
