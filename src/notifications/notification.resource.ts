import { iso } from '../common/time';
import type { NotificationRow } from './notifications.repository';
import type { VariantFigures } from '../common/variant-statistics';
import { abPhaseShown } from '../common/variants';

/** What the resource is made of: a notifications row, with its variants' figures when read with them; whom it targeted is not part of it. */
export type NotificationResourceRow = Omit<NotificationRow, 'recipient_kind' | 'tags'> & { variant_statistics?: VariantFigures[] | null };

export function toNotificationResource(row: NotificationResourceRow) {
  return {
    id: row.id,
    notification: {
      title: row.title,
      body: row.body,
      image_url: row.image_url,
      action_url: row.action_url,
      localizations: row.localizations,
    },
    data: row.data,
    options: row.options,
    dry_run: row.options?.dry_run === true,
    target_users: row.target_users,
    statistics: {
      users: row.stat_users,
      installations: installationsOf(row),
      accepted: row.stat_accepted,
      received: row.stat_received,
      displayed: row.stat_displayed,
      opened: row.stat_opened,
      failed: row.stat_failed,
      skipped: row.stat_skipped,
      inbox_stored: row.stat_inbox_stored,
      inbox_read: row.stat_inbox_read,
    },
    created_at: iso(row.created_at),
    processing_started_at: iso(row.processing_started_at),
    completed_at: iso(row.completed_at),
    send_at: iso(row.send_at),
    canceled_at: iso(row.canceled_at),
    failure_reason: row.failure_reason,
    template: row.template ?? null,
    variants: variantsOf(row),
    ab_test: row.ab_phase
      ? { phase: abPhaseShown(row.ab_phase, row.completed_at)!, winner: row.ab_winner ?? null, decided_at: iso(row.ab_decided_at ?? null) }
      : null,
  };
}

/** docs/api.md#variants: each variant with its statistics (5.2), 0 where none of its rows were read. */
function variantsOf(row: NotificationResourceRow) {
  if (!row.variants) return null;
  const figures = new Map((row.variant_statistics ?? []).map((f) => [f.variant, f]));
  return row.variants.map((variant, index) => {
    const f = figures.get(index);
    return {
      key: variant.key,
      weight: variant.weight,
      statistics: {
        users: f?.users ?? 0,
        installations: f?.installations ?? 0,
        accepted: f?.accepted ?? 0,
        received: f?.received ?? 0,
        displayed: f?.displayed ?? 0,
        opened: f?.opened ?? 0,
        failed: f?.failed ?? 0,
        skipped: f?.skipped ?? 0,
        inbox_stored: 0,
        inbox_read: 0,
      },
    };
  });
}

export type NotificationResource = ReturnType<typeof toNotificationResource>;

/** A throttled send's whole audience while its fan-out writes it as turns come near (docs/api.md#pacing), then those it considered. */
function installationsOf(row: NotificationResourceRow): number {
  return row.fanned_out_at === null && row.fanout_audience !== null ? Math.max(row.stat_installations, row.fanout_audience) : row.stat_installations;
}
